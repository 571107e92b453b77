'use strict'
// Harvesting with what the bot holds: which blocks it cannot harvest (collect and dig refuse
// them), and mineflayer-tool kept from looking for a harvest tool forever.

// Why the bot cannot harvest this block kind with what it holds (null when it can): its drop
// needs one of the block's harvest tools (minecraft-data), and digging without one gives nothing.
function cannotHarvest (bot, def) {
  if (!def.diggable) return `${def.name} cannot be dug`
  if (!def.harvestTools) return null // by hand
  if (bot.inventory.items().some((i) => def.harvestTools[i.type])) return null
  const tools = Object.keys(def.harvestTools).map((id) => bot.registry.items[id] && bot.registry.items[id].name).filter(Boolean)
  return `cannot harvest ${def.name} without one of: ${tools.join(', ')}`
}

// A mineflayer plugin, loaded right after mineflayer-tool (lib/bots.js). Its equipForBlock,
// asked (as collectblock asks) for a harvest tool the bot lacks with getFromChest, finds no
// chest and calls itself again, forever: a promise loop that never yields to the event loop
// and fills the heap until node aborts. Without getFromChest it fails at once ('Bot does not
// have a harvestable tool!'). No chests are configured here, so nothing is lost.
function guardToolRecursion (bot) {
  const tool = bot.tool
  if (!tool || tool.equipForBlock.mcbotGuarded) return
  const equip = tool.equipForBlock.bind(tool)
  tool.equipForBlock = (block, options, cb) =>
    equip(block, options && typeof options === 'object' ? { ...options, getFromChest: false } : options, cb)
  tool.equipForBlock.mcbotGuarded = true
}

module.exports = { cannotHarvest, guardToolRecursion }
