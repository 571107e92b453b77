// The 1.18+ underground under the embedded world's surface, shaped to vanilla's measured
// statistics (`mcbot world compare` judges it against real vanilla chunks): stone over deepslate
// with vanilla's transition band (y 0..8) and a ragged bedrock floor at y -64; caves of two
// kinds, wide caverns and long tunnels, from 3D noise, kept under the ground's skin; aquifers
// (cave air below y -54 is lava, as under vanilla's lava level, and some cave regions below y 0
// hold water); and the ores of vanilla's placed ore features, each with its count per chunk,
// height distribution, vein size, deepslate kind and air-exposure rule. Then vanilla's carvers
// (makeCarvers): worm-like tunnels and ravines, which may open at the surface.
// Everything is a pure function of (seed, x, y, z), so chunks can be made in any order.
'use strict'

const { stateId } = require('./_common')
const range = (lo, hi) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i)

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
// Vanilla 1.18+'s carvers, which cut the ground after its noise caves and before its ores: the
// `cave` carver's worm-like tunnels (with branches and now and then a round room) and the
// `canyon` carver's ravines. Unlike the noise caves they may open at the surface. Each carver
// starts in a chunk, from that chunk's own random, and is traced whole; a chunk being made looks
// at every start within CARVE_RANGE chunks and keeps the cells that fall inside it, so it comes
// out the same whichever chunk is made first. A traced start is a list of ellipsoids, one per step.
const CARVE_RANGE = 8 // chunks: a tunnel of TUNNEL_STEPS one-block steps reaches no further
const TUNNEL_STEPS = 112 // vanilla's carver range 4: (4 * 2 - 1) * 16
const CAVE = { chance: 0.15, lo: MIN_Y + 8, hi: 180 }
const CANYON = { chance: 0.01, lo: 10, hi: 67 }
const HEIGHT = 384 // cells in a column, y -64..319
const SIDES = [[1, 0], [-1, 0], [0, 1], [0, -1]]

// A small seeded generator (mulberry32): one stream per carver start or tunnel.
function randomOf (s) {
  let a = s | 0
  const next = () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  next.int = (n) => Math.floor(next() * n)
  next.seed = () => (next() * 4294967296) | 0
  return next
}

// murmur3's finalizer: every input bit reaches every output bit
function fmix (h) {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return h ^ (h >>> 16)
}

// columnAt(x, z): the surface's { h, water } at a column (surface.js), for the water rule.
function makeCarvers (seed, columnAt) {
  // a start's random from its chunk, mixed one input at a time (hash3's one-step mix starts
  // mirrored carvers in chunks x, z and -x, -z)
  const startRandom = (cx, cz, salt) => randomOf(fmix(fmix(fmix(fmix(seed) ^ cx) ^ cz) ^ salt))

  // One tunnel from (x, y, z), as vanilla's cave carver draws it: steps `from` to `steps`, its
  // radius swelling to 1.5 + thick midway, wandering in yaw and pitch; a thick one forks once.
  function tunnel (out, s, x, y, z, hm, vm, thick, yaw, pitch, from, steps, yScale, floor) {
    const r = randomOf(s)
    const split = r.int(steps >> 1) + (steps >> 2)
    const steep = r.int(6) === 0
    let dYaw = 0
    let dPitch = 0
    for (let i = from; i < steps; i++) {
      const h = 1.5 + Math.sin(Math.PI * i / steps) * thick
      const cp = Math.cos(pitch)
      x += Math.cos(yaw) * cp
      y += Math.sin(pitch)
      z += Math.sin(yaw) * cp
      pitch = pitch * (steep ? 0.92 : 0.7) + dPitch * 0.1
      yaw += dYaw * 0.1
      dPitch = dPitch * 0.9 + (r() - r()) * r() * 2
      dYaw = dYaw * 0.75 + (r() - r()) * r() * 4
      if (i === split && thick > 1) {
        for (const turn of [-Math.PI / 2, Math.PI / 2]) tunnel(out, r.seed(), x, y, z, hm, vm, r() * 0.5 + 0.5, yaw + turn, pitch / 3, i, steps, 1, floor)
        return
      }
      if (r.int(4) !== 0) out.push({ x, y, z, h: h * hm, v: h * yScale * vm, floor, wf: null })
    }
  }

  // The cave carver's starts in chunk (cx, cz), with vanilla's overworld settings: chance 0.15,
  // y -56..180, radius x0.7..1.4 across and x0.8..1.3 up, a flattened floor; a few tunnels from
  // each start, and a round room at one start in four.
  function caves (out, cx, cz) {
    const r = startRandom(cx, cz, 41)
    if (r() >= CAVE.chance) return
    const count = r.int(r.int(r.int(15) + 1) + 1)
    for (let n = 0; n < count; n++) {
      const x = cx * 16 + r.int(16)
      const y = CAVE.lo + r.int(CAVE.hi - CAVE.lo + 1)
      const z = cz * 16 + r.int(16)
      const hm = 0.7 + r() * 0.7
      const vm = 0.8 + r() * 0.5
      const floor = -1 + r() * 0.6 // the share of the radius cut off the bottom: a flat floor
      let tunnels = 1
      if (r.int(4) === 0) {
        const h = 2.5 + r() * 6
        out.push({ x: x + 1, y, z, h, v: h * (0.1 + r() * 0.8), floor, wf: null })
        tunnels += r.int(4)
      }
      for (let k = 0; k < tunnels; k++) {
        const yaw = r() * Math.PI * 2
        const pitch = (r() - 0.5) / 4
        let thick = r() * 2 + r()
        if (r.int(10) === 0) thick *= r() * r() * 3 + 1
        tunnel(out, r.seed(), x, y, z, hm, vm, thick, yaw, pitch, 0, TUNNEL_STEPS - r.int(TUNNEL_STEPS >> 2), 1, floor)
      }
    }
  }

  // The canyon carver's start in chunk (cx, cz), with vanilla's settings: chance 0.01, y 10..67,
  // 84..112 steps nearly level, thickness 0..6, three times as tall as wide, walls whose width
  // changes every few heights.
  function canyon (out, cx, cz) {
    const r = startRandom(cx, cz, 42)
    if (r() >= CANYON.chance) return
    let x = cx * 16 + r.int(16)
    let y = CANYON.lo + r.int(CANYON.hi - CANYON.lo + 1)
    let z = cz * 16 + r.int(16)
    let yaw = r() * Math.PI * 2
    let pitch = (r() - 0.5) / 4
    const thick = r() * 4 + r() * 2
    const steps = Math.floor(TUNNEL_STEPS * (0.75 + r() * 0.25))
    const wf = new Float32Array(HEIGHT)
    for (let i = 0, f = 1; i < HEIGHT; i++) {
      if (i === 0 || r.int(3) === 0) f = 1 + r() * r()
      wf[i] = f * f
    }
    let dYaw = 0
    let dPitch = 0
    for (let i = 0; i < steps; i++) {
      const base = 1.5 + Math.sin(i * Math.PI / steps) * thick
      const h = base * (0.75 + r() * 0.25)
      const v = base * 3 * (0.75 + r() * 0.25)
      const cp = Math.cos(pitch)
      x += Math.cos(yaw) * cp
      y += Math.sin(pitch)
      z += Math.sin(yaw) * cp
      pitch = pitch * 0.7 + dPitch * 0.05
      yaw += dYaw * 0.05
      dPitch = dPitch * 0.8 + (r() - r()) * r() * 2
      dYaw = dYaw * 0.5 + (r() - r()) * r() * 4
      if (r.int(4) !== 0) out.push({ x, y, z, h, v, floor: -1, wf })
    }
  }

  // Every start's ellipsoids, by start chunk (most chunks start none).
  const NONE = []
  const bySource = new Map()
  function startsIn (cx, cz) {
    const key = `${cx},${cz}`
    let got = bySource.get(key)
    if (got === undefined) {
      const out = []
      caves(out, cx, cz)
      canyon(out, cx, cz)
      got = out.length ? out : NONE
      if (bySource.size >= 4096) bySource.delete(bySource.keys().next().value) // 64 x 64 chunks
      bySource.set(key, got)
    }
    return got
  }

  // The ellipsoids that reach into chunk (chunkX, chunkZ); the last few chunks' are kept for
  // carvedAt, which asks about one cell at a time.
  const byChunk = new Map()
  function reaching (chunkX, chunkZ) {
    const key = `${chunkX},${chunkZ}`
    let got = byChunk.get(key)
    if (got) return got
    got = []
    const x0 = chunkX * 16
    const z0 = chunkZ * 16
    for (let cx = chunkX - CARVE_RANGE; cx <= chunkX + CARVE_RANGE; cx++) {
      for (let cz = chunkZ - CARVE_RANGE; cz <= chunkZ + CARVE_RANGE; cz++) {
        for (const s of startsIn(cx, cz)) {
          if (s.x + s.h >= x0 && s.x - s.h < x0 + 16 && s.z + s.h >= z0 && s.z - s.h < z0 + 16) got.push(s)
        }
      }
    }
    if (byChunk.size >= 64) byChunk.delete(byChunk.keys().next().value)
    byChunk.set(key, got)
    return got
  }

  // Whether ellipsoid s takes block (x, y, z): a tunnel's above its flat floor, a ravine's
  // within its uneven walls (vanilla's skip rules).
  function inside (s, x, y, z) {
    const rx = (x + 0.5 - s.x) / s.h
    const rz = (z + 0.5 - s.z) / s.h
    const d = rx * rx + rz * rz
    if (d >= 1) return false
    const ry = (y + 0.5 - s.y) / s.v
    if (ry <= s.floor || ry >= 1) return false
    return s.wf ? d * s.wf[y - MIN_Y] + ry * ry / 6 < 1 : d + ry * ry < 1
  }

  // The highest y a carver may take in a column: nothing under water, and beside a water
  // column nothing above that column's floor, so no sea, lake or river drains into a hole (vanilla's
  // carvers leave cells by a fluid alone). colAt(x, z) gives the column, in x, z's coordinates.
  function limitOf (colAt, x, z) {
    const c = colAt(x, z)
    if (c.water) return -Infinity
    let top = c.h
    for (const [dx, dz] of SIDES) {
      const n = colAt(x + dx, z + dz)
      if (n.water && n.h < top) top = n.h
    }
    return top
  }

  // The cells of chunk (chunkX, chunkZ) the carvers take, as indices (x * 16 + z) * HEIGHT +
  // (y - MIN_Y), each once; limits[x * 16 + z] is limitOf the column. Never the bottom layer.
  const taken = new Uint8Array(256 * HEIGHT)
  function cells (chunkX, chunkZ, limits) {
    const x0 = chunkX * 16
    const z0 = chunkZ * 16
    const out = []
    for (const s of reaching(chunkX, chunkZ)) {
      const ya = Math.max(MIN_Y + 1, Math.floor(s.y - s.v))
      const yb = Math.floor(s.y + s.v)
      for (let x = Math.max(x0, Math.floor(s.x - s.h)); x <= Math.min(x0 + 15, Math.floor(s.x + s.h)); x++) {
        for (let z = Math.max(z0, Math.floor(s.z - s.h)); z <= Math.min(z0 + 15, Math.floor(s.z + s.h)); z++) {
          const col = (x - x0) * 16 + (z - z0)
          const top = Math.min(yb, limits[col])
          for (let y = ya; y <= top; y++) {
            const i = col * HEIGHT + y - MIN_Y
            if (!taken[i] && inside(s, x, y, z)) { taken[i] = 1; out.push(i) }
          }
        }
      }
    }
    for (const i of out) taken[i] = 0
    return out
  }

  // Whether the carvers take block (x, y, z) of the world (as cells does for its chunk).
  function carvedAt (x, y, z) {
    if (y <= MIN_Y || !reaching(x >> 4, z >> 4).some((s) => inside(s, x, y, z))) return false
    return y <= limitOf(columnAt, x, z)
  }

  return { cells, carvedAt, limitOf }
}

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
