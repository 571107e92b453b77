'use strict'
// The space the bot shares with what is near: the cells reached from its feet and head through
// cells a mob walks, swims or shoots through (anything but a full block; a door counts as open,
// an unloaded cell too), within `radius`. A hostile outside it is sealed off: a creeper in the
// cave behind the wall of the pocket a bot dug itself in can neither reach nor shoot it (a
// bench bot sat out a whole day in such a pocket, its evade reflex failing every second and the
// drive tick's hostile gate shut). Under the open sky, or past MAX_CELLS, the space is taken as
// open: on the surface, in a hut with its door or in a cavern every hostile near counts.
const { Vec3 } = require('vec3')

const MAX_CELLS = 3000
const STEPS = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]

// A full block's state ids, per registry (a door's and a trapdoor's left out: mobs come through).
const solidStates = new WeakMap()
function solids (registry) {
  let set = solidStates.get(registry)
  if (!set) {
    set = new Set()
    for (const b of registry.blocksArray) {
      if (b.boundingBox !== 'block' || b.name.endsWith('_door') || b.name.endsWith('_trapdoor')) continue
      for (let id = b.minStateId ?? b.defaultState; id <= (b.maxStateId ?? b.defaultState); id++) set.add(id)
    }
    solidStates.set(registry, set)
  }
  return set
}

// The last fill, kept while the bot stays in its cell and no block changes (a snapshot is read
// many times a second while a hostile is near).
function cached (bot) {
  if (!bot.mcbotSpace) {
    const c = { changes: 0, key: null, value: null }
    bot.on('blockUpdate', () => { c.changes++ })
    bot.on('chunkColumnLoad', () => { c.changes++ })
    bot.mcbotSpace = c
  }
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
  const inside = (x, y, z) => Math.abs(x - start.x) <= radius && Math.abs(y - start.y) <= radius &&
    Math.abs(z - start.z) <= radius && space.has(index(x, y, z))
  return {
    cells: space.size,
    // the mob's feet or head cell in the space (its feet cell is the slab it stands on at y + 0.5)
    reaches: (position) => {
      const x = Math.floor(position.x)
      const y = Math.floor(position.y)
      const z = Math.floor(position.z)
      return inside(x, y, z) || inside(x, y + 1, z)
    }
  }
}

// { cells, reaches(position) } for the bot's space, or null when it is open. `cover`: the solid
// blocks over its head (lib/snapshot): with none the sky is part of its space.
function openSpace (bot, radius, cover) {
  if (!cover) return null
  const c = cached(bot)
  const p = bot.entity.position.floored()
  const key = `${p.x},${p.y},${p.z},${radius},${c.changes}`
  if (c.key !== key) {
    c.value = fill(bot, radius)
    c.key = key
  }
  return c.value
}

module.exports = { openSpace, MAX_CELLS }
