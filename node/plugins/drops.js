// Block drops per vanilla loot rules. flying-squid dropped every loot-table entry at once and
// ignored tools (stone dug by hand gave cobblestone, leaves gave leaves + sapling + stick +
// apple). Here: blocks with harvest tools drop nothing without one; common blocks follow the
// vanilla tables below; others use minecraft-data's blockLoot (silk-touch variants removed).
// Chance drops are drawn from the world's seed, the block's position and how many blocks were
// dug there before (a gravel column dug from below falls into one cell): a world replays the
// same (the flint of a gravel bank, a sapling from a leaf), whatever else happened in it first.
'use strict'

const { Vec3 } = require('vec3')
const { blockName, itemName } = require('./_names')
const { rng } = require('./_noise')

// r: the dug block's draws (drawsAt)
const chance = (r, p) => r() < p
const range = (r, lo, hi) => lo + Math.floor(r() * (hi - lo + 1))

function drawsAt (seed, pos, before = 0) {
  return rng(seed ^ Math.imul(pos.x, 0x27d4eb2d) ^ Math.imul(pos.y, 0x9e3779b9) ^ Math.imul(pos.z, 0x165667b1) ^
    Math.imul(before, 0x85ebca6b))
}
const MAX_CELLS = 100000 // dug cells remembered (a long game's digging); past it the count starts over

// name (either spelling, see _names.js) -> (r) => [[item, count], ...]
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
  copper_ore: (r) => [['raw_copper', range(r, 2, 5)]],
  diamond_ore: () => [['diamond', 1]],
  redstone_ore: (r) => [['redstone', range(r, 4, 5)]],
  lapis_ore: (r) => [['lapis_lazuli', range(r, 4, 9)]],
  emerald_ore: () => [['emerald', 1]],
  gravel: (r) => [chance(r, 0.1) ? ['flint', 1] : ['gravel', 1]],
  grass: (r) => (chance(r, 0.125) ? [['wheat_seeds', 1]] : []),
  tall_grass: (r) => (chance(r, 0.125) ? [['wheat_seeds', 1]] : []),
  glass: () => [],
  glass_pane: () => []
}
function leaves (name, r) {
  const wood = name.replace(/_leaves$/, '')
  const out = []
  if (chance(r, wood === 'jungle' ? 0.025 : 0.05)) out.push([`${wood}_sapling`, 1])
  if (chance(r, 0.02)) out.push(['stick', range(r, 1, 2)])
  if ((wood === 'oak' || wood === 'dark_oak') && chance(r, 0.005)) out.push(['apple', 1])
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

function fromLoot (registry, name, r) {
  const loot = registry.blockLoot?.[name]
  if (!loot) return []
  const entries = loot.drops.filter(d => !d.silkTouch)
  return entries
    .filter(d => entries.length === 1 || chance(r, d.dropChance ?? 1))
    .map(d => [d.item, range(r, ...(d.stackSizeRange || [1, 1]).map(n => n ?? 1))])
}

// What a block dug with its harvest tool (or needing none) drops: [[item, count], ...];
// before: how many blocks were dug at pos before it.
function dropsOf (registry, name, seed, pos, before = 0) {
  const r = drawsAt(seed, pos, before)
  const roll = tableFor(registry)[name]
  if (roll) return roll(r)
  if (name.endsWith('_leaves')) return leaves(name, r)
  return fromLoot(registry, name, r)
}

module.exports.server = function (serv) {
  serv.mcbotDugCells = new Map() // 'x,y,z' -> blocks dug there, by any player
}

module.exports.player = function (player, serv, cfg) {
  const { registry } = serv
  const seed = cfg.seed | 0 // the world's, set once the world is up (a saved world's level.dat wins: server.js)
  const dug = serv.mcbotDugCells

  player.on('dug', (data) => {
    if (!data.drops || !data.block) return
    const block = data.block
    const held = player.inventory.slots[36 + player.heldItemSlot]
    const harvested = !block.harvestTools || (held && block.harvestTools[held.type])
    const cell = `${data.position.x},${data.position.y},${data.position.z}`
    const before = dug.get(cell) || 0
    if (dug.size >= MAX_CELLS) dug.clear()
    dug.set(cell, before + 1)
    const items = harvested ? dropsOf(registry, block.name, seed, data.position, before) : []
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

module.exports.dropsOf = dropsOf
