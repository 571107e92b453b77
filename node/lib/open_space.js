'use strict'
// The space the bot shares with what is near: the cells reached from its feet and head through
// cells a mob walks, climbs, swims or shoots through (any but a block whose collision is one
// whole cube: a ladder, a slab, a fence, a door are open; an unloaded cell too), within `radius`. A hostile outside it is sealed off: a creeper in the
// cave behind the wall of the pocket a bot dug itself in can neither reach nor shoot it (a
// bench bot sat out a whole day in such a pocket, its evade reflex failing every second and the
// drive tick's hostile gate shut). Under the open sky, past MAX_CELLS or out to the edge of the
// box, the space is taken as open: on the surface, in a hut with its door, in a cavern or a
// tunnel running off every hostile near counts.
const { Vec3 } = require('vec3')

const MAX_CELLS = 3000
const STEPS = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]

// The state ids whose collision shape is one whole cube, per registry (minecraft-data's
// blockCollisionShapes): nothing walks, climbs or shoots through them. A ladder, a slab, a
// stair, a fence, a carpet, scaffolding, a door are open: a mob gets by or an arrow through.
const solidStates = new WeakMap()
function solids (registry) {
  let set = solidStates.get(registry)
  if (!set) {
    set = new Set()
    const { blocks, shapes } = registry.blockCollisionShapes
    const whole = (shape) => shape && shape.length === 1 && shape[0].join() === '0,0,0,1,1,1'
    for (const b of registry.blocksArray) {
      const entry = blocks[b.name]
      if (entry === undefined) continue
      const first = b.minStateId ?? b.defaultState
      for (let id = first; id <= (b.maxStateId ?? b.defaultState); id++) {
        if (whole(shapes[Array.isArray(entry) ? entry[id - first] : entry])) set.add(id)
      }
    }
    solidStates.set(registry, set)
  }
  return set
}

// The last fill, kept while the bot stays in its cell and no block near it changes nor any
// chunk comes or goes (a snapshot is read many times a second while a hostile is near).
function cached (bot, radius) {
  if (!bot.mcbotSpace) {
    const c = { changes: 0, key: null, value: null, start: null, radius }
    const near = (p) => !c.start || !p ||
      (Math.abs(p.x - c.start.x) <= c.radius + 1 && Math.abs(p.y - c.start.y) <= c.radius + 1 && Math.abs(p.z - c.start.z) <= c.radius + 1)
    bot.on('blockUpdate', (old, now) => { if (near((now || old)?.position)) c.changes++ })
    bot.on('chunkColumnLoad', () => { c.changes++ })
    bot.on('chunkColumnUnload', () => { c.changes++ })
    bot.mcbotSpace = c
  }
  bot.mcbotSpace.radius = radius
  return bot.mcbotSpace
}

function fill (bot, radius) {
  const start = bot.entity.position.floored()
  const solid = solids(bot.registry)
  const w = 2 * radius + 1
  const index = (x, y, z) => ((x - start.x + radius) * w + (y - start.y + radius)) * w + (z - start.z + radius)
  const seen = new Uint8Array(w * w * w)
  const space = new Set()
  const todo = [[start.x, start.y, start.z], [start.x, start.y + 1, start.z]]
  for (const [x, y, z] of todo) seen[index(x, y, z)] = 1
  const at = new Vec3(0, 0, 0)
  let count = todo.length
  while (todo.length) {
    const [x, y, z] = todo.pop()
    if (solid.has(bot.world.getBlockStateId(at.set(x, y, z)))) continue
    // at the edge of the box the space may go on beyond it: unknown, so open
    if (Math.abs(x - start.x) === radius || Math.abs(y - start.y) === radius || Math.abs(z - start.z) === radius) return null
    space.add(index(x, y, z))
    for (const [dx, dy, dz] of STEPS) {
      const nx = x + dx
      const ny = y + dy
      const nz = z + dz
      if (Math.abs(nx - start.x) > radius || Math.abs(ny - start.y) > radius || Math.abs(nz - start.z) > radius) continue
      const i = index(nx, ny, nz)
      if (seen[i]) continue
      seen[i] = 1
      if (++count > MAX_CELLS) return null
      todo.push([nx, ny, nz])
    }
  }
  if (!space.size) return null // the bot in no open cell at all (inside a block): nothing is known
  const inside = (x, y, z) => Math.abs(x - start.x) <= radius && Math.abs(y - start.y) <= radius &&
    Math.abs(z - start.z) <= radius && space.has(index(x, y, z))
  return {
    // the mob's feet or head cell in the space (its feet cell is the slab it stands on at y + 0.5)
    reaches: (position) => {
      const x = Math.floor(position.x)
      const y = Math.floor(position.y)
      const z = Math.floor(position.z)
      return inside(x, y, z) || inside(x, y + 1, z)
    }
  }
}

// { reaches(position) } for the bot's space, or null when it is open. `cover`: the solid
// blocks over its head (lib/snapshot): with none the sky is part of its space.
function openSpace (bot, radius, cover) {
  if (!cover) return null
  const c = cached(bot, radius)
  const p = bot.entity.position.floored()
  const key = `${p.x},${p.y},${p.z},${radius},${c.changes}`
  if (c.key !== key) {
    c.value = fill(bot, radius)
    c.key = key
    c.start = p
  }
  return c.value
}

module.exports = { openSpace }
