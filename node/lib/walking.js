'use strict'
// The bot walks; it sprints only when a caller asks (a flight: move_to's `sprint`). Vanilla
// charges 0.1 exhaustion a metre sprinted (and 0.2 a sprint-jump) and none a metre walked
// (plugins/hunger.js does the same): a bench bot at full health sprinting every path, as pathfinder
// does by default, went from food 17 to 7 in 100 s of errands.
const { Movements } = require('mineflayer-pathfinder')

function walkingMovements (bot, sprint = false) {
  const movements = new Movements(bot)
  movements.allowSprinting = sprint
  return movements
}

// The movements the plugins made for themselves on inject (pathfinder's own, used by a chase;
// collectblock's) walk too.
function install (bot) {
  if (bot.pathfinder?.movements) bot.pathfinder.movements.allowSprinting = false
  if (bot.collectBlock?.movements) bot.collectBlock.movements.allowSprinting = false
}

module.exports = { walkingMovements, install }
