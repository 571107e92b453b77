'use strict'
// Eat: the named food, or the held food restoring the most hunger. args: { item? }
const { itemName } = require('../names')

async function run (bot, args) {
  const foods = bot.registry.foodsByName || {}
  const edible = bot.inventory.items().filter((i) => foods[i.name])
  if (edible.length === 0) throw new Error('no food in inventory')
  const wanted = args.item && (itemName(bot.registry, args.item) || args.item)
  const item = wanted
    ? edible.find((i) => i.name === wanted)
    : edible.sort((a, b) => foods[b.name].foodPoints - foods[a.name].foodPoints)[0]
  if (!item) throw new Error(`no ${args.item} (food) in inventory`)
  const before = bot.food
  await bot.equip(item, 'hand')
  await bot.consume()
  return { ate: item.name, foodBefore: before, foodAfter: bot.food }
}

function stop (bot) { try { bot.deactivateItem() } catch (e) { /* not eating */ } }

module.exports = { run, stop, defaultTimeoutMs: 10000 }
