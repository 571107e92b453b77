'use strict'
// Is a block water a player's head can be in (water, a bubble column, water plants, a
// waterlogged block)? The air reflex's snapshot field and the surface action ask.
const WET = new Set(['water', 'bubble_column', 'seagrass', 'tall_seagrass', 'kelp', 'kelp_plant'])
const EYE = 1.62

function wet (block) {
  if (!block) return false
  if (WET.has(block.name)) return true
  const props = typeof block.getProperties === 'function' ? block.getProperties() : {}
  return props.waterlogged === true || props.waterlogged === 'true'
}

function headInWater (bot) {
  return wet(bot.blockAt(bot.entity.position.offset(0, EYE, 0).floored()))
}

module.exports = { wet, headInWater, EYE }
