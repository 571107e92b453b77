// 3D value noise for the caves terrain's underground (underground.js; the leading underscore keeps
// it off the plugin list): a pure function of (seed, x, y, z), sampled per chunk at every fourth
// block as vanilla samples its density, and the sampled noise's measured distribution.
'use strict'

const MIN_Y = -64 // the world's floor: a chunk's samples start here

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

module.exports = { hash3, sampled, quantile }
