'use strict'
// Use a block (open/close a door, open a crafting table's window and close it again).
const { Vec3 } = require('vec3')
const { names } = require('../names')

async function run (bot, args) {
  const target = new Vec3(args.x, args.y, args.z)
  const block = bot.blockAt(target)
  if (!block) throw new Error(`block at ${target} is not loaded`)
  if (names(bot).airs.has(block.name)) throw new Error(`nothing to use at ${target} (air)`)
  // ensure: {property: value} - use the block only if it is not already so (open a door
  // that may be open already, without shutting it)
  const props0 = block.getProperties ? block.getProperties() : {}
  const ensure = args.ensure || null
  if (ensure && Object.entries(ensure).every(([k, v]) => String(props0[k]) === String(v))) {
    return { block: block.name, properties: props0, used: false }
  }
  await bot.activateBlock(block)
  await new Promise((resolve) => setTimeout(resolve, 150)) // let the block update arrive
  const after = bot.blockAt(target)
  const props = after && after.getProperties ? after.getProperties() : {}
  return { block: after ? after.name : null, properties: props, used: true }
}

module.exports = { run, defaultTimeoutMs: 5000 }
