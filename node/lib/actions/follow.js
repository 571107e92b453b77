'use strict'
// Follow a player (or any entity by username / name) for a while: pathfinder's dynamic
// GoalFollow, re-aimed as the target moves. Ends after durationMs with where it got to;
// fails when the target is not (or no longer) in view, so a caller never follows a ghost.
const { goals } = require('mineflayer-pathfinder')
const { walkingMovements } = require('../walking')
const { bound } = require('../path_search')

const LOST_MS = 5000 // the target out of view this long: give up

function findTarget (bot, name) {
  const player = bot.players[name]
  if (player && player.entity) return player.entity
  if (player && player.uuid) { // spawned before its name arrived: mineflayer never linked the two
    const e = Object.values(bot.entities).find((x) => x.type === 'player' && x.uuid === player.uuid)
    if (e) return e
  }
  const wanted = String(name).toLowerCase()
  let best = null
  for (const e of Object.values(bot.entities)) {
    if (e === bot.entity) continue
    if (e.username === name || (e.name && e.name.toLowerCase() === wanted)) {
      if (!best || bot.entity.position.distanceTo(e.position) < bot.entity.position.distanceTo(best.position)) best = e
    }
  }
  return best
}

function run (bot, args, rec) {
  const name = args.username
  const distance = args.distance ?? 2
  const durationMs = args.durationMs ?? 60000
  if (typeof name !== 'string' || !name) throw new Error('follow needs a username')
  const first = findTarget(bot, name)
  if (!first) throw new Error(`no entity '${name}' in view to follow`)
  const movements = walkingMovements(bot)
  movements.canDig = false // a player's house is followed through its door, never its wall
  movements.allow1by1towers = false // and nothing is placed to keep up
  movements.scafoldingBlocks = []
  bound(bot) // each re-aim is a new search, each one bounded
  bot.pathfinder.setMovements(movements)
  let target = first
  bot.pathfinder.setGoal(new goals.GoalFollow(target, distance), true)
  const started = Date.now()
  return new Promise((resolve, reject) => {
    let seenAt = Date.now()
    const timer = setInterval(() => {
      if (rec.cancelled) { clearInterval(timer); return resolve(null) }
      const now = findTarget(bot, name)
      if (now && now.isValid !== false) {
        seenAt = Date.now()
        if (now !== target) { target = now; bot.pathfinder.setGoal(new goals.GoalFollow(target, distance), true) }
      } else if (Date.now() - seenAt > LOST_MS) {
        clearInterval(timer)
        bot.pathfinder.setGoal(null)
        return reject(new Error(`lost sight of '${name}' for ${LOST_MS} ms`))
      }
      if (Date.now() - started >= durationMs) {
        clearInterval(timer)
        bot.pathfinder.setGoal(null)
        const p = bot.entity.position
        const d = target ? p.distanceTo(target.position) : null
        return resolve({ followed: name, ms: Date.now() - started, position: { x: p.x, y: p.y, z: p.z }, distance: d })
      }
    }, 250)
    rec.cleanup = () => clearInterval(timer)
  })
}

function stop (bot, rec) {
  if (rec.cleanup) rec.cleanup()
  bot.pathfinder.setGoal(null)
}

module.exports = { run, stop, findTarget, defaultTimeoutMs: 600000 }
