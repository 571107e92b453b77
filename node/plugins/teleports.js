// Teleports as vanilla runs them: a client's moves are ignored until it confirms the last one.
'use strict'

// flying-squid sent every teleport with id 1 and took every move the client sent. A move the
// client sent before it had seen a teleport put the player back where it came from, and the
// next one at the new place was judged from there (a bot teleported next to another had it
// despawned by that step back, and stood still, so never saw it again). Vanilla numbers each
// teleport, ignores the client's moves until the client confirms that number, and sends the
// teleport again every 20 ticks it is not confirmed.
const RESEND_TICKS = 20

module.exports.server = function (serv) {
  serv.on('tick', () => {
    for (const player of serv.players) {
      const waiting = player.mcbotTeleport
      if (waiting && serv.tickCount - waiting.tick > RESEND_TICKS) player.sendSelfPosition()
    }
  })
}

module.exports.player = function (player, serv) {
  const client = player._client
  let lastId = 0
  player.mcbotTeleport = null // { id, tick } of the teleport the client has not confirmed yet

  player.sendSelfPosition = (newPosition) => {
    if (newPosition) player.position = newPosition
    lastId = (lastId % 0x7fffffff) + 1
    player.mcbotTeleport = { id: lastId, tick: serv.tickCount }
    client.write('position', {
      x: player.position.x,
      y: player.position.y,
      z: player.position.z,
      yaw: player.yaw,
      pitch: player.pitch,
      flags: 0x00,
      teleportId: lastId
    })
  }

  client.on('teleport_confirm', ({ teleportId } = {}) => {
    if (player.mcbotTeleport?.id === teleportId) player.mcbotTeleport = null
  })

  // Every listener, flying-squid's and ours (falls, hunger), sees a move only once the client
  // is where the server put it.
  const MOVES = new Set(['position', 'position_look', 'look', 'flying'])
  const emit = client.emit
  client.emit = function (name, ...args) {
    if (player.mcbotTeleport && MOVES.has(name)) return false
    return emit.call(this, name, ...args)
  }
}
