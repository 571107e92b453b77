'use strict'
// Fill an empty bucket: { fluid: 'water' | 'lava' } from the nearest source block (level 0)
// within reach of the eyes that the look meets first, or { fluid: 'milk' } from the nearest cow
// or mooshroom within reach. The bot equips the bucket, looks, uses it and waits for the filled
// bucket. The walk near is the caller's (agency/tools/buckets.py); with no source in view from
// there, the action steps to a standing cell (never in a fluid) from which the nearest source
// within SEEK is in reach and in view (a pool's near cells are often flowing, its sources under
// a rim: found live, six lava cells tried in a cave and none taken).
const { tickCounter, ticksFor } = require('../ticks')
const moveTo = require('./move_to')
const { findWithin } = require('../find_blocks')

const REACH = 4.5
const SEEK = 8 // sources this far from the bot are stepped up to
const STAND = 3 // blocks around a source (and 0..2 above it) a standing cell is looked for in
const WAIT_TICKS = ticksFor(2000)
const FILLED = { water: 'water_bucket', lava: 'lava_bucket', milk: 'milk_bucket' }
const MILKED = new Set(['cow', 'mooshroom'])

const count = (bot, name) => bot.inventory.items().filter((i) => i.name === name).reduce((n, i) => n + i.count, 0)

const eyesOf = (bot, feet = bot.entity.position) => feet.offset(0, bot.entity.height * 0.9, 0)
// Where a look at a fluid cell aims: just under its surface, the face a look from above or
// the side meets first (its centre is hidden by the rim of a pool sunk in the floor).
const aimAt = (cell) => cell.offset(0.5, 0.85, 0.5)
const isSource = (b) => b && Number((b.getProperties().level ?? 0)) === 0

function sourcesNear (bot, fluid, range) {
  const def = bot.registry.blocksByName[fluid]
  const eyes = eyesOf(bot)
  return findWithin(bot, { matching: def.id, maxDistance: range, count: 64, filter: isSource })
    .map((p) => bot.blockAt(p))
    .sort((a, b) => a.position.distanceTo(eyes) - b.position.distanceTo(eyes))
}

function sources (bot, fluid) {
  const eyes = eyesOf(bot)
  return sourcesNear(bot, fluid, 6).filter((b) => aimAt(b.position).distanceTo(eyes) <= REACH)
}

// A cell the bot can stand in (solid below, feet and head open and dry) from which `source` is
// in reach and in view; the one nearest the bot, or null.
function standingCell (bot, source) {
  const open = (b) => b && b.boundingBox === 'empty' && !['water', 'lava'].includes(b.name)
  const here = bot.entity.position
  const cells = []
  for (let dy = 0; dy <= 2; dy++) {
    for (let dx = -STAND; dx <= STAND; dx++) {
      for (let dz = -STAND; dz <= STAND; dz++) {
        const c = source.position.offset(dx, dy, dz)
        const [below, feet, head] = [-1, 0, 1].map((k) => bot.blockAt(c.offset(0, k, 0)))
        if (below?.boundingBox !== 'block' || !open(feet) || !open(head)) continue
        const eyes = eyesOf(bot, c.offset(0.5, 0, 0.5))
        if (aimAt(source.position).distanceTo(eyes) > REACH - 0.5) continue
        if (inView(bot, source.position, eyes)) cells.push(c)
      }
    }
  }
  cells.sort((a, b) => a.distanceTo(here) - b.distanceTo(here))
  return cells[0] || null
}

async function stepToViewOf (bot, fluid, rec) {
  for (const source of sourcesNear(bot, fluid, SEEK).slice(0, 8)) {
    const cell = standingCell(bot, source)
    if (!cell) continue
    try {
      await moveTo.run(bot, { x: cell.x + 0.5, y: cell.y, z: cell.z + 0.5, range: 0.5 }, rec)
    } catch (e) {
      continue // no way there: the next source
    }
    if (inView(bot, source.position)) return source
  }
  return null
}

// The first cell a look at `target` meets is `target` itself (nothing solid in the way).
function inView (bot, target, eyes = eyesOf(bot)) {
  const to = aimAt(target)
  const d = to.minus(eyes)
  const len = d.norm()
  for (let t = 0; t < len; t += 0.05) {
    const p = eyes.plus(d.scaled(t / len)).floored()
    if (p.equals(target)) return true
    const b = bot.blockAt(p)
    if (b && b.boundingBox === 'block') return false
  }
  return true
}

function waitFor (bot, pred, rec, what) {
  return new Promise((resolve, reject) => {
    const clock = tickCounter(bot)
    const timer = setInterval(() => {
      if (rec.cancelled || pred()) { clearInterval(timer); clock.stop(); return resolve() }
      if (clock.ticks > WAIT_TICKS) { clearInterval(timer); clock.stop(); reject(new Error(`${what} not filled within ${WAIT_TICKS} ticks`)) }
    }, 50)
  })
}

async function run (bot, args, rec) {
  const fluid = args.fluid
  if (!FILLED[fluid]) throw new Error(`fill_bucket needs fluid water, lava or milk (got ${JSON.stringify(fluid)})`)
  const bucket = bot.inventory.items().find((i) => i.name === 'bucket')
  if (!bucket) throw new Error('no empty bucket held')
  const filled = FILLED[fluid]
  const before = count(bot, filled)
  await bot.equip(bucket, 'hand')
  if (fluid === 'milk') {
    const cow = bot.nearestEntity((e) => MILKED.has(e.name) && e.position.distanceTo(bot.entity.position) <= REACH)
    if (!cow) throw new Error(`no cow within ${REACH} blocks to milk`)
    await bot.lookAt(cow.position.offset(0, cow.height * 0.6, 0), true)
    await bot.waitForTicks(2) // the look reaches the server before the use
    bot.activateEntity(cow)
  } else {
    const source = sources(bot, fluid).find((b) => inView(bot, b.position)) || await stepToViewOf(bot, fluid, rec)
    if (!source) throw new Error(`no ${fluid} source within ${REACH} blocks in view (nor one within ${SEEK} to step up to)`)
    await bot.equip(bucket, 'hand') // the walk may have changed the hand
    await bot.lookAt(aimAt(source.position), true)
    await bot.waitForTicks(2) // the look reaches the server before the use
    bot.activateItem()
    bot.deactivateItem()
  }
  await waitFor(bot, () => count(bot, filled) > before, rec, filled)
  return { fluid, filled, have: count(bot, filled) }
}

module.exports = { run, defaultTimeoutMs: 30000 } // a step up to a source included
