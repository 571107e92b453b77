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
  const movements = safeJumps(new Movements(bot))
  movements.allowSprinting = sprint
  for (const name of FALLING) {
    const block = bot.registry.blocksByName[name]
    if (block) movements.gravityBlocks.add(block.id)
  }
  return movements
}

// A jump over a gap (pathfinder's parkour, 1 block walking, up to 3 sprinting) only where a
// missed one lands no more than SAFE_FALL blocks down: with a ravine under it a jump missed on a
// loaded machine is a fall to the bottom (two 26.1 and 1.18.2 bench bots fell into the same
// ravine by their hut, one 22 blocks, and died). The way round, or down and up, is taken instead.
const SAFE_FALL = 3 // vanilla's fall damage starts past 3 blocks

function groundUnderGap (movements, node, dx, dz) {
  // the gap's own floor (dy -1) is air; a landing on dy is a fall of -(dy + 1) blocks
  for (let dy = -2; dy >= -SAFE_FALL - 1; dy--) if (movements.getBlock(node, dx, dy, dz).physical) return true
  return false
}

function safeJumps (movements) {
  if (movements.mcbotSafeJumps) return movements
  const jump = movements.getMoveParkourForward.bind(movements)
  movements.getMoveParkourForward = (node, dir, neighbors) => {
    const from = neighbors.length
    jump(node, dir, neighbors)
    for (let i = neighbors.length - 1; i >= from; i--) {
      const to = neighbors[i]
      const d = Math.max(Math.abs(to.x - node.x), Math.abs(to.z - node.z))
      for (let k = 1; k < d; k++) {
        if (!groundUnderGap(movements, node, dir.x * k, dir.z * k)) { neighbors.splice(i, 1); break }
      }
    }
  }
  movements.mcbotSafeJumps = true
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
// collectblock's) walk too, and jump only over gaps with ground near under them.
function install (bot) {
  if (bot.pathfinder?.movements) safeJumps(bot.pathfinder.movements).allowSprinting = false
  if (bot.collectBlock?.movements) safeJumps(bot.collectBlock.movements).allowSprinting = false
}

module.exports = { walkingMovements, safeJumps, digOnly, chase, chaseMovements, install }
