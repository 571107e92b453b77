'use strict'
// Climb straight up to targetY as a player pillars out of a mine: dig the blocks over the head,
// jump, and place a block where the feet were. pathfinder has the same moves, but each dig and
// each placement is a block update on its path, which throws the path away and searches again
// from nothing: a 1.18.2 bench bot digging up from y 20 to the surface at y 60 rose a block in
// about 5 s, its placements cut short mid-jump and the bot falling back, and stalled at y 40
// (its walk's progress check gave up). The same climb by this action took 30 s.
// args: { targetY, digOnly?, dam? } (digOnly: the only block names it may dig, in any version's
// form; dam: water or lava beside the head and in or beside the blocks to dig is walled off with
// blocks held first, lib/fill.js, those placed in the way dug whatever digOnly says)
//
// Before each dig, like the staircase (lib/actions/staircase.js): no liquid in or beside the
// block to dig, nothing that falls over it (sand, gravel would come down on the head), and the
// block diggable, allowed and not too hard for the tools held; else it stops with an error naming
// the hazard and where it is. Returns { steps, y, dammed (with dam: blocks placed), reason }
// (reason: 'reached' or 'cancelled').
const { Vec3 } = require('vec3')
const { withTimeout } = require('../guard')
const { names, blockName } = require('../names')
const { placeAgainst } = require('../hands')
const { lookAndSend } = require('../ticks')
const { fastestDigMs } = require('./staircase')
const { isLiquid, isEmpty, filler, fillFloor, dam } = require('../fill')

const SIDES = [new Vec3(1, 0, 0), new Vec3(-1, 0, 0), new Vec3(0, 0, 1), new Vec3(0, 0, -1)]
const MAX_STEPS = 384 // the overworld's whole height
const STEP_MS = 15000 // a dig with a poor tool, a jump, a placement and the landing
const DIG_MS = 10000
const LANDING_TICKS = 20 // physics ticks for the bot to touch the ground (before a step, after one)
const JUMP_TICKS = 12 // a jump is at its highest within about 6
const PLACE_AT = 1.2 // over the feet' block: the jump's 5th tick
const PLACE_TRIES = 4

const at = (p) => `${p.x},${p.y},${p.z}`

// What stops digging `pos` (a block over the head) and rising into it, or null. A block the
// climb's dam placed (`mine`) is dug whatever `allowed` says.
function hazardOf (bot, pos, allowed, mine = new Set()) {
  const b = bot.blockAt(pos)
  if (!b) return { what: 'an unloaded block', pos }
  for (const q of [pos, pos.offset(0, 1, 0), ...SIDES.map((s) => pos.plus(s))]) {
    const nb = bot.blockAt(q)
    if (isLiquid(bot, nb)) return { what: nb.name, pos: q }
  }
  const over = bot.blockAt(pos.offset(0, 1, 0))
  if (over && names(bot).falling.has(over.name)) return { what: `falling ${over.name} overhead`, pos: over.position }
  if (isEmpty(bot, b)) return null
  if (!b.diggable || b.hardness === null || b.hardness < 0) return { what: `undiggable ${b.name}`, pos }
  if (allowed && !allowed.has(b.name) && !mine.has(at(pos))) return { what: `${b.name}, not natural ground`, pos }
  if (fastestDigMs(bot, b) > DIG_MS * 0.8) return { what: `${b.name} too hard to dig with the tools held`, pos }
  return null
}

async function land (bot) {
  for (let t = 0; t < LANDING_TICKS && !bot.entity.onGround; t++) await bot.waitForTicks(1)
  return bot.entity.onGround
}

// The cells two and three over the feet that the bot's box (0.6 wide) reaches into: its own
// column's, and a neighbour's when a walk left the bot off the middle of its cell (its head
// would meet that column's rock in the jump).
function overhead (bot, feet) {
  const cells = []
  for (const dy of [2, 3]) {
    cells.push(feet.offset(0, dy, 0))
    for (const c of boxColumns(bot)) if (c.x !== feet.x || c.z !== feet.z) cells.push(new Vec3(c.x, feet.y + dy, c.z))
  }
  return cells
}

// The x/z columns the bot's box (0.6 wide) stands in: one to four.
function boxColumns (bot) {
  const p = bot.entity.position
  const columns = []
  for (const x of new Set([Math.floor(p.x - 0.3), Math.floor(p.x + 0.3)])) {
    for (const z of new Set([Math.floor(p.z - 0.3), Math.floor(p.z + 0.3)])) columns.push({ x, z })
  }
  return columns
}

// Dig the two blocks over the head: a jump's full height, its top over the block it leaves for
// a while. False when cancelled.
async function clearOverhead (bot, feet, rec, allowed, climb) {
  for (const over of overhead(bot, feet)) {
    const h = hazardOf(bot, over, allowed, climb.placed)
    if (h) throw new Error(`pillar blocked at ${at(feet)} after ${climb.steps} steps: ${h.what} at ${at(h.pos)}`)
    const block = bot.blockAt(over)
    if (isEmpty(bot, block)) continue
    await bot.tool.equipForBlock(block, {})
    await withTimeout(bot.dig(block, true), DIG_MS, `digging ${block.name} at ${at(over)}`)
    if (rec.cancelled) return false
    const after = hazardOf(bot, over, allowed, climb.placed) // what the dig showed: a flow behind it, a block fallen in
    if (after || !isEmpty(bot, bot.blockAt(over))) {
      const what = after ? `${after.what} at ${at(after.pos)}` : `${bot.blockAt(over).name} at ${at(over)}`
      throw new Error(`pillar stopped at ${at(feet)} after ${climb.steps} steps: ${what} came to light`)
    }
  }
  return true
}

// The cells a dam fills before a step (climb.dam), lowest first: beside the head, and the cells
// over it to dig with those beside and over them; none the bot's box is in (off the middle of
// its cell, its feet and head reach into a neighbour's: the server refuses a block there).
function shaftCells (bot, feet) {
  const body = bodyCells(bot, feet)
  const cells = SIDES.map((s) => feet.offset(0, 1, 0).plus(s))
  for (const over of overhead(bot, feet)) cells.push(over, over.offset(0, 1, 0), ...SIDES.map((s) => over.plus(s)))
  const unique = cells.filter((c, i) => !body.some((b) => b.equals(c)) && cells.findIndex((d) => d.equals(c)) === i)
  return unique.sort((a, b) => a.y - b.y)
}

// The cells at the feet's and the head's height the bot's box (0.6 wide) is in.
function bodyCells (bot, feet) {
  return boxColumns(bot).flatMap((c) => [new Vec3(c.x, feet.y, c.z), new Vec3(c.x, feet.y + 1, c.z)])
}

// One block up; false when cancelled.
async function step (bot, rec, allowed, climb) {
  const feet = bot.entity.position.floored()
  if (climb.dam) {
    try {
      // blocks kept for the steps left to climb on
      const keep = climb.targetY - feet.y
      for (const c of await dam(bot, shaftCells(bot, feet), { dug: overhead(bot, feet), keep })) {
        climb.dammed++
        climb.placed.add(at(c))
      }
    } catch (e) {
      throw new Error(`pillar blocked at ${at(feet)} after ${climb.steps} steps: ${e.message}`)
    }
  }
  if (!(await clearOverhead(bot, feet, rec, allowed, climb))) return false
  const ref = await floorUnder(bot, feet, climb)
  for (let attempt = 1; !(await jumpAndPlace(bot, ref, feet, climb)); attempt++) {
    if (rec.cancelled) return false
    if (attempt >= PLACE_TRIES) throw new Error(`pillar stopped at ${at(feet)}: ${climb.missed}, ${attempt} times`)
    // placed after the bot fell back into the cell: dug out again, and jumped once more (a
    // dig the server did not take, on a loaded 1.18.2 world, came back over the head: again)
    const inside = bot.blockAt(feet)
    if (inside && !isEmpty(bot, inside)) {
      await bot.tool.equipForBlock(inside, {})
      await withTimeout(bot.dig(inside, true), DIG_MS, `digging ${inside.name} out of ${at(feet)}`)
    }
    if (!(await land(bot))) throw new Error(`pillar stopped at ${at(feet)}: the bot did not come down again`)
    if (!(await clearOverhead(bot, feet, rec, allowed, climb))) return false
  }
  climb.steps++
  return true
}

// The block under the feet, to place the next one on. A bot at the edge of a hole (a cave's,
// a shaft's) stands on the block beside with the cell under its feet empty: that cell is
// filled first, against a block beside or under it, as the staircase fills a hole in its floor.
async function floorUnder (bot, feet, climb) {
  const under = feet.offset(0, -1, 0)
  if (bot.blockAt(under)?.boundingBox !== 'block') {
    if (!filler(bot)) throw new Error(`pillar stopped at ${at(feet)} after ${climb.steps} steps: nothing to place under the feet`)
    try {
      await fillFloor(bot, under)
    } catch (e) {
      throw new Error(`pillar stopped at ${at(feet)}: no solid block under the feet to place on (${e.message})`)
    }
  }
  const ref = bot.blockAt(under)
  if (!ref || ref.boundingBox !== 'block') throw new Error(`pillar stopped at ${at(feet)}: no solid block under the feet to place on`)
  return ref
}

// Jump and place a block where the feet were, near the top of the jump: the server takes the
// block only once it has the bot's feet out of the cell, and the bot lands on it only if it
// comes before the bot is down in the cell again (vanilla's jump, with two free blocks over
// the head, is over the block from its 3rd tick to its 8th, highest at its 5th and 6th; with
// one, the head stops it at 1.2 in its 5th). On a loaded machine a placement sent as the bot
// cleared the block was refused ("the player's feet are there") or came too late and left the
// bot inside it. True when the bot stands on the block; else climb.missed says why.
async function jumpAndPlace (bot, ref, feet, climb) {
  const item = filler(bot)
  if (!item) throw new Error(`pillar stopped at ${at(feet)} after ${climb.steps} steps: nothing to place under the feet`)
  await bot.equip(item, 'hand')
  await lookAndSend(bot, ref.position.offset(0.5, 1, 0.5)) // the placement's own look then turns nothing
  bot.setControlState('jump', true)
  try {
    for (let t = 0; t < JUMP_TICKS && bot.entity.position.y < feet.y + PLACE_AT; t++) await bot.waitForTicks(1)
  } finally {
    bot.setControlState('jump', false)
  }
  if (bot.entity.position.y < feet.y + 1) {
    const over = [2, 3].map((dy) => bot.blockAt(feet.offset(0, dy, 0))?.name).join(', ')
    climb.missed = `the jump did not clear the block (at y ${bot.entity.position.y.toFixed(2)}, over the head ${over})`
    await land(bot)
    return false
  }
  try {
    await withTimeout(placeAgainst(bot, ref, new Vec3(0, 1, 0)), 5000, `placing ${item.name} at ${at(feet)}`)
  } catch (e) {
    if (!/refused to place|did not answer|timed out/.test(e.message)) throw e
    climb.missed = e.message
    await land(bot)
    return false
  }
  if ((await land(bot)) && bot.entity.position.floored().y === feet.y + 1) return true
  climb.missed = `the bot did not land on the block it placed (at ${bot.entity.position.floored()})`
  return false
}

async function run (bot, args, rec) {
  const targetY = args.targetY
  if (!Number.isInteger(targetY)) throw new Error(`pillar needs an integer targetY (got ${JSON.stringify(targetY)})`)
  const start = bot.entity.position.floored()
  if (targetY - start.y > MAX_STEPS) throw new Error(`targetY ${targetY} is ${targetY - start.y} blocks up; at most ${MAX_STEPS}`)
  const allowed = Array.isArray(args.digOnly) ? new Set(args.digOnly.map((n) => blockName(bot.registry, n)).filter(Boolean)) : null
  if (!(await land(bot))) throw new Error('the bot is not standing on the ground')
  const climb = { steps: 0, missed: null, targetY, dam: args.dam === true, dammed: 0, placed: new Set() }
  const deadline = Date.now() + Math.max(1, targetY - start.y) * STEP_MS
  try {
    while (bot.entity.position.floored().y < targetY) {
      if (rec.cancelled) return result(bot, climb, 'cancelled')
      if (Date.now() > deadline) throw new Error(`pillar timed out (${climb.steps} of ${targetY - start.y} blocks)`)
      if (!(await step(bot, rec, allowed, climb))) return result(bot, climb, 'cancelled')
    }
  } catch (e) {
    // a placement failed mid-jump: the caller reads where the bot is (agency/execution/reflexes/
    // cover.py: up the column or back in its cell), so it fails standing, not in the air; a
    // landing that cannot be waited for (the physics stopped at a respawn) keeps the first error
    await land(bot).catch(() => {})
    throw e
  }
  return result(bot, climb, 'reached')
}

function result (bot, climb, reason) {
  const dammed = climb.dam ? { dammed: climb.dammed } : {}
  return { steps: climb.steps, y: Math.floor(bot.entity.position.y), ...dammed, reason }
}

function stop (bot) {
  bot.stopDigging()
  bot.clearControlStates()
}

module.exports = { run, stop, defaultTimeoutMs: 64 * STEP_MS, MAX_STEPS }
