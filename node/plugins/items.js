// Dropped items count their age in game ticks, as vanilla's item entities do: a pickup delay
// (10 ticks for what the embedded world drops, 40 for a player's throw) and a despawn (6000
// ticks for what our plugins drop: plugins/_common.js). flying-squid
// counted wall-clock milliseconds from the item's birth while its physics moved by ticks, so on
// a loaded machine, whose ticks fall behind, an item could be picked up before it had moved: a
// stack the bot threw came back to it where it stood (node/test/server_contract.test.js, the toss test).
'use strict'

const MS_PER_TICK = 50
const DESPAWN_TICKS = 6000
const REACH = 1.75 // flying-squid's pickup radius around the item

module.exports.server = function (serv) {
  const spawnObject = serv.spawnObject
  serv.spawnObject = (type, world, position, options = {}) => {
    const { pickupTime, deathTime } = options
    const object = spawnObject(type, world, position, { ...options, pickupTime: undefined, deathTime: undefined })
    if (pickupTime !== undefined) {
      object.mcbotAge = 0
      object.mcbotPickupDelay = Math.ceil(pickupTime / MS_PER_TICK)
      object.mcbotDespawnAge = deathTime ? Math.ceil(deathTime / MS_PER_TICK) : DESPAWN_TICKS
    }
    return object
  }

  serv.on('tick', () => {
    for (const entity of Object.values(serv.entities)) {
      if (entity.mcbotAge === undefined) continue
      entity.mcbotAge++
      if (entity.mcbotAge >= entity.mcbotDespawnAge) { entity.destroy(); continue }
      if (entity.mcbotAge < entity.mcbotPickupDelay) continue
      const players = serv.getNearby({ world: entity.world, position: entity.position, radius: REACH })
      if (players.length) players[0].collect(entity)
    }
  })
}
