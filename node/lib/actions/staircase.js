'use strict'
// Dig a descending staircase down to a target y: each step one block forward and one down,
// the bot walking down onto it, so it never digs the block it stands on and never drops more
// than one block. args: { targetY, direction? ('north' | 'east' | 'south' | 'west'), straight?,
// light?, dam? } (straight: a hazard stops it rather than turning it: under a hut a turn opens a
// wall; light false: no torches, for a burrow or a dig-in that fills the cells it dug again; dam:
// water or lava in the way on every side is walled off with blocks held, lib/fill.js, rather than
// stopping it: `dammed` counts the blocks)
//
// A step clears three blocks of the column ahead (head room at the step edge, then the two the
// bot stands in below it) and needs a solid floor under them. Before digging, the blocks to dig,
// their neighbours and the floor are checked: a liquid (water, lava, still or flowing) anywhere
// there, or a falling block (sand, gravel) above the column, makes the staircase turn to another
// direction; a hole in the floor is filled from the inventory (cobblestone, dirt), else it turns.
// With no direction left it stops with an error naming the hazard and where it is.
// Returns { steps, y, turned, torches, dammed (with dam), reason } (reason: 'reached' or
// 'cancelled'). A bot with
// torches to spare lights the way it digs (lib/light_way.js): `torches` placed.
//
// The same steps with no drop make a tunnel (lib/actions/tunnel.js): two blocks cleared ahead
// at the bot's level, the floor under them checked and filled alike.
const { Vec3 } = require('vec3')
const { withTimeout } = require('../guard')
const { names } = require('../names')
const { tickCounter, ticksFor } = require('../ticks')
const { isLiquid, isEmpty, filler, fillFloor, dam } = require('../fill')
const { lightTheWay } = require('../light_way')

const DIRS = { north: new Vec3(0, 0, -1), east: new Vec3(1, 0, 0), south: new Vec3(0, 0, 1), west: new Vec3(-1, 0, 0) }
const ORDER = ['north', 'east', 'south', 'west'] // clockwise: index + 1 is a right turn
const NEIGHBOURS = [new Vec3(1, 0, 0), new Vec3(-1, 0, 0), new Vec3(0, 1, 0), new Vec3(0, -1, 0), new Vec3(0, 0, 1), new Vec3(0, 0, -1)]
const MAX_STEPS = 64
const DAM_KEEP = 8 // blocks a dam leaves held: a burrow fills its way in and seals its pocket after
const LANDING_TICKS = 20 // physics ticks waited for the bot to touch the ground before the first step
const STEP_MS = 15000 // digging three blocks with a poor tool, filling a hole and walking down
const DIG_MS = 10000
const WALK_STALL_TICKS = ticksFor(2000) // walking onto a step: physics ticks without getting closer (lib/ticks)

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const at = (p) => `${p.x},${p.y},${p.z}`

// The direction the bot faces (yaw 0 looks north in mineflayer, growing counter-clockwise).
function facing (bot) {
  const quarter = Math.round(bot.entity.yaw / (Math.PI / 2))
  return ORDER[((-quarter % 4) + 4) % 4]
}

// The cells a step in `dir` from the feet cell `feet` clears: head room at feet.y + 1, then down
// to where the bot will stand (feet.y - drop); its floor is the cell under that.
function stepCells (feet, dir, drop) {
  const col = feet.plus(DIRS[dir])
  const dig = [col.offset(0, 1, 0), col]
  if (drop) dig.push(col.offset(0, -1, 0))
  return { col, dig, stand: col.offset(0, -drop, 0), floor: col.offset(0, -drop - 1, 0) }
}

// A step's dam (walk.dam): the liquid in the cells to clear and in every one beside them (not
// the bot's own two) walled off, lowest first, DAM_KEEP blocks kept; the cells filled.
function damStep (bot, feet, dir, drop) {
  const body = [feet, feet.offset(0, 1, 0)]
  const { dig } = stepCells(feet, dir, drop)
  const cells = []
  for (const p of dig) {
    for (const q of [p, ...NEIGHBOURS.map((n) => p.plus(n))]) {
      if (!body.some((c) => c.equals(q)) && !cells.some((c) => c.equals(q))) cells.push(q)
    }
  }
  return dam(bot, cells.sort((a, b) => a.y - b.y), { dug: dig, keep: DAM_KEEP })
}

// What stops a step in `dir` from the feet cell `feet`, or null: a liquid in or next to a cell
// to clear, an undiggable one or one too hard for the tools held (ore a stone pickaxe cannot
// harvest, obsidian), a falling block overhead, a hole in the floor with no filler or nothing
// solid to fill it against (a cave below).
// `liquids` false: those are left out (a dam is to wall them off).
function hazardOf (bot, feet, dir, drop = 1, liquids = true) {
  const { dig, floor: under } = stepCells(feet, dir, drop)
  for (const p of dig) {
    const b = bot.blockAt(p)
    if (!b) return { what: 'an unloaded block', pos: p }
    for (const q of liquids ? [p, ...NEIGHBOURS.map((n) => p.plus(n))] : []) {
      const nb = bot.blockAt(q)
      if (isLiquid(bot, nb)) return { what: nb.name, pos: q }
    }
    if (isLiquid(bot, b)) continue // a cell of the dam's, dug once it is filled
    if (!isEmpty(bot, b) && (!b.diggable || b.hardness === null || b.hardness < 0)) return { what: `undiggable ${b.name}`, pos: p }
    if (!isEmpty(bot, b) && fastestDigMs(bot, b) > DIG_MS * 0.8) return { what: `${b.name} too hard to dig with the tools held`, pos: p }
  }
  const above = bot.blockAt(dig[0].offset(0, 1, 0))
  if (above && names(bot).falling.has(above.name)) return { what: `falling ${above.name} overhead`, pos: above.position }
  const floor = bot.blockAt(under)
  if (!floor) return { what: 'an unloaded block', pos: under }
  if (floor.boundingBox !== 'block' && !filler(bot)) return { what: `a hole (${floor.name}) and nothing to fill it`, pos: floor.position }
  if (floor.boundingBox !== 'block' && !NEIGHBOURS.some((n) => n.y <= 0 && bot.blockAt(under.plus(n))?.boundingBox === 'block')) {
    return { what: `a hole (${floor.name}) over open ground, nothing to fill it against`, pos: floor.position }
  }
  return null
}

// The quickest dig of `block` with what is held (or bare hands), in ms.
function fastestDigMs (bot, block) {
  let best = block.digTime(null, false, false, false, [], {})
  for (const item of bot.inventory.items()) {
    if (!/_(pickaxe|shovel|axe)$/.test(item.name)) continue
    best = Math.min(best, block.digTime(item.type, false, false, false, [], {}))
  }
  return best
}

async function digIfNeeded (bot, pos, rec) {
  const block = bot.blockAt(pos)
  if (!block || isEmpty(bot, block) || rec.cancelled) return
  // The steps' geometry never asks for it; this guard keeps it so whatever changes above.
  if (pos.equals(bot.entity.position.offset(0, -1, 0).floored())) throw new Error(`refusing to dig the block the bot stands on (${at(pos)})`)
  await bot.tool.equipForBlock(block, {})
  await withTimeout(bot.dig(block, true), DIG_MS, `digging ${block.name} at ${at(pos)}`)
}

// Walk onto the step ahead with the movement controls: forward to the middle of its cell.
function walkDown (bot, to, rec) {
  const target = new Vec3(to.x + 0.5, to.y, to.z + 0.5)
  return new Promise((resolve, reject) => {
    let best = Infinity
    const clock = tickCounter(bot)
    let lastProgress = 0
    const done = (err) => {
      clearInterval(timer)
      clock.stop()
      rec.walking = null
      bot.clearControlStates()
      return err ? reject(err) : resolve()
    }
    const timer = setInterval(() => {
      if (rec.cancelled) return done()
      const p = bot.entity.position
      const flat = Math.hypot(target.x - p.x, target.z - p.z)
      if (flat < 0.25 && bot.entity.onGround && Math.floor(p.y) === to.y) return done()
      if (flat < best - 0.05) { best = flat; lastProgress = clock.ticks }
      if (clock.ticks - lastProgress > WALK_STALL_TICKS) {
        return done(new Error(`could not walk down onto the step at ${at(to)} (${flat.toFixed(2)} blocks away)`))
      }
      bot.lookAt(new Vec3(target.x, p.y + bot.entity.height * 0.9, target.z), true)
      bot.setControlState('forward', flat >= 0.25)
      bot.setControlState('sneak', flat < 0.7 && Math.floor(p.y) === to.y) // down already: stop in the middle
    }, 50)
    rec.walking = done
  })
}

// One step of `drop` blocks down (0: level) in walk.dir, turning right or left away from a
// hazard, never back; false when cancelled. `what` names the dig in errors.
async function step (bot, walk, drop, rec, what) {
  const feet = bot.entity.position.floored()
  const i = ORDER.indexOf(walk.dir)
  const options = walk.straight ? [walk.dir] : [walk.dir, ORDER[(i + 1) % 4], ORDER[(i + 3) % 4]]
  const refused = []
  let chosen = null
  for (const d of options) {
    const h = hazardOf(bot, feet, d, drop)
    if (!h) { chosen = d; break }
    refused.push(`${d}: ${h.what} at ${at(h.pos)}`)
  }
  // a dam walls off a way's liquid (walk.dam), not the bot's own cells': standing in water, every
  // way has it beside, and no dam helps
  const dry = ![feet, feet.offset(0, 1, 0)].some((c) => isLiquid(bot, bot.blockAt(c)))
  for (const d of walk.dam && dry && !chosen ? options : []) {
    if (hazardOf(bot, feet, d, drop, false)) continue // a liquid is not all that is in the way
    try {
      walk.dammed += (await damStep(bot, feet, d, drop)).length
    } catch (e) {
      refused.push(`${d}: ${e.message}`)
      continue
    }
    const h = hazardOf(bot, feet, d, drop)
    if (!h) { chosen = d; break }
    refused.push(`${d}: dammed, still ${h.what} at ${at(h.pos)}`)
  }
  if (!chosen) throw new Error(`${what} blocked at ${at(feet)} after ${walk.steps} steps: ${refused.join('; ')}`)
  if (chosen !== walk.dir) { walk.turned++; walk.dir = chosen }
  const { dig, stand, floor } = stepCells(feet, walk.dir, drop)
  for (const p of dig) {
    await digIfNeeded(bot, p, rec)
    // What the digging showed (a liquid behind a dug block, a flow that came in) stops the step,
    // or is walled off too (walk.dam).
    let h = hazardOf(bot, feet, walk.dir, drop)
    if (h && walk.dam && !hazardOf(bot, feet, walk.dir, drop, false)) {
      try {
        walk.dammed += (await damStep(bot, feet, walk.dir, drop)).length
      } catch (e) {
        throw new Error(`${what} stopped at ${at(feet)}: ${e.message}`)
      }
      h = hazardOf(bot, feet, walk.dir, drop)
    }
    if (h && !/^a hole/.test(h.what)) throw new Error(`${what} stopped at ${at(feet)}: ${h.what} at ${at(h.pos)} came to light`)
  }
  if (rec.cancelled) return false
  if (bot.blockAt(floor).boundingBox !== 'block') await fillFloor(bot, floor)
  await walkDown(bot, stand, rec)
  if (rec.cancelled) return false
  walk.steps++
  if (walk.light && (await lightTheWay(bot, feet, rec))) walk.torches++
  await sleep(50) // let the drops of the step be picked up before the next look
  return true
}

async function run (bot, args, rec) {
  const targetY = args.targetY
  if (!Number.isInteger(targetY)) throw new Error(`staircase needs an integer targetY (got ${JSON.stringify(targetY)})`)
  if (args.direction !== undefined && !DIRS[args.direction]) {
    throw new Error(`unknown direction '${args.direction}' (one of ${ORDER.join(', ')})`)
  }
  const minY = (bot.game && bot.game.minY) || 0
  if (targetY <= minY) throw new Error(`targetY ${targetY} is at or below the bottom of the world (${minY})`)
  const start = bot.entity.position.floored()
  const wanted = start.y - targetY
  if (wanted > MAX_STEPS) throw new Error(`targetY ${targetY} is ${wanted} blocks down; at most ${MAX_STEPS} in one staircase`)
  // What was asked is judged before the bot's state: bad arguments get their own reason.
  // a bot just landing (a teleport, a jump, a step down) gets a second to touch the ground
  for (let t = 0; t < LANDING_TICKS && !bot.entity.onGround; t++) await bot.waitForTicks(1)
  if (!bot.entity.onGround) throw new Error('the bot is not standing on the ground')
  const deadline = Date.now() + Math.max(1, wanted) * STEP_MS
  const walk = { dir: args.direction || facing(bot), steps: 0, turned: 0, torches: 0, straight: args.straight === true, light: args.light !== false, dam: args.dam === true, dammed: 0 }
  while (bot.entity.position.floored().y > targetY) {
    if (rec.cancelled) return result(bot, walk, 'cancelled')
    if (Date.now() > deadline) throw new Error(`staircase timed out after ${wanted * STEP_MS} ms (${walk.steps} of ${wanted} steps)`)
    if (!(await step(bot, walk, 1, rec, 'staircase'))) return result(bot, walk, 'cancelled')
  }
  return result(bot, walk, 'reached')
}

function result (bot, walk, reason) {
  const dammed = walk.dam ? { dammed: walk.dammed } : {}
  return { steps: walk.steps, y: Math.floor(bot.entity.position.y), turned: walk.turned, torches: walk.torches, ...dammed, reason }
}

function stop (bot, rec) {
  bot.stopDigging()
  if (rec && rec.walking) rec.walking()
  bot.clearControlStates()
}

module.exports = { run, stop, step, result, facing, fastestDigMs, DIRS, ORDER, defaultTimeoutMs: MAX_STEPS * STEP_MS, MAX_STEPS, STEP_MS }
