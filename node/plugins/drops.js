// Block drops per vanilla loot rules. flying-squid dropped every loot-table entry at once and
// ignored tools (stone dug by hand gave cobblestone, leaves gave leaves + sapling + stick +
// apple). Here: blocks with harvest tools drop nothing without one; common blocks follow the
// vanilla tables below; others use minecraft-data's blockLoot (silk-touch variants removed).
'use strict'

const { Vec3 } = require('vec3')
const { blockName, itemName } = require('./_names')

const chance = (p) => Math.random() < p
const range = (lo, hi) => lo + Math.floor(Math.random() * (hi - lo + 1))

// name (either spelling, see _names.js) -> () => [[item, count], ...]
const TABLE = {
  grass_block: () => [['dirt', 1]],
  dirt_path: () => [['dirt', 1]],
  farmland: () => [['dirt', 1]],
  stone: () => [['cobblestone', 1]],
  deepslate: () => [['cobbled_deepslate', 1]],
  coal_ore: () => [['coal', 1]],
  deepslate_coal_ore: () => [['coal', 1]],
  iron_ore: () => [['raw_iron', 1]],
  deepslate_iron_ore: () => [['raw_iron', 1]],
  gold_ore: () => [['raw_gold', 1]],
  copper_ore: () => [['raw_copper', range(2, 5)]],
  diamond_ore: () => [['diamond', 1]],
  redstone_ore: () => [['redstone', range(4, 5)]],
  lapis_ore: () => [['lapis_lazuli', range(4, 9)]],
  emerald_ore: () => [['emerald', 1]],
  gravel: () => [chance(0.1) ? ['flint', 1] : ['gravel', 1]],
  grass: () => (chance(0.125) ? [['wheat_seeds', 1]] : []),
  tall_grass: () => (chance(0.125) ? [['wheat_seeds', 1]] : []),
  glass: () => [],
  glass_pane: () => []
}
function leaves (name) {
  const wood = name.replace(/_leaves$/, '')
  const out = []
  if (chance(wood === 'jungle' ? 0.025 : 0.05)) out.push([`${wood}_sapling`, 1])
  if (chance(0.02)) out.push(['stick', range(1, 2)])
  if ((wood === 'oak' || wood === 'dark_oak') && chance(0.005)) out.push(['apple', 1])
  return out
}

// TABLE keyed by the running version's block names; items likewise.
const resolved = new WeakMap()
function tableFor (registry) {
  if (!resolved.has(registry)) {
    const t = {}
    for (const [name, roll] of Object.entries(TABLE)) {
      const n = blockName(registry, name)
      if (n) t[n] = roll
    }
    resolved.set(registry, t)
  }
  return resolved.get(registry)
}

module.exports.player = function (player, serv) {
  const { registry } = serv
  const table = tableFor(registry)

  function fromLoot (name) {
    const loot = registry.blockLoot?.[name]
    if (!loot) return []
    const entries = loot.drops.filter(d => !d.silkTouch)
    return entries
      .filter(d => entries.length === 1 || chance(d.dropChance ?? 1))
      .map(d => [d.item, range(...(d.stackSizeRange || [1, 1]).map(n => n ?? 1))])
  }

  player.on('dug', (data) => {
    if (!data.drops || !data.block) return
    const block = data.block
    const held = player.inventory.slots[36 + player.heldItemSlot]
    let items
    if (block.harvestTools && !(held && block.harvestTools[held.type])) items = []
    else if (table[block.name]) items = table[block.name]()
    else if (block.name.endsWith('_leaves')) items = leaves(block.name)
    else items = fromLoot(block.name)
    const base = data.drops[0] || {
      blockDropPosition: data.position.offset(0.5, 0.5, 0.5),
      blockDropWorld: player.world,
      blockDropPickup: 500,
      blockDropDeath: 5 * 60 * 1000
    }
    const drops = items
      .map(([item, n]) => [itemName(registry, item), n])
      .filter(([item, n]) => item && n > 0)
      .map(([item, n]) => ({
        ...base,
        blockDropVelocity: new Vec3(Math.random() * 0.8 - 0.4, 1.5, Math.random() * 0.8 - 0.4), // stay in the dug column
        blockDropId: registry.itemsByName[item].id,
        blockDropCount: n
      }))
    data.drops.splice(0, data.drops.length, ...drops)
  })
}
