'use strict'
// What a mineflayer 4.39 bot needs to play the versions it lists as tested, installed on every
// bot (lib/bots.js) and on the node tests' bots (test/helpers.js) alike.
const { fixFoods } = require('./food_data')
const { fixBlocks } = require('./block_data')

// mineflayer writes entity_action with the numbers of 1.18-1.21.5 (its wake: 2, its sprint: 3
// and 4); 1.21.6 dropped the sneak actions and renumbered the rest, so there a wake asked to
// stop sprinting and a sprint was a horse's jump. The names are the same in every version.
const ACTIONS_1_18 = ['start_sneaking', 'stop_sneaking', 'stop_sleeping', 'start_sprinting', 'stop_sprinting',
  'start_riding_jump', 'stop_riding_jump', 'open_inventory', 'start_fall_flying']

function nameEntityActions (bot) {
  const write = bot._client.write.bind(bot._client)
  bot._client.write = (name, params) => {
    if (name === 'entity_action' && typeof params?.actionId === 'number' && ACTIONS_1_18[params.actionId]) {
      params = { ...params, actionId: ACTIONS_1_18[params.actionId] }
    }
    return write(name, params)
  }
}

// 1.21.9 sends velocities as lpVec3, in blocks a tick; mineflayer 4.39 still divides them by
// 8000 as it did the old 1/8000-block shorts, so a bot felt no knockback. Scaled back first.
function velocitiesInBlocks (bot) {
  if (!bot.registry.supportFeature('entityVelocityIsLpVec3')) return
  const scale = (packet) => {
    const v = packet.velocity
    if (v) packet.velocity = { x: v.x * 8000, y: v.y * 8000, z: v.z * 8000 }
  }
  bot._client.prependListener('spawn_entity', scale)
  bot._client.prependListener('entity_velocity', scale)
}

// 1.21.11 checks moves with the player's box in single precision (0.6f wide), which overlaps a
// block face that the bot's double-precision box (0.3 half width) stops flush against: the
// server silently sent the bot back, so it could not step up a block, climb out of water or
// walk along a wall (mineflayer issues 3911-3916; the server-side workaround is
// `/attribute <bot> minecraft:scale base set 0.9999999`). prismarine-physics' collisions stop
// the bot a hair (1e-5) short of a side face instead, which the float box does not close. A
// wider box would not do: its sums round past the face, and the next step goes through it.
// Installed once, for the whole process, by the first bot on such a server.
const WALL_GAP = 1e-5
let wallGapInstalled = false
const original = {}
function keepOffWalls (bot) {
  if (bot.registry.version['>=']('1.21.9')) installWallGap() // reported from 1.21.10 (1.21.11 surely): the gap costs nothing earlier
}

function installWallGap () {
  if (wallGapInstalled) return
  wallGapInstalled = true
  const AABB = require('prismarine-physics/lib/aabb')
  original.x = AABB.prototype.computeOffsetX
  original.z = AABB.prototype.computeOffsetZ
  const across = (a, b, lo1, hi1, lo2, hi2) => b[hi1] > a[lo1] && b[lo1] < a[hi1] && b[hi2] > a[lo2] && b[lo2] < a[hi2]
  const offset = (lo, hi, lo1, hi1, lo2, hi2) => function (other, d) {
    if (!across(this, other, lo1, hi1, lo2, hi2)) return d
    if (d > 0 && other[hi] <= this[lo] + WALL_GAP) return Math.min(this[lo] - WALL_GAP - other[hi], d)
    if (d < 0 && other[lo] >= this[hi] - WALL_GAP) return Math.max(this[hi] + WALL_GAP - other[lo], d)
    return d
  }
  AABB.prototype.computeOffsetX = offset('minX', 'maxX', 'minY', 'maxY', 'minZ', 'maxZ')
  AABB.prototype.computeOffsetZ = offset('minZ', 'maxZ', 'minX', 'maxX', 'minY', 'maxY')
}

function install (bot) {
  nameEntityActions(bot)
  bot.once('inject_allowed', () => {
    fixFoods(bot.registry)
    fixBlocks(bot.registry)
    velocitiesInBlocks(bot)
  })
  bot.once('inject_allowed', () => keepOffWalls(bot))
}

// The collisions as prismarine-physics has them (for a test that must leave the process as it
// found it).
function removeWallGap () {
  if (!wallGapInstalled) return
  const AABB = require('prismarine-physics/lib/aabb')
  AABB.prototype.computeOffsetX = original.x
  AABB.prototype.computeOffsetZ = original.z
  wallGapInstalled = false
}

module.exports = { install, installWallGap, removeWallGap, WALL_GAP }
