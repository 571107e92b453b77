// Animals: cows, pigs, chickens and sheep in herds of 2-4 of one kind on grass blocks, kinds
// by vanilla's plains weights (sheep 12, pig 10, chicken 10, cow 8). Bodies, strolling and
// loot are mobs.js's. Vanilla's passive spawning, in three ways:
// - world start: three herds 12-32 blocks from spawn, placed from the seed (vanilla gives
//   the chunks around spawn about that many; fixed here so every world starts with some);
// - chunk generation: a newly generated chunk gets a herd with probability 0.1 (vanilla
//   creatureGenerationProbability), placed once its 8 neighbours are loaded so no animal
//   strolls off the edge of the generated world;
// - every 400 ticks (vanilla's beat for creatures) one herd attempt per player on grass
//   24-64 blocks away, lit above 8 (open sky, or a torch near), with no player within 24
//   blocks, unless cfg.animalCap (default 10) animals are already within 128 blocks of them.
// Animals are persistent (vanilla): they never despawn while a player is within 128 blocks.
// cfg.animals = false turns all of it off. They are not saved with the world: a restarted
// world gets its start herds again.
'use strict'

const { Vec3 } = require('vec3')
const { columnAround } = require('./_common')
const { rng } = require('./_noise')

const WEIGHTS = [['sheep', 12], ['pig', 10], ['chicken', 10], ['cow', 8]]
const KINDS = new Set(WEIGHTS.map(([k]) => k))
const PERIOD = 400
const CHUNK_CHANCE = 0.1
const KEEP_RADIUS = 128

module.exports.server = function (serv, cfg) {
  if (cfg.animals === false) return
  const { registry } = serv
  const cap = cfg.animalCap ?? 10
  const grass = registry.blocksByName.grass_block.id
  const lights = new Map()
  for (const b of registry.blocksArray) if (b.emitLight > 0) for (let s = b.minStateId; s <= b.maxStateId; s++) lights.set(s, b.emitLight)
  const stateAt = (world, x, y, z) => world.sync.getBlockStateId(new Vec3(x, y, z)) || 0
  const isAnimal = (mob) => KINDS.has(mob.name) && !mob.ai.dead
  let seed = cfg.seed | 0
  serv.on('seed', (s) => { seed = s | 0 }) // a saved world's level.dat seed wins

  function pickKind (random) {
    let r = random() * WEIGHTS.reduce((n, [, w]) => n + w, 0)
    for (const [kind, w] of WEIGHTS) { r -= w; if (r < 0) return kind }
    return WEIGHTS[0][0]
  }

  // Feet position on a grass block with two air blocks above in a loaded column, or null.
  function grassSpot (world, x, z) {
    if (!world.sync.getColumnAt(new Vec3(x, 0, z))) return null
    for (let y = 319; y > -64; y--) {
      const id = stateAt(world, x, y, z)
      if (id === 0) continue
      if (registry.blocksByStateId[id]?.id !== grass) return null
      if (stateAt(world, x, y + 1, z) !== 0 || stateAt(world, x, y + 2, z) !== 0) return null
      return new Vec3(x + 0.5, y + 1, z + 0.5)
    }
    return null
  }

  // Raw brightness above 8 (vanilla isBrightEnoughToSpawn): open sky, or a light source near.
  function bright (world, p) {
    const x = Math.floor(p.x); const y = Math.floor(p.y); const z = Math.floor(p.z)
    let sky = true
    for (let yy = y; yy < 320 && sky; yy++) if (stateAt(world, x, yy, z) !== 0) sky = false
    if (sky) return true
    for (let dx = -6; dx <= 6; dx++) {
      for (let dy = -6; dy <= 6; dy++) {
        for (let dz = -6; dz <= 6; dz++) {
          const e = lights.get(stateAt(world, x + dx, y + dy, z + dz))
          if (e && e - Math.abs(dx) - Math.abs(dy) - Math.abs(dz) > 8) return true
        }
      }
    }
    return false
  }

  // A herd of 2-4 around (x, z), each animal a few blocks from the last (vanilla's group walk).
  function spawnHerd (world, x, z, random, { kind = pickKind(random), check = () => true } = {}) {
    const n = 2 + Math.floor(random() * 3)
    let spawned = 0
    for (let i = 0, tries = 0; i < n && tries < n * 4; tries++) {
      const p = grassSpot(world, x, z)
      if (p && check(p)) {
        serv.mcbotSpawnMob(kind, world, p).mcbotPersistent = true
        spawned++; i++
      }
      x += Math.floor(random() * 6) - Math.floor(random() * 6)
      z += Math.floor(random() * 6) - Math.floor(random() * 6)
    }
    return spawned
  }

  serv.on('ready', async () => {
    const world = serv.overworld
    try {
      const spawn = await serv.getSpawnPoint(world)
      const random = rng(seed ^ 0x5eed)
      const sc = { x: Math.floor(spawn.x) >> 4, z: Math.floor(spawn.z) >> 4 }
      const loads = []
      for (let cx = sc.x - 3; cx <= sc.x + 3; cx++) for (let cz = sc.z - 3; cz <= sc.z + 3; cz++) loads.push(world.getColumn(cx, cz))
      await Promise.all(loads)
      const kinds = WEIGHTS.map(([k]) => k).sort(() => random() - 0.5)
      for (let h = 0, tries = 0; h < 3 && tries < 30; tries++) {
        const a = random() * Math.PI * 2
        const r = 12 + random() * 20
        const x = Math.floor(spawn.x + Math.cos(a) * r)
        const z = Math.floor(spawn.z + Math.sin(a) * r)
        if (!grassSpot(world, x, z)) continue
        const near = (p) => p.distanceTo(spawn) <= 36
        if (spawnHerd(world, x, z, random, { kind: kinds[h], check: near }) > 0) h++
      }
      watchGeneration(world)
    } catch (err) {
      serv.err(`animals at world start: ${err.stack}`)
    }
  })

  // Herds for chunks generated from now on (a saved world's reloaded chunks are not new).
  function watchGeneration (world) {
    const generate = world.chunkGenerator
    const fresh = new Set()
    world.chunkGenerator = (cx, cz) => { fresh.add(`${cx},${cz}`); return generate(cx, cz) }
    const pending = new Map()
    const loaded = (cx, cz) => Boolean(world.getLoadedColumn(cx, cz))
    world.on('chunkColumnLoad', (corner) => {
      const cx = corner.x >> 4
      const cz = corner.z >> 4
      const key = `${cx},${cz}`
      if (fresh.delete(key)) {
        const random = rng(seed ^ Math.imul(cx, 0x27d4eb2d) ^ Math.imul(cz, 0x165667b1))
        if (random() < CHUNK_CHANCE) pending.set(key, { cx, cz, random })
      }
      for (let dx = -1; dx <= 1; dx++) {
        for (let dz = -1; dz <= 1; dz++) {
          const c = pending.get(`${cx + dx},${cz + dz}`)
          if (!c) continue
          let ready = true
          for (let i = -1; i <= 1 && ready; i++) for (let j = -1; j <= 1 && ready; j++) ready = loaded(c.cx + i, c.cz + j)
          if (!ready) continue
          pending.delete(`${c.cx},${c.cz}`)
          const inChunk = (p) => Math.floor(p.x) >> 4 === c.cx && Math.floor(p.z) >> 4 === c.cz
          try {
            spawnHerd(world, c.cx * 16 + Math.floor(c.random() * 16), c.cz * 16 + Math.floor(c.random() * 16), c.random, { check: inChunk })
          } catch (err) { serv.err(`animals in chunk ${c.cx},${c.cz}: ${err.stack}`) }
        }
      }
    })
  }

  // Persistence (vanilla animals never despawn): spawning.js's despawn pass (monster rules, run
  // in the server tick) may not remove an animal within 128 blocks of a player; a farther one
  // is put away with its kind, place and health and comes back once a player is within 96
  // blocks (vanilla keeps it in its unloaded chunk), so far herds cost no ticks. Deaths and
  // /mcbot killall (not in a tick) remove animals for good.
  let inTick = false
  const away = [] // { world, kind, position, health }
  serv.prependListener('tick', () => { inTick = true })
  const remove = serv.mcbotRemoveMob
  if (remove) {
    serv.mcbotRemoveMob = (mob) => {
      if (inTick && mob.mcbotPersistent && !mob.ai.dead) {
        if (nearestPlayer(mob.world, mob.position) <= KEEP_RADIUS) return
        away.push({ world: mob.world, kind: mob.name, position: mob.position.clone(), health: mob.health })
      }
      return remove(mob)
    }
  }
  function nearestPlayer (world, pos) {
    let d = Infinity
    for (const p of serv.players) if (p.world === world) d = Math.min(d, p.position.distanceTo(pos))
    return d
  }
  function bringBack () {
    for (let i = away.length - 1; i >= 0; i--) {
      const a = away[i]
      if (nearestPlayer(a.world, a.position) > 96 || !a.world.getLoadedColumnAt(a.position)) continue
      away.splice(i, 1)
      const mob = serv.mcbotSpawnMob(a.kind, a.world, a.position)
      mob.mcbotPersistent = true
      mob.health = a.health
    }
  }

  // Periodic herds near players, up to the cap.
  let tick = 0
  serv.on('tick', () => {
    inTick = false
    if (++tick % 20 === 0) bringBack()
    if (tick % PERIOD !== 0 || !serv.mcbotMobs) return
    const players = serv.players.filter(p => p.gameMode !== 3 && !p.mcbotDead && p.world === serv.overworld)
    for (const player of players) {
      let around = 0
      for (const mob of serv.mcbotMobs) if (isAnimal(mob) && mob.world === player.world && mob.position.distanceTo(player.position) <= KEEP_RADIUS) around++
      if (around >= cap) continue
      try { trySpawnNear(player) } catch (err) { serv.err(`animals near ${player.username}: ${err.stack}`) }
    }
  })

  function trySpawnNear (player) {
    const world = player.world
    for (let attempt = 0; attempt < 4; attempt++) {
      const { x, z } = columnAround(player.position, 24, 40)
      const first = grassSpot(world, x, z)
      if (!first || !bright(world, first)) continue
      const check = (p) => !serv.players.some(o => o.world === world && o.position.distanceTo(p) < 24) && bright(world, p)
      if (spawnHerd(world, x, z, Math.random, { check }) > 0) return true
    }
    return false
  }
}
