'use strict'
// Room in a full inventory. mineflayer-collectblock empties a full inventory into a chest before
// it collects, and with none known it fails every block ('There are no defined chest
// locations!'): a 26.1 bench bot at day 2.6 failed its diamond pickaxe four times so. A collect
// makes room first: one stack of filler the bot dug on its way (dirt, gravel, the stone
// variants) is tossed, the largest held first, never the item being collected, and never the
// last stack of cobblestone or cobbled deepslate (tools, a furnace and a burrow's refill use them).

const FILLER = new Set([
  'dirt', 'coarse_dirt', 'rooted_dirt', 'gravel', 'granite', 'diorite', 'andesite', 'tuff', 'calcite',
  'dripstone_block', 'pointed_dripstone', 'netherrack', 'cobblestone', 'cobbled_deepslate'
])
const KEEP = { cobblestone: 64, cobbled_deepslate: 64 } // held back whatever is tossed
const { lookAndSend } = require('./ticks')

// Toss one stack of filler when no slot is empty, away from `target` (the block the bot is about
// to walk to: a stack tossed its way is picked up again on the way); what was tossed
// ({ name, count }), or null (a slot was free, or nothing held may go).
async function makeRoom (bot, keepName, target = null) {
  if (bot.inventory.emptySlotCount() > 0) return null
  const items = bot.inventory.items()
  const total = (name) => items.filter((i) => i.name === name).reduce((n, i) => n + i.count, 0)
  const spare = items.filter((i) => FILLER.has(i.name) && i.name !== keepName && total(i.name) - i.count >= (KEEP[i.name] || 0))
  if (spare.length === 0) return null
  spare.sort((a, b) => total(b.name) - total(a.name) || b.count - a.count)
  const stack = spare[0]
  if (target) {
    const eye = bot.entity.position.offset(0, bot.entity.height, 0)
    // sent before the toss: a forced look goes out with the next physics tick, after it (lib/ticks)
    await lookAndSend(bot, eye.plus(eye.minus(target.offset(0.5, 0.5, 0.5))))
  }
  await bot.tossStack(stack)
  return { name: stack.name, count: stack.count }
}

module.exports = { makeRoom, FILLER }
