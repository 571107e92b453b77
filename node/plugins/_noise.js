// Hash, 2D value noise and tree cells for the terrain plugins (the leading underscore keeps it off the
// plugin list): pure functions of (seed, x, z), so chunks come out the same in any order.
'use strict'

function hash (seed, x, z, salt) {
  let h = (seed ^ Math.imul(x, 0x27d4eb2d) ^ Math.imul(z, 0x165667b1) ^ Math.imul(salt, 0x9e3779b9)) | 0
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296
}

// Small seeded generator (mulberry32): a stream of 0..1 draws, the same for the same seed.
function rng (seed) {
  let a = seed | 0
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const smooth = (t) => t * t * (3 - 2 * t)
const lerp = (a, b, t) => a + (b - a) * t
const clamp01 = (t) => Math.min(1, Math.max(0, t))

// 0..1, smooth between lattice points `scale` blocks apart
function valueNoise (seed, x, z, scale, salt) {
  const fx = x / scale
  const fz = z / scale
  const x0 = Math.floor(fx)
  const z0 = Math.floor(fz)
  const sx = smooth(fx - x0)
  const sz = smooth(fz - z0)
  const a = hash(seed, x0, z0, salt)
  const b = hash(seed, x0 + 1, z0, salt)
  const c = hash(seed, x0, z0 + 1, salt)
  const d = hash(seed, x0 + 1, z0 + 1, salt)
  return lerp(lerp(a, b, sx), lerp(c, d, sx), sz)
}

// The trees whose trunks stand inside x0..x1, z0..z1: one candidate per cell of cellSize blocks
// (treeInCell(cx, cz) gives it or null), so trunks stay apart and any area asks the same cells.
function treesIn (treeInCell, cellSize, x0, z0, x1, z1) {
  const out = []
  for (let cx = Math.floor(x0 / cellSize); cx <= Math.floor(x1 / cellSize); cx++) {
    for (let cz = Math.floor(z0 / cellSize); cz <= Math.floor(z1 / cellSize); cz++) {
      const t = treeInCell(cx, cz)
      if (t && t.x >= x0 && t.x <= x1 && t.z >= z0 && t.z <= z1) out.push(t)
    }
  }
  return out
}

module.exports = { hash, rng, valueNoise, smooth, lerp, clamp01, treesIn }
