'use strict'
// Dig one block with the best tool held (mineflayer-tool's choice, the plugin collectblock uses too).
// Digging without a harvest tool is allowed (clearing a site: stone by hand gives nothing but
// is gone); args.harvest: true asks for the drop, and the dig is refused when no tool held can
// harvest the block.
const { Vec3 } = require('vec3')
const { names } = require('../names')
const { cannotHarvest } = require('../harvest')

async function run (bot, args) {
  const target = new Vec3(args.x, args.y, args.z)
  const block = bot.blockAt(target)
  if (!block) throw new Error(`block at ${target} is not loaded`)
  if (names(bot).airs.has(block.name)) throw new Error(`nothing to dig at ${target} (air)`)
  if (!bot.canDigBlock(block)) throw new Error(`cannot dig ${block.name} at ${target} (out of reach or undiggable)`)
  const cannot = args.harvest === true && cannotHarvest(bot, bot.registry.blocks[block.type])
  if (cannot) throw new Error(cannot)
  // mineflayer-tool picks the fastest item held for this block (dig time, harvestability)
  if (args.equipBestTool !== false) await bot.tool.equipForBlock(block, {})
  await bot.dig(block, true)
  return { dug: block.name, position: { x: target.x, y: target.y, z: target.z } }
}

function stop (bot) { bot.stopDigging() }

module.exports = { run, stop, defaultTimeoutMs: 30000 }
