'use strict'
// Hold or wear an inventory item. args: { item, destination: hand|off-hand|head|torso|legs|feet }
const { itemName } = require('../names')

async function run (bot, args) {
  const wanted = itemName(bot.registry, args.item) || args.item
  const item = bot.inventory.items().find((i) => i.name === wanted)
  if (!item) throw new Error(`no ${args.item} in inventory`)
  const destination = args.destination || 'hand'
  await bot.equip(item, destination)
  return { equipped: item.name, destination }
}

module.exports = { run, defaultTimeoutMs: 5000 }
