'use strict'
// Use a block (open/close a door, open a crafting table's window and close it again).
const { Vec3 } = require('vec3')

async function run (bot, args) {
  const target = new Vec3(args.x, args.y, args.z)
  const block = bot.blockAt(target)
  if (!block) throw new Error(`block at ${target} is not loaded`)
  if (block.name === 'air') throw new Error(`nothing to use at ${target} (air)`)
  await bot.activateBlock(block)
  await new Promise((resolve) => setTimeout(resolve, 150)) // let the block update arrive
  const after = bot.blockAt(target)
  const props = after && after.getProperties ? after.getProperties() : {}
  return { block: after ? after.name : null, properties: props }
}

module.exports = { run, defaultTimeoutMs: 5000 }
