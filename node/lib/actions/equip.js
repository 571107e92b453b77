'use strict'
// Hold or wear an inventory item. args: { item, destination: hand|off-hand|head|torso|legs|feet }

async function run (bot, args) {
  const item = bot.inventory.items().find((i) => i.name === args.item)
  if (!item) throw new Error(`no ${args.item} in inventory`)
  const destination = args.destination || 'hand'
  await bot.equip(item, destination)
  return { equipped: item.name, destination }
}

module.exports = { run, defaultTimeoutMs: 5000 }
