'use strict'
// Hold or wear an inventory item. args: { item, destination: hand|off-hand|head|torso|legs|feet }
const { itemName } = require('../names')

async function run (bot, args) {
  const wanted = itemName(bot.registry, args.item) || args.item
  const destination = args.destination || 'hand'
  const item = bot.inventory.items().find((i) => i.name === wanted)
  // worn already there (a snapshot counts what is worn as held): nothing to do
  if (!item && bot.inventory.slots[bot.getEquipmentDestSlot(destination)]?.name === wanted) return { equipped: wanted, destination }
  if (!item) throw new Error(`no ${args.item} in inventory`)
  await bot.equip(item, destination)
  return { equipped: item.name, destination }
}

module.exports = { run, defaultTimeoutMs: 5000 }
