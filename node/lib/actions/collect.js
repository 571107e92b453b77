'use strict'
// Collect up to `count` blocks of a type near the bot with mineflayer-collectblock.
// Targets are tried nearest and lowest first (a trunk's base, not a log inside the canopy);
// one unreachable block is skipped rather than failing the whole action.

const SPARE_TARGETS = 6 // candidates beyond `count`, for the ones that cannot be reached

async function run (bot, args, rec) {
  const name = args.block
  const def = bot.registry.blocksByName[name]
  if (!def) throw new Error(`unknown block '${name}'`)
  const count = Math.max(1, args.count || 1)
  const item = args.item || name
  const before = countItems(bot, item)
  const maxDistance = args.maxDistance || 32
  const positions = bot.findBlocks({ matching: def.id, maxDistance, count: count + SPARE_TARGETS })
  if (positions.length === 0) throw new Error(`no ${name} within ${maxDistance} blocks`)
  const me = bot.entity.position
  positions.sort((a, b) => (a.y - b.y) * 4 + (a.distanceTo(me) - b.distanceTo(me)))
  bot.pathfinder.thinkTimeout = Math.max(bot.pathfinder.thinkTimeout || 0, 10000)
  const errors = []
  let collected = 0
  for (const p of positions) {
    if (rec.cancelled || countItems(bot, item) - before >= count) break
    const block = bot.blockAt(p)
    if (!block || block.type !== def.id) continue
    try {
      await bot.collectBlock.collect(block, { ignoreNoPath: true })
      collected++
    } catch (err) {
      errors.push(String(err && err.message || err))
    }
  }
  const gained = countItems(bot, item) - before
  if (gained === 0 && errors.length) throw new Error(`could not collect any ${name}: ${errors[0]}`)
  return { requested: count, found: positions.length, collected, gained, skipped: errors.length }
}

function countItems (bot, name) {
  return bot.inventory.items().filter((i) => i.name === name).reduce((n, i) => n + Number(i.count), 0)
}

function stop (bot) {
  bot.collectBlock.cancelTask().catch(() => {})
}

module.exports = { run, stop, defaultTimeoutMs: 90000 }
