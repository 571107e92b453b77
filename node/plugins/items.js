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
// Vanilla's item on the ground keeps 0.6 (a block's slipperiness) x 0.98 of its speed a tick;
// flying-squid's only friction, 15 blocks/s² on the ticks it touches a block, let a player's
// throw slide 5.5 blocks instead of vanilla's 3, and with a throw's 40 ticks of pickup delay
// it came to rest past a receiver in reach of the throw (lib/actions/give.js)
const GROUND_DRAG = 0.6 * 0.98

module.exports.server = function (serv) {
  const spawnObject = serv.spawnObject
  serv.spawnObject = (type, world, position, options = {}) => {
    const { pickupTime, deathTime } = options
    const object = spawnObject(type, world, position, { ...options, pickupTime: undefined, deathTime: undefined })
    if (pickupTime !== undefined) {
      const physics = object.calculatePhysics
      object.calculatePhysics = async (delta) => {
        const moved = await physics(delta)
        if (moved.onGround) {
          object.velocity.x *= GROUND_DRAG
          object.velocity.z *= GROUND_DRAG
        }
        return moved
      }
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
