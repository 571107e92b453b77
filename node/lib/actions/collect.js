'use strict'
// Collect up to `count` blocks of a type near the bot with mineflayer-collectblock.

async function run (bot, args, rec) {
  const name = args.block
  const def = bot.registry.blocksByName[name]
  if (!def) throw new Error(`unknown block '${name}'`)
  const count = Math.max(1, args.count || 1)
  const before = countItems(bot, args.item || name)
  const positions = bot.findBlocks({ matching: def.id, maxDistance: args.maxDistance || 32, count })
  if (positions.length === 0) throw new Error(`no ${name} within ${args.maxDistance || 32} blocks`)
  const targets = positions.map((p) => bot.blockAt(p)).filter(Boolean)
  let collected = 0
  for (const block of targets) {
    if (rec.cancelled) break
    await bot.collectBlock.collect(block, { ignoreNoPath: true })
    collected++
  }
  return { requested: count, found: positions.length, collected, gained: countItems(bot, args.item || name) - before }
}

function countItems (bot, name) {
  return bot.inventory.items().filter((i) => i.name === name).reduce((n, i) => n + Number(i.count), 0)
}

function stop (bot) {
  bot.collectBlock.cancelTask().catch(() => {})
}

module.exports = { run, stop, defaultTimeoutMs: 90000 }
