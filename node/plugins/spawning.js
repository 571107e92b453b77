// Natural hostile life cycle: zombies spawn at night on the surface 24-40 blocks from
// non-spectator players, up to cfg.hostileCap, only where block light is 0 (no torch nearby);
// zombies under open sky burn in daylight (1 hp/s, on fire); mobs with no player within 128
// blocks despawn at once, beyond 32 blocks at random (1/800 per tick, as vanilla).
'use strict'

const { Vec3 } = require('vec3')
const { isSolidState } = require('./_common')

const tod = (t) => ((t % 24000) + 24000) % 24000
const isNight = (t) => tod(t) >= 13188 && tod(t) <= 22812 // sky dark enough for monsters
const isSunUp = (t) => tod(t) < 12542 || tod(t) > 23460 // zombies burn

module.exports.isNight = isNight
module.exports.isSunUp = isSunUp

module.exports.server = function (serv, cfg) {
  const { registry } = serv
  const lights = Object.values(registry.blocksByName).filter(b => b.emitLight > 0)
  const lightIds = new Map()
  for (const b of lights) for (let s = b.minStateId; s <= b.maxStateId; s++) lightIds.set(s, b.emitLight)
  const cap = cfg.hostileCap ?? 12

  const stateAt = (world, x, y, z) => world.sync.getBlockStateId(new Vec3(x, y, z)) || 0

  function lit (world, x, y, z) {
    for (let dx = -6; dx <= 6; dx++) {
      for (let dy = -6; dy <= 6; dy++) {
        for (let dz = -6; dz <= 6; dz++) {
          const e = lightIds.get(stateAt(world, x + dx, y + dy, z + dz))
          if (e && e - Math.abs(dx) - Math.abs(dy) - Math.abs(dz) > 0) return true
        }
      }
    }
    return false
  }

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

  function trySpawnNear (player) {
    const world = player.world
    for (let attempt = 0; attempt < 4; attempt++) {
      const a = Math.random() * Math.PI * 2
      const r = 24 + Math.random() * 16
      const x = Math.floor(player.position.x + Math.cos(a) * r)
      const z = Math.floor(player.position.z + Math.sin(a) * r)
      const y = surface(world, x, z)
      if (y === null) continue
      const pos = new Vec3(x + 0.5, y, z + 0.5)
      if (serv.players.some(p => p.world === world && p.position.distanceTo(pos) < 24)) continue
      if (lit(world, x, y, z)) continue
      serv.mcbotSpawnMob('zombie', world, pos)
      return true
    }
    return false
  }

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
      if (burning) serv.mcbotHurtMob(mob, { damage: 1, fire: true })
    }
    if (!cfg.hostiles || !isNight(serv.time) || serv.difficulty === 0) return
    let alive = 0
    for (const mob of mobs) if (!mob.ai.dead) alive++
    const players = serv.players.filter(p => p.gameMode !== 3 && !p.mcbotDead && p.world === serv.overworld) // vanilla: spectators spawn nothing
    for (const p of players) {
      if (alive >= cap) break
      if (trySpawnNear(p)) alive++
    }
  })
}
