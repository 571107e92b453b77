'use strict'
// Every block, item and entity name node/lib relies on, looked up for the RUNNING version
// (bot.registry = minecraft-data for bot.version), in this one place. Nothing else in
// node/lib writes a name literal: a helper asks here for the name this version uses.
//
// Names are written canonically (the newest name) and resolved through the rename table of
// names.json, which agency/ shares (agency/names.py; a Python unit test holds them equal):
// 'short_grass' is 'grass' on 1.18.2, and a name Python sends in either form is found.
// Snapshots and regions report names as the running version names them: nothing here
// renames what the game says.
const data = require('./names.json')

const NEWEST = new Map() // older name -> newest name
for (const [newest, olds] of Object.entries(data.renames)) for (const old of olds) NEWEST.set(old, newest)

// Every name a thing has had, newest first.
function aliases (name) {
  const newest = NEWEST.get(name) || name
  return [newest, ...(data.renames[newest] || [])]
}

// The running version's name for `name` (given in any version's form) in one of the
// registry's byName tables, or null when this version has no such thing.
function resolve (byName, name) {
  if (byName[name]) return name
  return aliases(name).find((n) => byName[n]) || null
}
const blockName = (registry, name) => resolve(registry.blocksByName, name)
const itemName = (registry, name) => resolve(registry.itemsByName, name)
const entityName = (registry, name) => resolve(registry.entitiesByName, name)

function namesIn (byName, names) {
  const out = new Set()
  for (const n of names) {
    const found = resolve(byName, n)
    if (found) out.add(found)
  }
  return out
}

// Hostility backstop: entity.type is 'hostile' on current data ('mob' on older data, which
// also covers passive mobs), so names are checked too.
const HOSTILES = [
  'zombie', 'husk', 'drowned', 'zombie_villager', 'skeleton', 'stray', 'bogged', 'creeper', 'spider',
  'cave_spider', 'enderman', 'witch', 'slime', 'magma_cube', 'phantom', 'pillager', 'vindicator',
  'evoker', 'ravager', 'blaze', 'ghast', 'wither_skeleton', 'silverfish', 'endermite', 'guardian',
  'elder_guardian', 'shulker', 'hoglin', 'zoglin', 'piglin_brute', 'vex', 'warden', 'breeze', 'creaking'
]
// Blocks that fall when what holds them up is dug away (a staircase never digs under them).
const FALLING = ['sand', 'red_sand', 'gravel', 'suspicious_sand', 'suspicious_gravel', 'anvil', 'pointed_dripstone',
  ...['white', 'orange', 'magenta', 'light_blue', 'yellow', 'lime', 'pink', 'gray', 'light_gray', 'cyan', 'purple',
    'blue', 'brown', 'green', 'red', 'black'].map((c) => `${c}_concrete_powder`)]
// Plain blocks to fill a hole in a floor with, most common first.
const FILLERS = ['cobblestone', 'cobbled_deepslate', 'dirt', 'stone', 'netherrack', 'andesite', 'diorite', 'granite', 'tuff']
// Best weapon first; with no sword or axe a digging tool still hits harder than a fist (vanilla
// attack damage: a stone pickaxe 3, a stone shovel 3.5, a fist 1: a skeleton takes 7 hits, not 20).
const WEAPONS = ['netherite_sword', 'diamond_sword', 'iron_sword', 'stone_sword', 'golden_sword', 'wooden_sword',
  'netherite_axe', 'diamond_axe', 'iron_axe', 'stone_axe', 'golden_axe', 'wooden_axe',
  'netherite_shovel', 'netherite_pickaxe', 'diamond_shovel', 'diamond_pickaxe', 'iron_shovel', 'iron_pickaxe',
  'stone_shovel', 'stone_pickaxe', 'golden_shovel', 'wooden_shovel', 'golden_pickaxe', 'wooden_pickaxe']

// The running version's names, computed once per registry (one per Minecraft version).
const cache = new WeakMap()
function forRegistry (registry) {
  let n = cache.get(registry)
  if (n) return n
  const blocks = registry.blocksByName
  n = {
    airs: namesIn(blocks, data.airs),
    // what a placement may go into: air, replaceable plants, snow layers, liquids
    replaceable: namesIn(blocks, [...data.replaceable, ...data.liquids]),
    liquids: namesIn(blocks, data.liquids),
    falling: namesIn(blocks, FALLING),
    // planks last: a hut's leftovers fill a staircase's hole when no stone or earth is held (a
    // bot whose hut found no site on a mountain held 85 planks and could not burrow in)
    fillers: [...namesIn(registry.itemsByName, FILLERS), ...Object.keys(registry.itemsByName).filter((k) => k.endsWith('_planks')).sort()],
    craftingTable: blockName(registry, 'crafting_table'),
    torch: itemName(registry, 'torch'),
    // blocks that light their surroundings well (a torch 14, lava and glowstone 15)
    bright: new Set(registry.blocksArray.filter((b) => b.emitLight >= 10).map((b) => b.id)),
    hostiles: namesIn(registry.entitiesByName, HOSTILES),
    weapons: [...namesIn(registry.itemsByName, WEAPONS)]
  }
  cache.set(registry, n)
  return n
}
const names = (bot) => forRegistry(bot.registry)

function isHostile (bot, e) {
  if (!e) return false
  if (e.type === 'hostile') return true
  return names(bot).hostiles.has(e.name)
}

module.exports = { names, forRegistry, aliases, blockName, itemName, entityName, isHostile, HOSTILES, WEAPONS, data }
