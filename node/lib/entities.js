'use strict'
// Hostility: entity.type === 'hostile' on current data ('mob' on older), with a name
// list as backstop (bridge-notes.md).
const HOSTILE_NAMES = new Set([
  'zombie', 'husk', 'drowned', 'zombie_villager', 'skeleton', 'stray', 'creeper', 'spider',
  'cave_spider', 'enderman', 'witch', 'slime', 'magma_cube', 'phantom', 'pillager', 'vindicator',
  'evoker', 'ravager', 'blaze', 'ghast', 'wither_skeleton', 'silverfish', 'endermite', 'guardian',
  'elder_guardian', 'shulker', 'hoglin', 'zoglin', 'piglin_brute', 'vex', 'warden'
])

function isHostile (e) {
  if (!e) return false
  if (e.type === 'hostile') return true
  return HOSTILE_NAMES.has(e.name)
}

module.exports = { isHostile, HOSTILE_NAMES }
