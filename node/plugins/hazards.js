// What the ground does to a player standing in it, per vanilla, counted in game ticks:
// - lava at the feet or the head: 4 damage, at most once every 10 ticks ("tried to swim in lava");
// - the head under water: the air supply (300 ticks) falls by 1 a tick and, once it is at -20,
//   2 damage and it is 0 again ("drowned"); out of the water it comes back 4 a tick. The player
//   sees it as its air bubbles (entity metadata air_supply: mineflayer's bot.oxygenLevel).
// - the head inside a full block (a gravel fall, a block placed there; any of the cells around
//   the eyes vanilla checks: lib/in_wall.js): 1 damage every 10 ticks ("suffocated in a wall").
// Creative and spectator players are spared, as by every damage (damage.js).
'use strict'

const { Vec3 } = require('vec3')
const { suffocates, eyeCells } = require('../lib/in_wall')

const MAX_AIR = 300
const EYES = 1.62

module.exports.player = function (player, serv) {
  const { registry } = serv
  const lava = registry.blocksByName.lava?.id
  const water = registry.blocksByName.water?.id
  let air = MAX_AIR
  let lavaCooldown = 0
  let wallCooldown = 0
  const cell = (p) => new Vec3(Math.floor(p.x), Math.floor(p.y), Math.floor(p.z))
  const blockAt = (p) => player.world.sync.getBlockType(cell(p))
  const fullBlockAt = (p) => suffocates(registry, player.world.sync.getBlockStateId(cell(p)) || 0)

  function setAir (value) {
    if (value === air) return
    air = value
    serv.mcbotUpdateOwnMetadata(player, { air_supply: air })
  }

  let resend = false // a death refills the air: the client hears it once the player is back
  player.mcbotHazardsTick = () => {
    if (player.mcbotDead || player.gameMode === 1 || player.gameMode === 3 || !player.world?.sync) return
    if (resend) {
      resend = false
      serv.mcbotUpdateOwnMetadata(player, { air_supply: air })
    }
    const feet = blockAt(player.position)
    const head = blockAt(player.position.offset(0, EYES, 0))
    if (lavaCooldown > 0) lavaCooldown--
    if ((feet === lava || head === lava) && lavaCooldown === 0) {
      lavaCooldown = 10
      player.mcbotDamage(4, { cause: 'lava', bypassInvulnerability: true })
    }
    if (wallCooldown > 0) wallCooldown--
    if (eyeCells(player.position).some((c) => fullBlockAt(c)) && wallCooldown === 0) {
      wallCooldown = 10
      player.mcbotDamage(1, { cause: 'wall', bypassInvulnerability: true })
    }
    if (head === water) {
      if (air - 1 <= -20) {
        setAir(0)
        player.mcbotDamage(2, { cause: 'drown', bypassInvulnerability: true })
      } else setAir(air - 1)
    } else if (air < MAX_AIR) setAir(Math.min(MAX_AIR, air + 4))
  }
  player.on?.('mcbotDeath', () => { air = MAX_AIR; resend = true; lavaCooldown = 0; wallCooldown = 0 })
}

module.exports.server = function (serv) {
  serv.on('tick', () => {
    for (const player of serv.players) player.mcbotHazardsTick?.()
  })
}
