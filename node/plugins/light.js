// Light levels for spawning and mob brains, per vanilla 1.18+ (no light data is stored: the
// world is lit on demand). Used through serv.mcbotLight (light(serv) builds it once):
// - blockLight(world, x, y, z): every emitter (minecraft-data emitLight: torch 14, glowstone 15;
//   blocks with a `lit` property only when lit) lights its neighbours one less per block of
//   travel; a block that filters light (filterLight: leaves, water 1) costs max(1, filter) and an
//   opaque one (15) stops it. The level at a spot is the best emitter level minus the cheapest
//   path cost, found by a bounded search outward from the spot (the same paths as vanilla's flood
//   from each emitter). Cheap when nothing is near: emitters are listed per chunk column (scanned
//   once, section palettes first; a column's list is dropped when an emitter is placed or broken
//   there or the column reloads) and the search only runs when one is within reach.
// - skyDarken(time): vanilla Level.updateSkyBrightness with clear weather: 0 by day, 11 at night.
// - skyLight(world, x, y, z[, limit]): 15 straight down through clear blocks, then one less per
//   block (more through a filter) below the first that filters (0 under an opaque block), spread
//   sideways and up from the cells near, as vanilla's (an overhang, a cave mouth, the shade of a
//   tree are lit from the side).
// - brightness(world, x, y, z, time): vanilla raw brightness, max(sky - darken, block).
'use strict'

const { stateProps } = require('./_common')

const MAX = 15
const R = 16 // search box half-size: a path costs at most 14 before light reaches 0
const SIDE = 2 * R + 1
const NEIGHBOURS = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]

function build (serv) {
  const { registry } = serv
  const states = Math.max(...registry.blocksArray.map(b => b.maxStateId)) + 1
  const emit = new Uint8Array(states) // light emitted by a state
  const filter = new Uint8Array(states) // minecraft-data filterLight; 15 = opaque
  const cost = new Uint8Array(states).fill(1) // block light lost entering it: max(1, filter)
  for (const b of registry.blocksArray) {
    for (let s = b.minStateId; s <= b.maxStateId; s++) {
      filter[s] = Math.min(MAX, b.filterLight ?? (b.transparent ? 0 : MAX))
      cost[s] = Math.max(1, filter[s])
      if (!b.emitLight) continue
      const props = b.states?.length ? stateProps(registry, s) : {}
      if (props.lit === 'false') continue
      emit[s] = b.name === 'light' && props.level !== undefined ? Number(props.level) : b.emitLight
    }
  }

  // --- emitters per chunk column ---------------------------------------------------------------
  const sources = new WeakMap() // world -> Map('cx,cz' -> [[x, y, z, level], ...])
  function listOf (world) {
    if (!sources.has(world)) {
      const map = new Map()
      sources.set(world, map)
      const forget = (block) => {
        const p = block.position
        if (p) map.delete(`${p.x >> 4},${p.z >> 4}`)
      }
      const onBlock = (oldBlock, newBlock) => {
        if (emit[oldBlock.stateId] || emit[newBlock.stateId]) forget(newBlock)
      }
      const onColumn = (corner) => map.delete(`${corner.x >> 4},${corner.z >> 4}`)
      for (const emitter of [world, world.sync]) {
        emitter.on('blockUpdate', onBlock)
        emitter.on('chunkColumnLoad', onColumn)
      }
    }
    return sources.get(world)
  }

  function scanColumn (column, cx, cz) {
    const out = []
    const minY = column.minY ?? 0
    const sections = column.sections || []
    sections.forEach((section, i) => {
      const data = section?.data
      if (!data) return
      if (data.value !== undefined && !emit[data.value]) return // one state for the section
      if (data.palette && !data.palette.some(s => emit[s])) return
      for (let idx = 0; idx < 4096; idx++) {
        const s = data.get(idx)
        if (emit[s]) out.push([cx * 16 + (idx & 15), minY + i * 16 + (idx >> 8), cz * 16 + ((idx >> 4) & 15), emit[s]])
      }
    })
    return out
  }

  function emittersNear (world, x, z) {
    const map = listOf(world)
    const out = []
    for (let cx = (x - MAX) >> 4; cx <= (x + MAX) >> 4; cx++) {
      for (let cz = (z - MAX) >> 4; cz <= (z + MAX) >> 4; cz++) {
        const key = `${cx},${cz}`
        let list = map.get(key)
        if (!list) {
          const column = world.sync.getColumn(cx, cz)
          if (!column) continue
          list = scanColumn(column, cx, cz)
          map.set(key, list)
        }
        out.push(list)
      }
    }
    return out
  }

  // --- the search --------------------------------------------------------------------------------
  const best = new Uint8Array(SIDE * SIDE * SIDE) // cheapest cost found per cell, 0 = unseen
  const touched = []
  function stateReader (world) {
    let lastKey = null
    let lastColumn = null
    const pos = { x: 0, y: 0, z: 0 }
    return (x, y, z) => {
      const cx = x >> 4
      const cz = z >> 4
      const key = cx * 100003 + cz
      if (key !== lastKey) { lastKey = key; lastColumn = world.sync.getColumn(cx, cz) }
      if (!lastColumn) return -1
      pos.x = x & 15; pos.y = y; pos.z = z & 15
      return lastColumn.getBlockStateId(pos) || 0
    }
  }

  function blockLight (world, x, y, z) {
    x = Math.floor(x); y = Math.floor(y); z = Math.floor(z)
    // the most any listed emitter could give here; nothing in reach means dark, no search
    let reach = 0
    for (const list of emittersNear(world, x, z)) {
      for (const [ex, ey, ez, level] of list) {
        reach = Math.max(reach, level - Math.abs(ex - x) - Math.abs(ey - y) - Math.abs(ez - z))
      }
    }
    if (reach <= 0) return 0
    const read = stateReader(world)
    const here = read(x, y, z)
    if (here < 0) return 0
    let light = emit[here]
    if (cost[here] >= MAX) return light
    // Dijkstra by cost buckets: the cost of a cell is what light loses from it to the spot.
    const buckets = Array.from({ length: MAX + 1 }, () => [])
    const at = (dx, dy, dz) => ((dx + R) * SIDE + (dy + R)) * SIDE + (dz + R)
    buckets[cost[here]].push([0, 0, 0])
    best[at(0, 0, 0)] = cost[here]; touched.push(at(0, 0, 0))
    for (let c = 1; c <= MAX && c < MAX - light; c++) {
      for (const [dx, dy, dz] of buckets[c]) {
        if (best[at(dx, dy, dz)] !== c) continue // reached cheaper since
        for (const [ox, oy, oz] of NEIGHBOURS) {
          const nx = dx + ox; const ny = dy + oy; const nz = dz + oz
          if (Math.abs(nx) >= R || Math.abs(ny) >= R || Math.abs(nz) >= R) continue
          const s = read(x + nx, y + ny, z + nz)
          if (s < 0) continue
          if (emit[s] > light + c) light = emit[s] - c
          const nc = c + cost[s]
          if (cost[s] >= MAX || nc >= MAX - light) continue
          const k = at(nx, ny, nz)
          if (best[k] && best[k] <= nc) continue
          if (!best[k]) touched.push(k)
          best[k] = nc
          buckets[nc].push([nx, ny, nz])
        }
      }
    }
    for (const k of touched) best[k] = 0
    touched.length = 0
    return light
  }

  // --- sky -----------------------------------------------------------------------------------------
  function skyDarken (time) {
    const d = ((time / 24000 - 0.25) % 1 + 1) % 1
    const angle = (d * 2 + (0.5 - Math.cos(d * Math.PI) / 2)) / 3 // vanilla timeOfDay
    const f = 0.5 + 2 * Math.max(-0.25, Math.min(0.25, Math.cos(angle * Math.PI * 2)))
    return Math.floor((1 - f) * 11)
  }

  // Sky light as vanilla spreads it: 15 straight down through clear blocks; below the first
  // block that filters (leaves, water) every block costs max(1, its filter), as does every
  // step sideways or up, so a cave mouth or the shade of a tree is lit from the open cells
  // beside it. `limit`: the caller only asks whether the light is above it (spawning): the
  // search stops as soon as it is, and does not look where no light above it could come from.
  function skyLight (world, x, y, z, limit = 0) {
    x = Math.floor(x); y = Math.floor(y); z = Math.floor(z)
    const read = stateReader(world)
    const here = read(x, y, z)
    if (here < 0) return 0
    const column = world.sync.getColumn(x >> 4, z >> 4)
    const top = (column?.minY ?? 0) + (column?.worldHeight ?? 256)
    const openFrom = new Map() // 'x,z' -> lowest y with only clear blocks above, found so far
    const straightOf = new Map() // cell -> its light from straight above
    const straight = (cx, cy, cz, s) => {
      const cell = (cx * 4099 + cy) * 4099 + cz
      const known = straightOf.get(cell)
      if (known !== undefined) return known
      const key = cx * 100003 + cz
      const open = openFrom.get(key)
      let light = MAX
      let dimmed = false // below a block that filters: every block costs from here down
      const above = []
      for (let yy = cy + 1; yy < top; yy++) {
        if (open !== undefined && yy >= open) break
        const t = read(cx, yy, cz)
        if (t < 0 || filter[t] >= MAX) { light = 0; break }
        above.push(filter[t])
      }
      if (light > 0) {
        for (let i = above.length - 1; i >= 0 && light > 0; i--) {
          if (dimmed || above[i] > 0) { dimmed = true; light -= Math.max(1, above[i]) }
        }
        if (!dimmed && (open === undefined || cy + 1 < open)) openFrom.set(key, cy + 1)
        light = dimmed || filter[s] > 0 ? light - Math.max(1, filter[s]) : light
      }
      light = Math.max(0, light)
      straightOf.set(cell, light)
      return light
    }
    let light = straight(x, y, z, here)
    if ((limit > 0 && light > limit) || light >= MAX || cost[here] >= MAX) return light
    const buckets = Array.from({ length: MAX + 1 }, () => [])
    const at = (dx, dy, dz) => ((dx + R) * SIDE + (dy + R)) * SIDE + (dz + R)
    buckets[cost[here]].push([0, 0, 0])
    best[at(0, 0, 0)] = cost[here]; touched.push(at(0, 0, 0))
    for (let c = 1; c <= MAX && c < MAX - Math.max(light, limit); c++) {
      for (const [dx, dy, dz] of buckets[c]) {
        if (best[at(dx, dy, dz)] !== c) continue
        for (const [ox, oy, oz] of NEIGHBOURS) {
          const nx = dx + ox; const ny = dy + oy; const nz = dz + oz
          if (Math.abs(nx) >= R || Math.abs(ny) >= R || Math.abs(nz) >= R) continue
          const s = read(x + nx, y + ny, z + nz)
          if (s < 0 || cost[s] >= MAX) continue
          const sky = straight(x + nx, y + ny, z + nz, s)
          if (sky > light + c) light = sky - c
          const nc = c + cost[s]
          if (nc >= MAX - Math.max(light, limit)) continue
          const k = at(nx, ny, nz)
          if (best[k] && best[k] <= nc) continue
          if (!best[k]) touched.push(k)
          best[k] = nc
          buckets[nc].push([nx, ny, nz])
        }
      }
      if (light > limit && limit > 0) break // enough to answer the caller
    }
    for (const k of touched) best[k] = 0
    touched.length = 0
    return light
  }

  const brightness = (world, x, y, z, time) =>
    Math.max(skyLight(world, x, y, z) - skyDarken(time), blockLight(world, x, y, z))

  return { blockLight, skyLight, skyDarken, brightness }
}

module.exports = function light (serv) {
  if (!serv.mcbotLight) serv.mcbotLight = build(serv)
  return serv.mcbotLight
}
