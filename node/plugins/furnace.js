// Furnaces, per vanilla AbstractFurnaceBlockEntity / AbstractFurnaceMenu:
// - placing one faces it towards the player; each furnace block keeps its own container (input,
//   fuel, output, burn time left, cook progress), kept across restarts in a saved world
//   (<worldFolder>/mcbot-furnaces.json, overworld only);
// - using it opens the furnace menu (windows.js; sneaking with an item in hand places instead);
// - it smelts on the server tick whether or not anyone looks: 200 ticks per item; a fuel item
//   is burnt only when the furnace is out of fuel and the input can be smelted; the output
//   stacks up to the item's stack size and a full or different output stops smelting; unlit
//   progress falls back 2 per tick; a lava bucket leaves its bucket; the block is `lit` while fuel burns;
// - breaking it drops its contents (the furnace itself only with a pickaxe: drops.js); /setblock
//   or /mcbot fill over it clears them, as vanilla's replace does.
// minecraft-data has neither smelting recipes nor fuel values: both are compact tables below,
// named in any version's spelling (_names.js); names the running version lacks are skipped.
'use strict'

const fs = require('fs')
const path = require('path')
const { stateId, stateProps, dropItem, itemName, Vec3 } = require('./_common')

const COOK_TIME = 200

// output <- inputs (vanilla furnace recipes; all cook in 200 ticks)
const SMELTING = {
  iron_ingot: ['raw_iron', 'iron_ore', 'deepslate_iron_ore'],
  gold_ingot: ['raw_gold', 'gold_ore', 'deepslate_gold_ore', 'nether_gold_ore'],
  copper_ingot: ['raw_copper', 'copper_ore', 'deepslate_copper_ore'],
  coal: ['coal_ore', 'deepslate_coal_ore'],
  diamond: ['diamond_ore', 'deepslate_diamond_ore'],
  emerald: ['emerald_ore', 'deepslate_emerald_ore'],
  lapis_lazuli: ['lapis_ore', 'deepslate_lapis_ore'],
  redstone: ['redstone_ore', 'deepslate_redstone_ore'],
  quartz: ['nether_quartz_ore'],
  netherite_scrap: ['ancient_debris'],
  iron_nugget: ['iron_pickaxe', 'iron_shovel', 'iron_axe', 'iron_hoe', 'iron_sword', 'iron_helmet', 'iron_chestplate',
    'iron_leggings', 'iron_boots', 'iron_horse_armor', 'chainmail_helmet', 'chainmail_chestplate', 'chainmail_leggings', 'chainmail_boots'],
  gold_nugget: ['golden_pickaxe', 'golden_shovel', 'golden_axe', 'golden_hoe', 'golden_sword', 'golden_helmet',
    'golden_chestplate', 'golden_leggings', 'golden_boots', 'golden_horse_armor'],
  cooked_beef: ['beef'],
  cooked_porkchop: ['porkchop'],
  cooked_chicken: ['chicken'],
  cooked_mutton: ['mutton'],
  cooked_rabbit: ['rabbit'],
  cooked_cod: ['cod'],
  cooked_salmon: ['salmon'],
  baked_potato: ['potato'],
  dried_kelp: ['kelp'],
  stone: ['cobblestone'],
  smooth_stone: ['stone'],
  deepslate: ['cobbled_deepslate'],
  glass: ['sand', 'red_sand'],
  brick: ['clay_ball'],
  terracotta: ['clay'],
  nether_brick: ['netherrack'],
  smooth_sandstone: ['sandstone'],
  smooth_red_sandstone: ['red_sandstone'],
  smooth_quartz: ['quartz_block'],
  smooth_basalt: ['basalt'],
  cracked_stone_bricks: ['stone_bricks'],
  cracked_nether_bricks: ['nether_bricks'],
  cracked_deepslate_bricks: ['deepslate_bricks'],
  cracked_deepslate_tiles: ['deepslate_tiles'],
  cracked_polished_blackstone_bricks: ['polished_blackstone_bricks'],
  green_dye: ['cactus'],
  lime_dye: ['sea_pickle'],
  sponge: ['wet_sponge'],
  popped_chorus_fruit: ['chorus_fruit']
}
// #logs_that_burn -> charcoal; colored terracotta -> glazed terracotta
const smeltsByName = (name) =>
  (/(_log|_wood)$/.test(name) && !/crimson|warped/.test(name) ? 'charcoal' : null) ||
  (/^[a-z_]+_terracotta$/.test(name) && !/glazed/.test(name) ? name.replace(/_terracotta$/, '_glazed_terracotta') : null)

// Burn ticks (vanilla FuelValues), grouped by burn time. Wooden things of every wood that burns
// (not crimson/warped) follow WOOD_FUEL by suffix, the wood types read from the running
// version's *_planks items.
const byTicks = (groups) => Object.fromEntries(
  Object.entries(groups).flatMap(([ticks, names]) => names.map((name) => [name, Number(ticks)])))
const FUEL = byTicks({
  20000: ['lava_bucket'],
  16000: ['coal_block'],
  4001: ['dried_kelp_block'],
  2400: ['blaze_rod'],
  1600: ['coal', 'charcoal'],
  1200: ['bamboo_raft', 'bamboo_chest_raft'],
  300: [
    'bamboo_block', 'stripped_bamboo_block', 'bamboo_mosaic', 'bamboo_mosaic_stairs',
    'note_block', 'bookshelf', 'chiseled_bookshelf', 'lectern', 'jukebox', 'chest', 'trapped_chest',
    'crafting_table', 'daylight_detector', 'barrel', 'cartography_table', 'fletching_table',
    'smithing_table', 'composter', 'loom', 'mangrove_roots', 'bow', 'crossbow', 'fishing_rod', 'ladder'
  ],
  200: ['wooden_shovel', 'wooden_sword', 'wooden_hoe', 'wooden_axe', 'wooden_pickaxe'],
  150: ['bamboo_mosaic_slab'],
  100: ['stick', 'bowl', 'dead_bush', 'azalea', 'flowering_azalea', 'mangrove_propagule'],
  50: ['bamboo', 'scaffolding']
})
const WOOD_FUEL = byTicks({
  1200: ['boat', 'chest_boat'],
  800: ['hanging_sign'],
  300: ['planks', 'stairs', 'trapdoor', 'pressure_plate', 'fence', 'fence_gate'],
  200: ['sign', 'door'],
  150: ['slab'],
  100: ['button', 'sapling']
})
const fuelByName = (name, woods) => {
  if (FUEL[name]) return FUEL[name]
  if (/(_log|_wood)$/.test(name) && !/crimson|warped/.test(name)) return 300 // #logs, stripped too
  if (/_banner$/.test(name)) return 300
  if (/_wool$/.test(name)) return 100
  if (/_carpet$/.test(name) && !/moss/.test(name)) return 67
  for (const wood of woods) {
    if (!name.startsWith(wood + '_')) continue
    const ticks = WOOD_FUEL[name.slice(wood.length + 1)]
    if (ticks) return ticks
  }
  return 0
}

module.exports.server = function (serv, cfg) {
  const { registry } = serv
  const Item = require('prismarine-item')(registry)
  const furnaceBlock = registry.blocksByName.furnace
  const stackSize = (it) => registry.items[it.type]?.stackSize ?? 64
  const idOf = (name) => registry.itemsByName[itemName(registry, name)]?.id

  // item id -> result item id / burn ticks, for the running version
  const smelts = new Map()
  for (const [out, inputs] of Object.entries(SMELTING)) {
    const outId = idOf(out)
    if (outId === undefined) continue
    for (const input of inputs) if (idOf(input) !== undefined) smelts.set(idOf(input), outId)
  }
  const woods = registry.itemsArray.filter(i => i.name.endsWith('_planks') && !/crimson|warped/.test(i.name)).map(i => i.name.slice(0, -7))
  const fuels = new Map()
  for (const item of registry.itemsArray) {
    const byName = smeltsByName(item.name)
    if (byName && idOf(byName) !== undefined && !smelts.has(item.id)) smelts.set(item.id, idOf(byName))
    const ticks = fuelByName(item.name, woods)
    if (ticks) fuels.set(item.id, ticks)
  }
  const bucketId = idOf('bucket')
  const lavaBucketId = idOf('lava_bucket')
  const resultFor = (it) => (it ? smelts.get(it.type) ?? null : null)
  const burnTime = (it) => (it ? fuels.get(it.type) ?? 0 : 0)

  // --- one furnace's container ---------------------------------------------------------------
  class Furnace {
    constructor (world, pos) {
      this.world = world
      this.pos = pos
      this.items = [null, null, null] // input, fuel, output
      this.litTime = 0
      this.litDuration = 0
      this.cookingProgress = 0
      this.cookingTotalTime = COOK_TIME
      this.viewers = new Set() // open menus (windows.js)
    }

    // vanilla setItem: a different input starts cooking from 0
    setItem (slot, it) {
      const old = this.items[slot]
      this.items[slot] = it || null
      if (slot === 0 && !(it && old && it.type === old.type)) {
        this.cookingTotalTime = COOK_TIME
        this.cookingProgress = 0
      }
      dirty = true
    }

    canSmelt (it) { return resultFor(it) !== null }
    isFuel (it) { return burnTime(it) > 0 }
    // FurnaceFuelSlot: fuel, or an empty bucket (one at a time); nothing goes into the output
    mayPlace (slot, it) { return slot === 0 || (slot === 1 && (this.isFuel(it) || it.type === bucketId)) }
    maxStackFor (slot, it) { return slot === 1 && it.type === bucketId ? 1 : stackSize(it) }
    // window properties 0-3: lit time left, lit duration, cook progress, cook total
    data () { return [this.litTime, this.litDuration, this.cookingProgress, this.cookingTotalTime] }
    isEmpty () { return !this.items.some(Boolean) && this.litTime <= 0 && this.cookingProgress <= 0 }

    canBurn (result) {
      if (!this.items[0] || result === null) return false
      const out = this.items[2]
      if (!out) return true
      return out.type === result && out.count < Math.min(64, stackSize(out))
    }

    // vanilla serverTick
    tick () {
      const wasLit = this.litTime > 0
      if (this.litTime > 0) this.litTime--
      const [input, fuel] = this.items
      if (this.litTime > 0 || (input && fuel)) {
        const result = resultFor(input)
        if (this.litTime <= 0 && this.canBurn(result)) {
          this.litTime = this.litDuration = burnTime(fuel)
          if (this.litTime > 0) {
            fuel.count--
            if (fuel.count <= 0) this.items[1] = fuel.type === lavaBucketId ? new Item(bucketId, 1) : null
          }
        }
        if (this.litTime > 0 && this.canBurn(result)) {
          if (++this.cookingProgress >= this.cookingTotalTime) {
            this.cookingProgress = 0
            this.cookingTotalTime = COOK_TIME
            this.smeltOne(result)
          }
        } else this.cookingProgress = 0
      } else if (this.cookingProgress > 0) {
        this.cookingProgress = Math.max(0, Math.min(this.cookingProgress - 2, this.cookingTotalTime))
      }
      if (wasLit !== (this.litTime > 0)) this.showLit(this.litTime > 0)
      if (wasLit || this.litTime > 0 || this.cookingProgress > 0) dirty = true
    }

    smeltOne (result) {
      const out = this.items[2]
      if (out) out.count++
      else this.items[2] = new Item(result, 1)
      const input = this.items[0]
      input.count--
      if (input.count <= 0) this.items[0] = null
    }

    showLit (lit) {
      const id = loadedStateId(this.world, this.pos)
      if (id === null || registry.blocksByStateId[id]?.name !== 'furnace') return
      const next = stateId(registry, 'furnace', { ...stateProps(registry, id), lit: String(lit) })
      if (next !== id) serv.setBlock(this.world, this.pos, next).catch(err => serv.err(`furnace lit: ${err.stack}`))
    }

    close () { for (const m of [...this.viewers]) m.close() }
  }

  // Block state at pos when its chunk is loaded, else null (an unloaded furnace does not tick).
  function loadedStateId (world, pos) {
    const col = world.getLoadedColumnAt(pos)
    return col ? col.getBlockStateId(new Vec3(pos.x & 15, pos.y, pos.z & 15)) : null
  }

  // --- the furnaces of each world, by position -------------------------------------------------
  const byWorld = new Map() // world -> Map('x,y,z' -> Furnace)
  let dirty = false
  const key = (pos) => `${pos.x},${pos.y},${pos.z}`
  function furnacesOf (world) {
    let map = byWorld.get(world)
    if (!map) {
      map = new Map()
      byWorld.set(world, map)
      // a furnace replaced by anything else (/setblock, fill) loses its container
      world.on('blockUpdate', (oldBlock, newBlock) => {
        if (oldBlock?.type === furnaceBlock.id && newBlock?.type !== furnaceBlock.id) forget(world, oldBlock.position)
      })
    }
    return map
  }
  function furnaceAt (world, pos) {
    const map = furnacesOf(world)
    const k = key(pos)
    if (!map.has(k)) map.set(k, new Furnace(world, pos.floored()))
    return map.get(k)
  }
  function forget (world, pos) {
    const map = byWorld.get(world)
    const f = map?.get(key(pos))
    if (!f) return null
    map.delete(key(pos))
    f.close()
    dirty = true
    return f
  }
  serv.mcbotFurnaceAt = furnaceAt

  serv.on('tick', () => {
    for (const map of byWorld.values()) {
      for (const [k, f] of map) {
        if (loadedStateId(f.world, f.pos) === null) continue
        f.tick()
        for (const m of [...f.viewers]) m.broadcast()
        if (f.isEmpty() && f.viewers.size === 0) map.delete(k)
      }
    }
  })

  // Placing: facing the player (the opposite of where the player looks), unlit.
  const BY_YAW = ['north', 'east', 'south', 'west'] // facing back at a player whose yaw is 0 (south), 90 (west)...
  serv.onItemPlace('furnace', ({ player }) => {
    const yaw = player.mcbotYaw ?? (player.yaw ?? 0) * 360 / 256 // mcbotYaw: raw degrees, doors.js
    const facing = BY_YAW[Math.floor((((yaw % 360) + 360) % 360) / 90 + 0.5) & 3]
    return { id: furnaceBlock.id, data: stateId(registry, 'furnace', { facing, lit: 'false' }) - furnaceBlock.minStateId }
  })

  serv.onBlockInteraction('furnace', ({ block, player }) => {
    if (player.crouching && player.inventory.slots[36 + player.heldItemSlot]) return false
    player.mcbotOpenFurnace(furnaceAt(player.world, block.position))
    return true
  })

  serv.mcbotDropFurnace = (world, pos) => {
    const f = forget(world, pos)
    if (!f) return
    for (const it of f.items) {
      if (!it || it.count <= 0) continue
      dropItem(serv, world, pos.offset(0.5, 0.5, 0.5), it.type, it.count, new Vec3(Math.random() * 0.8 - 0.4, 1.5, Math.random() * 0.8 - 0.4))
    }
  }

  // --- a saved world keeps its furnaces --------------------------------------------------------
  if (!cfg.worldFolder) return
  const file = path.join(cfg.worldFolder, 'mcbot-furnaces.json')
  const toJson = (it) => (it ? { name: registry.items[it.type].name, notch: Item.toNotch(it) } : null)
  const fromJson = (j) => {
    if (!j || !registry.itemsByName[j.name]) return null
    const it = Item.fromNotch(j.notch)
    return it && it.name === j.name ? it : null
  }
  function write () {
    const furnaces = [...(byWorld.get(serv.overworld)?.values() || [])].map(f => ({
      pos: [f.pos.x, f.pos.y, f.pos.z],
      items: f.items.map(toJson),
      litTime: f.litTime,
      litDuration: f.litDuration,
      cookingProgress: f.cookingProgress,
      cookingTotalTime: f.cookingTotalTime
    }))
    fs.writeFileSync(file + '.tmp', JSON.stringify({ furnaces }))
    fs.renameSync(file + '.tmp', file)
  }
  serv.on('ready', () => {
    const world = serv.overworld
    try {
      if (fs.existsSync(file)) {
        for (const j of JSON.parse(fs.readFileSync(file, 'utf8')).furnaces || []) {
          const f = furnaceAt(world, new Vec3(...j.pos))
          f.items = j.items.map(fromJson)
          Object.assign(f, { litTime: j.litTime | 0, litDuration: j.litDuration | 0, cookingProgress: j.cookingProgress | 0, cookingTotalTime: j.cookingTotalTime || COOK_TIME })
        }
      }
    } catch (err) {
      serv.err(`furnaces not read from ${file}: ${err.message}`)
    }
    // written with the chunks (every second, and on shutdown), when anything changed
    const saveNow = world.saveNow
    if (!saveNow) return
    world.saveNow = function (...args) {
      if (dirty) {
        dirty = false
        try { write() } catch (err) { serv.err(`furnaces not saved to ${file}: ${err.message}`) }
      }
      return saveNow.apply(this, args)
    }
  })
}

module.exports.player = function (player, serv) {
  // Breaking a furnace drops what it holds (the block's own drop is drops.js's).
  player.on('dug', ({ block, position }, cancelled) => {
    if (cancelled || block?.name !== 'furnace') return
    serv.mcbotDropFurnace(player.world, position)
  })
}
