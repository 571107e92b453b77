// Arrows shot by skeletons: real `arrow` entities the server moves each tick, as vanilla
// AbstractArrow: position += velocity, then velocity *= 0.99 (drag in air) and y -= 0.05.
// A shot leaves the shooter's eyes - 0.1 toward the target's lower third, aimed 0.2 higher per
// block of horizontal distance for the drop, at 1.6 blocks/tick with a gaussian spread of
// 0.0075 * (14 - 4 * difficulty) (vanilla AbstractSkeleton.performRangedAttack, Projectile.shoot).
// The first player or mob (never the shooter) whose box, grown by 0.3, a tick's flight crosses
// before a block is hurt: damage = ceil(speed * base), base = 2 + 0.11 * difficulty +- 0.57
// (vanilla mob arrow: a power-1 bow, triangle spread), so 3-5 at 1.5-1.6 blocks/tick; players
// take it scaled by difficulty like other mob damage (normal x1) and a 0.4 knockback away from
// the shooter; the arrow is gone. One that meets a block stops there and is removed after 60 s
// (vanilla: 1200 ticks in the ground); skeleton arrows cannot be picked up (vanilla).
'use strict'

const crypto = require('crypto')
const { Vec3 } = require('vec3')

const SPEED = 1.6
const GRAVITY = 0.05
const DRAG = 0.99
const GROUND_TICKS = 1200
const angleByte = (deg) => { const b = Math.round(deg * 256 / 360) & 0xff; return b > 127 ? b - 256 : b }
const gaussian = () => Math.sqrt(-2 * Math.log(1 - Math.random())) * Math.cos(2 * Math.PI * Math.random())

// Where along a → a+d (0..1) the segment enters the box, or null.
function entersBox (a, d, min, max) {
  let t0 = 0
  let t1 = 1
  for (const k of ['x', 'y', 'z']) {
    if (Math.abs(d[k]) < 1e-9) {
      if (a[k] < min[k] || a[k] > max[k]) return null
      continue
    }
    let ta = (min[k] - a[k]) / d[k]
    let tb = (max[k] - a[k]) / d[k]
    if (ta > tb) [ta, tb] = [tb, ta]
    t0 = Math.max(t0, ta); t1 = Math.min(t1, tb)
    if (t0 > t1) return null
  }
  return t0
}

module.exports = function projectiles (serv, api) {
  const { registry } = serv
  const { eyes, hurt, bodyOf, forPlayer } = api
  const arrows = new Set()

  function shoot (shooter, target) {
    const from = eyes(shooter).offset(0, -0.1, 0)
    const aim = target.position.offset(0, 1.8 / 3, 0)
    const dx = aim.x - from.x
    const dz = aim.z - from.z
    const spread = 0.0075 * (14 - 4 * serv.difficulty)
    const dir = new Vec3(dx, aim.y - from.y + Math.hypot(dx, dz) * 0.2, dz).normalize()
    const v = dir.plus(new Vec3(gaussian(), gaussian(), gaussian()).scaled(spread)).scaled(SPEED)
    const arrow = serv.initEntity('object', registry.entitiesByName.arrow.id, shooter.world, from)
    arrow.uuid = crypto.randomUUID()
    arrow.name = 'arrow'
    arrow.data = shooter.id // vanilla: the owner, in the spawn packet
    arrow.velocity = v.scaled(20) // flying-squid keeps blocks/second (spawn packet); no .size: no physics of its own
    arrow.yaw = angleByte(Math.atan2(v.x, v.z) * 180 / Math.PI)
    arrow.pitch = angleByte(Math.atan2(v.y, Math.hypot(v.x, v.z)) * 180 / Math.PI)
    arrow.metadata = []
    arrow.mcbotFlight = { v, shooter, base: 2 + 0.11 * serv.difficulty + 0.57425 * (Math.random() - Math.random()), ground: -1 }
    arrow.updateAndSpawn()
    arrows.add(arrow)
    serv.playSound('entity.skeleton.shoot', shooter.world, from, { pitch: 1 / (Math.random() * 0.4 + 0.8) })
    return arrow
  }

  // The nearest thing the flight a -> a+d hits: { t, player | mob } or null.
  function victimOn (arrow, a, d) {
    const { shooter } = arrow.mcbotFlight
    let best = null
    const consider = (e, width, height, what) => {
      const h = width / 2 + 0.3
      const p = e.position
      const t = entersBox(a, d, new Vec3(p.x - h, p.y - 0.3, p.z - h), new Vec3(p.x + h, p.y + height + 0.3, p.z + h))
      if (t !== null && (!best || t < best.t)) best = { t, [what]: e }
    }
    for (const p of serv.players) {
      if (p.world === arrow.world && !p.mcbotDead && p.health > 0 && p.gameMode !== 3) consider(p, 0.6, 1.8, 'player')
    }
    for (const m of serv.mcbotMobs) {
      if (m !== shooter && m.world === arrow.world && !m.ai.dead) { const b = bodyOf(m.name); consider(m, b.width, b.height, 'mob') }
    }
    return best
  }

  function fly (arrow) {
    const f = arrow.mcbotFlight
    if (f.ground >= 0) {
      if (++f.ground > GROUND_TICKS) remove(arrow)
      return
    }
    const a = arrow.position
    const len = f.v.norm()
    const block = len > 0 ? arrow.world.sync.raycast(a, f.v.scaled(1 / len), len) : null
    const blockT = block && block.intersect ? a.distanceTo(block.intersect) / len : 1
    const hit = victimOn(arrow, a, f.v.scaled(blockT))
    if (hit) {
      const damage = Math.ceil(len * f.base)
      if (hit.player) hit.player.mcbotDamage(forPlayer(damage), { cause: 'arrow', attacker: f.shooter, knockbackFrom: f.shooter.position, from: a })
      else hurt(hit.mob, { damage, attacker: f.shooter, knockbackFrom: f.shooter.position, cause: 'arrow' })
      serv.playSound('entity.arrow.hit', arrow.world, a, { pitch: 1.2 / (Math.random() * 0.2 + 0.9) })
      remove(arrow)
      return
    }
    if (block && block.intersect) {
      f.ground = 0
      arrow.velocity = new Vec3(0, 0, 0)
      arrow.sendPosition(block.intersect.clone(), true)
      arrow._writeOthersNearby('entity_velocity', { entityId: arrow.id, velocity: { x: 0, y: 0, z: 0 }, velocityX: 0, velocityY: 0, velocityZ: 0 })
      serv.playSound('entity.arrow.hit', arrow.world, block.intersect, { pitch: 1.2 / (Math.random() * 0.2 + 0.9) })
      return
    }
    const next = a.plus(f.v)
    f.v = f.v.scaled(DRAG)
    f.v.y -= GRAVITY
    arrow.velocity = f.v.scaled(20)
    if (next.y < -64 || !serv.players.some(p => p.world === arrow.world && p.position.distanceTo(next) < 128)) return remove(arrow)
    arrow.sendPosition(next, false)
  }

  function remove (arrow) {
    if (!arrows.delete(arrow)) return
    serv.destroyEntity(arrow)
  }

  serv.on('tick', () => {
    for (const arrow of arrows) {
      try { fly(arrow) } catch (err) { serv.err(`arrow ${arrow.id}: ${err.stack}`); remove(arrow) }
    }
  })

  return shoot
}
