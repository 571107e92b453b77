// Beds, per vanilla BedBlock / ServerPlayer.startSleepInBed:
// - placing: the foot where clicked, the head one block further in the player's facing; both
//   spots must be free (air or a replaceable plant) and the foot needs a solid block below.
//   Breaking either half removes the other; the dug half drops the one bed (drops.js).
// - using it (not sneaking; a foot redirects to its head): refused when too far (3 blocks
//   horizontally, 2 vertically from either half) or obstructed (solid block above); otherwise
//   the bed becomes the respawn point ("Respawn point set", by day too, as vanilla), then by
//   day (time of day outside 12542..23459; no weather here) or with a monster within 8 blocks
//   horizontally / 5 vertically it is refused with vanilla's message, else the player sleeps:
//   pose SLEEPING (what mineflayer's bot.sleep waits for) to it and those around, head half
//   `occupied`.
// - when every non-spectator overworld player has slept 100 ticks the time jumps to 0 of the
//   next day and all wake (animation 2 = mineflayer's 'wake', pose STANDING). A sleeper also
//   wakes on leaving the bed (entity_action stop_sleeping), damage, death, the bed breaking
//   or the day coming.
// - respawn: next to the bed while it stands; a bed that is gone resets the point to the world
//   spawn ("You have no home bed..."). Saved worlds keep the points in mcbot_respawn.json.
'use strict'

const fs = require('fs')
const path = require('path')
const { stateId, stateProps, isSolidState } = require('./_common')
const { metadataTypes, chatToNbt } = require('./_schema')
const { Vec3 } = require('vec3')

const STEP = { north: [0, -1], south: [0, 1], west: [-1, 0], east: [1, 0] }
const BY_YAW = ['south', 'west', 'north', 'east'] // vanilla yaw 0 = south, 90 = west
const OPPOSITE = { north: 'south', south: 'north', west: 'east', east: 'west' }
const POSE_STANDING = 0
const POSE_SLEEPING = 2
const ANIMATION_WAKE_UP = 2
const ACTION_STOP_SLEEPING = 2
const DEEP_SLEEP_TICKS = 100

const tod = (t) => ((t % 24000) + 24000) % 24000
const sleepTime = (t) => tod(t) >= 12542 && tod(t) < 23460

module.exports.server = function (serv, cfg) {
  const { registry } = serv
  const beds = Object.values(registry.blocksByName).filter(b => b.name.endsWith('_bed') && registry.itemsByName[b.name])
  const isBed = (b) => Boolean(b && b.name && b.name.endsWith('_bed'))
  const idAt = (world, p) => world.sync.getBlockStateId(p) || 0
  const blockAt = (world, p) => registry.blocksByStateId[idAt(world, p)]
  const solidAt = (world, p) => isSolidState(registry, idAt(world, p))
  const step = (pos, dir) => pos.offset(STEP[dir][0], 0, STEP[dir][1])
  const facingOf = (player) => BY_YAW[Math.floor((((player.mcbotLook?.yaw ?? player.mcbotYaw ?? 0) % 360 + 360) % 360) / 90 + 0.5) & 3]

  // --- messages: vanilla's translation keys, as chat or above the hotbar --------------------
  const systemChat = Boolean(registry.protocol.play.toClient.types.packet_system_chat)
  const nbtChat = /nbt/i.test(JSON.stringify(registry.protocol.play.toClient.types.packet_system_chat || ''))
  serv.mcbotTell = (player, key, { overlay = false, args } = {}) => {
    const component = { translate: key, ...(args ? { with: args.map(String) } : {}) }
    if (systemChat) player._client.write('system_chat', { content: nbtChat ? chatToNbt(component) : JSON.stringify(component), type: overlay ? 2 : 1, isActionBar: overlay })
    else player._client.write('chat', { message: JSON.stringify(component), position: overlay ? 2 : 1, sender: '0' })
  }

  // --- pose metadata: minecraft-data names the types from 1.19.4, before pose is type 18
  // (19 once `long` was added), as mineflayer reads it ---------------------------------------
  const poseType = metadataTypes(registry).pose ?? (serv.supportFeature('entityMetadataHasLong') ? 19 : 18)
  const poseKey = (registry.entitiesByName.player.metadataKeys || []).indexOf('pose')
  const POSE_KEY = poseKey >= 0 ? poseKey : 6 // 1.14-1.20 entity base layout
  function showPose (player, pose) {
    player._writeNearby('entity_metadata', { entityId: player.id, metadata: [{ key: POSE_KEY, type: poseType, value: pose }] })
  }

  // --- placing ---------------------------------------------------------------------------------
  for (const bed of beds) {
    serv.onItemPlace(bed.name, ({ player, placedPosition }) => {
      const world = player.world
      const facing = facingOf(player)
      const head = step(placedPosition, facing)
      if (!serv.mcbotReplaceable(idAt(world, placedPosition)) || !serv.mcbotReplaceable(idAt(world, head)) ||
          !solidAt(world, placedPosition.offset(0, -1, 0))) return { id: -1, data: 0 }
      serv.setBlock(world, head, stateId(registry, bed.name, { facing, part: 'head', occupied: 'false' }))
      return { id: bed.id, data: stateId(registry, bed.name, { facing, part: 'foot', occupied: 'false' }) - bed.minStateId }
    })
    serv.onBlockInteraction(bed.name, ({ block, player }) => {
      if (player.crouching || player.gameMode === 3) return false // sneaking places, spectators cannot use
      use(player, block.position).catch((err) => serv.err(`bed: ${err.stack}`))
      return true
    })
  }

  // The other half of a bed at pos, or null.
  function otherHalf (world, pos) {
    const id = idAt(world, pos)
    if (!isBed(registry.blocksByStateId[id])) return null
    const { facing, part } = stateProps(registry, id)
    return step(pos, part === 'foot' ? facing : OPPOSITE[facing])
  }
  // The head of a whole bed at pos (either half), or null.
  function headOf (world, pos) {
    const id = idAt(world, pos)
    if (!isBed(registry.blocksByStateId[id])) return null
    const other = otherHalf(world, pos)
    if (!isBed(blockAt(world, other))) return null
    return stateProps(registry, id).part === 'head' ? pos.clone() : other
  }
  function setOccupied (world, head, occupied) {
    const id = idAt(world, head)
    const block = registry.blocksByStateId[id]
    if (isBed(block)) serv.setBlock(world, head, stateId(registry, block.name, { ...stateProps(registry, id), occupied: String(occupied) }))
  }

  // --- sleeping --------------------------------------------------------------------------------
  async function use (player, clicked) {
    const world = player.world
    const head = headOf(world, clicked)
    if (!head || player.mcbotSleep || player.mcbotDead || world !== serv.overworld) return // (vanilla: other dimensions explode)
    const { facing, occupied } = stateProps(registry, idAt(world, head))
    if (occupied === 'true') return serv.mcbotTell(player, 'block.minecraft.bed.occupied', { overlay: true })
    const foot = step(head, OPPOSITE[facing])
    const reachable = (p) => Math.abs(player.position.x - (p.x + 0.5)) <= 3 && Math.abs(player.position.y - p.y) <= 2 &&
      Math.abs(player.position.z - (p.z + 0.5)) <= 3
    if (!reachable(head) && !reachable(foot)) return serv.mcbotTell(player, 'block.minecraft.bed.too_far_away', { overlay: true })
    if (solidAt(world, head.offset(0, 1, 0)) || solidAt(world, foot.offset(0, 1, 0))) return serv.mcbotTell(player, 'block.minecraft.bed.obstructed', { overlay: true })
    setRespawn(player, head)
    if (!sleepTime(serv.time)) return serv.mcbotTell(player, 'block.minecraft.bed.no_sleep', { overlay: true })
    if (player.gameMode !== 1 && monsterNear(world, head)) return serv.mcbotTell(player, 'block.minecraft.bed.not_safe', { overlay: true })
    player.mcbotSleep = { world, head, ticks: 0 }
    setOccupied(world, head, true)
    showPose(player, POSE_SLEEPING)
    announce()
  }

  function monsterNear (world, head) {
    for (const mob of serv.mcbotMobs || []) {
      if (mob.world !== world || mob.ai.dead || mob.ai.kind.passive) continue
      const p = mob.position
      if (Math.abs(p.x - (head.x + 0.5)) <= 8 && Math.abs(p.y - head.y) <= 5 && Math.abs(p.z - (head.z + 0.5)) <= 8) return true
    }
    return false
  }

  function wake (player) {
    const sleep = player.mcbotSleep
    if (!sleep) return
    player.mcbotSleep = null
    setOccupied(sleep.world, sleep.head, false)
    if (player.disconnected || !player._client) return
    player._writeNearby('animation', { entityId: player.id, animation: ANIMATION_WAKE_UP })
    showPose(player, POSE_STANDING)
  }
  serv.mcbotWake = wake

  // Vanilla sleepers: overworld players who are not spectators (dead ones still count).
  const sleepers = () => serv.players.filter(p => p.world === serv.overworld && p.gameMode !== 3)
  function announce () {
    const all = sleepers()
    const asleep = all.filter(p => p.mcbotSleep).length
    const key = asleep >= all.length ? 'sleep.skipping_night' : 'sleep.players_sleeping'
    for (const p of all) serv.mcbotTell(p, key, { overlay: true, args: key === 'sleep.players_sleeping' ? [asleep, all.length] : undefined })
  }

  serv.on('tick', () => {
    let any = false
    for (const p of serv.players) {
      const s = p.mcbotSleep
      if (!s) continue
      if (!sleepTime(serv.time) || p.world !== s.world || !headOf(s.world, s.head)) { wake(p); continue }
      s.ticks++
      any = true
    }
    if (!any) return
    const all = sleepers()
    if (all.length === 0 || !all.every(p => p.mcbotSleep && p.mcbotSleep.ticks >= DEEP_SLEEP_TICKS)) return
    serv.setTime(0) // the next morning: time of day 0 (the day count is not kept here)
    for (const p of serv.players) wake(p)
  })

  // --- respawn point ---------------------------------------------------------------------------
  const store = cfg.worldFolder ? path.join(cfg.worldFolder, 'mcbot_respawn.json') : null
  const points = new Map() // uuid -> [x, y, z] of a bed head in the overworld
  if (store) {
    try { for (const [k, v] of Object.entries(JSON.parse(fs.readFileSync(store, 'utf8')))) points.set(k, v) } catch (err) { /* none yet */ }
  }
  function save () {
    if (!store) return
    try { fs.writeFileSync(store, JSON.stringify(Object.fromEntries(points))) } catch (err) { serv.err(`respawn points: ${err.message}`) }
  }

  function setRespawn (player, head) {
    const prev = points.get(player.uuid)
    if (prev && prev[0] === head.x && prev[1] === head.y && prev[2] === head.z) return
    points.set(player.uuid, [head.x, head.y, head.z])
    save()
    player.spawnPoint = standUp(player.world, head) || head.offset(0.5, 0.5625, 0.5)
    player.sendSpawnPosition()
    serv.mcbotTell(player, 'block.minecraft.set_spawn')
  }

  // Where a player stands up from a bed (vanilla BedBlock.findStandUpPosition, simplified):
  // beside the head or foot, then at either end, on a solid block with room for a player.
  function standUp (world, head) {
    const id = idAt(world, head)
    if (!isBed(registry.blocksByStateId[id])) return null
    const { facing } = stateProps(registry, id)
    const foot = step(head, OPPOSITE[facing])
    const side = facing === 'north' || facing === 'south' ? ['west', 'east'] : ['north', 'south']
    const spots = [step(head, side[0]), step(head, side[1]), step(foot, side[0]), step(foot, side[1]),
      step(foot, OPPOSITE[facing]), step(head, facing)]
    for (const s of spots) {
      for (const dy of [0, -1, 1]) {
        const at = s.offset(0, dy, 0)
        if (solidAt(world, at.offset(0, -1, 0)) && !solidAt(world, at) && !solidAt(world, at.offset(0, 1, 0))) return at.offset(0.5, 0, 0.5)
      }
    }
    return null
  }

  // Points the player's spawnPoint at their bed; true when they have one. At respawn (not
  // `quiet`) a bed that is gone is forgotten, as vanilla.
  serv.mcbotCheckRespawnPoint = async (player, { quiet = false } = {}) => {
    const p = points.get(player.uuid)
    if (!p) return false
    const head = new Vec3(p[0], p[1], p[2])
    await serv.overworld.getColumnAt(head) // a saved world may have unloaded it
    const spot = headOf(serv.overworld, head) && standUp(serv.overworld, head)
    if (spot) { player.spawnPoint = spot; return true }
    if (quiet) return false
    points.delete(player.uuid)
    save()
    player.spawnPoint = await serv.getSpawnPoint(serv.overworld)
    player._client.write('game_state_change', { reason: 0, gameMode: 0 }) // no_respawn_block_available
    serv.mcbotTell(player, 'block.minecraft.spawn.not_valid')
    return false
  }
}

module.exports.player = function (player, serv) {
  const { registry } = serv
  const isBed = (b) => Boolean(b && b.name && b.name.endsWith('_bed'))

  player.mcbotCheckRespawnPoint = () => serv.mcbotCheckRespawnPoint(player)
  // A bed set before (this session or, for a saved world, an earlier one) is the respawn point.
  player.once('spawned', () => {
    serv.mcbotCheckRespawnPoint(player, { quiet: true }).then((bed) => bed && player.sendSpawnPosition()).catch((err) => serv.err(`respawn point: ${err.stack}`))
  })

  player._client.on('entity_action', ({ actionId }) => {
    if (actionId === ACTION_STOP_SLEEPING) serv.mcbotWake(player)
  })
  const damage = player.mcbotDamage
  if (damage) {
    player.mcbotDamage = (...args) => {
      const dealt = damage(...args)
      if (dealt > 0) serv.mcbotWake(player) // vanilla: any hurt ends sleep
      return dealt
    }
  }
  player.on('mcbotDeath', () => serv.mcbotWake(player))
  player.on('disconnected', () => serv.mcbotWake(player))

  // Breaking either half removes the other; only the dug half drops the bed.
  player.on('dug', async ({ position, block }) => {
    if (!isBed(block)) return
    const { facing, part } = stateProps(registry, block.stateId)
    const dir = part === 'foot' ? facing : OPPOSITE[facing]
    const other = position.offset(STEP[dir][0], 0, STEP[dir][1])
    if ((await player.world.getBlock(other)).name === block.name) serv.setBlock(player.world, other, 0)
  })
}
