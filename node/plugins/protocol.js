// Protocol adapter: flying-squid 1.12 writes packets shaped for ~1.18 and reads them that way.
// This plugin (loaded first) makes every other plugin behave the same at every version we serve
// (1.18.2 to 26.1; lib/squid_versions.js lifts flying-squid's gate).
// Each fix is chosen from the running version's packet schema in minecraft-data, never from a
// version string:
// - outgoing: login/respawn carry a SpawnInfo (1.20.2+; respawn kicked the client before),
//   entity_teleport/position gained velocity + flags (1.21.2+), f32 yaw in degrees, window
//   titles are NBT (1.20.3+), sounds are looked up by name with a float pitch;
// - entity metadata (flying-squid sends none at 1.20.2+ and put the item stack on the wrong
//   key before): encoded from vanilla key names (entity.mcbotMeta);
// - hurt: damage_event where it exists (1.19.4+; entity status 2 means nothing there);
// - a player leaving: player_remove (1.19.3+), players spawning: spawn_entity needs their type;
// - 1.21.9+: velocities in blocks a tick, the respawn point as RespawnData; 26.1: world clocks;
// - incoming: movement packets carry onGround inside `flags` (1.21.2+), entity_action names,
//   player_input's shift as sneaking; 26.1's hand names and its own attack packet;
// - a packet that still fails to encode is dropped and logged (MCBOT_PACKET_ERROR), instead of
//   flying-squid kicking the client.
'use strict'

const { metadataTypes, reverseMapper, damageTypeIds, chatToNbt } = require('./_schema')

module.exports.server = function (serv, cfg) {
  const { registry } = serv
  const Item = require('prismarine-item')(registry)
  const toClient = registry.protocol.play.toClient.types
  const toServer = registry.protocol.play.toServer.types
  const fieldsOf = (types, name) => (types['packet_' + name]?.[1] || [])
  const fieldType = (types, name, field) => fieldsOf(types, name).find(f => f.name === field)?.type
  const has = (name, field) => fieldType(toClient, name, field) !== undefined

  const P = {
    spawnInfo: has('respawn', 'worldState'),
    teleportVelocity: has('entity_teleport', 'dx'),
    positionVelocity: has('position', 'dx'),
    teleportYawDegrees: fieldType(toClient, 'entity_teleport', 'yaw') === 'f32',
    nbtWindowTitle: /nbt/i.test(String(fieldType(toClient, 'open_window', 'windowTitle'))),
    damageEvent: Boolean(toClient.packet_damage_event),
    soundHolder: has('sound_effect', 'sound'),
    tickDayTime: has('update_time', 'tickDayTime'),
    clockUpdates: has('update_time', 'clockUpdates'),
    playerRemove: Boolean(toClient.packet_player_remove)
  }
  serv.mcbotProtocol = P

  // flying-squid's dig handler reads registry.blockLoot[name].drops and throws on blocks
  // minecraft-data has no loot for (1.21.4: short_grass...), so the dig never completed.
  // drops.js decides what actually drops.
  for (const b of registry.blocksArray) {
    if (!registry.blockLoot[b.name]) registry.blockLoot[b.name] = { block: b.name, drops: [] }
  }

  // --- SpawnInfo (login and respawn, 1.20.2+) ----------------------------------------------
  P.worldState = (player) => ({
    ...registry.loginPacket.worldState,
    gamemode: player.gameMode,
    previousGamemode: player.prevGameMode ?? 255,
    hashedSeed: serv.hashedSeed,
    isFlat: false, // our terrain is not a superflat world
    death: undefined,
    portalCooldown: 0
  })

  // --- entity metadata -----------------------------------------------------------------------
  const metaTypes = metadataTypes(registry)
  // minecraft-data 1.18.2 has no metadataKeys: the 1.17-1.20 base layout, items add their stack,
  // creepers the living and mob keys then their swell (the client swells from swell_dir),
  // skeletons the living and mob keys (a drawn bow: living_entity_flags).
  const BASE_KEYS = ['shared_flags', 'air_supply', 'custom_name', 'custom_name_visible', 'silent', 'no_gravity', 'pose', 'ticks_frozen']
  const MOB_KEYS = [...BASE_KEYS, 'living_entity_flags', 'health', 'effect_particles', 'effect_ambience', 'arrow_count', 'stinger_count', 'sleeping_pos', 'mob_flags']
  const LEGACY_KEYS = { item: [...BASE_KEYS, 'item'], creeper: [...MOB_KEYS, 'swell_dir', 'is_powered', 'is_ignited'], skeleton: MOB_KEYS }
  const keysOf = (name) => registry.entitiesByName[name]?.metadataKeys || LEGACY_KEYS[name] || BASE_KEYS
  const META = { shared_flags: 'byte', item: 'item_stack', swell_dir: 'int', is_ignited: 'boolean', air_supply: 'int', living_entity_flags: 'byte' }
  P.encodeMetadata = (entity, values) => {
    // by type id: flying-squid names every spawnObject 'unknown' (its objects table is empty)
    const keys = keysOf(registry.entities[entity.entityType]?.name || entity.name)
    const out = []
    for (const [name, value] of Object.entries(values)) {
      const key = keys.indexOf(name)
      const type = metaTypes[META[name]]
      if (key < 0 || type === undefined) continue
      out.push({ key, type, value: name === 'item' ? Item.toNotch(value) : value })
    }
    return out
  }
  // Merge vanilla-named values into entity.mcbotMeta and show them to the players around it.
  serv.mcbotUpdateMetadata = (entity, values) => {
    entity.mcbotMeta = { ...entity.mcbotMeta, ...values }
    const metadata = P.encodeMetadata(entity, values)
    if (metadata.length) entity._writeOthersNearby('entity_metadata', { entityId: entity.id, metadata })
  }
  // The same, shown to the player it is about (its own air, as mineflayer's bot.oxygenLevel).
  serv.mcbotUpdateOwnMetadata = (player, values) => {
    player.mcbotMeta = { ...player.mcbotMeta, ...values }
    const metadata = P.encodeMetadata(player, values)
    if (metadata.length) player._client.write('entity_metadata', { entityId: player.id, metadata })
  }
  serv.on('newEntity', (entity) => {
    entity.mcbotMeta = {}
    // flying-squid's callers pass 1.18-numbered entries; only the flags byte (sneak, sprint,
    // on fire) is ever sent by them after spawn.
    entity.sendMetadata = (data) => {
      const flags = (data || []).find(e => e.key === 0 && e.type === 0)
      if (flags) serv.mcbotUpdateMetadata(entity, { shared_flags: flags.value })
    }
  })

  // --- hurt ------------------------------------------------------------------------------------
  const damageTypes = damageTypeIds(registry)
  const DAMAGE_TYPE = { mob: 'mob_attack', player: 'player_attack', fall: 'fall', starve: 'starve', fire: 'on_fire', command: 'generic', arrow: 'arrow', explosion: 'explosion', lava: 'lava', drown: 'drown' }
  // The hurt flash and sound: what mineflayer reports as 'entityHurt'. Goes to the victim too.
  serv.mcbotHurtEffect = (entity, { cause = 'command', attacker = null } = {}) => {
    if (P.damageEvent) {
      const source = attacker ? attacker.id + 1 : 0 // 0 = no entity
      entity._writeNearby('damage_event', {
        entityId: entity.id,
        sourceTypeId: damageTypes['minecraft:' + (DAMAGE_TYPE[cause] || 'generic')] ?? 0,
        sourceCauseId: source,
        sourceDirectId: source,
        sourcePosition: undefined
      })
    } else {
      entity._writeNearby('entity_status', { entityId: entity.id, entityStatus: 2 })
    }
  }

  // --- sounds: by registry name, absolute position x8, float pitch --------------------------
  serv.playSound = (sound, world, position, { whitelist, blacklist = [], radius = 32, volume = 1.0, pitch = 1.0, soundCategory = 0 } = {}) => {
    const name = String(sound).replace(/^minecraft:/, '')
    // flying-squid names its place sounds the pre-1.9 way ('dig.wood'); others it uses have no
    // current equivalent and are not sent
    const dig = /^dig\.(\w+)$/.exec(name)
    const known = registry.soundsByName?.[name] || (dig && registry.soundsByName?.[`block.${dig[1] === 'cloth' ? 'wool' : dig[1]}.place`])
    if (!known) return
    const players = whitelist ? [].concat(whitelist) : serv.getNearby({ world, position, radius })
    for (const player of players) {
      if (blacklist.includes(player)) continue
      const at = (position || player.position).scaled(8).floored()
      player._client.write('sound_effect', {
        ...(P.soundHolder ? { sound: { soundId: known.id } } : { soundId: known.id }),
        soundCategory,
        x: at.x,
        y: at.y,
        z: at.z,
        volume,
        pitch,
        seed: [0, 0]
      })
    }
  }

  // entity_action by name, to the numbers every plugin reads (1.18-1.21.4's; 1.21.6 dropped
  // the sneak actions and renumbered the rest)
  P.entityActions = reverseMapper(fieldType(registry18EntityAction(), 'entity_action', 'actionId'))
  // 26.1: a hit is its own packet, use_entity has no mouse button, and hands are names
  P.attackPacket = Boolean(toServer.packet_attack)
  P.interactWithoutMouse = fieldType(toServer, 'use_entity', 'target') !== undefined && fieldType(toServer, 'use_entity', 'mouse') === undefined
  P.playerInputShift = /shift/.test(JSON.stringify(fieldType(toServer, 'player_input', 'inputs') || ''))
  P.respawnData = toClient.packet_spawn_position === 'RespawnData'
  P.lpVelocity = fieldType(toClient, 'entity_velocity', 'velocity') === 'lpVec3'
}

// The entity_action numbering the plugins (and flying-squid's animations.js) were written for.
function registry18EntityAction () {
  return require('prismarine-registry')('1.18.2').protocol.play.toServer.types
}

module.exports.player = function (player, serv) {
  const P = serv.mcbotProtocol
  const { registry } = serv
  const Item = require('prismarine-item')(registry)
  const client = player._client

  // --- outgoing --------------------------------------------------------------------------------
  const byteToDegrees = (b) => (b ?? 0) * 360 / 256
  const TRANSLATE = {
    login (p) { return P.spawnInfo ? { ...p, worldState: P.worldState(player), enforcesSecureChat: p.enforcesSecureChat ?? false } : p },
    respawn (p) {
      if (P.spawnInfo) return { worldState: P.worldState(player), copyMetadata: 0 }
      return { ...p, previousGamemode: p.previousGamemode ?? p.previousGameMode ?? 255 } // flying-squid misspells it
    },
    position (p) {
      // flying-squid passes its byte-rounded look (-128..127) where the field is degrees
      const q = { ...p, yaw: p.yaw === player.yaw ? byteToDegrees(p.yaw) : p.yaw, pitch: p.pitch === player.pitch ? byteToDegrees(p.pitch) : p.pitch, dismountVehicle: p.dismountVehicle ?? false }
      if (P.positionVelocity) Object.assign(q, { dx: 0, dy: 0, dz: 0, flags: typeof p.flags === 'object' ? p.flags : {} })
      return q
    },
    entity_teleport (p) {
      const q = { ...p }
      if (P.teleportYawDegrees) { q.yaw = byteToDegrees(p.yaw); q.pitch = byteToDegrees(p.pitch) }
      if (P.teleportVelocity) Object.assign(q, { dx: 0, dy: 0, dz: 0, flags: {} })
      return q
    },
    spawn_entity (p) {
      const q = { ...p, headPitch: p.headPitch ?? 0, objectData: p.objectData ?? 0 }
      if (P.lpVelocity) q.velocity = lpVelocity(p.velocity ?? { x: p.velocityX, y: p.velocityY, z: p.velocityZ })
      return q
    },
    // 1.21.9+: velocity in blocks a tick (flying-squid and our plugins count 1/8000 of one)
    entity_velocity (p) { return P.lpVelocity ? { entityId: p.entityId, velocity: lpVelocity(p.velocity ?? { x: p.velocityX, y: p.velocityY, z: p.velocityZ }) } : p },
    // 1.21.9+: the respawn point names its dimension and carries a look
    spawn_position (p) { return P.respawnData && !p.globalPos ? { globalPos: { dimensionName: 'minecraft:overworld', location: p.location }, yaw: p.angle ?? 0, pitch: 0 } : p },
    open_window (p) {
      return P.nbtWindowTitle && typeof p.windowTitle === 'string' ? { ...p, windowTitle: chatToNbt(JSON.parse(p.windowTitle)) } : p
    },
    update_time (p) {
      // 26.1: one clock per world clock (0, the overworld's), its rate 0 while the cycle is off
      if (P.clockUpdates && !p.clockUpdates) {
        const ticks = Array.isArray(p.time) ? p.time[1] : Number(p.time ?? 0)
        return { age: p.age, clockUpdates: [{ id: 0, totalTicks: ticks, partialTick: 0, rate: serv.mcbotDaylightCycle ? 1 : 0 }] }
      }
      return P.tickDayTime && p.tickDayTime === undefined ? { ...p, tickDayTime: Boolean(serv.mcbotDaylightCycle) } : p
    }
  }
  const lpVelocity = (v) => ({ x: (v?.x ?? 0) / 8000, y: (v?.y ?? 0) / 8000, z: (v?.z ?? 0) / 8000 })
  const write = client.write.bind(client)
  client.write = (name, params) => {
    // 1.19.3+ removes players from the tab list with their own packet (the player left)
    if (name === 'player_info' && params?.action?.remove_player && P.playerRemove) return write('player_remove', { players: params.data.map(d => d.uuid) })
    return write(name, TRANSLATE[name] ? TRANSLATE[name](params) : params)
  }

  // A packet that cannot be encoded is dropped with a log line; flying-squid kicked for it.
  const serializer = client.serializer
  serializer._transform = function (chunk, enc, cb) {
    let buf
    try {
      buf = this.createPacketBuffer(chunk)
    } catch (err) {
      serv.err(`MCBOT_PACKET_ERROR dropped ${chunk.name} to ${player.username || '?'}: ${String(err.message).split('\n')[0]}`)
      return cb()
    }
    this.push(buf)
    return cb()
  }

  // Entities appear with their metadata (items show their stack: mineflayer's 'itemDrop').
  player.spawnEntity = (entity) => {
    const packet = entity.getSpawnPacket()
    // players have no entityType in flying-squid: from 1.20.2 they spawn through spawn_entity,
    // where a missing type meant entity 0 (a boat at 1.21.4): other players never saw them
    if (entity.type === 'player' && packet.type == null) packet.type = registry.entitiesByName.player.id
    client.write(entity.spawnPacketName, packet)
    const values = { ...entity.mcbotMeta }
    if (entity.itemId !== undefined) values.item = new Item(entity.itemId, entity.itemCount || 1)
    const metadata = P.encodeMetadata(entity, values)
    if (metadata.length) client.write('entity_metadata', { entityId: entity.id, metadata })
    const equipments = []
    entity.equipment?.forEach((it, slot) => { if (it) equipments.push({ slot, item: Item.toNotch(it) }) })
    if (equipments.length) client.write('entity_equipment', { entityId: entity.id, equipments })
  }

  // --- incoming: normalised before flying-squid's and our listeners see them ------------------
  const onGround = (p) => {
    if (p.onGround === undefined && p.flags && typeof p.flags === 'object') p.onGround = Boolean(p.flags.onGround)
  }
  for (const name of ['position', 'position_look', 'look', 'flying']) client.prependListener(name, onGround)
  client.prependListener('entity_action', (p) => {
    if (typeof p.actionId === 'string' && P.entityActions[p.actionId] !== undefined) p.actionId = P.entityActions[p.actionId]
  })
  // 26.1: hands come as names, the plugins read 0 (main) and 1 (off)
  const handNumber = (p) => { if (typeof p?.hand === 'string') p.hand = p.hand === 'off_hand' ? 1 : 0 }
  for (const name of ['use_item', 'block_place', 'arm_animation', 'use_entity']) client.prependListener(name, handNumber)
  // 26.1: a hit comes as `attack` and use_entity is only the interaction (mouse 0, or 2 at a
  // point on the entity); flying-squid's pvp reads use_entity with mouse 1 as the hit
  if (P.interactWithoutMouse) client.prependListener('use_entity', (p) => { if (p.mouse === undefined) p.mouse = p.location ? 2 : 0 })
  if (P.attackPacket) client.on('attack', ({ entityId } = {}) => client.emit('use_entity', { target: entityId, mouse: 1, sneaking: false }))
  // player_input's shift (1.21.2+; from 1.21.6 the only sneak signal, and what mineflayer sends
  // from 1.21.2) told to the plugins as the old sneak actions: a crouching player's click
  // places a block instead of opening a table or furnace, as at 1.18.2
  if (P.playerInputShift) {
    client.on('player_input', ({ inputs } = {}) => {
      const shift = Boolean(inputs?.shift)
      if (shift === Boolean(player.crouching)) return
      client.emit('entity_action', { entityId: player.id, actionId: shift ? P.entityActions.start_sneaking : P.entityActions.stop_sneaking, jumpBoost: 0 })
    })
  }
}
