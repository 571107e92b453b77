'use strict'
// Hand items to another player: walk up to them (pathfinder's GoalFollow: they may move),
// face them and toss. The server's pickup does the rest: an item is picked up by a player
// within reach once its pickup delay is over. A toss that comes back (this bot picked its
// own items up) or that lies on the ground (taken back first) is tried again; the action is done
// when the items have left this bot and no dropped stack of them lies between the two.
const { goals } = require('mineflayer-pathfinder')
const { walkingMovements } = require('../walking')
const { itemName } = require('../names')
const { findTarget } = require('./follow')
const { bound } = require('../path_search')
const { tickCounter, ticksFor, lookAndSend } = require('../ticks')

// A thrown stack may be taken only after 40 game ticks, when it lies still: about 3 blocks out
// in vanilla, 3.4 in the embedded world (plugins/items.js). Thrown from 2.4 to 3.7 blocks (an
// attempt's distance and SLACK), it comes to rest within the receiver's reach in both; from
// closer it rests beyond it (from 1.8, the old closest, a delivery's planks came back).
const DISTANCES = [3.0, 2.7, 3.3] // blocks from the receiver, one per attempt
const TOO_CLOSE = 2.4
const SLACK = 0.4 // how much farther than the attempt's distance still throws
// GoalFollow ends on a block within its range of the receiver's block: the bot's own position in
// it may be up to ~0.8 farther. Following to 0.5 inside the distance ends within distance + SLACK.
const FOLLOW_INSIDE = 0.5
const STALLED = 'could not get within'
// A toss is over when the stacks it threw were seen and are gone (taken), or at SETTLE_CAP_MS
// (they lie out of reach). A thrown stack waits 40 game ticks before anyone may take it, as
// vanilla's: a fixed 2.5 s wait ran out first on a loaded machine, whose ticks fall behind the
// wall clock, and the bot walked over its stacks and took them back (tests/integration/test_give.py).
const SETTLE_CAP_MS = 10000
const SPAWN_MS = 3000 // no stack of the item seen within this: nothing was thrown
// Walking up to the receiver: no 0.5 blocks closer for this many of the bot's physics ticks
// is stuck (lib/ticks).
const STALL_TICKS = ticksFor(10000)
const SIGHT_MS = 5000 // a player who just arrived or teleported is in view within this

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function held (bot, name) {
  return bot.inventory.items().filter((i) => i.name === name).reduce((n, i) => n + i.count, 0)
}

// The dropped stacks of the item within 8 blocks of `where`, but those in `before` (ids of
// stacks that lay there before the toss: someone else's, not this toss's to wait for or take back).
function dropsNear (bot, itemId, where, before = new Set()) {
  const out = []
  for (const e of Object.values(bot.entities)) {
    if (e.name !== 'item' || !e.position || before.has(e.id) || e.position.distanceTo(where) > 8) continue
    const dropped = typeof e.getDroppedItem === 'function' ? e.getDroppedItem() : null
    if (dropped && dropped.type === itemId) out.push({ entity: e, count: dropped.count })
  }
  return out
}

const lyingNear = (bot, itemId, where, before) => dropsNear(bot, itemId, where, before).reduce((n, d) => n + d.count, 0)

const itemIds = (bot) => new Set(Object.values(bot.entities).filter((e) => e.name === 'item').map((e) => e.id))

async function settle (bot, itemId, where, rec, before) {
  const started = Date.now()
  let seen = false
  while (!rec.cancelled && Date.now() - started < SETTLE_CAP_MS) {
    if (lyingNear(bot, itemId, where, before) > 0) seen = true
    else if (seen || Date.now() - started > SPAWN_MS) return
    await sleep(100)
  }
}

// Items that fell out of the receiver's reach: walk over them to take them back.
async function pickBackUp (bot, itemId, where, rec, before) {
  for (const { entity } of dropsNear(bot, itemId, where, before)) {
    if (rec.cancelled || !entity.isValid) continue
    const p = entity.position
    bot.pathfinder.setGoal(new goals.GoalNear(p.x, p.y, p.z, 0))
    const started = Date.now()
    while (!rec.cancelled && entity.isValid && Date.now() - started < 8000) await sleep(200)
    bot.pathfinder.setGoal(null)
  }
  await settle(bot, itemId, where, rec, before)
}

// Backing off a receiver too close: a standing cell BACK_OFF blocks from it, away from it (or,
// from the very same spot, the first open one around); an inverted follow when none is open.
// Bots that log in at one spawn stand in one block, where the inverted follow found no path.
const BACK_OFF = 3
const AROUND = [[1, 0], [0, 1], [-1, 0], [0, -1], [1, 1], [-1, 1], [1, -1], [-1, -1]]

function backOff (bot, target) {
  const from = target.position
  const dx = bot.entity.position.x - from.x
  const dz = bot.entity.position.z - from.z
  const len = Math.hypot(dx, dz)
  const dirs = [...(len > 0.1 ? [[dx / len, dz / len]] : []), ...AROUND.map(([x, z]) => [x / Math.hypot(x, z), z / Math.hypot(x, z)])]
  for (const [ux, uz] of dirs) {
    const p = from.offset(ux * BACK_OFF, 0, uz * BACK_OFF).floored()
    const [ground, feet, head] = [-1, 0, 1].map((dy) => bot.blockAt(p.offset(0, dy, 0)))
    if (ground?.boundingBox === 'block' && feet?.boundingBox === 'empty' && head?.boundingBox === 'empty') {
      return new goals.GoalBlock(p.x, p.y, p.z)
    }
  }
  return new goals.GoalInvert(new goals.GoalFollow(target, TOO_CLOSE + 0.5))
}

async function approach (bot, name, distance, rec) {
  const movements = walkingMovements(bot)
  movements.canDig = false // walk to a player, never through what they built
  movements.allow1by1towers = false
  movements.scafoldingBlocks = []
  bound(bot)
  bot.pathfinder.setMovements(movements)
  const started = Date.now()
  let target = findTarget(bot, name)
  while (!target && !rec.cancelled && Date.now() - started < SIGHT_MS) { // a player who just arrived
    await sleep(200)
    target = findTarget(bot, name)
  }
  if (!target) throw new Error(`no player '${name}' in view to give to`)
  let heading = null // 'to' the receiver, or 'away' from one too close
  let best = Infinity
  const clock = tickCounter(bot)
  let progressAt = 0
  try {
    while (!rec.cancelled) {
      target = findTarget(bot, name)
      if (!target) throw new Error(`lost sight of '${name}'`)
      const d = bot.entity.position.distanceTo(target.position)
      if (d <= distance + SLACK && d >= TOO_CLOSE) return target
      const want = d < TOO_CLOSE ? 'away' : 'to'
      if (want !== heading) {
        heading = want
        best = want === 'away' ? -Infinity : Infinity
        progressAt = clock.ticks
        bot.pathfinder.setGoal(want === 'away' ? backOff(bot, target) : new goals.GoalFollow(target, distance - FOLLOW_INSIDE), true)
      }
      // progress is getting closer, or, backing off a receiver too close, getting further
      const better = want === 'away' ? d > best + 0.5 : d < best - 0.5
      if (better) { best = d; progressAt = clock.ticks }
      if (clock.ticks - progressAt > STALL_TICKS) {
        const how = want === 'away' ? `no further for ${STALL_TICKS} ticks (still only` : `no closer for ${STALL_TICKS} ticks (still`
        throw new Error(`${STALLED} ${distance} blocks of '${name}': ${how} ${d.toFixed(1)} away)`)
      }
      await sleep(200)
    }
    return null
  } finally {
    clock.stop()
    bot.pathfinder.setGoal(null)
  }
}

async function run (bot, args, rec) {
  const to = args.player
  const count = args.count ?? 1
  if (typeof to !== 'string' || !to) throw new Error('give needs a player')
  if (!Number.isInteger(count) || count < 1) throw new Error('give needs a count of at least 1')
  const name = itemName(bot.registry, args.item) || args.item
  const item = bot.registry.itemsByName[name]
  if (!item) throw new Error(`unknown item '${args.item}'`)
  if (to === bot.username) return { given: 0, to, item: name, self: true }
  const start = held(bot, name)
  if (start < count) throw new Error(`holds ${start} ${name}, cannot give ${count}`)
  const before = itemIds(bot) // stacks lying about already are not this delivery's
  for (const [i, distance] of DISTANCES.entries()) {
    let target
    try {
      target = await approach(bot, to, distance, rec)
    } catch (e) {
      // a walk that stalls (a wall, a ledge) may get to another distance from where it is
      if (e.message.startsWith(STALLED) && i < DISTANCES.length - 1) continue
      throw e
    }
    if (!target) return null // cancelled
    const left = count - (start - held(bot, name))
    if (left > 0) {
      await lookAndSend(bot, target.position.offset(0, 1, 0)) // the toss flies the way the server has the bot look
      await bot.toss(item.id, null, left)
    }
    await settle(bot, item.id, target.position, rec, before)
    const given = start - held(bot, name)
    if (given >= count && lyingNear(bot, item.id, target.position, before) === 0) {
      return { given: count, to, item: name, attempts: i + 1 }
    }
    await pickBackUp(bot, item.id, target.position, rec, before)
  }
  const at = (p) => p ? `${p.x.toFixed(1)},${p.y.toFixed(1)},${p.z.toFixed(1)}` : '?'
  const receiver = findTarget(bot, to)
  throw new Error(`the ${name} did not reach '${to}' (${start - held(bot, name)} of ${count} left this bot, ` +
    `${lyingNear(bot, item.id, bot.entity.position, before)} lie on the ground; this bot at ${at(bot.entity.position)}, ` +
    `'${to}' at ${at(receiver && receiver.position)})`)
}

function stop (bot) { bot.pathfinder.setGoal(null) }

module.exports = { run, stop, defaultTimeoutMs: 120000 }
