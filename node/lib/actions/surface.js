'use strict'
// Up for air: the head under water and the air running out (plugins/hazards.js drowns a player
// whose air is gone). Hold jump, as a player swims up, heading for the nearest dry ground in
// reach, until the head has been out of the water a few ticks; then on, jump held, onto that
// ground (pressed against its edge, a swimmer is lifted out as in vanilla): a bot that stops
// in deep water sinks again. pathfinder plans no way out of water onto a bank at its level.
const { Vec3 } = require('vec3')
const { ticksFor } = require('../ticks')
const { controlLoop } = require('../controls')
const { wet, headInWater, EYE } = require('../water')

const LAND_RADIUS = 16
// Farther than that (a lake or a sea), the nearest shore along SHORE_HEADINGS headings, ring by
// ring out to SHORE_RADIUS: a bench bot with no ground within 16 blocks trod water for half a
// game day, surfacing every 10 s. The ashore phase swims toward it for its 10 s; the next call
// starts nearer.
const SHORE_RADIUS = 64
const SHORE_HEADINGS = 16
const SHORE_RISE = 8 // from the floor of the water up to the banks
const OUT_TICKS = 3 // the head out of the water this many physics ticks in a row: surfaced
const MAX_TICKS = ticksFor(10000) // each phase: up, then ashore
const FULL_AIR = 20

// Open for a player to stand in: no collision, no water, no lava.
function open (block) {
  return Boolean(block) && block.boundingBox === 'empty' && !wet(block) && block.name !== 'lava'
}

// Ground: a dry solid block, not a lily pad or a canopy's leaves over the water.
function ground (block) {
  return Boolean(block) && block.boundingBox === 'block' && !wet(block) && block.name !== 'lily_pad' && !block.name.endsWith('_leaves')
}

// The top of the water the bot is in: its column read up from the feet while wet.
function waterTop (bot) {
  const p = bot.entity.position.floored()
  let y = p.y
  while (y - p.y < 64 && wet(bot.blockAt(new Vec3(p.x, y + 1, p.z)))) y++
  return y
}

// A shore a swimmer can get onto: its top at most one block over the water's (pressed against
// it, a swimmer is lifted that far, as in vanilla), with water beside it at its level or the
// one under (ground behind a wall is no shore). A bench bot headed for a bank two blocks over
// a lake's water, came up against it, sank and was pulled back into the lake for minutes.
const SIDES = [[1, 0], [-1, 0], [0, 1], [0, -1]]
function climbable (bot) {
  const top = waterTop(bot)
  return (x, y, z) => y <= top + 1 && SIDES.some(([dx, dz]) =>
    [y, y - 1].some((wy) => wet(bot.blockAt(new Vec3(x + dx, wy, z + dz)))) &&
    open(bot.blockAt(new Vec3(x + dx, y + 1, z + dz))))
}

// The nearest dry ground to stand on, not below the bot's feet (a dry cave under a lake's
// floor is no way out); `reach` says which of it will do.
function nearestLand (bot, reach) {
  const feet = Math.floor(bot.entity.position.y)
  const found = bot.findBlock({
    maxDistance: LAND_RADIUS,
    useExtraInfo: true,
    matching: (b) => b.position.y >= feet && ground(b) &&
      open(bot.blockAt(b.position.offset(0, 1, 0))) && open(bot.blockAt(b.position.offset(0, 2, 0))) &&
      reach(b.position.x, b.position.y, b.position.z)
  })
  return found ? { x: found.position.x, y: found.position.y, z: found.position.z } : null
}

function shoreAlongHeadings (bot, reach) {
  const p = bot.entity.position
  const feet = Math.floor(p.y)
  const cell = (x, y, z) => bot.blockAt(new Vec3(x, y, z))
  for (let d = LAND_RADIUS + 2; d <= SHORE_RADIUS; d += 2) {
    for (let i = 0; i < SHORE_HEADINGS; i++) {
      const a = (2 * Math.PI * i) / SHORE_HEADINGS
      const x = Math.floor(p.x + Math.cos(a) * d)
      const z = Math.floor(p.z + Math.sin(a) * d)
      for (let y = feet; y <= feet + SHORE_RISE; y++) {
        const b = cell(x, y, z)
        if (ground(b) && open(cell(x, y + 1, z)) && open(cell(x, y + 2, z)) && reach(x, y, z)) return { x, y, z }
      }
    }
  }
  return null
}

function feetDry (bot) {
  const p = bot.entity.position
  return bot.entity.onGround && !wet(bot.blockAt(p.floored())) && !headInWater(bot)
}

// Ground a swimmer can climb onto, near or along the headings (climbable: true); else any
// (a bank too high is still nearer air than the middle of a lake).
function landNear (bot) {
  const reach = climbable(bot)
  const low = nearestLand(bot, reach) || shoreAlongHeadings(bot, reach)
  if (low) return { ...low, climbable: true }
  const any = () => true
  const high = nearestLand(bot, any) || shoreAlongHeadings(bot, any)
  return high ? { ...high, climbable: false } : null
}

function run (bot, args, rec) {
  // looked for from the floor of deep water, the banks are more than SHORE_RISE above the
  // feet: looked for again once the head is out, unless ground to climb onto was found
  let land = landNear(bot)
  let lookedUp = false
  const from = bot.entity.position.clone()
  const where = (p) => ({ x: p.x, y: p.y, z: p.z })
  let phase = 'up'
  let since = 0 // the tick the phase began
  let good = 0 // ticks in a row the phase's aim held
  return controlLoop(bot, rec, (clock) => {
    const p = bot.entity.position
    if (!land?.climbable && !lookedUp && phase === 'up' && !headInWater(bot)) {
      lookedUp = true
      land = landNear(bot) || land
    }
    // with no ground in reach, up means up until the air is full: treading water, not sinking again
    const aim = phase === 'ashore' ? feetDry(bot) : !headInWater(bot) && (land || bot.oxygenLevel >= FULL_AIR)
    good = aim ? good + 1 : 0
    if (good >= OUT_TICKS) {
      if (phase !== 'up' || !land) return { surfaced: true, from: where(from), at: where(p), land, onLand: phase === 'ashore' }
      phase = 'ashore'
      since = clock.ticks
      good = 0
    }
    if (clock.ticks - since > MAX_TICKS) {
      if (phase === 'up' && headInWater(bot)) throw new Error(`still under water after ${MAX_TICKS} ticks at ${p.x.toFixed(1)},${p.y.toFixed(1)},${p.z.toFixed(1)}`)
      return { surfaced: true, from: where(from), at: where(p), land, onLand: false }
    }
    // on the bank, a held jump would hop on and never stand: jump only while in the water
    bot.setControlState('jump', phase === 'up' || Boolean(bot.entity.isInWater) || wet(bot.blockAt(p.floored())))
    if (land) {
      bot.lookAt(new Vec3(land.x + 0.5, p.y + EYE, land.z + 0.5), true)
      bot.setControlState('forward', Math.hypot(land.x + 0.5 - p.x, land.z + 0.5 - p.z) > 0.3)
    }
  })
}

function stop (bot, rec) {
  if (rec.cleanup) rec.cleanup()
}

module.exports = { run, stop, defaultTimeoutMs: 24000 }
