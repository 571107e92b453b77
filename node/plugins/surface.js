// The surface of the "caves" terrain, laid out as vanilla 1.18+ lays its overworld: continents
// and oceans, rivers, beaches, lakes, hills and mountains, and the biomes of a temperature and a
// humidity map (plains, forest, birch and dark forest, taiga, snowy plains, savanna, desert,
// swamp, windswept hills), each with its ground, its trees, its grass and flowers, sugar cane
// by the water and cactus in the desert. Not vanilla's own noise router: a generator of ours,
// shaped to the same layout and judged with the rest by `mcbot world compare`.
// Everything is a pure function of (seed, x, z), so chunks can be made in any order and a
// canopy crossing a chunk border comes out the same on both sides.
'use strict'

const { hash, valueNoise, smooth, lerp, clamp01, treesIn } = require('./_noise')
const { stateId } = require('./_common')

const SEA_LEVEL = 63 // vanilla's: water fills every low column up to y 62
const WATER_TOP = SEA_LEVEL - 1
const COAST = 0.4 // continentalness below this is sea
const RIVER = 0.007 // a river where the river noise is this close to its middle
const RIVER_BANK = 0.025 // and its valley out to here
const MOUNTAIN_FROM = 0.66
const STONY_ABOVE = 104 // bare rock on the mountains above this
const SNOW_ABOVE = 128
const CELL = 5 // one tree candidate per 5x5 cell keeps trunks apart
const REACH = 4 // the farthest a canopy reaches from its trunk (acacia, dark oak)

// Per biome: trees per cell (times server.treeDensity), their kinds, and the ground cover.
const BIOMES = {
  plains: { trees: 0.1, kinds: [['oak', 1]], grass: 0.3, flowers: ['dandelion', 'poppy', 'oxeye_daisy', 'azure_bluet', 'cornflower'], flowerChance: 0.02 },
  forest: { trees: 1.5, kinds: [['oak', 0.8], ['birch', 0.2]], grass: 0.12, flowers: ['dandelion', 'poppy'], flowerChance: 0.01 },
  birch_forest: { trees: 1.5, kinds: [['birch', 1]], grass: 0.12, flowers: ['dandelion', 'poppy'], flowerChance: 0.01 },
  dark_forest: { trees: 2.4, kinds: [['dark_oak', 0.8], ['oak', 0.2]], grass: 0.05 },
  taiga: { trees: 1.3, kinds: [['spruce', 1]], grass: 0.1 },
  snowy_plains: { trees: 0.08, kinds: [['spruce', 1]], grass: 0, snow: true },
  savanna: { trees: 0.3, kinds: [['acacia', 0.8], ['oak', 0.2]], grass: 0.4 },
  desert: { trees: 0, sand: true, cactus: 0.03, deadBush: 0.008 },
  swamp: { trees: 0.6, kinds: [['oak', 1]], grass: 0.15, flowers: ['blue_orchid'], flowerChance: 0.012 },
  windswept_hills: { trees: 0.25, kinds: [['spruce', 0.6], ['oak', 0.4]], grass: 0.1 },
  beach: { trees: 0, sand: true },
  river: { trees: 0 },
  frozen_river: { trees: 0 },
  ocean: { trees: 0 },
  deep_ocean: { trees: 0 }
}
// Where the world's spawn may be (vanilla looks for it in such land too, away from the coast).
const SPAWN_BIOMES = new Set(['plains', 'forest', 'birch_forest', 'taiga', 'savanna', 'dark_forest', 'swamp'])

function makeSurface (seed, treeDensity) {
  const noise = (x, z, scale, salt) => valueNoise(seed, x, z, scale, salt)

  // The ground's height and biome at one column, and whether water stands over it.
  function column (x, z) {
    const cont = 0.7 * noise(x, z, 640, 31) + 0.3 * noise(x, z, 160, 32)
    const temp = 0.8 * noise(x, z, 520, 33) + 0.2 * noise(x, z, 48, 34)
    const humid = 0.8 * noise(x, z, 460, 35) + 0.2 * noise(x, z, 48, 36)
    const inland = cont - COAST
    let h
    if (inland < 0) {
      h = WATER_TOP - 2 + inland * 140 + (noise(x, z, 24, 40) - 0.5) * 4 // the sea floor falls away
    } else {
      const rolling = (noise(x, z, 48, 1) - 0.5) * 10 + (noise(x, z, 16, 2) - 0.5) * 3
      const hills = Math.max(0, noise(x, z, 96, 7) - 0.5) * 60
      const m = clamp01((noise(x, z, 320, 37) - MOUNTAIN_FROM) / (1 - MOUNTAIN_FROM)) * clamp01((inland - 0.04) / 0.1)
      const peaks = Math.pow(m, 1.3) * (90 + (noise(x, z, 20, 38) - 0.5) * 24)
      h = SEA_LEVEL + Math.min(inland * 80, 7) + rolling + hills * clamp01(inland / 0.08) + peaks
      // a swamp sinks to the water's level, in pools
      const swampness = clamp01((humid - 0.6) / 0.05) * clamp01((temp - 0.45) / 0.05) * clamp01((0.68 - temp) / 0.03)
      if (swampness > 0) h = lerp(h, WATER_TOP + 0.3 + (noise(x, z, 12, 41) - 0.5) * 4, swampness)
    }
    const rv = Math.abs(noise(x, z, 240, 39) - 0.5) + (noise(x, z, 32, 42) - 0.5) * 0.01
    const river = inland > 0 && rv < RIVER
    if (inland > 0 && rv < RIVER_BANK) {
      const bed = WATER_TOP - 3 + Math.min(rv / RIVER, 1) * 2
      h = lerp(bed, h, smooth(clamp01((rv - RIVER) / (RIVER_BANK - RIVER))))
    }
    h = Math.round(h)
    let biome
    const cold = temp < 0.36
    if (inland < 0 && h < WATER_TOP) biome = h < 46 ? 'deep_ocean' : 'ocean'
    else if (river) biome = cold ? 'frozen_river' : 'river'
    else if (h >= 96) biome = 'windswept_hills'
    else if (inland < 0.03 && h <= SEA_LEVEL + 2 && !cold) biome = 'beach'
    else biome = climateBiome(temp, humid)
    return { h, biome, water: h < WATER_TOP, inland }
  }

  function climateBiome (temp, humid) {
    if (temp < 0.36) return humid < 0.5 ? 'snowy_plains' : 'taiga'
    if (temp > 0.64) return humid < 0.52 ? 'desert' : 'savanna'
    if (humid > 0.6 && temp > 0.45) return 'swamp'
    if (humid < 0.42) return 'plains'
    if (humid < 0.53) return 'forest'
    if (humid < 0.58) return 'birch_forest'
    return 'dark_forest'
  }

  // The tree of a cell, or null: trunk position and height, kind.
  function treeInCell (cx, cz) {
    if (!(treeDensity > 0)) return null
    const x = cx * CELL + 1 + Math.floor(hash(seed, cx, cz, 4) * (CELL - 2))
    const z = cz * CELL + 1 + Math.floor(hash(seed, cx, cz, 5) * (CELL - 2))
    const col = column(x, z)
    const b = BIOMES[col.biome]
    if (!b.trees || col.water || col.h < SEA_LEVEL || col.h >= STONY_ABOVE) return null
    if (hash(seed, cx, cz, 3) >= Math.min(0.95, Math.max(0, treeDensity) * CELL * CELL * b.trees)) return null
    const pick = hash(seed, cx, cz, 8)
    let kind = b.kinds[0][0]
    for (let i = 0, acc = 0; i < b.kinds.length; i++) {
      acc += b.kinds[i][1]
      if (pick < acc) { kind = b.kinds[i][0]; break }
    }
    const [lo, span] = { oak: [4, 3], birch: [5, 3], spruce: [6, 4], acacia: [5, 2], dark_oak: [6, 2] }[kind]
    return { x, z, y: col.h + 1, height: lo + Math.floor(hash(seed, cx, cz, 6) * span), kind, bend: hash(seed, cx, cz, 9) }
  }

  const treesNear = (x0, z0, x1, z1) => treesIn(treeInCell, CELL, x0, z0, x1, z1)

  const heightAt = (x, z) => column(x, z).h
  const spawnFriendly = (x, z) => {
    const c = column(x, z)
    return !c.water && c.h >= SEA_LEVEL && c.inland > 0.06 && SPAWN_BIOMES.has(c.biome) // inland, as vanilla's spawn
  }
  return { column, heightAt, treeInCell, treesNear, spawnFriendly }
}

// Lays one chunk's surface: the top four blocks of every column, the water over low ground,
// the biomes, then plants and trees (after the underground is filled in under it and carved:
// carvedAt(x, y, z), when given, says where a carver took the ground, and nothing grows there).
function makePainter (registry, surface, seed, carvedAt) {
  const id = (name, props) => stateId(registry, name, props)
  const S = {
    air: id('air'),
    caveAir: id('cave_air'),
    water: id('water'),
    grass: id('grass_block', { snowy: 'false' }),
    snowyGrass: id('grass_block', { snowy: 'true' }),
    dirt: id('dirt'),
    sand: id('sand'),
    sandstone: id('sandstone'),
    gravel: id('gravel'),
    clay: id('clay'),
    stone: id('stone'),
    snow: id('snow'),
    shortGrass: id(registry.blocksByName.short_grass ? 'short_grass' : 'grass'),
    sugarCane: id('sugar_cane'),
    cactus: id('cactus'),
    deadBush: id('dead_bush')
  }
  const flower = (name) => id(name)
  const wood = {}
  for (const kind of ['oak', 'birch', 'spruce', 'acacia', 'dark_oak']) {
    wood[kind] = { log: id(`${kind}_log`, { axis: 'y' }), leaves: id(`${kind}_leaves`, { distance: '1', persistent: 'false' }) }
  }
  const biomeIds = {}
  for (const name of Object.keys(BIOMES)) biomeIds[name] = registry.biomesByName[name].id

  // The columns of a chunk and a ring around it (sugar cane looks at its neighbours' water).
  function columns (chunkX, chunkZ) {
    const cols = []
    for (let x = -1; x <= 16; x++) {
      for (let z = -1; z <= 16; z++) cols[(x + 1) * 18 + (z + 1)] = surface.column(chunkX * 16 + x, chunkZ * 16 + z)
    }
    return { at: (x, z) => cols[(x + 1) * 18 + (z + 1)] }
  }

  // The four blocks from the ground down, by biome; water above low ground; sky light; biomes.
  function lay (chunk, p, chunkX, chunkZ, cols) {
    const bx = chunkX * 16
    const bz = chunkZ * 16
    for (let x = 0; x < 16; x++) {
      for (let z = 0; z < 16; z++) {
        const c = cols.at(x, z)
        const layers = layersOf(c, bx + x, bz + z)
        p.x = x; p.z = z
        for (let i = 0; i < 4; i++) { p.y = c.h - i; chunk.setBlockStateId(p, layers[i]) }
        for (p.y = c.h + 1; p.y <= WATER_TOP; p.y++) chunk.setBlockStateId(p, S.water)
        for (p.y = c.h + 1; p.y < 320; p.y++) chunk.setSkyLight(p, 15)
      }
    }
    for (let x = 0; x < 16; x += 4) {
      for (let z = 0; z < 16; z += 4) {
        const biome = biomeIds[cols.at(x + 2, z + 2).biome]
        p.x = x; p.z = z
        for (p.y = -64; p.y < 320; p.y += 4) chunk.setBiome(p, biome)
      }
    }
  }

  function layersOf (c, x, z) {
    const r = hash(seed, x, z, 60)
    if (c.biome === 'ocean' || c.biome === 'deep_ocean') {
      const floor = r < 0.04 ? S.clay : (c.biome === 'deep_ocean' || noiseAt(x, z) < 0.35 ? S.gravel : S.sand)
      return [floor, floor, floor, S.dirt]
    }
    if (c.biome === 'river' || c.biome === 'frozen_river') {
      const bed = r < 0.05 ? S.clay : (noiseAt(x, z) < 0.4 ? S.gravel : S.sand)
      return [bed, bed, S.dirt, S.dirt]
    }
    if (BIOMES[c.biome].sand) return [S.sand, S.sand, S.sand, S.sandstone]
    if (c.water) return [r < 0.06 ? S.clay : (r < 0.3 ? S.gravel : S.dirt), S.dirt, S.dirt, S.dirt] // a lake's floor
    if (c.h >= STONY_ABOVE) return [S.stone, S.stone, S.stone, S.stone]
    return [snowy(c) ? S.snowyGrass : S.grass, S.dirt, S.dirt, S.dirt]
  }
  const noiseAt = (x, z) => valueNoise(seed, x, z, 10, 61)
  const snowy = (c) => BIOMES[c.biome].snow || c.h >= SNOW_ABOVE

  // Snow, grass, flowers, sugar cane, cactus and dead bushes on the ground, then the trees.
  function decorate (chunk, p, chunkX, chunkZ, cols) {
    const bx = chunkX * 16
    const bz = chunkZ * 16
    for (let x = 0; x < 16; x++) {
      for (let z = 0; z < 16; z++) {
        const c = cols.at(x, z)
        if (c.water) continue
        const b = BIOMES[c.biome]
        const r = (salt) => hash(seed, bx + x, bz + z, salt)
        p.x = x; p.z = z; p.y = c.h
        const ground = chunk.getBlockStateId(p)
        if (ground === S.air || ground === S.caveAir) continue // carved away
        p.y = c.h + 1
        if (snowy(c)) { chunk.setBlockStateId(p, S.snow); continue }
        if (c.h === WATER_TOP && r(62) < 0.25 && besideWater(cols, x, z)) {
          const tall = 1 + Math.floor(r(63) * 3)
          for (let i = 0; i < tall; i++, p.y++) chunk.setBlockStateId(p, S.sugarCane)
          continue
        }
        if (c.h >= STONY_ABOVE) continue
        if (b.cactus && (bx + x) % 4 === 0 && (bz + z) % 4 === 0 && r(64) < b.cactus) {
          const tall = 1 + Math.floor(r(65) * 3)
          for (let i = 0; i < tall; i++, p.y++) chunk.setBlockStateId(p, S.cactus)
        } else if (b.deadBush && r(66) < b.deadBush) {
          chunk.setBlockStateId(p, S.deadBush)
        } else if (b.flowers && r(67) < b.flowerChance) {
          chunk.setBlockStateId(p, flower(b.flowers[Math.floor(r(68) * b.flowers.length)]))
        } else if (b.grass && r(69) < b.grass) {
          chunk.setBlockStateId(p, S.shortGrass)
        }
      }
    }
    for (const t of surface.treesNear(bx - REACH, bz - REACH, bx + 15 + REACH, bz + 15 + REACH)) {
      if (!rootless(t)) placeTree(chunk, p, t, bx, bz)
    }
  }

  // A tree whose ground a carver took (any of a dark oak's four trunks) does not grow, in every
  // chunk its leaves reach.
  function rootless (t) {
    if (!carvedAt) return false
    if (carvedAt(t.x, t.y - 1, t.z)) return true
    return t.kind === 'dark_oak' && [[1, 0], [0, 1], [1, 1]].some(([dx, dz]) => carvedAt(t.x + dx, surface.heightAt(t.x + dx, t.z + dz), t.z + dz))
  }

  function besideWater (cols, x, z) {
    return [[1, 0], [-1, 0], [0, 1], [0, -1]].some(([dx, dz]) => cols.at(x + dx, z + dz).water)
  }

  function placeTree (chunk, p, t, bx, bz) {
    const { log, leaves } = wood[t.kind]
    const set = (x, y, z, state, onlyAir) => {
      const lx = x - bx
      const lz = z - bz
      if (lx < 0 || lx > 15 || lz < 0 || lz > 15) return
      p.x = lx; p.y = y; p.z = lz
      const here = chunk.getBlockStateId(p)
      if (onlyAir && here !== S.air && here !== S.shortGrass && here !== S.snow) return
      chunk.setBlockStateId(p, state)
    }
    const trim = (x, y, z) => hash(seed, x, z, 50 + y) < 0.5
    const disc = (cx, y, cz, r, corners) => {
      for (let dx = -r; dx <= r; dx++) {
        for (let dz = -r; dz <= r; dz++) {
          const corner = Math.abs(dx) === r && Math.abs(dz) === r
          if (corner && (!corners || trim(cx + dx, y, cz + dz))) continue
          set(cx + dx, y, cz + dz, leaves, true)
        }
      }
    }
    const top = t.y + t.height - 1
    if (t.kind === 'spruce') {
      // a cone: one leaf over the top, then rings of radius 1 and 2 in turn down to the third log
      set(t.x, top + 1, t.z, leaves, true)
      for (let y = top, d = 1; y >= t.y + 2; y--, d++) disc(t.x, y, t.z, d % 2 === 1 ? 1 : 2, false)
      for (let y = t.y; y <= top; y++) set(t.x, y, t.z, log, false)
    } else if (t.kind === 'acacia') {
      // a trunk that leans two blocks to one side over its last logs, under a flat crown
      const dir = [[1, 1], [1, -1], [-1, 1], [-1, -1]][Math.floor(t.bend * 4)]
      let x = t.x
      let z = t.z
      for (let y = t.y; y <= top; y++) {
        if (y > top - 2) { x += dir[0]; z += dir[1] }
        set(x, y, z, log, false)
      }
      disc(x, top, z, 2, false)
      disc(x, top + 1, z, 1, false)
    } else if (t.kind === 'dark_oak') {
      // four logs square, under a wide low crown
      for (let dy = -1; dy <= 0; dy++) disc(t.x, top + dy, t.z, 3, true)
      disc(t.x, top + 1, t.z, 2, true)
      for (let y = t.y; y <= top; y++) {
        for (const [dx, dz] of [[0, 0], [1, 0], [0, 1], [1, 1]]) set(t.x + dx, y, t.z + dz, log, false)
      }
    } else {
      // oak and birch: two wide leaf layers (radius 2), two narrow ones, corners trimmed
      for (let y = top - 2; y <= top + 1; y++) disc(t.x, y, t.z, y <= top - 1 ? 2 : 1, y !== top + 1)
      for (let y = t.y; y <= top; y++) set(t.x, y, t.z, log, false)
    }
    set(t.x, t.y - 1, t.z, S.dirt, false) // vanilla turns the grass under a trunk to dirt
  }

  return { columns, lay, decorate }
}

module.exports = { makeSurface, makePainter, BIOMES, SEA_LEVEL, WATER_TOP }
