// The 1.18+ underground under the embedded world's surface, shaped to vanilla's measured
// statistics (`mcbot world compare` judges it against real vanilla chunks): stone over deepslate
// with vanilla's transition band (y 0..8) and a ragged bedrock floor at y -64; caves of two
// kinds, wide caverns and long tunnels, from 3D noise, kept under the ground's skin; aquifers
// (cave air below y -54 is lava, as under vanilla's lava level, and some cave regions below y 0
// hold water); and the ores of vanilla's placed ore features, each with its count per chunk,
// height distribution, vein size, deepslate kind and air-exposure rule.
// Everything is a pure function of (seed, x, y, z), so chunks can be made in any order.
'use strict'

const MIN_Y = -64
const LAVA_LEVEL = -54 // cave air at or below this is lava
const SKIN = 6 // caves stay this far under the ground: no hole opens in the surface

function hash3 (seed, x, y, z, salt) {
  let h = (seed ^ Math.imul(x, 0x27d4eb2d) ^ Math.imul(y, 0x2f0b3e5d) ^ Math.imul(z, 0x165667b1) ^ Math.imul(salt, 0x9e3779b9)) | 0
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296
}

const smooth = (t) => t * t * (3 - 2 * t)
const lerp = (a, b, t) => a + (b - a) * t

// Value noise in 3D, 0..1, with its own horizontal and vertical scale.
function noise3 (seed, x, y, z, sxz, sy, salt) {
  const fx = x / sxz
  const fy = y / sy
  const fz = z / sxz
  const x0 = Math.floor(fx)
  const y0 = Math.floor(fy)
  const z0 = Math.floor(fz)
  const tx = smooth(fx - x0)
  const ty = smooth(fy - y0)
  const tz = smooth(fz - z0)
  const c = (dx, dy, dz) => hash3(seed, x0 + dx, y0 + dy, z0 + dz, salt)
  return lerp(
    lerp(lerp(c(0, 0, 0), c(1, 0, 0), tx), lerp(c(0, 0, 1), c(1, 0, 1), tx), tz),
    lerp(lerp(c(0, 1, 0), c(1, 1, 0), tx), lerp(c(0, 1, 1), c(1, 1, 1), tx), tz),
    ty)
}

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
const FLOODED = 0.03 // the share of the caves below y 0 that hold water
function caveShare (y) {
  for (let i = 1; i < CAVE_SHARE.length; i++) {
    const [y1, s1] = CAVE_SHARE[i]
    if (y <= y1) {
      const [y0, s0] = CAVE_SHARE[i - 1]
      return s0 + (s1 - s0) * Math.max(0, (y - y0) / (y1 - y0))
    }
  }
  return CAVE_SHARE[CAVE_SHARE.length - 1][1]
}

// noise3 sampled at every fourth block of a chunk (16 x (top + 64) x 16 blocks), read anywhere in
// it by trilinear interpolation; chunk-local x, z (0..15) and world y.
const STEP = 4
function sampled (seed, bx, bz, top, sxz, sy, salt) {
  const ny = Math.floor((top - MIN_Y) / STEP) + 2
  const n = 16 / STEP + 1
  const g = new Float32Array(n * n * ny)
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      for (let k = 0; k < ny; k++) g[(i * n + j) * ny + k] = noise3(seed, bx + i * STEP, MIN_Y + k * STEP, bz + j * STEP, sxz, sy, salt)
    }
  }
  return (x, y, z) => {
    const fx = x / STEP
    const fy = (y - MIN_Y) / STEP
    const fz = z / STEP
    const i = Math.min(n - 2, Math.floor(fx))
    const k = Math.min(ny - 2, Math.floor(fy))
    const j = Math.min(n - 2, Math.floor(fz))
    const tx = fx - i
    const ty = fy - k
    const tz = fz - j
    const at = (di, dj, dk) => g[((i + di) * n + j + dj) * ny + k + dk]
    return lerp(
      lerp(lerp(at(0, 0, 0), at(1, 0, 0), tx), lerp(at(0, 1, 0), at(1, 1, 0), tx), tz),
      lerp(lerp(at(0, 0, 1), at(1, 0, 1), tx), lerp(at(0, 1, 1), at(1, 1, 1), tx), tz),
      ty)
  }
}

// The sampled noise's distribution, measured once over a few chunks: quantile(q) is the value it
// stays under with chance q.
const QUANTILES = (() => {
  const values = []
  for (let c = 0; c < 6; c++) {
    const f = sampled(7, c * 160, c * 96, 64, 24, 12, 1)
    for (let i = 0; i < 6000; i++) values.push(f((i * 7) % 16, MIN_Y + (i * 13) % 128, (i * 11) % 16))
  }
  return values.sort((a, b) => a - b)
})()
const quantile = (q) => QUANTILES[Math.max(0, Math.min(QUANTILES.length - 1, Math.floor(q * QUANTILES.length)))]
function makeUnderground (registry, seed) {
  const id = (name) => registry.blocksByName[name] ? registry.blocksByName[name].defaultState : null
  const S = {
    air: 0,
    caveAir: id('cave_air') ?? 0,
    stone: id('stone'),
    deepslate: id('deepslate') ?? id('stone'), // its default state stands upright (axis y)
    bedrock: id('bedrock'),
    water: id('water'),
    lava: id('lava')
  }
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
    const share = caveShare(y) * near
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

  // Fills one chunk's columns below each column's dirt (heights[x * 16 + z] is the ground).
  function fill (chunk, p, heights, chunkX, chunkZ) {
    const bx = chunkX * 16
    const bz = chunkZ * 16
    const f = fieldsOf(chunkX, chunkZ, Math.max(...heights))
    for (let x = 0; x < 16; x++) {
      for (let z = 0; z < 16; z++) {
        const ground = heights[x * 16 + z]
        p.x = x; p.z = z
        for (let y = MIN_Y; y < ground - 3; y++) {
          p.y = y
          chunk.setBlockStateId(p, isCave(f, x, y, z, ground) ? caveFill(f, x, y, z) : rockAt(bx + x, y, bz + z))
        }
      }
    }
    placeOres(chunk, p, chunkX, chunkZ, heights)
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

  return { fill }
}

module.exports = { makeUnderground, ORE_FEATURES, LAVA_LEVEL }
