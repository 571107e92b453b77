// The 1.18+ underground under the embedded world's surface, shaped to vanilla's measured
// statistics (`mcbot world compare` judges it against real vanilla chunks): stone over deepslate
// with vanilla's transition band (y 0..8) and a ragged bedrock floor at y -64; caves of two
// kinds, wide caverns and long tunnels, from 3D noise, kept under the ground's skin; aquifers
// (cave air below y -54 is lava, as under vanilla's lava level, and some cave regions below y 0
// hold water); and the ores of vanilla's placed ore features, each with its count per chunk,
// height distribution, vein size, deepslate kind and air-exposure rule. Then vanilla's carvers
// (makeCarvers): worm-like tunnels and ravines, which may open at the surface.
// Everything is a pure function of (seed, x, y, z), so chunks can be made in any order.
// Its 3D noise is in _noise3d.js, the carvers in _carvers.js.
'use strict'

const { stateId } = require('./_common')
const { hash3, sampled, quantile } = require('./_noise3d')
const { makeCarvers, HEIGHT } = require('./_carvers')
const range = (lo, hi) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i)

const MIN_Y = -64
const LAVA_LEVEL = -54 // cave air at or below this is lava
const SKIN = 6 // caves stay this far under the ground: no hole opens in the surface

// Vanilla 1.18+'s overworld ore features: attempts per chunk, height distribution (uniform or
// triangle between lo and hi), vein size, and the chance a block next to air is skipped.
// Mountain-only features (emerald, the upper iron and coal) need ground above y 80.
const ORE_FEATURES = [
  { ore: 'coal', count: 30, dist: 'uniform', lo: 136, hi: 320, size: 17, exposed: 0 },
  { ore: 'coal', count: 20, dist: 'triangle', lo: 0, hi: 192, size: 17, exposed: 0.5 },
  { ore: 'iron', count: 90, dist: 'triangle', lo: 80, hi: 384, size: 9, exposed: 0 },
  { ore: 'iron', count: 10, dist: 'triangle', lo: -24, hi: 56, size: 9, exposed: 0 },
  { ore: 'iron', count: 10, dist: 'uniform', lo: -64, hi: 72, size: 4, exposed: 0 },
  { ore: 'copper', count: 16, dist: 'triangle', lo: -16, hi: 112, size: 10, exposed: 0 },
  { ore: 'gold', count: 4, dist: 'triangle', lo: -64, hi: 32, size: 9, exposed: 0.5 },
  { ore: 'gold', count: 0.5, dist: 'uniform', lo: -64, hi: -48, size: 9, exposed: 0.5 },
  { ore: 'redstone', count: 4, dist: 'uniform', lo: -64, hi: 15, size: 8, exposed: 0 },
  { ore: 'redstone', count: 8, dist: 'triangle', lo: -96, hi: -32, size: 8, exposed: 0 },
  { ore: 'lapis', count: 2, dist: 'triangle', lo: -32, hi: 32, size: 7, exposed: 0 },
  { ore: 'lapis', count: 4, dist: 'uniform', lo: -64, hi: 64, size: 7, exposed: 1 },
  { ore: 'diamond', count: 7, dist: 'triangle', lo: -144, hi: 16, size: 4, exposed: 0.5 },
  { ore: 'diamond', count: 1 / 9, dist: 'triangle', lo: -144, hi: 16, size: 12, exposed: 0.7 },
  { ore: 'diamond', count: 4, dist: 'triangle', lo: -144, hi: 16, size: 8, exposed: 1 },
  { ore: 'emerald', count: 100, dist: 'triangle', lo: -16, hi: 480, size: 3, exposed: 0, above: 80 },
  // stone patches: granite, diorite and andesite above y 0, tuff below
  { ore: 'granite', count: 2, dist: 'uniform', lo: 0, hi: 60, size: 64, exposed: 0 },
  { ore: 'diorite', count: 2, dist: 'uniform', lo: 0, hi: 60, size: 64, exposed: 0 },
  { ore: 'andesite', count: 2, dist: 'uniform', lo: 0, hi: 60, size: 64, exposed: 0 },
  { ore: 'tuff', count: 2, dist: 'uniform', lo: -64, hi: 0, size: 64, exposed: 0 },
  { ore: 'gravel', count: 14, dist: 'uniform', lo: -64, hi: 64, size: 33, exposed: 0 },
  { ore: 'dirt', count: 7, dist: 'uniform', lo: 0, hi: 64, size: 33, exposed: 0 }
]

// The share of the rock that is cave at each height: vanilla's, between the real samples'.
const CAVE_SHARE = [[-64, 0.03], [-48, 0.12], [-32, 0.1], [-16, 0.1], [0, 0.06], [16, 0.05], [32, 0.035], [48, 0.01], [64, 0.05], [96, 0.03]]
// Of that, what the carvers (makeCarvers) take on average, measured over 2000 chunks of 40 seeds:
// the noise caves make the rest.
const CARVED_SHARE = [[-56, 0.004], [-40, 0.0075], [-8, 0.0077], [8, 0.011], [24, 0.0126], [40, 0.014], [48, 0]]
const FLOODED = 0.03 // the share of the caves below y 0 that hold water
// a table of [y, value] read at y, straight between its rows
function along (table, y) {
  for (let i = 1; i < table.length; i++) {
    const [y1, s1] = table[i]
    if (y <= y1) {
      const [y0, s0] = table[i - 1]
      return s0 + (s1 - s0) * Math.max(0, (y - y0) / (y1 - y0))
    }
  }
  return table[table.length - 1][1]
}
const NOISE_CAVE_SHARE = Float64Array.from({ length: 384 }, (_, i) => Math.max(0, along(CAVE_SHARE, MIN_Y + i) - along(CARVED_SHARE, MIN_Y + i)))

// surface: the caves terrain's surface (surface.js), whose columns the carvers keep clear of water.
function makeUnderground (registry, seed, surface) {
  const id = (name) => registry.blocksByName[name] ? registry.blocksByName[name].defaultState : null
  const S = {
    air: 0,
    caveAir: id('cave_air') ?? 0,
    stone: id('stone'),
    deepslate: id('deepslate') ?? id('stone'), // its default state stands upright (axis y)
    bedrock: id('bedrock'),
    water: id('water'),
    lava: id('lava'),
    dirt: id('dirt'),
    grass: stateId(registry, 'grass_block', { snowy: 'false' })
  }
  // what a carver cuts: the rock and the ground's layers (not bedrock, not fluids)
  const carvable = new Set(['stone', 'deepslate', 'dirt', 'grass_block', 'sand', 'sandstone', 'gravel', 'clay']
    .flatMap((name) => { const b = registry.blocksByName[name]; return b ? range(b.minStateId, b.maxStateId) : [] }))
  const grassBlock = registry.blocksByName.grass_block
  const isGrass = (s) => s >= grassBlock.minStateId && s <= grassBlock.maxStateId
  const carvers = makeCarvers(seed, (x, z) => surface.column(x, z))
  // an ore's block in stone and in deepslate (tuff and the stone patches have no deepslate kind)
  const ores = {}
  for (const f of ORE_FEATURES) {
    if (ores[f.ore]) continue
    const plain = id(`${f.ore}_ore`) ?? id(f.ore)
    if (plain === null) continue // a version without this block (tuff before 1.17)
    ores[f.ore] = { inStone: plain, inDeepslate: id(`deepslate_${f.ore}_ore`) ?? plain }
  }
  const isRock = (s) => s === S.stone || s === S.deepslate

  // The rock at (x, y, z) before caves: deepslate below y 0, stone above y 8, mixed between.
  function rockAt (x, y, z) {
    if (y <= MIN_Y + 4 && hash3(seed, x, y, z, 11) < (MIN_Y + 5 - y) / 5) return S.bedrock
    if (y < 0) return S.deepslate
    if (y < 8) return hash3(seed, x, y, z, 12) < (8 - y) / 8 ? S.deepslate : S.stone
    return S.stone
  }

  // Wide caverns and long tunnels: air where this is true. A cell is a cavern where the noise
  // is above the quantile that leaves CAVE_SHARE of the rock at that height (vanilla's measured
  // share of air under the ground, by band); tunnels, where two noise sheets cross, add to it.
  // f: the chunk's noise fields (fieldsOf), read at the cell's place in the chunk.
  function isCave (f, x, y, z, ground) {
    if (y > ground - SKIN || y <= MIN_Y + 4) return false
    const near = Math.min(1, (ground - SKIN - y) / 12) // thinning out under the ground
    const share = NOISE_CAVE_SHARE[y - MIN_Y] * near
    if (share <= 0) return false
    if (f.cavern(x, y, z) > quantile(1 - share * 0.8)) return true
    const w = 0.03 * near
    return Math.abs(f.sheetA(x, y, z) - 0.5) < w && Math.abs(f.sheetB(x, y, z) - 0.5) < w
  }

  // What fills a cave cell: lava under the lava level, water in a flooded region below y 0.
  function caveFill (f, x, y, z) {
    if (y <= LAVA_LEVEL) return S.lava
    if (y < 0 && f.flood(x, y, z) > quantile(1 - FLOODED)) return S.water
    return S.caveAir
  }

  // The noise fields of one chunk, as vanilla samples its density: at every fourth block, and
  // trilinear between (a few hundred noise values a chunk instead of one per block and field).
  function fieldsOf (chunkX, chunkZ, top) {
    const field = (salt, sxz, sy) => sampled(seed, chunkX * 16, chunkZ * 16, top, sxz, sy, salt)
    return { cavern: field(21, 24, 12), sheetA: field(22, 28, 14), sheetB: field(23, 28, 14), flood: field(24, 24, 12) }
  }

  // Fills one chunk's columns below each column's dirt (heights[x * 16 + z] is the ground), then
  // carves it; cols.at(x, z) is the surface's column at chunk-local x, z (-1..16).
  function fill (chunk, p, heights, chunkX, chunkZ, cols) {
    const bx = chunkX * 16
    const bz = chunkZ * 16
    const f = fieldsOf(chunkX, chunkZ, Math.max(...heights))
    const cut = carvedCells(chunkX, chunkZ, cols)
    for (let x = 0; x < 16; x++) {
      for (let z = 0; z < 16; z++) {
        const ground = heights[x * 16 + z]
        const at = (x * 16 + z) * HEIGHT - MIN_Y
        p.x = x; p.z = z
        for (let y = MIN_Y; y < ground - 3; y++) {
          p.y = y
          let s = isCave(f, x, y, z, ground) ? caveFill(f, x, y, z) : rockAt(bx + x, y, bz + z)
          if (taken[at + y] && isRock(s)) s = carvedFill(y)
          chunk.setBlockStateId(p, s)
        }
      }
    }
    carveLayers(chunk, p, heights, cut)
    for (const i of cut) taken[i] = 0
    placeOres(chunk, p, chunkX, chunkZ, heights)
  }

  // The cells the carvers take in a chunk, marked in `taken` (cleared again once the chunk is
  // made): never under or beside water (carvers.limitOf).
  const taken = new Uint8Array(256 * HEIGHT)
  function carvedCells (chunkX, chunkZ, cols) {
    const colAt = cols ? cols.at : (x, z) => surface.column(chunkX * 16 + x, chunkZ * 16 + z)
    const limits = new Float64Array(256)
    for (let x = 0; x < 16; x++) for (let z = 0; z < 16; z++) limits[x * 16 + z] = carvers.limitOf(colAt, x, z)
    const cut = carvers.cells(chunkX, chunkZ, limits)
    for (const i of cut) taken[i] = 1
    return cut
  }
  const carvedFill = (y) => y <= LAVA_LEVEL ? S.lava : S.caveAir

  // The carved cells in the ground's top layers (surface.js laid them). A column opened at its
  // top lets the sky down its hole, and dirt bared under carved grass turns to grass, as
  // vanilla's carvers do.
  function carveLayers (chunk, p, heights, cut) {
    const opened = new Map() // column -> its top block before it was carved
    for (const i of cut) {
      const col = Math.floor(i / HEIGHT)
      const y = MIN_Y + i % HEIGHT
      if (y < heights[col] - 3) continue // carved with the rock
      p.x = col >> 4; p.z = col & 15; p.y = y
      const was = chunk.getBlockStateId(p)
      if (!carvable.has(was)) continue
      chunk.setBlockStateId(p, carvedFill(y))
      if (y === heights[col]) opened.set(col, was)
    }
    for (const [col, was] of opened) {
      p.x = col >> 4; p.z = col & 15
      for (p.y = heights[col]; p.y > MIN_Y; p.y--) {
        const s = chunk.getBlockStateId(p)
        if (s !== S.caveAir && s !== S.air) break
        chunk.setSkyLight(p, 15)
      }
      if (isGrass(was) && chunk.getBlockStateId(p) === S.dirt) chunk.setBlockStateId(p, S.grass)
    }
  }

  // uniform between lo and hi, or a triangle (the sum of two uniforms) peaking midway
  function heightFor (f, r1, r2) {
    if (f.dist === 'uniform') return Math.floor(f.lo + r1 * (f.hi - f.lo + 1))
    return Math.floor(f.lo + (r1 + r2) * (f.hi - f.lo) / 2)
  }

  // Each feature's veins: a blob of about `size` blocks around a random point, inside the chunk,
  // replacing only rock; a block next to air is skipped with the feature's exposure chance.
  function placeOres (chunk, p, chunkX, chunkZ, heights) {
    let salt = 1000
    for (const f of ORE_FEATURES) {
      const block = ores[f.ore]
      salt += 97
      if (!block) continue
      const whole = Math.floor(f.count)
      const tries = whole + (hash3(seed, chunkX, 0, chunkZ, salt) < f.count - whole ? 1 : 0)
      for (let i = 0; i < tries; i++) {
        const r = (k) => hash3(seed, chunkX, i, chunkZ, salt + k)
        const cx = Math.floor(r(1) * 16)
        const cz = Math.floor(r(2) * 16)
        const cy = heightFor(f, r(3), r(4))
        if (cy < MIN_Y || cy >= heights[cx * 16 + cz] - 3) continue
        if (f.above !== undefined && heights[cx * 16 + cz] < f.above) continue
        vein(chunk, p, block, f, cx, cy, cz, (k) => r(10 + k))
      }
    }
  }

  // A vein of about 0.13 * size^1.75 blocks (vanilla's measured blocks per vein: about 1.5 for
  // size 4, 6 for size 9, 20 for size 17), grown cell by cell from its centre.
  function vein (chunk, p, block, f, cx, cy, cz, r) {
    const want = Math.max(1, Math.round(0.13 * Math.pow(f.size, 1.75) * (0.6 + 0.8 * r(0))))
    let x = cx
    let y = cy
    let z = cz
    for (let k = 0, placed = 0; placed < want && k < want * 4; k++) {
      if (x >= 0 && x <= 15 && z >= 0 && z <= 15) {
        p.x = x; p.y = y; p.z = z
        const here = chunk.getBlockStateId(p)
        if (isRock(here) && !(f.exposed > 0 && nextToAir(chunk, p) && r(200 + k % 50) < f.exposed)) {
          chunk.setBlockStateId(p, here === S.deepslate ? block.inDeepslate : block.inStone)
          placed++
        }
      }
      const d = Math.floor(r(1 + k % 150) * 6) // the next cell: a step back towards the centre when too far
      if (Math.abs(x - cx) + Math.abs(y - cy) + Math.abs(z - cz) > Math.cbrt(want) + 1) { x = cx; y = cy; z = cz }
      if (d === 0) x++; else if (d === 1) x--; else if (d === 2) y++; else if (d === 3) y--; else if (d === 4) z++; else z--
    }
  }

  function nextToAir (chunk, p) {
    const { x, y, z } = p
    let air = false
    for (const [dx, dy, dz] of [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]) {
      const nx = x + dx
      const nz = z + dz
      if (nx < 0 || nx > 15 || nz < 0 || nz > 15) continue
      p.x = nx; p.y = y + dy; p.z = nz
      const s = chunk.getBlockStateId(p)
      if (s === S.air || s === S.caveAir) { air = true; break }
    }
    p.x = x; p.y = y; p.z = z
    return air
  }

  return { fill, carvedAt: carvers.carvedAt }
}

module.exports = { makeUnderground, makeCarvers, ORE_FEATURES, LAVA_LEVEL }
