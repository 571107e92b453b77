// Terrain: rolling grass plains over dirt and stone, coal and iron ore blobs, oak trees; or, for
// the "caves" terrain, vanilla's layout (surface.js) over vanilla's underground (underground.js).
// Everything is a pure function of (seed, x, z), so chunks can be generated in any order and
// a tree's canopy that crosses a chunk border comes out identical on both sides.
// module.exports is the flying-squid generator (world.js requires it by path); .server
// places the spawn point in the open with trees 8-20 blocks away.
'use strict'

const { Vec3 } = require('vec3')
const { stateId } = require('./_common')
const { hash, valueNoise, treesIn } = require('./_noise')
const { makeSurface, makePainter } = require('./surface')
const underground = () => require('./underground') // only the caves terrain loads it

const BASE_Y = 64
const CELL = 5 // one tree candidate per 5x5 cell keeps trunks apart

function makeTerrain (seed, treeDensity) {
  const heightAt = (x, z) => BASE_Y + Math.round(
    (valueNoise(seed, x, z, 48, 1) - 0.5) * 10 + (valueNoise(seed, x, z, 16, 2) - 0.5) * 3)
  const pTree = Math.min(0.95, Math.max(0, treeDensity) * CELL * CELL)

  // The tree of a cell, or null: trunk position, trunk height 4-6, canopy shape seed.
  function treeInCell (cx, cz) {
    if (hash(seed, cx, cz, 3) >= pTree) return null
    const x = cx * CELL + 1 + Math.floor(hash(seed, cx, cz, 4) * (CELL - 2))
    const z = cz * CELL + 1 + Math.floor(hash(seed, cx, cz, 5) * (CELL - 2))
    const height = 4 + Math.floor(hash(seed, cx, cz, 6) * 3)
    return { x, z, y: heightAt(x, z) + 1, height }
  }

  const treesNear = (x0, z0, x1, z1) => treesIn(treeInCell, CELL, x0, z0, x1, z1)

  return { heightAt, treeInCell, treesNear, spawnFriendly: () => true }
}

// The ground of the configured terrain: these plains, or the caves terrain's vanilla surface.
function landOf (seed, cfg) {
  const density = cfg.treeDensity ?? 0.015
  return cfg.terrain === 'caves' ? makeSurface(seed, density) : makeTerrain(seed, density)
}

function generation (options) {
  const { registry } = options
  const Chunk = require('prismarine-chunk')(registry)
  const cfg = options.mcbot || {}
  const seed = options.seed | 0
  const terrain = landOf(seed, cfg)
  const S = {
    bedrock: stateId(registry, 'bedrock'),
    stone: stateId(registry, 'stone'),
    dirt: stateId(registry, 'dirt'),
    grass: stateId(registry, 'grass_block', { snowy: 'false' }),
    log: stateId(registry, 'oak_log', { axis: 'y' }),
    leaves: stateId(registry, 'oak_leaves', { distance: '1', persistent: 'false' }),
    coal: stateId(registry, 'coal_ore'),
    iron: stateId(registry, 'iron_ore')
  }
  const plains = registry.biomesByName.plains.id
  // "caves": vanilla's underground under the same surface (plugins/underground.js)
  const below = cfg.terrain === 'caves' ? underground().makeUnderground(registry, seed, terrain) : null

  const painter = below ? makePainter(registry, terrain, seed, below.carvedAt) : null

  return function generateChunk (chunkX, chunkZ) {
    const chunk = new Chunk({ minY: -64, worldHeight: 384 })
    const p = new Vec3(0, 0, 0)
    if (painter) {
      const cols = painter.columns(chunkX, chunkZ)
      const heights = []
      for (let x = 0; x < 16; x++) for (let z = 0; z < 16; z++) heights[x * 16 + z] = cols.at(x, z).h
      painter.lay(chunk, p, chunkX, chunkZ, cols)
      below.fill(chunk, p, heights, chunkX, chunkZ, cols)
      painter.decorate(chunk, p, chunkX, chunkZ, cols)
      return chunk
    }
    const bx = chunkX * 16
    const bz = chunkZ * 16
    const heights = []
    for (let x = 0; x < 16; x++) {
      for (let z = 0; z < 16; z++) {
        const h = terrain.heightAt(bx + x, bz + z)
        heights[x * 16 + z] = h
        p.x = x; p.z = z
        p.y = 0; chunk.setBlockStateId(p, S.bedrock)
        for (p.y = 1; p.y < h - 3; p.y++) chunk.setBlockStateId(p, S.stone)
        for (p.y = h - 3; p.y < h; p.y++) chunk.setBlockStateId(p, S.dirt)
        p.y = h; chunk.setBlockStateId(p, S.grass)
        for (p.y = h + 1; p.y < 256; p.y++) chunk.setSkyLight(p, 15)
      }
    }
    for (let x = 0; x < 16; x += 4) {
      for (let z = 0; z < 16; z += 4) {
        for (let y = 0; y < 256; y += 4) { p.x = x; p.y = y; p.z = z; chunk.setBiome(p, plains) }
      }
    }
    placeOres(chunk, p, chunkX, chunkZ, heights)
    for (const t of terrain.treesNear(bx - 2, bz - 2, bx + 17, bz + 17)) placeTree(chunk, p, t, bx, bz)
    return chunk
  }

  // Blobs of 3-8 ore blocks, kept inside the chunk; coal near the surface, iron deeper.
  function placeOres (chunk, p, chunkX, chunkZ, heights) {
    const veins = [{ id: S.coal, n: 12, maxY: 72, size: 8 }, { id: S.iron, n: 6, maxY: 56, size: 5 }]
    let salt = 100
    for (const v of veins) {
      for (let i = 0; i < v.n; i++) {
        const r = (k) => hash(seed, chunkX, chunkZ, salt++ * 7 + k)
        let x = 1 + Math.floor(r(0) * 14)
        let z = 1 + Math.floor(r(1) * 14)
        let y = 5 + Math.floor(r(2) * (v.maxY - 5))
        const size = 3 + Math.floor(r(3) * (v.size - 2))
        for (let k = 0; k < size; k++) {
          if (y < heights[x * 16 + z] - 4) {
            p.x = x; p.y = y; p.z = z
            if (chunk.getBlockStateId(p) === S.stone) chunk.setBlockStateId(p, v.id)
          }
          const d = Math.floor(r(10 + k) * 6)
          if (d === 0 && x < 15) x++
          else if (d === 1 && x > 0) x--
          else if (d === 2 && z < 15) z++
          else if (d === 3 && z > 0) z--
          else if (d === 4) y++
          else y--
        }
      }
    }
  }

  // Vanilla-shaped oak: trunk, two wide leaf layers (radius 2), two narrow ones (radius 1),
  // corners randomly trimmed.
  function placeTree (chunk, p, t, bx, bz) {
    const top = t.y + t.height - 1
    const set = (x, y, z, id, onlyAir) => {
      const lx = x - bx
      const lz = z - bz
      if (lx < 0 || lx > 15 || lz < 0 || lz > 15) return
      p.x = lx; p.y = y; p.z = lz
      if (onlyAir && chunk.getBlockStateId(p) !== 0) return
      chunk.setBlockStateId(p, id)
    }
    for (let y = top - 2; y <= top + 1; y++) {
      const r = y <= top - 1 ? 2 : 1
      for (let dx = -r; dx <= r; dx++) {
        for (let dz = -r; dz <= r; dz++) {
          const corner = Math.abs(dx) === r && Math.abs(dz) === r
          if (corner && (y === top + 1 || hash(seed, t.x + dx, t.z + dz, 50 + y) < 0.5)) continue
          set(t.x + dx, y, t.z + dz, S.leaves, true)
        }
      }
    }
    for (let y = t.y; y <= top; y++) set(t.x, y, t.z, S.log, false)
    set(t.x, t.y - 1, t.z, S.dirt, false) // vanilla turns the grass under a trunk to dirt
  }
}

module.exports = generation
module.exports.makeTerrain = makeTerrain
module.exports.landOf = landOf

// The world's spawn column from the seed alone: in the open (no trunk within 3 blocks) with at
// least 2 trees 8-20 blocks away, on dry land of a spawn biome; the nearest such to 0, 0.
function spawnColumn (seed, cfg) {
  const terrain = landOf(seed, cfg)
  // not over a carved cave's mouth, where the ground is gone
  const carvers = cfg.terrain === 'caves' ? underground().makeCarvers(seed, terrain.column) : null
  const carved = (x, z) => carvers && [0, 1, 2].some((d) => carvers.carvedAt(x, terrain.heightAt(x, z) - d, z))
  let best = null
  let land = null // the nearest spawn land at all, for a world without trees
  // the caves terrain may start in a sea or a desert: dry land with trees can be further out
  const far = cfg.terrain === 'caves' ? 512 : 96
  for (let r = 0; r <= far; r += 2) {
    for (let i = -r; i <= r; i += 2) {
      for (const [x, z] of [[i, -r], [i, r], [-r, i], [r, i]]) {
        if (!terrain.spawnFriendly(x, z) || carved(x, z)) continue
        if (!land) land = { x, z, y: terrain.heightAt(x, z) + 1 }
        if (!(cfg.treeDensity ?? 0.015)) return land
        const trees = terrain.treesNear(x - 20, z - 20, x + 20, z + 20)
          .map(t => Math.hypot(t.x - x, t.z - z))
        if (trees.some(d => d < 4)) continue
        const near = trees.filter(d => d >= 8 && d <= 20).length
        if (near >= 2) return { x, z, y: terrain.heightAt(x, z) + 1 }
        if (near >= 1 && !best) best = { x, z, y: terrain.heightAt(x, z) + 1 }
      }
    }
  }
  return best || land || { x: 0, z: 0, y: terrain.heightAt(0, 0) + 1 }
}
module.exports.spawnColumn = spawnColumn

module.exports.server = function (serv, cfg, genOptions) {
  let spawn = null
  function findSpawn () {
    const seed = genOptions.seed | 0
    const at = spawnColumn(seed, cfg)
    spawn = new Vec3(at.x + 0.5, at.y, at.z + 0.5)
    serv.info(`[mcbot] spawn point ${spawn} (seed ${seed})`)
    return spawn
  }
  // The spawn column as the world has it: in a save's real chunks (lib/vanilla_saves.js) the
  // ground is not where our generator would put it. The highest solid block with two free cells
  // above it, not under water or lava; else the nearest such column within 32 blocks.
  async function groundAt (x, z) {
    const at = new Vec3(x, 0, z)
    for (at.y = 318; at.y > -64; at.y--) {
      const b = await serv.overworld.getBlock(at)
      if (!b || b.boundingBox === 'empty') {
        if (b && (b.name === 'water' || b.name === 'lava')) return null
        continue
      }
      if (b.name.endsWith('_leaves') || b.name.endsWith('_log')) return null // a tree's column
      return at.y + 1
    }
    return null
  }
  async function onTheGround (p) {
    const x0 = Math.floor(p.x)
    const z0 = Math.floor(p.z)
    for (let r = 0; r <= 32; r += 2) {
      for (let dx = -r; dx <= r; dx += 2) {
        for (const dz of r === 0 ? [0] : (Math.abs(dx) === r ? [-r, 0, r] : [-r, r])) {
          const y = await groundAt(x0 + dx, z0 + dz)
          if (y !== null) return new Vec3(x0 + dx + 0.5, y, z0 + dz + 0.5)
        }
      }
    }
    return p
  }
  // Free for a player: the cells of its feet and head not solid.
  async function free (p) {
    for (const dy of [0, 1]) {
      const b = await serv.overworld.getBlock(p.offset(0, dy, 0).floored())
      if (b && b.boundingBox === 'block') return false
    }
    return true
  }
  let placed = null
  // The world spawn, where a player joins and respawns with no bed; built over since (a bot's
  // hut there), the top of the column instead, as vanilla respawns a player on the ground at
  // the spawn: a 1.18.2 bench bot respawned inside its hut's wall and suffocated (seed 9274).
  serv.getSpawnPoint = async () => {
    if (!placed) {
      placed = onTheGround(spawn || findSpawn()).then((p) => { spawn = p; return p })
      placed.catch(() => { placed = null }) // a failed look is tried again at the next join
    }
    const p = (await placed).clone()
    return (await free(p)) ? p : onTheGround(p)
  }
}
