// Skeleton and creeper brains; mobs.js runs their bodies and picks their targets.
// Skeleton (vanilla RangedBowAttackGoal, simplified): walks toward its target while it cannot
// see it or it is beyond 12 blocks, backs off at half speed inside 5, else stands facing it.
// Bow: once the attack interval has run out (40 ticks on easy/normal, 20 on hard: vanilla
// AbstractSkeleton.reassessWeaponGoal) it draws for 20 ticks and shoots if the target is in
// sight (an arrow entity, projectiles.js): one arrow per ~3 s on normal. A draw is given up
// after 3 s without sight. The draw shows to the players around, as vanilla's.
// Creeper (vanilla SwellGoal): chases like a zombie; with its target within 3 blocks and in
// sight it stops and swells (metadata swell_dir 1: clients see it swell; the hiss); the swell
// falls back 1 per tick while the target is beyond 7 blocks or out of sight. At 30 ticks (1.5 s)
// it explodes with power 3 (explosions.js) and is gone, without loot. An ignited creeper
// (vanilla flint and steel; here serv.mcbotIgnite, /mcbot summon creeper x y z ignited) swells
// whatever its target does.
'use strict'

const projectiles = require('./projectiles')
const explosions = require('./explosions')

const FUSE = 30 // vanilla Creeper maxSwell
const POWER = 3 // vanilla Creeper explosionRadius (6 when charged; no lightning here)

module.exports = function mobKinds (serv, api) {
  const { canSee, toward, face, stroll, remove } = api
  const shoot = projectiles(serv, api)
  const explode = explosions(serv, api)

  // The bow drawn shows (living entity flags: hand active), as vanilla's startUsingItem: what
  // a player sees coming and raises a shield to (plugins/shields.js).
  const draw = (mob) => { mob.ai.drawing = 0; serv.mcbotUpdateMetadata(mob, { living_entity_flags: 1 }) }
  const lower = (mob) => {
    if (mob.ai.drawing >= 0) serv.mcbotUpdateMetadata(mob, { living_entity_flags: 0 })
    mob.ai.drawing = -1
  }

  function archer (mob, t) {
    const ai = mob.ai
    if (ai.attackTime === undefined) Object.assign(ai, { attackTime: 0, drawing: -1, seeTime: 0 })
    if (!t) { lower(mob); ai.seeTime = 0; return stroll(mob) }
    const seen = canSee(mob, t)
    ai.seeTime = seen ? Math.max(0, ai.seeTime) + 1 : Math.min(0, ai.seeTime) - 1
    if (ai.drawing >= 0) {
      ai.drawing++
      if (!seen && ai.seeTime < -60) lower(mob)
      else if (seen && ai.drawing >= 20) {
        shoot(mob, t)
        lower(mob)
        ai.attackTime = serv.difficulty >= 3 ? 20 : 40
      }
    } else if (--ai.attackTime <= 0 && ai.seeTime >= -60) draw(mob)
    const dx = t.position.x - mob.position.x
    const dz = t.position.z - mob.position.z
    const d = Math.hypot(dx, dz)
    if (!seen || d > 12) return toward(mob, t.position.x, t.position.z, ai.kind.speed)
    if (d < 5) return { ...toward(mob, mob.position.x - dx, mob.position.z - dz, ai.kind.speed * 0.5), yaw: face(mob, t.position.x, t.position.z).yaw }
    return face(mob, t.position.x, t.position.z)
  }

  const fuseOf = (ai) => {
    if (ai.swell === undefined) Object.assign(ai, { swell: 0, swellDir: -1, ignited: false })
    return ai
  }

  function creeper (mob, t) {
    const ai = fuseOf(mob.ai)
    let dir = -1
    if (ai.ignited) dir = 1
    else if (t && (ai.swellDir > 0 || mob.position.distanceTo(t.position) < 3)) {
      dir = mob.position.distanceTo(t.position) > 7 || !canSee(mob, t) ? -1 : 1
    }
    if (dir !== ai.swellDir) {
      ai.swellDir = dir
      serv.mcbotUpdateMetadata(mob, { swell_dir: dir })
    }
    if (dir > 0 && ai.swell === 0) serv.playSound('entity.creeper.primed', mob.world, mob.position, { pitch: 0.5 })
    ai.swell = Math.max(0, ai.swell + dir)
    if (ai.swell >= FUSE) {
      ai.dead = true
      explode(mob.world, mob.position.clone(), POWER, { source: mob })
      remove(mob)
      return null
    }
    if (dir > 0) return t ? face(mob, t.position.x, t.position.z) : null
    return t ? toward(mob, t.position.x, t.position.z, ai.kind.speed) : stroll(mob)
  }

  serv.mcbotIgnite = (mob) => {
    if (mob.name !== 'creeper' || mob.ai.dead) return false
    fuseOf(mob.ai).ignited = true
    serv.mcbotUpdateMetadata(mob, { is_ignited: true })
    return true
  }

  return { archer, creeper }
}
