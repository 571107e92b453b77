// A saved world writes its players (inventory, position, vitals) every 600 game ticks as well as
// when they leave: flying-squid saved a player only at logout, so a world process killed mid-game
// (a crash, a supervised restart) lost every item picked up since the bot joined. Chunks are
// saved by prismarine-world once a second on their own.
'use strict'

const EVERY_TICKS = 600

module.exports.server = function (serv, cfg) {
  if (!cfg.worldFolder) return
  serv.on('tick', (delta, count) => {
    if (count % EVERY_TICKS !== 0) return
    for (const player of serv.players) {
      if (!player.save || player.mcbotDead) continue
      player.save().catch((err) => serv.err?.(`saving ${player.username} failed: ${err.message}`))
    }
  })
}
