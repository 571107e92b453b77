'use strict'
// A head inside a block: vanilla suffocates a player whose eyes are in a full cube of collision
// (gravel or sand fallen on it, a block placed there), not in a door, a ladder or a slab (their
// shape is smaller), nor in glass or leaves, which vanilla spares. The embedded world's damage
// (plugins/hazards.js) and the bot's snapshot (`inWall`, the reflexes' cue to dig its head
// free) ask the same question.
const { Vec3 } = require('vec3')
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

// The cells vanilla checks (Entity.isInWall): a box 0.8 of a player's width (0.6) across,
// around the eyes, flat at their height; up to four cells when the player stands near a corner.
const HALF_BOX = 0.24

function eyeCells (position) {
  const y = Math.floor(position.y + EYE)
  const cells = []
  for (let x = Math.floor(position.x - HALF_BOX); x <= Math.floor(position.x + HALF_BOX); x++) {
    for (let z = Math.floor(position.z - HALF_BOX); z <= Math.floor(position.z + HALF_BOX); z++) cells.push({ x, y, z })
  }
  return cells
}

// Is any of the bot's eye cells such a block?
function headInWall (bot) {
  return eyeCells(bot.entity.position).some((c) => {
    const block = bot.blockAt(new Vec3(c.x, c.y, c.z), false)
    return Boolean(block) && suffocates(bot.registry, block.stateId)
  })
}

module.exports = { suffocates, eyeCells, headInWall }
