// Vanilla 1.18+'s carvers under the caves terrain (underground.js runs them; the leading
// underscore keeps this off the plugin list). They cut the ground after its noise caves and
// before its ores: the `cave` carver's worm-like tunnels (with branches and now and then a round
// room) and the `canyon` carver's ravines. Unlike the noise caves they may open at the surface.
// Each carver starts in a chunk, from that chunk's own random, and is traced whole; a chunk being
// made looks at every start within CARVE_RANGE chunks and keeps the cells that fall inside it, so
// it comes out the same whichever chunk is made first. A traced start is a list of ellipsoids,
// one per step.
'use strict'

const MIN_Y = -64 // the world's floor
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

module.exports = { makeCarvers, HEIGHT }
