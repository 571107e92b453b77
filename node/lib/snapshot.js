'use strict'
// One WorldSnapshot (agency/world.py) in one call: vitals, inventory, nearby entities.
const { isHostile } = require('./names')
const { headInWater } = require('./water')
const { headInWall } = require('./in_wall')
const { openSpace } = require('./open_space')
const { wornItems } = require('./wear')

const MAX_ENTITIES = 100
const ENTITY_RADIUS = 48
const COVER_SCAN = 16 // blocks above the head read for `cover`

function solid (block) {
  return block && block.boundingBox === 'block' && !block.name.endsWith('leaves')
}

// Solid blocks over the bot's head (leaves left out: a tree's crown is no roof against the
// night), counted up to COVER_SCAN: a hut's roof is 1 or 2, rock over a mine is more
// (agency/world.py `underground`).
function coverAbove (bot) {
  return coverOver(bot, bot.entity.position.floored())
}

// The same count over a bot whose feet are at `feet` (a block position). `own`: a block id that
// is no cover (a trunk's own logs over its foot: a dug-in bench bot's collect took a tree in a
// valley 50 blocks off for a log under cover, and walked there through a cave at night).
function coverOver (bot, feet, own = null) {
  const head = feet.offset(0, 2, 0)
  let cover = 0
  for (let dy = 0; dy < COVER_SCAN; dy++) {
    const block = bot.blockAt(head.offset(0, dy, 0), false)
    if (solid(block) && block.type !== own) cover++
  }
  return cover
}

// With ground over its head the bot shares its space only with what is near its level: a zombie
// on the surface over a mine or a burrow is not a hostile near (the drive tick's gate, the frames).
const SAME_LEVEL = 3

// Under the open sky, the other way round: a hostile SAME_LEVEL or more below the bot with
// ground between its head and the bot's level (CAVE_ROOF blocks at least: one is an overhang or
// the block the bot stands on, which a skeleton steps out from under) is in a cave under it, not
// near until it comes up (a 26.1 bench bot stood 6 minutes of daylight by its hut, the drive
// tick's gate shut by a hostile, with zombies and skeletons around it that by day could only be
// in caves). One that cannot see the bot either (the line from its eyes to the bot's is through
// ground: not a skeleton under an overhang by the cave's mouth) is marked caveBelow: no threat to
// the reflexes until it hurts the bot (agency/world.py EntityInfo.threat).
const CAVE_ROOF = 2
const EYES = 1.62 // a player's; a mob's are taken at its height less a tenth
const SIGHT_STEP = 0.25 // blocks between the points of a line of sight read (plugins/mobs.js's)

function inCaveBelow (bot, me, pos) {
  if (me.y - pos.y < SAME_LEVEL) return false
  const head = pos.floored().offset(0, 2, 0)
  let roof = 0
  for (let y = head.y; y < Math.floor(me.y) && roof < CAVE_ROOF; y++) {
    if (solid(bot.blockAt(head.offset(0, y - head.y, 0), false))) roof++
  }
  return roof >= CAVE_ROOF
}

function seesBot (bot, me, e) {
  const from = e.position.offset(0, Math.max(0.5, (e.height || 1.8) * 0.9), 0)
  const d = me.offset(0, EYES, 0).minus(from)
  const n = Math.ceil(d.norm() / SIGHT_STEP)
  for (let i = 1; i < n; i++) {
    if (solid(bot.blockAt(from.plus(d.scaled(i / n)).floored(), false))) return false
  }
  return true
}

// From a death until the bot stands where the server respawned it, it counts as dead (health
// 0): mineflayer takes the respawn's new health before the position packet that moves the bot
// (and holds its physics and the reply 1.5 s past it), so a reader in between saw a live bot at
// its death spot with the items it dropped out of view (a walk back to them ended at once, none
// picked up). forcedMove is that position taken.
function trackRespawn (bot) {
  bot.mcbotRespawning = false
  bot.on('death', () => { bot.mcbotRespawning = true })
  bot.on('forcedMove', () => { bot.mcbotRespawning = false })
}

function snapshot (bot, hostileRadius) {
  if (bot.health === undefined || !bot.entity) throw new Error('bot not ready: no health or entity yet')
  const me = bot.entity.position
  const radius = hostileRadius || 16
  const cover = coverAbove(bot)
  const entities = []
  let hostiles = 0
  let space // the bot's open space (lib/open_space), filled once a hostile is near; null: open
  for (const e of Object.values(bot.entities)) {
    if (e === bot.entity || !e.position || e.isValid === false) continue
    const distance = me.distanceTo(e.position)
    if (distance > ENTITY_RADIUS) continue
    const hostile = isHostile(bot, e)
    let sealedOff = false
    let near = false
    const below = hostile && cover === 0 && inCaveBelow(bot, me, e.position)
    const caveBelow = below && !seesBot(bot, me, e)
    if (hostile && distance <= radius) {
      if (space === undefined) space = openSpace(bot, Math.ceil(radius), cover)
      sealedOff = space !== null && !space.reaches(e.position)
      near = !sealedOff && (cover === 0 ? !below : Math.abs(e.position.y - me.y) < SAME_LEVEL)
      if (near) hostiles++
    }
    entities.push({
      name: e.name || e.username || String(e.type),
      type: String(e.type),
      hostile,
      ...(sealedOff ? { sealedOff } : {}),
      ...(caveBelow ? { caveBelow } : {}),
      ...(near ? { near } : {}),
      distance,
      position: { x: e.position.x, y: e.position.y, z: e.position.z }
    })
  }
  entities.sort((a, b) => a.distance - b.distance)
  const counts = new Map()
  for (const item of [...bot.inventory.items(), ...wornItems(bot)]) { // armour worn is held too
    // A stack of 0 or fewer is empty, as vanilla counts it: a 1.18.2 bench bot's inventory once
    // held a stack of -2 after a smelt was stopped and every snapshot after it was refused.
    if (!(Number(item.count) > 0)) {
      if (!bot.mcbotBadStackSeen) console.error(`[snapshot] ${item.name} x${item.count} in slot ${item.slot} read as empty`)
      bot.mcbotBadStackSeen = true
      continue
    }
    counts.set(item.name, (counts.get(item.name) || 0) + Number(item.count))
  }
  const time = bot.time || {}
  const timeOfDay = ((Number(time.timeOfDay) % 24000) + 24000) % 24000
  return {
    health: bot.mcbotRespawning ? 0 : bot.health,
    food: bot.food,
    saturation: bot.foodSaturation ?? null,
    gameMode: bot.game.gameMode,
    dimension: String(bot.game.dimension || 'overworld').replace(/^minecraft:/, ''),
    timeOfDay: Number.isFinite(timeOfDay) ? timeOfDay : 0,
    isDay: Boolean(time.isDay),
    isSleeping: Boolean(bot.isSleeping),
    // air bubbles (20 full), read only with the head under water: out of it the air refills, and
    // mineflayer keeps a drowned bot's last reading until the server next sends one
    oxygen: Number.isFinite(bot.oxygenLevel) && headInWater(bot) ? Math.max(0, Math.min(20, bot.oxygenLevel)) : null,
    inWall: headInWall(bot), // the eyes in a block it suffocates in (lib/in_wall.js)
    position: { x: me.x, y: me.y, z: me.z },
    cover,
    inventory: [...counts].map(([name, count]) => ({ name, count })),
    entities: entities.slice(0, MAX_ENTITIES),
    hostiles,
    ts: Date.now()
  }
}

module.exports = { snapshot, coverOver, trackRespawn }
