// Natural hostile life cycle. At night, once a second per non-spectator player, up to 4 tries
// for one monster 24-40 blocks away on the surface, while fewer than cfg.hostileCap are alive.
// The kind is drawn first, by vanilla overworld weights: zombie 95, zombie villager 5, skeleton
// 100, creeper 100, spider 100 (cfg.hostiles: true = that mix, a list of names = only those,
// false = none). A spot needs block light 0 (vanilla 1.18+; light.js, so a torch's lit area
// stays clear), vanilla's test of sky light and brightness (darkEnough), and room for the kind's
// body (a spider is 1.4 wide). In the caves terrain, also at any hour, a try for one under the
// ground: a dark floor with no sky above it.
// Zombies and skeletons under open sky burn in daylight (1 hp/s, on fire); creepers and spiders
// do not. Mobs with no player within 128 blocks despawn at once, beyond 32 blocks at random
// (1/800 per tick, as vanilla). The spawns' draws are a stream of the world's seed, apart from
// the despawns' (which hang on where the mobs walked): the same world, played the same ticks,
// spawns the same monsters in the same places (night_hostiles' count of spawns in the dark
// failed a fresh-clone CI at 1.18.2 on a Math.random draw, 7 of the 8 it asks).
'use strict'

const { Vec3 } = require('vec3')
const { isSolidState, columnAround } = require('./_common')
const { rng } = require('./_noise')
const light = require('./light')

const tod = (t) => ((t % 24000) + 24000) % 24000
const isNight = (t) => tod(t) >= 13188 && tod(t) <= 22812 // sky dark enough for monsters
const isSunUp = (t) => tod(t) < 12542 || tod(t) > 23460 // zombies burn
const MIX = { zombie: 95, zombie_villager: 5, skeleton: 100, creeper: 100, spider: 100 }

module.exports.isNight = isNight
module.exports.isSunUp = isSunUp
module.exports.MIX = MIX

module.exports.server = function (serv, cfg) {
  const { registry } = serv
  let draws = null // cfg.seed is read at the first spawn: a saved world's is set once the world is up
  const draw = () => (draws || (draws = rng((cfg.seed | 0) ^ 0x2545f491)))()
  const { blockLight, skyLight, skyDarken } = light(serv)
  // Vanilla Monster.isDarkEnoughToSpawn (clear weather, 1.18+ overworld): sky light above a
  // random 0..31 fails, any block light fails, and the raw brightness (sky light darkened by the
  // hour) must be at most a random 0..7. So the shade of a tree or a cave mouth by day stays clear.
  function darkEnough (world, x, y, z) {
    const skyMost = Math.floor(draw() * 32) // the sky light the first test allows
    const rawMost = Math.floor(draw() * 8) // the raw brightness the last allows
    const most = Math.min(skyMost, rawMost + skyDarken(serv.time)) // the sky light both allow
    if (skyLight(world, x, y, z, most) > most) return false
    return blockLight(world, x, y, z) === 0
  }
  const cap = cfg.hostileCap ?? 12
  const mix = Array.isArray(cfg.hostiles)
    ? cfg.hostiles.filter(n => registry.entitiesByName[n]).map(n => [n, MIX[n] || 100])
    : Object.entries(MIX)
  const total = mix.reduce((s, [, w]) => s + w, 0)
  function pickKind () {
    let r = draw() * total
    for (const [name, w] of mix) if ((r -= w) < 0) return name
    return mix[mix.length - 1][0]
  }

  const stateAt = (world, x, y, z) => world.sync.getBlockStateId(new Vec3(x, y, z)) || 0

  function skyAbove (world, p) {
    for (let y = Math.floor(p.y + 2); y < 320; y++) if (stateAt(world, Math.floor(p.x), y, Math.floor(p.z)) !== 0) return false
    return true
  }

  // The highest solid block of a loaded column with two free blocks above, or null.
  function surface (world, x, z) {
    if (!world.sync.getColumnAt(new Vec3(x, 0, z))) return null
    for (let y = 255; y > 0; y--) {
      const id = stateAt(world, x, y, z)
      if (id === 0) continue
      const block = registry.blocksByStateId[id]
      if (!isSolidState(registry, id) || block.name.endsWith('leaves')) return null
      if (stateAt(world, x, y + 1, z) !== 0 || stateAt(world, x, y + 2, z) !== 0) return null
      return y + 1
    }
    return null
  }

  // Up to 4 tries for one monster 24-40 blocks from the player, where floorAt(world, x, z) finds
  // a floor (a y, or null) and the spot is dark, away from every player, with room for the kind.
  function trySpawnNear (player, floorAt, { underground = false } = {}) {
    const world = player.world
    const name = pickKind()
    for (let attempt = 0; attempt < 4; attempt++) {
      const { x, z } = columnAround(player.position, 24, 16, draw)
      const y = floorAt(world, x, z)
      if (y === null) continue
      const pos = new Vec3(x + 0.5, y, z + 0.5)
      if (serv.players.some(p => p.world === world && p.position.distanceTo(pos) < 24)) continue
      if ((underground && skyAbove(world, pos)) || !darkEnough(world, x, y, z) || !serv.mcbotFits(name, world, pos)) continue
      serv.mcbotSpawnMob(name, world, pos)
      return true
    }
    return false
  }

  // Under the ground (the caves terrain): a dark floor with room above and no sky over it, at
  // any hour, as vanilla spawns wherever block and sky light are 0. From a random height near the
  // player's, down to the first floor within 16 blocks.
  const caves = cfg.terrain === 'caves'
  const AIRS = new Set(['air', 'cave_air'].map(n => registry.blocksByName[n]?.defaultState).filter(v => v !== undefined))
  function caveFloor (world, x, z, from) {
    if (!world.sync.getColumnAt(new Vec3(x, 0, z))) return null
    for (let y = from; y > from - 16 && y > -63; y--) {
      if (!AIRS.has(stateAt(world, x, y, z)) || !AIRS.has(stateAt(world, x, y + 1, z))) continue
      const below = stateAt(world, x, y - 1, z)
      if (AIRS.has(below)) continue
      return isSolidState(registry, below) ? y : null
    }
    return null
  }
  const tryCaveSpawnNear = (player) => trySpawnNear(player,
    (world, x, z) => caveFloor(world, x, z, Math.floor(player.position.y) + 8 - Math.floor(draw() * 40)),
    { underground: true })

  let tick = 0
  serv.on('tick', () => {
    tick++
    const mobs = serv.mcbotMobs
    if (!mobs) return
    // despawn, every tick like vanilla's checkDespawn
    for (const mob of mobs) {
      if (mob.ai.dead) continue
      let nearest = Infinity
      for (const p of serv.players) if (p.world === mob.world) nearest = Math.min(nearest, p.position.distanceTo(mob.position))
      if (nearest > 128 || (nearest > 32 && Math.random() < 1 / 800)) serv.mcbotRemoveMob(mob)
    }
    if (tick % 20 !== 0) return
    const sun = isSunUp(serv.time)
    for (const mob of mobs) {
      if (mob.ai.dead || !mob.ai.kind.burns) continue
      const burning = sun && skyAbove(mob.world, mob.position)
      if (burning !== mob.ai.burning) {
        mob.ai.burning = burning
        serv.mcbotUpdateMetadata(mob, { shared_flags: burning ? 0x01 : 0 }) // on fire
      }
      if (burning) serv.mcbotHurtMob(mob, { damage: 1, cause: 'fire', bypassInvulnerability: true })
    }
    const night = isNight(serv.time)
    if (!cfg.hostiles || !mix.length || (!night && !caves) || serv.difficulty === 0) return
    let alive = 0
    for (const mob of mobs) if (!mob.ai.dead && !mob.ai.kind.passive) alive++
    const players = serv.players.filter(p => p.gameMode !== 3 && !p.mcbotDead && p.world === serv.overworld) // vanilla: spectators spawn nothing
    for (const p of players) {
      if (alive < cap && night && trySpawnNear(p, surface)) alive++
      if (alive < cap && caves && tryCaveSpawnNear(p)) alive++
    }
  })
}
