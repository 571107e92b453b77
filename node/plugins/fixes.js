// Fixes for flying-squid 1.12.0 bugs that a survival bot hits.
'use strict'

const UserError = require('flying-squid').UserError
const { Vec3 } = require('vec3')
const { itemName } = require('./_names')
const { stateId, stateProps, isSolidState, dropItem } = require('./_common')

// flying-squid's face order in block_place: down, up, north, south, west, east (d ^ 1 = opposite).
const FACES = [['down', 0, -1, 0], ['up', 0, 1, 0], ['north', 0, 0, -1], ['south', 0, 0, 1], ['west', -1, 0, 0], ['east', 1, 0, 0]]
  .map(([name, x, y, z]) => ({ name, v: new Vec3(x, y, z) }))
const DOWN = 0
const UP = 1
const TORCHES = { torch: 'wall_torch', soul_torch: 'soul_wall_torch', redstone_torch: 'redstone_wall_torch' }
// What a placed block may take the place of (vanilla `replaceable`, single-block kinds only).
const REPLACEABLE = new Set(['air', 'cave_air', 'void_air', 'grass', 'short_grass', 'fern', 'dead_bush', 'vine', 'snow'])

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

  serv.mcbotReplaceable = (id) => {
    const block = registry.blocksByStateId[id || 0]
    return !block || (REPLACEABLE.has(block.name) && (block.name !== 'snow' || stateProps(registry, id).layers === '1'))
  }

  // Torches: flying-squid placed a standing torch whatever face was clicked. Vanilla
  // (StandingAndWallBlockItem): try the directions the player looks along, toward the clicked
  // block first; down = a standing torch on the block below, a side = a wall torch facing away
  // from the block it hangs on, up never; each needs a solid block there, else nothing is placed.
  for (const [standing, wall] of Object.entries(TORCHES)) {
    if (!registry.itemsByName[standing] || !registry.blocksByName[wall]) continue
    serv.onItemPlace(standing, ({ player, placedPosition, direction, directionVector }) => {
      const world = player.world
      const none = { id: -1, data: 0 }
      if (!serv.mcbotReplaceable(world.sync.getBlockStateId(placedPosition))) return none
      const clicked = directionVector && directionVector.norm() > 0 ? (direction ^ 1) : null
      for (const d of lookOrder(player, clicked)) {
        if (d === UP) continue
        const support = world.sync.getBlockStateId(placedPosition.plus(FACES[d].v)) || 0
        if (!isSolidState(registry, support)) continue
        const name = d === DOWN ? standing : wall
        const block = registry.blocksByName[name]
        const state = stateId(registry, name, d === DOWN ? {} : { facing: FACES[d ^ 1].name })
        return { id: block.id, data: state - block.minStateId }
      }
      return none
    }, false) // replaces flying-squid's pre-1.13 redstone torch handler, which placed nothing
    // minecraft-data has no loot for wall torches (protocol.js left them dropping nothing).
    registry.blockLoot[wall] = { block: wall, drops: [{ item: standing, dropChance: 1, stackSizeRange: [1, 1] }] }
  }
  // Face indices sorted by how closely the player looks along them (vanilla
  // Direction.orderedByNearest), the clicked block's side moved first.
  function lookOrder (player, first) {
    const yaw = (player.mcbotLook?.yaw ?? 0) * Math.PI / 180
    const pitch = (player.mcbotLook?.pitch ?? 0) * Math.PI / 180
    const look = new Vec3(-Math.sin(yaw) * Math.cos(pitch), -Math.sin(pitch), Math.cos(yaw) * Math.cos(pitch))
    const order = [0, 1, 2, 3, 4, 5].sort((a, b) => FACES[b].v.dot(look) - FACES[a].v.dot(look))
    return first === null ? order : [first, ...order.filter(d => d !== first)]
  }
  // A torch whose support is removed pops off and drops itself (vanilla neighbour update).
  const torchItem = new Map()
  for (const [standing, wall] of Object.entries(TORCHES)) {
    if (!registry.itemsByName[standing]) continue
    torchItem.set(standing, { item: standing, wall: false })
    if (registry.blocksByName[wall]) torchItem.set(wall, { item: standing, wall: true })
  }
  function popTorches (world, oldBlock, newBlock) {
    if (!isSolidState(registry, oldBlock.stateId) || isSolidState(registry, newBlock.stateId)) return
    const pos = oldBlock.position
    for (let d = 1; d < 6; d++) { // the block above and the four sides
      const at = pos.plus(FACES[d].v)
      const id = world.sync.getBlockStateId(at) || 0
      const torch = torchItem.get(registry.blocksByStateId[id]?.name)
      if (!torch) continue
      if (d === UP ? torch.wall : (!torch.wall || stateProps(registry, id).facing !== FACES[d].name)) continue
      serv.setBlock(world, at, 0)
      dropItem(serv, world, at.offset(0.5, 0.25, 0.5), registry.itemsByName[torch.item].id, 1)
    }
  }
  serv.on('ready', () => {
    for (const world of [serv.overworld, serv.netherworld]) {
      world?.on('blockUpdate', (oldBlock, newBlock) => {
        try { popTorches(world, oldBlock, newBlock) } catch (err) { serv.err(`torch support: ${err.stack}`) }
      })
    }
  })

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
  // Raw look in degrees, for placement rules (flying-squid keeps only byte-rounded copies).
  const look = ({ yaw, pitch }) => { player.mcbotLook = { yaw, pitch } }
  player._client.on('look', look)
  player._client.on('position_look', look)

  // Chunks on join: flying-squid sends a 6x6 window (-3..+2 around the player's chunk) and the
  // rest of the view only once the client sends a 'flying' or 'look' packet. mineflayer waits
  // for a 5x5 window before it moves at all, around a centre it computes as `pos >> 4`, which
  // truncates: a bot at z = -0.3 (chunk -1) waits for chunk +2 around chunk 0, i.e. +3 around
  // its own, which only the rest brings. So a bot saved at such a spot never got ready on
  // rejoin ("Timeout waiting for 5 chunks"). Send the rest of the view right after spawn.
  player.once('spawned', () => {
    player.worldSendRestOfChunks().catch((err) => serv.err(`chunks after spawn: ${err.stack}`))
    showAgain()
    endLoginOnAnyMove()
  })

  // flying-squid ends a login (and saves the player for the first time) at the client's first
  // 'flying' or 'look' packet, and a mineflayer bot standing still sends neither: it sends
  // 'position' every second, and a look that falls on that second goes out as 'position_look'.
  // So a bot's login could stay open for good, and nothing of it was saved. Any movement packet
  // ends it here ('flying' is read by nothing but that wait).
  function endLoginOnAnyMove () {
    const kinds = ['position', 'position_look']
    const end = (packet) => {
      for (const kind of kinds) player._client.removeListener(kind, end)
      player._client.emit('flying', { onGround: packet.onGround, flags: packet.flags })
    }
    for (const kind of kinds) player._client.on(kind, end)
  }

  // On join flying-squid spawns the newcomer to the players around before it announces the
  // newcomer's name (player_info): a client gets an entity it cannot name, and a bot never
  // sees the player who joined after it (a fleet's bots log in one after the other at spawn).
  // Once the name is out, spawn the newcomer to them (and them to it) again.
  function showAgain () {
    for (const other of serv.players) {
      if (other === player || other.world !== player.world) continue
      if ((other.nearbyEntities || []).includes(player)) { other.despawnEntities([player]); other.spawnEntity(player) }
      if ((player.nearbyEntities || []).includes(other)) { player.despawnEntities([other]); player.spawnEntity(other) }
    }
  }

  // Teleport right after joining: flying-squid resends the login position once the client's
  // first 'flying'/'look' packet arrives (against falling through unloaded chunks), which can
  // be seconds later at 1.18.2, and so undid a /tp made in between. That resend (the login
  // position object again) is skipped once the server has moved the player since.
  const sendSelfPosition = player.sendSelfPosition
  let loginPos = null
  let movedSinceLogin = false
  player.sendSelfPosition = (pos) => {
    if (loginPos === null) loginPos = player.position // the first send is login's own
    else if (pos !== undefined && pos === loginPos) { if (movedSinceLogin) return } else movedSinceLogin = true
    return sendSelfPosition(pos)
  }

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
  // 'perform_respawn'. Vanilla puts the player back at their respawn point (the world spawn or
  // their bed) with full vitals, and
  // the client drops its chunks on respawn, so they are sent again.
  player._client.on('client_command', (data) => {
    const action = data.actionId ?? data.payload
    if (action !== 'perform_respawn') return
    if (player.health > 0 && !player.mcbotDead) return
    player.behavior('requestRespawn', {}, async () => {
      player.mcbotDead = false
      // a bed (beds.js) that is gone resets the point; with none, the world spawn as it is now
      if (!(await player.mcbotCheckRespawnPoint?.())) player.spawnPoint = await serv.getSpawnPoint(serv.overworld)
      player._unloadAllChunks()
      player._sendRespawn()
      player.position = player.spawnPoint.clone()
      player.sendSpawnPosition()
      player.food = 20
      player.foodSaturation = 5
      player.foodExhaustion = 0
      player.fallDistance = 0
      player.updateHealth(20)
      player.mcbotForgetAll()
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

  answerEveryPlacement(player, serv)

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

// Vanilla answers every block placement with the clicked block and the block across the face,
// whether it placed anything or not, so a client's guess is corrected at once. flying-squid
// answers only the placements it makes and refuses others silently (the player's own feet in
// the cell, nothing in the hand): mineflayer then waited 5 s and reported "Server did not
// answer the placement". Cells the handler already sent are left alone (their write may still
// be on its way to the world); a refusal is logged with what the server saw.
function answerEveryPlacement (player, serv) {
  const { registry } = serv
  const handlers = player._client.listeners('block_place')
  player._client.removeAllListeners('block_place')
  // what each placement in flight has sent (a client may send the next before this one ends)
  const inFlight = new Set()
  const sendBlock = player.sendBlock
  player.sendBlock = (pos, id) => {
    for (const sent of inFlight) sent.add(pos.toString())
    return sendBlock(pos, id)
  }
  player._client.on('block_place', async (packet) => {
    const face = FACES[packet.direction]
    if (!packet.location || !face) return Promise.all(handlers.map(h => h.call(player._client, packet)))
    const world = player.world
    const ref = new Vec3(packet.location.x, packet.location.y, packet.location.z)
    const refState = world.sync.getBlockStateId(ref) || 0
    const cell = registry.blocksByStateId[refState]?.boundingBox === 'empty' ? ref : ref.plus(face.v)
    const sent = new Set()
    inFlight.add(sent)
    const held = player.inventory.slots[36 + player.heldItemSlot]
    const feet = player.position.floored()
    try {
      await Promise.all(handlers.map(h => h.call(player._client, packet)))
    } catch (err) {
      serv.err(`block_place: ${err.stack}`)
    } finally {
      inFlight.delete(sent)
    }
    if (sent.has(cell.toString())) return
    if (held && registry.blocksByName[held.name]) {
      const why = cell.equals(feet) ? `the player's feet are there (${player.position})` : 'the item places nothing there'
      serv.info(`[mcbot] ${player.username}'s ${held.name} at ${cell} against ${ref} not placed: ${why}`)
    }
    for (const pos of [ref, cell]) {
      if (sent.has(pos.toString())) continue
      player._client.write('block_change', { location: pos, type: world.sync.getBlockStateId(pos) || 0 })
    }
  })
}
