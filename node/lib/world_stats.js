// What a world is made of, counted the same way for the embedded world's chunks and for real
// vanilla ones (the region files prismarine-provider-anvil ships as its test fixtures), so
// `mcbot world compare` can put them side by side: air under the ground by height band (caves),
// water and lava below y 0, each ore per chunk by band, the blocks at the surface, trees.
'use strict'

const path = require('path')

const MIN_Y = -64
const MAX_Y = 320
const BAND = 16 // blocks per height band
const BANDS = (MAX_Y - MIN_Y) / BAND
const ORES = ['coal', 'iron', 'copper', 'gold', 'redstone', 'lapis', 'diamond', 'emerald']
// The real 1.18+ samples: each file holds 16 to 144 fully generated chunks of one vanilla world.
const VANILLA_VERSIONS = ['1.18.2', '1.19.4', '1.20.6', '1.21.1']
const FIXTURES = path.join(path.dirname(require.resolve('prismarine-provider-anvil/package.json')), 'test', 'fixtures')

const AIR = new Set(['air', 'cave_air', 'void_air'])
const FLUIDS = new Set(['water', 'lava'])
// What stands on the ground rather than being it: the surface is the block under these.
const standsOnGround = (name) => /(_log|_wood|_leaves|_sapling|^grass$|^short_grass$|^tall_grass$|fern|flower|^dandelion$|^poppy$|orchid|allium|bluet|tulip|daisy|cornflower|lily|rose|peony|lilac|sugar_cane|^vine$|mushroom$|dead_bush|^snow$|kelp|seagrass|bamboo|berry|pumpkin|melon|cactus|azalea|moss_carpet|dripleaf|hanging_roots|glow_lichen|pointed_dripstone|_carpet$|bee_nest|cocoa)/.test(name)

function oreOf (name) {
  const m = /^(?:deepslate_)?([a-z]+)_ore$/.exec(name)
  return m && ORES.includes(m[1]) ? m[1] : null
}

// A block state id -> name table for one registry, built once.
const namesByRegistry = new WeakMap()
function namesOf (registry) {
  if (!namesByRegistry.has(registry)) {
    const names = []
    for (const b of registry.blocksArray) {
      for (let s = b.minStateId; s <= b.maxStateId; s++) names[s] = b.name
    }
    namesByRegistry.set(registry, names)
  }
  return namesByRegistry.get(registry)
}

function emptyStats () {
  return {
    chunks: 0,
    band: BAND,
    minY: MIN_Y,
    underground: Array(BANDS).fill(0), // cells below the ground, by band
    undergroundAir: Array(BANDS).fill(0), // of those, air
    waterBelow0: 0,
    lavaBelow0: 0,
    ores: Object.fromEntries(ORES.map((o) => [o, Array(BANDS).fill(0)])),
    surface: {}, // top block of each column (fluids included) -> columns
    trees: 0,
    groundY: [] // each column's ground height
  }
}

// Adds one chunk column (a prismarine-chunk of `registry`) to `stats`.
function addColumn (stats, column, registry) {
  const names = namesOf(registry)
  const p = { x: 0, y: 0, z: 0 }
  const nameAt = (x, y, z) => { p.x = x; p.y = y; p.z = z; return names[column.getBlockStateId(p)] || 'air' }
  const minY = Math.max(MIN_Y, column.minY ?? 0)
  const maxY = Math.min(MAX_Y, (column.minY ?? 0) + (column.worldHeight ?? 256))
  stats.chunks++
  for (let x = 0; x < 16; x++) {
    for (let z = 0; z < 16; z++) {
      let top = null
      let ground = null
      for (let y = maxY - 1; y >= minY; y--) {
        const name = nameAt(x, y, z)
        if (AIR.has(name)) continue
        if (top === null && !standsOnGround(name)) top = name
        if (/_log$/.test(name) && !name.startsWith('stripped_')) {
          const under = y > minY ? nameAt(x, y - 1, z) : 'air'
          if (!/_log$/.test(under) && !AIR.has(under) && !standsOnGround(under)) stats.trees++ // a trunk's foot
        }
        if (!FLUIDS.has(name) && !standsOnGround(name)) { ground = y; break }
      }
      if (top !== null) stats.surface[top] = (stats.surface[top] || 0) + 1
      if (ground === null) continue
      stats.groundY.push(ground)
      for (let y = minY; y < ground; y++) {
        const name = nameAt(x, y, z)
        const band = Math.floor((y - MIN_Y) / BAND)
        stats.underground[band]++
        if (AIR.has(name)) stats.undergroundAir[band]++
        else if (y < 0 && name === 'water') stats.waterBelow0++
        else if (y < 0 && name === 'lava') stats.lavaBelow0++
        else {
          const ore = oreOf(name)
          if (ore) stats.ores[ore][band]++
        }
      }
      // an ore at the ground's top is an ore too
      const ore = oreOf(nameAt(x, ground, z))
      if (ore) stats.ores[ore][Math.floor((ground - MIN_Y) / BAND)]++
    }
  }
}

// Every fully generated chunk of one vanilla fixture.
async function vanillaStats (version) {
  const { Anvil } = require('prismarine-provider-anvil')
  const registry = require('prismarine-registry')(version)
  const folder = path.join(FIXTURES, version)
  const anvil = new (Anvil(version))(folder)
  const stats = emptyStats()
  stats.source = `prismarine-provider-anvil test/fixtures/${version} (a real vanilla ${version} world)`
  for (let x = 0; x < 32; x++) {
    for (let z = 0; z < 32; z++) {
      const raw = await anvil.loadRaw(x, z).catch(() => null)
      const status = raw && String(raw.value.Status?.value || '')
      if (!status || !/full$/.test(status)) continue // a chunk still being generated
      addColumn(stats, await anvil.load(x, z), registry)
    }
  }
  await anvil.close?.()
  if (!stats.chunks) throw new Error(`no fully generated chunk in ${folder}`)
  return stats
}

// The embedded world's chunks: a square of about `chunks` chunks around (0, 0), as the world's
// own generator makes them for `seed`.
function ourStats (version, seed, chunks, mcbot = {}) {
  const registry = require('prismarine-registry')(version)
  const terrain = require('../plugins/terrain.js')
  const generate = terrain({ registry, seed, mcbot })
  const { spawnColumn } = terrain
  const side = Math.max(1, Math.round(Math.sqrt(chunks)))
  const stats = emptyStats()
  stats.source = `the embedded world (${mcbot.terrain || 'plains'}), seed ${seed}, ${version}`
  // the chunks around the world's spawn, where a player (and the bot) starts, as in the samples
  const spawn = spawnColumn(seed, mcbot)
  stats.spawn = { x: spawn.x, z: spawn.z }
  const times = []
  for (let cx = 0; cx < side; cx++) {
    for (let cz = 0; cz < side; cz++) {
      const t0 = process.hrtime.bigint()
      const column = generate((spawn.x >> 4) + cx - (side >> 1), (spawn.z >> 4) + cz - (side >> 1))
      times.push(Number(process.hrtime.bigint() - t0) / 1e6)
      addColumn(stats, column, registry)
    }
  }
  times.sort((a, b) => a - b)
  stats.generateMs = { p50: times[Math.floor(times.length / 2)], p95: times[Math.min(times.length - 1, Math.floor(times.length * 0.95))] }
  return stats
}

module.exports = { ORES, BAND, MIN_Y, MAX_Y, VANILLA_VERSIONS, emptyStats, addColumn, vanillaStats, ourStats, oreOf }
