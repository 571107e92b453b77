// Fixes for flying-squid 1.12.0 bugs that a survival bot hits (see shared/design/bridge-notes.md).
'use strict'

const UserError = require('flying-squid').UserError
const { itemName } = require('./_names')

module.exports.server = function (serv, cfg) {
  const { registry } = serv
  const Item = require('prismarine-item')(registry)

  // In-memory worlds: flying-squid unloads a column when no player uses it, and with no storage
  // provider the column is then regenerated from the seed - every dug or placed block lost.
  serv.on('ready', () => {
    if (!cfg.worldFolder) serv.overworld.unloadColumn = () => {}
    else serv.overworld.saveNow = saveNow
  })

  // prismarine-world's saveNow clears the whole queue after awaiting the writes, dropping the
  // chunks changed meanwhile (a block set during a periodic save was lost on restart). Only
  // what this call writes leaves the queue.
  async function saveNow () {
    const batch = [...this.savingQueue.entries()]
    for (const [key] of batch) this.savingQueue.delete(key)
    for (const [key, { chunkX, chunkZ }] of batch) {
      this.finishedSaving = Promise.all([this.finishedSaving, this.storageProvider.save(chunkX, chunkZ, this.columns[key])])
    }
    await this.finishedSaving
    for (const [key, { chunkX, chunkZ }] of this.unloadQueue.entries()) {
      if (!this.savingQueue.has(key)) this.forceUnloadColumn(key, chunkX, chunkZ)
    }
    this.emit('doneSaving')
  }

  // /give stored the count as a string, so a later pickup made "5" + 1 = "51".
  serv.commands.add({
    base: 'give',
    info: 'Gives an item to a player.',
    usage: '/give <player> <item> [count]',
    tab: ['player', 'item', 'number'],
    op: true,
    parse (str, ctx) {
      const args = str.trim().split(/\s+/)
      if (!args[0] || !args[1]) return false
      const players = serv.getPlayers(args[0], ctx.player)
      if (players.length < 1) throw new UserError('Player not found')
      const count = args[2] === undefined ? 1 : parseInt(args[2], 10)
      if (!Number.isInteger(count) || count < 1) throw new UserError('Count must be a positive number')
      return { players, item: args[1].replace(/^minecraft:/, ''), count }
    },
    action ({ players, item, count }, ctx) {
      const itemData = registry.itemsByName[itemName(registry, item)]
      if (!itemData) throw new UserError(`Unknown item '${item}'`)
      for (const player of players) {
        const left = player.giveItem(itemData.id, count)
        if (left > 0) player.chat(`mcbot: inventory full, ${left} ${item} not given`)
      }
      if (ctx.player) ctx.player.chat(`mcbot: gave ${count} ${item} to ${players.map(p => p.username).join(', ')}`)
    }
  })

  // Killed entities: flying-squid deletes them server-side but never tells clients, so mobs
  // stayed in bot.entities. Vanilla removes the body 20 ticks after the death animation.
  serv.on('newEntity', (entity) => {
    if (entity.type === 'player') return
    const takeDamage = entity.takeDamage
    entity.takeDamage = (opts) => {
      const r = takeDamage(opts)
      if (entity.health <= 0 && !entity.removalScheduled) {
        entity.removalScheduled = true
        setTimeout(() => serv.destroyEntity(entity), 1000)
      }
      return r
    }
  })

  // Give helper shared by /give, crafting leftovers and pickup: merges into existing stacks
  // (hotbar first, like vanilla), then empty slots. Returns the count that did not fit.
  serv.mcbotGive = (player, itemId, count) => {
    const inv = player.inventory
    const stackSize = registry.items[itemId].stackSize
    const order = []
    for (let s = 36; s <= 44; s++) order.push(s)
    for (let s = 9; s <= 35; s++) order.push(s)
    for (const s of order) {
      const it = inv.slots[s]
      if (count > 0 && it && it.type === itemId && it.count < stackSize) {
        const n = Math.min(count, stackSize - it.count)
        it.count += n
        count -= n
        inv.updateSlot(s, it)
      }
    }
    for (const s of order) {
      if (count > 0 && !inv.slots[s]) {
        const n = Math.min(count, stackSize)
        inv.updateSlot(s, new Item(itemId, n))
        count -= n
      }
    }
    return count
  }

  serv.on('newPlayer', (player) => {
    player.giveItem = (itemId, count) => serv.mcbotGive(player, itemId, count)
  })
}

module.exports.player = function (player, serv) {
  // Chunks on join: flying-squid sends a 6x6 window (-3..+2 around the player's chunk) and the
  // rest of the view only once the client sends a 'flying' or 'look' packet. mineflayer waits
  // for a 5x5 window before it moves at all, around a centre it computes as `pos >> 4`, which
  // truncates: a bot at z = -0.3 (chunk -1) waits for chunk +2 around chunk 0, i.e. +3 around
  // its own, which only the rest brings. So a bot saved at such a spot never got ready on
  // rejoin ("Timeout waiting for 5 chunks"). Send the rest of the view right after spawn.
  player.once('spawned', () => {
    player.worldSendRestOfChunks().catch((err) => serv.err(`chunks after spawn: ${err.stack}`))
  })

  // Tab list on join: flying-squid sent the full list to everyone but the joining player, so a
  // newcomer never learnt who the others were (mineflayer's bot.players[name].entity stayed
  // unset). Vanilla: the newcomer gets everyone, the others get the newcomer.
  serv._sendPlayerList = (toPlayer) => {
    const bitfield = serv.supportFeature('playerInfoActionIsBitfield')
    const info = (players) => (bitfield
      ? { action: { add_player: true }, data: players.map(p => ({ uuid: p.uuid, player: { name: p.username, properties: p.profileProperties }, gamemode: p.gameMode, latency: p._client.latency })) }
      : { action: 'add_player', data: players.map(p => ({ uuid: p.uuid, name: p.username, properties: p.profileProperties, gamemode: p.gameMode, ping: p._client.latency })) })
    toPlayer._client.write('player_info', info(serv.players))
    toPlayer._writeOthers('player_info', info([toPlayer]))
  }

  // Respawn: flying-squid compares actionId === 0, current minecraft-data decodes the string
  // 'perform_respawn'. Vanilla puts the player back at the world spawn with full vitals, and
  // the client drops its chunks on respawn, so they are sent again.
  player._client.on('client_command', (data) => {
    const action = data.actionId ?? data.payload
    if (action !== 'perform_respawn') return
    if (player.health > 0 && !player.mcbotDead) return
    player.behavior('requestRespawn', {}, async () => {
      player.mcbotDead = false
      player._unloadAllChunks()
      player._sendRespawn()
      player.position = player.spawnPoint.clone()
      player.sendSpawnPosition()
      player.food = 20
      player.foodSaturation = 5
      player.foodExhaustion = 0
      player.fallDistance = 0
      player.updateHealth(20)
      player.nearbyEntities = []
      await player.worldSendInitialChunks()
      player.sendSelfPosition(player.spawnPoint.clone())
      player.updateAndSpawn()
      player.mcbotResyncInventory?.()
      player.worldSendRestOfChunks()
    }).catch((err) => serv.err(`respawn failed: ${err.stack}`))
  })

  // The spawn point sits mid-block; the packet field is a block position.
  player.sendSpawnPosition = () => {
    player._client.write('spawn_position', { location: player.spawnPoint.floored(), angle: 0 })
  }

  // Pickup: flying-squid added 1 per entity whatever the dropped stack size.
  player.collect = (entity) => {
    if (player.mcbotDead || player.gameMode === 3) return
    const left = serv.mcbotGive(player, entity.itemId, entity.itemCount || 1)
    const taken = (entity.itemCount || 1) - left
    if (taken <= 0) return
    // the item's nearby players include the collector
    entity._writeOthersNearby('collect', {
      collectedEntityId: entity.id,
      collectorEntityId: player.id,
      pickupItemCount: taken
    })
    if (left > 0) {
      entity.itemCount = left
      const Item = require('prismarine-item')(serv.registry)
      serv.mcbotUpdateMetadata(entity, { item: new Item(entity.itemId, left) }) // the stack others see
    } else entity.destroy()
  }
}
