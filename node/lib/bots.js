'use strict'
// Bot registry and event queue. Python addresses bots by id and drains each bot's event
// queue in one call, so no Python On() handler is ever registered (docs/contracts.md BRIDGE-2).

const mineflayer = require('mineflayer')
const { pathfinder } = require('mineflayer-pathfinder')
const collectBlock = require('mineflayer-collectblock').plugin
const toolPlugin = require('mineflayer-tool').plugin
const { guardToolRecursion } = require('./harvest')
const { PATH_TICK_MS } = require('./limits')
const { isHostile } = require('./names')
const deathCause = require('./death_cause')
const { trackRespawn } = require('./snapshot')
const threats = require('./threats')
const { installBlockCache, memoizeMinecraftData } = require('./simulation_cache')
const { installQuietSplitter } = require('./framing')
require('./chunk_fluids').installFluidMemo() // before mineflayer makes its chunk class

memoizeMinecraftData()
installQuietSplitter()

const MAX_QUEUE = 2000
// mineflayer asks to respawn once, on the health packet that says the bot died. A lost
// request, or a server that fails half-way (as stock flying-squid 1.12 does at 1.21.4: it drops
// the client's chunks, then cannot encode the respawn packet; our embedded world's
// plugins/protocol.js fixes that, other servers may not), leaves the bot dead in an empty world for good:
// every block read comes back unloaded. Ask again every few seconds; if the bot is still dead
// after RESPAWN_GIVE_UP_MS, end the connection so Python reconnects (a fresh login spawns).
const RESPAWN_RETRY_MS = 3000
const RESPAWN_GIVE_UP_MS = 20000
const bots = new Map() // id -> { bot, state, queue, dropped, error, endReason }
// The plugins every bot loads, in this order: the guard wraps what mineflayer-tool installs
// (best tool for a block, for dig; collectblock relies on it too).
const PLUGINS = [pathfinder, toolPlugin, guardToolRecursion, collectBlock]
let nextId = 1

function get (id) {
  const rec = bots.get(id)
  if (!rec) throw new Error(`no bot with id ${id}`)
  if (rec.state === 'ended') throw new Error(`bot ${id} has disconnected (${rec.endReason || 'ended'})`)
  return rec.bot
}

// The bot of a known id even after it ended: for reading what it left behind (the doctor's
// chat facts right after a kick, when get() already throws).
function getEvenEnded (id) {
  const rec = bots.get(id)
  if (!rec) throw new Error(`no bot with id ${id}`)
  return rec.bot
}

function push (rec, type, data) {
  if (rec.queue.length >= MAX_QUEUE) {
    rec.queue.shift()
    rec.dropped++
  }
  rec.queue.push({ type, ts: Date.now(), data: data || {} })
}

function createBot (opts) {
  const id = String(nextId++)
  const bot = mineflayer.createBot({
    host: opts.host,
    port: opts.port,
    username: opts.username,
    version: opts.version,
    auth: opts.auth || 'offline',
    profilesFolder: opts.profilesFolder || undefined,
    hideErrors: true,
    checkTimeoutInterval: opts.checkTimeoutMs || 30000
  })
  const rec = { id, bot, state: 'connecting', queue: [], dropped: 0, error: null, endReason: null, spawnedAt: null }
  bots.set(id, rec)
  require('./client_fixes').install(bot)
  require('./hands').install(bot)
  bot.loadPlugins(PLUGINS)
  bot.once('inject_allowed', () => { // after the plugins load (pathfinder sets its own 40 ms then)
    sharePathThinking()
    installBlockCache(bot)
    require('./walking').install(bot)
  })
  attach(rec, opts.hostileRadius || 16)
  threats.install(bot)
  require('./chat_guard').install(bot, opts, (type, data) => push(rec, type, data)) // secure-chat refusals
  return id
}

// pathfinder thinks up to 40 ms per physics tick per bot; node runs every bot, so twenty
// bots computing paths at once held the event loop for most of each tick and every other call
// (a snapshot, a threat poll) waited. The bridge's bots share PATH_TICK_MS (at least 4 ms each:
// at 1 ms twenty bots walked a quarter less): a path takes a few more ticks to find, the loop
// stays responsive.
const MIN_THINK_MS = 4

function sharePathThinking () {
  const live = [...bots.values()].filter((r) => r.state !== 'ended' && r.bot && r.bot.pathfinder)
  const each = Math.max(MIN_THINK_MS, Math.floor(PATH_TICK_MS / Math.max(1, live.length)))
  for (const r of live) r.bot.pathfinder.tickTimeout = each
}

function attach (rec, hostileRadius) {
  const bot = rec.bot
  bot.on('spawn', () => {
    push(rec, 'spawn', {})
    if (rec.state === 'connecting') {
      rec.state = 'spawned'
      // Ready = spawned + health known + nearby chunks loaded (bot.blockAt is null before).
      waitReady(rec).catch((err) => { rec.error = String((err && err.message) || err) })
    }
  })
  bot.on('health', () => push(rec, 'health', { health: bot.health, food: bot.food, saturation: bot.foodSaturation ?? null }))
  trackRespawn(bot)
  const onDeath = deathCause.install(bot)
  bot.on('death', () => {
    const position = pos(bot.entity && bot.entity.position) // where the items dropped, before the respawn moves it
    onDeath((cause) => push(rec, 'death', { position, cause, dimension: String(bot.game.dimension || '').replace(/^minecraft:/, '') }))
    watchRespawn(rec)
  })
  bot.on('kicked', (reason) => push(rec, 'kicked', { reason: typeof reason === 'string' ? reason : JSON.stringify(reason) }))
  bot.on('error', (err) => {
    rec.error = String((err && err.message) || err)
    push(rec, 'error', { message: rec.error, code: err && err.code })
  })
  bot.on('end', (reason) => {
    clearInterval(rec.respawnTimer)
    rec.state = 'ended'
    sharePathThinking()
    rec.endReason = String(reason || 'ended')
    push(rec, 'end', { reason: rec.endReason })
    bot.removeAllListeners() // detach before Python builds a new bot (BRIDGE-7)
  })
  bot.on('mcbot_action_done', (s) => push(rec, 'action_done', s))
  bot.on('chat', (username, message) => push(rec, 'chat', { username, message }))
  bot.on('whisper', (username, message) => push(rec, 'chat', { username, message, whisper: true })) // agency/chat
  bot.on('entitySpawn', (e) => {
    if (!bot.entity || e === bot.entity) return
    push(rec, 'entity_appear', describe(bot, e))
  })
  bot.on('entityHurt', (e) => {
    const self = bot.entity && e.id === bot.entity.id
    push(rec, 'entity_hurt', { self, ...(self ? { health: bot.health } : describe(bot, e)) })
  })
}

function watchRespawn (rec) {
  const bot = rec.bot
  const diedAt = Date.now()
  clearInterval(rec.respawnTimer)
  rec.respawnTimer = setInterval(() => {
    if (rec.state === 'ended' || bot.health > 0) return clearInterval(rec.respawnTimer)
    if (Date.now() - diedAt >= RESPAWN_GIVE_UP_MS) {
      clearInterval(rec.respawnTimer)
      rec.error = `still dead ${RESPAWN_GIVE_UP_MS / 1000} s after dying (the server did not respawn the bot): reconnecting`
      push(rec, 'error', { message: rec.error, code: 'not_respawned' })
      bot.end(rec.error)
      return
    }
    try { bot.respawn() } catch (e) { /* connection going away: 'end' follows */ }
  }, RESPAWN_RETRY_MS)
}

async function waitReady (rec) {
  const bot = rec.bot
  const deadline = Date.now() + 20000
  while (bot.health === undefined && Date.now() < deadline && rec.state !== 'ended') {
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const chunksLoaded = bot.waitForChunksToLoad()
  await Promise.race([chunksLoaded, new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now())))])
  if (rec.state === 'spawned') {
    rec.state = 'ready'
    rec.spawnedAt = Date.now()
    push(rec, 'ready', { position: pos(bot.entity.position), healthKnown: bot.health !== undefined })
  }
}

function status (id) {
  const rec = bots.get(id)
  if (!rec) return { id, state: 'unknown', error: `no bot with id ${id}` }
  const client = rec.bot._client && rec.bot._client.state // protocol phase: login, configuration, play
  return { id, state: rec.state, client: client || null, error: rec.error, endReason: rec.endReason, queued: rec.queue.length, version: rec.bot.version || null }
}

function drainEvents (id, max) {
  const rec = bots.get(id)
  if (!rec) return []
  const n = Math.min(rec.queue.length, max || MAX_QUEUE)
  const out = rec.queue.splice(0, n)
  if (rec.dropped) {
    out.push({ type: 'events_dropped', ts: Date.now(), data: { count: rec.dropped } })
    rec.dropped = 0
  }
  return out
}

function quit (id) {
  const rec = bots.get(id)
  if (!rec) return false
  try { if (rec.state !== 'ended') rec.bot.quit('mcbot shutdown') } catch (e) { /* already gone */ }
  bots.delete(id)
  sharePathThinking()
  return true
}

function quitAll () {
  for (const id of [...bots.keys()]) quit(id)
  return true
}

function pos (p) {
  return p ? { x: p.x, y: p.y, z: p.z } : null
}

function describe (bot, e) {
  const me = bot.entity && bot.entity.position
  return {
    name: e.name || e.username || e.type,
    type: e.type,
    hostile: isHostile(bot, e),
    distance: me && e.position ? me.distanceTo(e.position) : null,
    position: pos(e.position)
  }
}

module.exports = { createBot, get, getEvenEnded, status, drainEvents, quit, quitAll, PLUGINS }
