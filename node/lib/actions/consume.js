'use strict'
// Eat: the named food, or the held food restoring the most hunger. args: { item? }
const { itemName } = require('../names')

// mineflayer gives the server 2.5 s to finish an eat (32 ticks); a lagging server finishes
// later, and its food update is then the proof the eat happened.
const LATE_EAT_MS = 5000
const FULL = 20 // a golden apple is eaten at full food: no food update proves that eat

// Fed: food or saturation rose (an eat always adds saturation, and exhaustion takes it first, so
// a 1-point food eaten while a point drains may leave the food where it was).
function fed (bot, before) {
  return bot.food > before.food || bot.foodSaturation > before.saturation
}

function foodRose (bot, before, ms) {
  if (fed(bot, before)) return Promise.resolve(true)
  return new Promise((resolve) => {
    const done = (ok) => { clearTimeout(timer); bot.removeListener('health', onHealth); resolve(ok) }
    const onHealth = () => { if (fed(bot, before)) done(true) }
    const timer = setTimeout(() => done(false), ms)
    bot.on('health', onHealth)
  })
}

async function run (bot, args) {
  const foods = bot.registry.foodsByName || {}
  const edible = bot.inventory.items().filter((i) => foods[i.name])
  if (edible.length === 0) throw new Error('no food in inventory')
  const wanted = args.item && (itemName(bot.registry, args.item) || args.item)
  const item = wanted
    ? edible.find((i) => i.name === wanted)
    : edible.sort((a, b) => foods[b.name].foodPoints - foods[a.name].foodPoints)[0]
  if (!item) throw new Error(`no ${args.item} (food) in inventory`)
  const before = { food: bot.food, saturation: bot.foodSaturation }
  await bot.equip(item, 'hand')
  // the hand as the server last said: an eat of something else would only time out
  if (bot.heldItem?.name !== item.name) {
    throw new Error(`the eat of ${item.name} did not take: the hand holds ${bot.heldItem?.name ?? 'nothing'} after the equip`)
  }
  try {
    await bot.consume()
  } catch (e) {
    if (!/timed out/i.test(String(e && e.message)) || !(await foodRose(bot, before, LATE_EAT_MS))) throw e
  }
  // mineflayer also ends consume() without an error when the held stack changes (an item picked
  // up mid-eat) while the server eats on: the food update says when the eat is done.
  if (before.food < FULL && !(await foodRose(bot, before, LATE_EAT_MS))) {
    throw new Error(`the eat of ${item.name} did not take: food still ${bot.food}`)
  }
  return { ate: item.name, foodBefore: before.food, foodAfter: bot.food }
}

function stop (bot) { try { bot.deactivateItem() } catch (e) { /* not eating */ } }

module.exports = { run, stop, defaultTimeoutMs: 10000 }
