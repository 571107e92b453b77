'use strict'
// Collect up to `count` blocks of a type near the bot with mineflayer-collectblock.
// Trunks are tried nearest and lowest first (a trunk's base, not a log inside the canopy),
// other blocks nearest and highest first (an exposed face of stone, not a pit dug down to the
// deepest one, which the bot cannot walk out of); one unreachable block is skipped rather than
// failing the whole action.

const { blockName, itemName } = require('../names')

const SPARE_TARGETS = 6 // candidates beyond `count`, for the ones that cannot be reached
// What each bot on this bridge is collecting: a fleet's bots go for different trees (a trunk's
// column) and blocks, never one another's - the second bot at a tree waited on drops the
// first one picked up.
const TAKEN = new Map() // key -> username
const spot = (name, p) => (isTrunk(name) ? `${p.x},${p.z}` : `${p.x},${p.y},${p.z}`)
const takenByOther = (bot, key) => TAKEN.has(key) && TAKEN.get(key) !== bot.username
const PER_BLOCK_MS = 45000 // collectblock has no time limit of its own: one stuck treetop must not eat the action

async function run (bot, args, rec) {
  const name = blockName(bot.registry, args.block)
  if (!name) throw new Error(`unknown block '${args.block}' in ${bot.version}`)
  const def = bot.registry.blocksByName[name]
  const count = Math.max(1, args.count || 1)
  const item = (args.item && itemName(bot.registry, args.item)) || args.item || name
  const before = countItems(bot, item)
  const maxDistance = args.maxDistance || 32
  const positions = bot.findBlocks({ matching: def.id, maxDistance, count: count + SPARE_TARGETS + TAKEN.size })
    .filter((p) => !takenByOther(bot, spot(name, p)))
  if (positions.length === 0) {
    const others = [...TAKEN.values()].filter((u) => u !== bot.username)
    throw new Error(`no ${name} within ${maxDistance} blocks` + (others.length ? ` that ${others.join(', ')} are not collecting` : ''))
  }
  const me = bot.entity.position
  const up = isTrunk(name) ? 1 : -1
  positions.sort((a, b) => up * (a.y - b.y) * 4 + (a.distanceTo(me) - b.distanceTo(me)))
  bot.pathfinder.thinkTimeout = Math.max(bot.pathfinder.thinkTimeout || 0, 10000)
  const errors = []
  let collected = 0
  for (const p of positions) {
    if (rec.cancelled || countItems(bot, item) - before >= count) break
    const block = bot.blockAt(p)
    const key = spot(name, p)
    if (!block || block.type !== def.id || takenByOther(bot, key)) continue
    TAKEN.set(key, bot.username)
    let timer = null
    try {
      const late = new Promise((resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`gave up on ${name} at ${p} after ${PER_BLOCK_MS} ms`)), PER_BLOCK_MS)
      })
      await Promise.race([bot.collectBlock.collect(block, { ignoreNoPath: true }), late])
      collected++
    } catch (err) {
      errors.push(String(err && err.message || err))
      if (String(err && err.message).startsWith('gave up')) await bot.collectBlock.cancelTask().catch(() => {})
    } finally {
      clearTimeout(timer)
      if (TAKEN.get(key) === bot.username) TAKEN.delete(key)
    }
  }
  const gained = countItems(bot, item) - before
  if (gained === 0 && errors.length) throw new Error(`could not collect any ${name}: ${errors[0]}`)
  return { requested: count, found: positions.length, collected, gained, skipped: errors.length }
}

function isTrunk (name) {
  return name.endsWith('_log') || name.endsWith('_stem')
}

function countItems (bot, name) {
  return bot.inventory.items().filter((i) => i.name === name).reduce((n, i) => n + Number(i.count), 0)
}

function stop (bot) {
  bot.collectBlock.cancelTask().catch(() => {})
}

module.exports = { run, stop, defaultTimeoutMs: 90000 }
