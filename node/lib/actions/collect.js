'use strict'
// Collect up to `count` blocks of a type near the bot with mineflayer-collectblock.
// Trunks are tried nearest and lowest first (a trunk's base, not a log inside the canopy),
// other blocks nearest and highest first (an exposed face of stone, not a pit dug down to the
// deepest one, which the bot cannot walk out of); one block that fails (unreachable, or not
// collected within PER_BLOCK_MS) is skipped rather than failing the whole action, MAX_FAILED
// in a row end it. A block that failed is tried after the others by the collects of the next
// FORGET_MS (a bench bot's hut stood 5 minutes at one log out of reach: each collect the gather
// step started went for the same nearest log first and ran out of time on it). A block the bot holds no tool to
// harvest (stone without a pickaxe) is refused before anything is searched, and the action stops
// when the tool is gone (it broke on the block before). `stopped` in the result says why it
// ended short of `count`. A collectblock task of the bot's that never ended is let go of first
// (forgetStaleTask). With no slot free, a stack of filler is tossed before each block (../room.js:
// collectblock fails every block on a full inventory); `tossed` in the result lists them.

const { blockName, itemName, names } = require('../names')
const { bound, watch } = require('../path_search')
const { cannotHarvest } = require('../harvest')
const { SCAN_MAX_DISTANCE, SCAN_MAX_COUNT } = require('../limits')
const { pickPlant, uncollidable } = require('./pick_plant')
const { findWithin } = require('../find_blocks')
const { coverOver } = require('../snapshot')
const { tickCounter, ticksFor } = require('../ticks')
const { makeRoom } = require('../room')
const { Targets } = require('mineflayer-collectblock/lib/Targets')

const SPARE_TARGETS = 6 // candidates beyond `count`, for the ones that cannot be reached
// What each bot on this bridge is collecting: a fleet's bots go for different trees (a trunk's
// column) and blocks, never one another's - the second bot at a tree waited on drops the
// first one picked up.
const TAKEN = new Map() // key -> username
const spot = (name, p) => (isTrunk(name) ? `${p.x},${p.z}` : `${p.x},${p.y},${p.z}`)
const takenByOther = (bot, key) => TAKEN.has(key) && TAKEN.get(key) !== bot.username
const PER_BLOCK_MS = 45000 // collectblock has no time limit of its own: one stuck treetop must not eat the action
// Getting no closer to its block for this much game time (lib/ticks), neither digging nor at
// it, the bot is stuck and the block is given up (args.stallMs overrides): its path no longer
// fits the world (a 26.1 bench bot at 0b9814e jumped into the ceiling of its mine for four
// minutes, 45 s a block), or the server keeps setting it back.
const STALL_MS = 20000
const AT_BLOCK = 2 // blocks from the block's centre: at it, taking its drop
const CANCEL_WAIT_MS = 3000 // for collectblock to end a cancelled task
// Blocks in a row that failed (the path search, or their time): the rest are likely no better.
// Timed-out blocks count too: nine treetops out of reach at 45 s each outlasted the action.
const MAX_FAILED = 3
// Blocks a collect of this bot failed on (key -> until when, ms): later collects go for them last.
const FAILED = new Map()
const FORGET_MS = 5 * 60000
const failedKey = (bot, p) => `${bot.username}|${p.x},${p.y},${p.z}`
const failedLately = (bot, p) => (FAILED.get(failedKey(bot, p)) || 0) > Date.now()
function remember (bot, p) {
  const now = Date.now()
  for (const [key, until] of FAILED) if (until <= now) FAILED.delete(key) // a long soak's old ones
  FAILED.set(failedKey(bot, p), now + FORGET_MS)
}

const FACES = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]

// Water or lava on a face of the block at p.
function wet (bot, p) {
  const liquids = names(bot).liquids
  return FACES.some(([x, y, z]) => {
    const b = bot.blockAt(p.offset(x, y, z))
    return b !== null && liquids.has(b.name)
  })
}

async function run (bot, args, rec) {
  const name = blockName(bot.registry, args.block)
  if (!name) throw new Error(`unknown block '${args.block}' in ${bot.version}`)
  const def = bot.registry.blocksByName[name]
  const cannot = cannotHarvest(bot, def)
  if (cannot) throw new Error(cannot)
  const count = Math.max(1, args.count || 1)
  const item = (args.item && itemName(bot.registry, args.item)) || args.item || name
  const before = countItems(bot, item)
  const maxDistance = Math.min(args.maxDistance || 32, SCAN_MAX_DISTANCE)
  // maxY: none higher, and no path's cell above the head of a bot standing at maxY (under cover
  // at night the caller keeps the bot out of the open: keepUnder)
  const maxY = Number.isFinite(args.maxY) ? args.maxY : Infinity
  // covered: under a ceiling, nothing in the open either (no target whose drop would lie there,
  // no path's cell with nothing solid over it: keepUnder)
  const covered = Number.isFinite(maxY) && args.covered === true
  // The ceiling is part of the search, not a filter after it: the nearest logs were all up in
  // the canopies, and a trunk's foot at the bot's level was never in the list. Under it, a
  // block whose drop would lie in the open is none either (keepUnder's paths do not go there).
  // (a trunk's own logs over its foot are no cover; rock over rock is)
  const own = isTrunk(name) ? def.id : null
  const underCeiling = Number.isFinite(maxY) ? (b) => b.position.y <= maxY && (!covered || coverOver(bot, b.position, own) > 0) : null
  // dryOnly: none with water or lava on a face (the caller's rule for a block dug with a tool:
  // its hole floods as it opens, and under water the bot digs five times slower)
  const dry = args.dryOnly === true ? (b) => !wet(bot, b.position) : null
  const filter = underCeiling && dry ? (b) => underCeiling(b) && dry(b) : underCeiling || dry
  const positions = findWithin(bot, { matching: def.id, maxDistance, count: Math.min(count + SPARE_TARGETS + TAKEN.size, SCAN_MAX_COUNT), filter })
    .filter((p) => !takenByOther(bot, spot(name, p)))
  if (positions.length === 0) {
    const others = [...TAKEN.values()].filter((u) => u !== bot.username)
    const where = covered ? ' under cover' : '' // agency/tools/gathering.py NONE_UNDER_COVER
    throw new Error(`no ${name}${where} within ${maxDistance} blocks` + (others.length ? ` that ${others.join(', ')} are not collecting` : ''))
  }
  const me = bot.entity.position
  const up = isTrunk(name) ? 1 : -1
  positions.sort((a, b) => (failedLately(bot, a) - failedLately(bot, b)) * 1e9 +
    up * (a.y - b.y) * 4 + (a.distanceTo(me) - b.distanceTo(me)))
  bound(bot, { dig: true })
  const ceiling = underCeiling && keepUnder(bot, maxY, covered)
  const errors = []
  const noDrop = [] // blocks taken with no item after them: the reason a collect gains nothing
  let collected = 0
  let failed = 0
  let staleTasks = 0
  let stopped = null
  const tossed = [] // stacks of filler tossed to make room (../room.js)
  try {
    for (const p of positions) {
      if (rec.cancelled || countItems(bot, item) - before >= count) break
      if (ceiling) ceiling.forget() // the blocks dug for the last may have been the only cover
      stopped = cannotHarvest(bot, def) // the tool broke on the previous block
      if (stopped) { errors.push(stopped); break }
      const block = bot.blockAt(p)
      const key = spot(name, p)
      if (!block || block.type !== def.id || takenByOther(bot, key)) continue
      if (dry && !dry(block)) continue // flooded since the search (the last block's hole)
      TAKEN.set(key, bot.username)
      let timer = null
      let search = null
      let stall = null
      try {
        const late = new Promise((resolve, reject) => {
          timer = setTimeout(() => reject(new Error(`gave up on ${name} at ${p} after ${PER_BLOCK_MS} ms`)), PER_BLOCK_MS)
          stall = stallWatch(bot, p, def.id, args.stallMs ?? STALL_MS, (why) => reject(new Error(`${why} from ${name} at ${p}`)))
          // collectblock goes on after some failed searches (an empty best path counts as
          // arrived, and it digs from where it stands): any failed search ends this block.
          search = watch(bot, `${name} at ${p.x},${p.y},${p.z}`, (why) => reject(new Error(why)))
        })
        const room = await makeRoom(bot, item, p) // collectblock fails every block with no slot free
        if (room) tossed.push(room)
        const had = countItems(bot, item)
        const before = heldName(bot) // a tool that broke on the block is gone after the take
        if (forgetStaleTask(bot)) staleTasks++ // a plant's pick collects its drops with collectblock too
        const take = uncollidable(def) ? pickPlant(bot, block) : bot.collectBlock.collect(block, { ignoreNoPath: true })
        await Promise.race([take, late])
        collected++
        failed = 0
        if (countItems(bot, item) === had) noDrop.push(`${name} at ${p.x},${p.y},${p.z} taken with ${bot.heldItem ? bot.heldItem.name : before}`)
      } catch (err) {
        const why = (search && search.reason) || String((err && err.message) || err)
        errors.push(why)
        failed++
        if (!rec.cancelled || rec.timedOut) remember(bot, p) // not a reflex's preemption
        await abandon(bot)
      } finally {
        clearTimeout(timer)
        if (stall) stall.stop()
        if (search) search.stop()
        if (TAKEN.get(key) === bot.username) TAKEN.delete(key)
      }
      if (failed >= MAX_FAILED) { stopped = `gave up after ${MAX_FAILED} ${name} in a row could not be collected`; break }
    }
  } finally {
    if (ceiling) ceiling.lift()
  }
  const gained = countItems(bot, item) - before
  if (gained === 0 && errors.length) {
    const also = stopped && stopped !== errors[0] ? ` (${stopped})` : ''
    const none = noDrop.length ? `; no ${item} came from ${noDrop.length} taken (first: ${noDrop[0]})` : ''
    throw new Error(`could not collect any ${name}: ${errors[0]}${also}${none}`)
  }
  if (gained === 0 && noDrop.length) {
    throw new Error(`no ${item} came from ${noDrop.length} ${name} taken (first: ${noDrop[0]}, bot at ${at(bot)})`)
  }
  return { requested: count, found: positions.length, collected, gained, skipped: errors.length, stopped, staleTasks, tossed }
}

// collectblock cancels its last task before each collect and waits for it to end, and its task
// waits without a limit on what it does (an item drop to be picked up that does not go): one
// such task left every later collect of the bot waiting on it, the bot standing still for
// minutes while its hut's walls were to be gathered (two bench runs, both versions). One
// still listed when a collect starts is that one (an action runs one collect at a time, and
// abandon ended the last): its list is emptied, so it ends if it ever wakes, and the plugin
// gets a new one. True when there was such a task.
function forgetStaleTask (bot) {
  const plugin = bot.collectBlock
  if (plugin.targets.empty) return false
  plugin.targets.clear()
  plugin.targets = new Targets(bot)
  return true
}

// A failed block: the dig and pathfinder's goal are dropped (collectblock's task then fails
// and finishes), so the bot neither walks on toward it nor keeps digging it.
async function abandon (bot) {
  bot.stopDigging()
  bot.pathfinder.setGoal(null)
  let timer = null
  const cancelled = bot.collectBlock.cancelTask().catch(() => {})
  await Promise.race([cancelled, new Promise((resolve) => { timer = setTimeout(resolve, CANCEL_WAIT_MS) })])
  clearTimeout(timer)
}

// The paths to the blocks and their drops keep under the ceiling and (covered) under cover too: no cell
// passed through above maxY + 1, the head of a bot whose feet are at maxY (a dug-in bench bot's
// collect of an iron ore at its own level walked up through its hut and out of the door to it,
// into the night), nor one with no solid block over it, the open sky a snapshot calls cover 0
// (another's went down into a hollow open to the sky beside its hut, and the night's shelter
// called it back in). The blocks themselves are at maxY or below and under cover, so each drop
// lies where the bot's feet can go. The cost is past any search's budget: most moves end at a
// cost over 100, a parkour jump adds it unchecked. A block not loaded (no position) is out too.
const EXCLUDED = 1e6
function keepUnder (bot, maxY, covered) {
  const areas = bot.collectBlock.movements.exclusionAreasStep
  const open = new Map() // block position -> under the open sky, read once per block collected
  const inTheOpen = (p) => {
    const key = `${p.x},${p.y},${p.z}`
    if (!open.has(key)) open.set(key, coverOver(bot, p.offset(0, -1, 0)) === 0)
    return open.get(key)
  }
  const outside = (b) => (!b.position || b.position.y > maxY + 1 || (covered && inTheOpen(b.position)) ? EXCLUDED : 0)
  areas.push(outside)
  return {
    forget: () => open.clear(),
    lift: () => { const i = areas.indexOf(outside); if (i >= 0) areas.splice(i, 1) }
  }
}

// Calls onStall(why) once the bot has got no 0.5 closer to the block at p for stallMs of game
// time, neither digging (a path dug through, the block itself) nor within AT_BLOCK of it. Once
// the block is taken the watch ends: its drop may have rolled off (the block's time bounds that).
function stallWatch (bot, p, id, stallMs, onStall) {
  const clock = tickCounter(bot)
  const limit = ticksFor(stallMs)
  const centre = p.offset(0.5, 0.5, 0.5)
  let best = Infinity
  let last = 0
  const timer = setInterval(() => {
    const here = bot.blockAt(p)
    if (here && here.type !== id) { stop(); return }
    const d = bot.entity.position.distanceTo(centre)
    if (d < best - 0.5 || d <= AT_BLOCK || bot.targetDigBlock) {
      best = Math.min(best, d)
      last = clock.ticks
    } else if (clock.ticks - last > limit) {
      stop()
      onStall(`stuck: no closer than ${best.toFixed(1)} blocks in ${limit} ticks`)
    }
  }, 250)
  function stop () { clearInterval(timer); clock.stop() }
  return { stop }
}

function isTrunk (name) {
  return name.endsWith('_log') || name.endsWith('_stem')
}

function heldName (bot) {
  return bot.heldItem ? bot.heldItem.name : 'an empty hand'
}

function at (bot) {
  const p = bot.entity.position
  return `${p.x.toFixed(1)},${p.y.toFixed(1)},${p.z.toFixed(1)}` + (bot.entity.isInWater ? ' in water' : '')
}

function countItems (bot, name) {
  return bot.inventory.items().filter((i) => i.name === name).reduce((n, i) => n + Number(i.count), 0)
}

function stop (bot) {
  abandon(bot).catch(() => {})
}

module.exports = { run, stop, defaultTimeoutMs: 90000 }
