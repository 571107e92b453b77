'use strict'
// pathfinder's goto has no overall timeout and may loop on 'stuck': drive it with setGoal,
// a progress check and the caller's deadline, then stop (docs/contracts.md BRIDGE-8). Each path search is
// bounded (lib/path_search): one stopped on its time or node limit ends the walk at once, one that
// searched all it could reach without a path leaves the bot walking its best part and the
// progress check says why. Failures start with 'no progress toward' (the caller may retry,
// digging), or, for a walk told to stop hurt (args.stopAtHealth: a flight under fire) or when a
// mob of a kind comes near (args.breakOffNear), 'broke off'.
const { goals } = require('mineflayer-pathfinder')
const { walkingMovements, digOnly } = require('../walking')
const { bound, watch } = require('../path_search')
const { tickCounter, ticksFor } = require('../ticks')
const { entityName } = require('../names')

// Without getting 0.5 closer for this much game time (in the bot's physics ticks, lib/ticks) the
// walk is stuck; a walk that digs its way asks for longer (stallMs).
const STALL_MS = 8000

function run (bot, args, rec) {
  const { x, y, z } = args
  const range = args.range ?? 1
  const stallMs = args.stallMs ?? STALL_MS
  if (![x, y, z].every(Number.isFinite)) throw new Error('move_to needs numeric x, y, z')
  const movements = walkingMovements(bot, args.sprint === true) // a flight sprints (lib/walking)
  movements.canDig = args.canDig ?? false
  // dig through these only (natural ground, logs, leaves), never what somebody built
  if (Array.isArray(args.digOnly) && args.digOnly.length) digOnly(bot, movements, args.digOnly)
  if (Array.isArray(args.keepOut) && args.keepOut.length === 6) {
    // A box (min corner inclusive, max exclusive) nothing is dug in or placed in: a walk that
    // digs out of a pit near a hut's site must not hole its floor or pillar up on it.
    const [x0, y0, z0, x1, y1, z1] = args.keepOut
    const inBox = (b) => {
      const p = b.position
      return p.x >= x0 && p.x < x1 && p.y >= y0 && p.y < y1 && p.z >= z0 && p.z < z1 ? 100 : 0
    }
    movements.exclusionAreasBreak.push(inBox)
    movements.exclusionAreasPlace.push(inBox)
  }
  bound(bot, { dig: movements.canDig })
  bot.pathfinder.setMovements(movements)
  // breakOffNear { name, within }: a flight that one of those comes this close to is no way out
  // (a creeper's: a strike pushes it back, a wall stops its blast: agency's reflexes)
  const b = args.breakOffNear
  const nearby = b && Number.isFinite(b.within) ? { name: entityName(bot.registry, b.name), within: b.within } : null
  const goal = new goals.GoalNear(x, y, z, range)
  let stopped = null
  const search = watch(bot, null, (why, r) => { if (r.status === 'timeout') stopped = stopped || why })
  bot.pathfinder.setGoal(goal)
  return new Promise((resolve, reject) => {
    let best = Infinity
    const clock = tickCounter(bot)
    const stallTicks = ticksFor(stallMs)
    let lastProgress = 0
    let settled = false
    // a flight's sprint ends with it: a chase after it (hunt, attack) runs on these movements
    const end = () => {
      settled = true
      clearInterval(timer)
      bot.removeListener('physicsTick', check)
      search.stop()
      clock.stop()
      movements.allowSprinting = false
    }
    // Checked on every physics tick, where the pathfinder moves the bot, so that no position of
    // the walk goes unseen however late a loaded machine runs the timers (a mob passed in a
    // few ticks is still seen); the interval keeps a cancel answered if physics stops.
    const check = () => {
      if (settled) return
      if (rec.cancelled) { end(); return resolve(null) }
      const p = bot.entity.position
      const d = p.distanceTo({ x, y, z })
      if (goal.isEnd(p.floored())) {
        end()
        bot.pathfinder.setGoal(null)
        return resolve({ position: { x: p.x, y: p.y, z: p.z }, distance: d })
      }
      if (stopped) {
        end()
        bot.pathfinder.setGoal(null)
        return reject(new Error(`no progress toward ${x},${y},${z} (distance ${d.toFixed(1)}): ${stopped}`))
      }
      if (Number.isFinite(args.stopAtHealth) && bot.health <= args.stopAtHealth) {
        end()
        bot.pathfinder.setGoal(null)
        return reject(new Error(`broke off: health ${bot.health} at or below ${args.stopAtHealth} (distance ${d.toFixed(1)})`))
      }
      const near = nearby && Object.values(bot.entities).find((e) => e !== bot.entity && e.name === nearby.name &&
        e.isValid !== false && e.position.distanceTo(p) <= nearby.within)
      if (near) {
        end()
        bot.pathfinder.setGoal(null)
        return reject(new Error(`broke off: a ${near.name} at ${near.position.distanceTo(p).toFixed(1)} blocks (distance ${d.toFixed(1)})`))
      }
      if (d < best - 0.5) { best = d; lastProgress = clock.ticks }
      if (clock.ticks - lastProgress > stallTicks) {
        end()
        bot.pathfinder.setGoal(null)
        const why = search.reason ? `; ${search.reason}` : ''
        reject(new Error(`no progress toward ${x},${y},${z} for ${stallTicks} ticks (distance ${d.toFixed(1)})${why}`))
      }
    }
    const timer = setInterval(check, 250)
    bot.on('physicsTick', check)
    rec.cleanup = end
  })
}

function stop (bot, rec) {
  if (rec.cleanup) rec.cleanup()
  bot.pathfinder.setGoal(null)
}

module.exports = { run, stop, defaultTimeoutMs: 60000 }
