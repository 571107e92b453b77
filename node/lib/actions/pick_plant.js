'use strict'
// A block with no collision box (short grass, a flower, sugar cane, a cobweb; a snow layer from
// 1.21.4 on) is dug from
// within reach and its drops walked over. mineflayer-collectblock walks to a spot that sees one
// of the block's faces by a ray, and a ray goes through such a block: no spot ever qualified
// and each search ran to its node limit ("could not find a path to grass").

const { goals } = require('mineflayer-pathfinder')

const DROP_TICKS = 10 // drops spawn within a few ticks of the dig (collectblock waits as long)
const DROP_RANGE = 3 // a sugar cane column's canes fall from up to two blocks over its foot

const uncollidable = (def) => def.boundingBox === 'empty'

async function pickPlant (bot, block) {
  const p = block.position
  await bot.pathfinder.goto(new goals.GoalNear(p.x, p.y, p.z, 2))
  const centre = p.offset(0.5, 0.5, 0.5)
  const drops = []
  const onDrop = (entity) => { if (entity.position.distanceTo(centre) <= DROP_RANGE) drops.push(entity) }
  bot.on('itemDrop', onDrop)
  try {
    // the harvest tool if it needs one (a cobweb's sword or shears; a snow layer's shovel)
    if (block.harvestTools) await bot.tool.equipForBlock(block, { requireHarvest: true })
    await bot.dig(bot.blockAt(p) || block, true)
    await bot.waitForTicks(DROP_TICKS)
  } finally {
    bot.removeListener('itemDrop', onDrop)
  }
  for (const entity of drops) {
    if (entity.isValid) await bot.collectBlock.collect(entity) // walks onto it until it is picked up
  }
}

module.exports = { pickPlant, uncollidable }
