'use strict'
// The bot walks; it sprints only when a caller asks (a flight: move_to's `sprint`). Vanilla
// charges 0.1 exhaustion a metre sprinted (and 0.2 a sprint-jump) and none a metre walked
// (plugins/hunger.js does the same): a bench bot at full health sprinting every path, as pathfinder
// does by default, went from food 17 to 7 in 100 s of errands.
const { Movements, goals } = require('mineflayer-pathfinder')
const { blockName } = require('./names')

// pathfinder keeps from digging under sand and gravel only: red sand falls too
const FALLING = ['red_sand', 'suspicious_sand', 'suspicious_gravel']

function walkingMovements (bot, sprint = false) {
  const movements = new Movements(bot)
  movements.allowSprinting = sprint
  for (const name of FALLING) {
    const block = bot.registry.blocksByName[name]
    if (block) movements.gravityBlocks.add(block.id)
  }
  return movements
}

// Let `movements` dig through these block names only (natural ground, logs, leaves): a path may
// cut through a bush or a hillside, never through what somebody built. Names in any version's
// form; ones this version does not have are left out.
function digOnly (bot, movements, names) {
  const allowed = new Set(names.map((n) => blockName(bot.registry, n)).filter(Boolean))
  movements.canDig = true
  for (const b of bot.registry.blocksArray) if (!allowed.has(b.name)) movements.blocksCantBreak.add(b.id)
  return movements
}

// Follow a moving entity to within `range` (a chase: hunt, attack), called on each beat of it.
// A goal already following it is left to run while it walks or digs: a new goal every beat made
// pathfinder drop its path and any block half dug (a chase digging through a wall got nowhere).
function chase (bot, entity, range) {
  const pf = bot.pathfinder
  const following = pf.goal instanceof goals.GoalFollow && pf.goal.entity === entity
  if (following && (pf.isMoving() || pf.isMining())) return
  pf.setGoal(new goals.GoalFollow(entity, range), true)
}

// Put a chase (hunt, attack) on movements of its own: walking, digging only the `dig` block
// names when given; not whatever the last action left (pathfinder's first movements and
// collectblock's dig anything, a hut's wall too). Returns the undo, for the chase's end.
function chaseMovements (bot, dig = null) {
  const before = bot.pathfinder.movements
  const movements = walkingMovements(bot)
  movements.canDig = false
  if (Array.isArray(dig) && dig.length) digOnly(bot, movements, dig)
  bot.pathfinder.setMovements(movements)
  return () => bot.pathfinder.setMovements(before)
}

// The movements the plugins made for themselves on inject (pathfinder's own, used by a chase;
// collectblock's) walk too.
function install (bot) {
  if (bot.pathfinder?.movements) bot.pathfinder.movements.allowSprinting = false
  if (bot.collectBlock?.movements) bot.collectBlock.movements.allowSprinting = false
}

module.exports = { walkingMovements, digOnly, chase, chaseMovements, install }
