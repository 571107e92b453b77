// Who sees whom: every pair of entities in range knows each other, both ways, or neither does.
'use strict'

// flying-squid keeps, per entity, `nearbyEntities`: for a player the entities it was sent,
// for any entity the players its moves are written to. Its updateAndSpawn broke both: when a
// mob came within range of a player it set the player's list to everything around the player,
// so the entities near it that had not been sent yet were marked as sent and never spawned
// (a bot teleported next to another, or to a zombie, did not see it while a mob walked by);
// and an entity a player walked up to was spawned to it, but not told to write its moves to
// it. Here each change is made on both sides, with the spawn or despawn packet it needs.
module.exports.server = function (serv) {
  const link = (a, b) => {
    if (!a.nearbyEntities.includes(b)) {
      a.nearbyEntities.push(b)
      if (a.type === 'player') a.spawnEntity(b)
    }
  }
  const unlink = (a, b) => {
    const i = a.nearbyEntities.indexOf(b)
    if (i === -1) return
    a.nearbyEntities.splice(i, 1)
    if (a.type === 'player') a.despawnEntities([b])
  }

  serv.on('newEntity', (entity) => {
    // flying-squid looked again on 'move', which fires before the entity has moved: an entity
    // that stepped far was judged from where it stood, and one that then stood still was never
    // judged again. Here it is judged where it arrives. (At this point the only 'move'
    // listener is that one: the players' own come later.)
    entity.removeAllListeners('move')
    entity.on('move_done', () => {
      if (entity.position.distanceTo(entity.lastPositionPlayersUpdated) > 2) entity.updateAndSpawn()
    })
    entity.updateAndSpawn = () => {
      // one already removed (an item picked up in the tick that moves it, a player gone) is
      // never shown again
      if (serv.entities[entity.id] !== entity) return
      const near = entity.getNearby()
      for (const e of [...entity.nearbyEntities]) {
        if (near.includes(e)) continue
        unlink(entity, e)
        unlink(e, entity)
      }
      for (const e of near) {
        link(entity, e)
        link(e, entity)
      }
      entity.lastPositionPlayersUpdated = entity.position.clone()
    }
    // Everyone forgets this entity, and it forgets everyone (a respawn: the client dropped
    // every entity, and the others see the player again at its new place).
    entity.mcbotForgetAll = () => {
      for (const e of [...entity.nearbyEntities]) {
        unlink(entity, e)
        unlink(e, entity)
      }
    }
  })

  // A removed entity leaves the lists of those that knew it, each told (flying-squid tells the
  // players within range, which a linked one just past it is not).
  const destroyEntity = serv.destroyEntity
  serv.destroyEntity = (entity) => {
    destroyEntity(entity)
    entity.mcbotForgetAll()
  }
  // A player who left: the others were told by flying-squid; nobody keeps it in a list.
  serv.on('newPlayer', (player) => {
    player.once('disconnected', () => {
      for (const e of player.nearbyEntities) {
        const i = e.nearbyEntities.indexOf(player)
        if (i !== -1) e.nearbyEntities.splice(i, 1)
      }
      player.nearbyEntities = []
    })
  })
}
