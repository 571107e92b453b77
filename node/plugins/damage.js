// Player damage, death and fall damage, per vanilla:
// - creative and spectator players take no damage; 10 ticks of invulnerability after a hit
//   (a stronger hit in that window deals only the difference); worn armour absorbs part of a
//   hit by a mob, a player, an arrow, an explosion or lava (_armour.js), and a shield up
//   facing where a hit comes from takes all of it (shields.js);
// - a hit costs 0.1 exhaustion, shows the hurt effect (protocol.js: damage_event or entity
//   status 2, by version) to the player and those around, and knocks back;
// - at 0 hp the player dies: update_health 0 (mineflayer's 'death'), status 3 to others, the
//   inventory is dropped where they died (keepInventory false) and a death message is sent
//   (vanilla wording: "was slain by Zombie", "was shot by Skeleton", "was blown up by Creeper");
// - fall damage = ceil(fallDistance - 3), from the positions and onGround flags the client
//   reports (the server trusts client movement, like flying-squid does); water ends a fall.
'use strict'

const { Vec3 } = require('vec3')
const { dropItem } = require('./_common')
const { afterArmour } = require('./_armour')

const DEATH_TEXT = {
  fall: '%s fell from a high place',
  starve: '%s starved to death',
  mob: '%s was slain by %m',
  player: '%s was slain by %m',
  arrow: '%s was shot by %m',
  explosion: '%s was blown up by %m',
  lava: '%s tried to swim in lava',
  drown: '%s drowned',
  wall: '%s suffocated in a wall',
  command: '%s died'
}
const HURT_TICKS = 10 // vanilla: a hit is ignored while invulnerableTime (20 after a hit) is above 10
// vanilla death.attack.explosion: an explosion with no one behind it
const DEATH_TEXT_ALONE = { explosion: '%s blew up' }

module.exports.player = function (player, serv) {
  let lastHurtAt = -Infinity // game tick of the last hit that started a window
  let lastHurtAmount = 0

  // from: where the hit comes from (a shield up facing it takes it whole: shields.js); a
  // blow's or a shot's knockbackFrom by default
  player.mcbotDamage = (amount, { cause = 'command', attacker = null, knockbackFrom = null, from = knockbackFrom, bypassInvulnerability = false } = {}) => {
    if (player.mcbotDead || player.health <= 0 || amount <= 0) return 0
    if (player.gameMode === 1 || player.gameMode === 3) return 0
    if (from && player.mcbotShieldBlocks?.(amount, from)) return 0
    // counted in game ticks, as vanilla's invulnerableTime: a frozen or lagging world keeps it;
    // the window compares the hits as they came, armour takes its part of what is dealt
    const now = serv.tickCount
    let dealt = amount
    if (!bypassInvulnerability && now - lastHurtAt < HURT_TICKS) {
      if (amount <= lastHurtAmount) return 0
      dealt = amount - lastHurtAmount
      lastHurtAmount = amount
    } else {
      lastHurtAt = now
      lastHurtAmount = amount
    }
    dealt = afterArmour(dealt, cause, player.inventory.slots)
    player.health = Math.max(0, player.health - dealt)
    player.mcbotExhaust?.(0.1)
    serv.mcbotHurtEffect(player, { cause, attacker })
    if (knockbackFrom) knockback(knockbackFrom)
    if (player.health <= 0) die(cause, attacker)
    else player.mcbotSendVitals()
    return dealt
  }

  // vanilla knockback(0.4): horizontal push away from the source and a 0.4 hop.
  function knockback (from) {
    const dx = player.position.x - from.x
    const dz = player.position.z - from.z
    const d = Math.hypot(dx, dz) || 1
    const v = { x: dx / d * 0.4, y: 0.4, z: dz / d * 0.4 }
    const scaled = { x: Math.round(v.x * 8000), y: Math.round(v.y * 8000), z: Math.round(v.z * 8000) }
    // field names differ between protocol versions; send both forms like flying-squid does
    player._client.write('entity_velocity', {
      entityId: player.id, velocity: scaled, velocityX: scaled.x, velocityY: scaled.y, velocityZ: scaled.z
    })
  }

  function die (cause, attacker) {
    player.mcbotDead = true
    player.health = 0
    player.mcbotCloseWindow?.()
    player.mcbotSendVitals()
    player._writeOthersNearby('entity_status', { entityId: player.id, entityStatus: 3 })
    const at = player.position.clone()
    for (let s = 0; s < player.inventory.slots.length; s++) {
      const it = player.inventory.slots[s]
      if (!it) continue
      dropItem(serv, player.world, at.offset(0, 1, 0), it.type, it.count,
        new Vec3(Math.random() * 4 - 2, 3, Math.random() * 4 - 2))
      player.inventory.updateSlot(s, null)
    }
    const who = attacker ? (attacker.username || attacker.mcbotDisplayName || attacker.name || 'something') : ''
    const text = ((!attacker && DEATH_TEXT_ALONE[cause]) || DEATH_TEXT[cause] || DEATH_TEXT.command).replace('%s', player.username).replace('%m', who)
    serv.broadcast(text)
    serv.info(`[mcbot] ${text}`)
    player.emit('mcbotDeath', { cause, attacker })
  }

  // flying-squid's callers (/kill, player-vs-player hits) go through the same rules.
  player.takeDamage = ({ damage = 1, attacker = null, knockbackFrom = null } = {}) =>
    player.mcbotDamage(damage, { cause: attacker ? 'player' : 'command', attacker, knockbackFrom })
  player.updateHealth = (health) => {
    player.health = Math.max(0, Math.min(20, health))
    if (player.health > 0) player.mcbotDead = false
    player.mcbotSendVitals ? player.mcbotSendVitals() : player._client.write('update_health', { health: player.health, food: player.food, foodSaturation: player.foodSaturation ?? 5 })
  }

  // --- fall damage --------------------------------------------------------------------------
  player.fallDistance = 0
  let lastY = null
  const water = serv.registry?.blocksByName.water?.id
  // Water ends a fall, as in vanilla: a bot bobbing in a pool summed every sink into one fall
  // and died of it on the pool's floor, four times over in a survival bench.
  const inWater = (x, y, z) => water !== undefined && player.world?.sync?.getBlockType(new Vec3(Math.floor(x), Math.floor(y), Math.floor(z))) === water
  function onMove (y, onGround, x = player.position.x, z = player.position.z) {
    if (lastY === null || player.mcbotDead) { lastY = y; return }
    const dy = y - lastY
    lastY = y
    // A jump of more than 10 blocks in one packet is a teleport or respawn, not a fall.
    if (Math.abs(dy) > 10) { player.fallDistance = 0; return }
    if (inWater(x, y, z)) { player.fallDistance = 0; return }
    if (onGround) {
      if (player.fallDistance > 3) {
        const dmg = Math.ceil(player.fallDistance - 3)
        player.mcbotDamage(dmg, { cause: 'fall', bypassInvulnerability: true })
      }
      player.fallDistance = 0
    } else if (dy < 0) player.fallDistance -= dy
  }
  player._client.on('position', (p) => onMove(p.y, p.onGround, p.x, p.z))
  player._client.on('position_look', (p) => onMove(p.y, p.onGround, p.x, p.z))
  player._client.on('flying', (p) => { if (p.onGround && lastY !== null) onMove(lastY, true) })
  // Server-side teleports (/tp, respawn) reset the fall.
  const sendSelfPosition = player.sendSelfPosition
  player.sendSelfPosition = (pos) => {
    player.fallDistance = 0
    lastY = null
    return sendSelfPosition(pos)
  }
}
