'use strict'
// A head inside a block: vanilla suffocates a player whose eyes are in a full cube of collision
// (gravel or sand fallen on it, a block placed there), not in a door, a ladder or a slab (their
// shape is smaller), nor in glass or leaves, which vanilla spares. The embedded world's damage
// (plugins/hazards.js) and the bot's snapshot (`inWall`, the reflexes' cue to dig its head
// free) ask the same question.
const { EYE } = require('./water')

const FULL_CUBE = '0,0,0,1,1,1'

function suffocates (registry, stateId) {
  const block = registry.blocksByStateId[stateId]
  if (!block || block.boundingBox !== 'block' || /glass|leaves/.test(block.name)) return false
  const { blocks, shapes } = registry.blockCollisionShapes
  const entry = blocks[block.name]
  const index = Array.isArray(entry) ? entry[stateId - block.minStateId] : entry
  const boxes = shapes[index]
  return boxes?.length === 1 && boxes[0].join(',') === FULL_CUBE
}

// Is the bot's eye cell such a block?
function headInWall (bot) {
  const block = bot.blockAt(bot.entity.position.offset(0, EYE, 0).floored(), false)
  return Boolean(block) && suffocates(bot.registry, block.stateId)
}

module.exports = { suffocates, headInWall }
