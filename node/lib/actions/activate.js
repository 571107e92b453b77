'use strict'
// Use a block (open/close a door, open a crafting table's window and close it again).
const { Vec3 } = require('vec3')
const { names } = require('../names')

const ENSURE_WAIT_MS = 3000

const shows = (block, ensure) => {
  const props = block && block.getProperties ? block.getProperties() : {}
  return Object.entries(ensure).every(([k, v]) => String(props[k]) === String(v))
}

// Resolves once check() holds after an update of the block at pos, or after ms.
function until (bot, pos, check, ms) {
  return new Promise((resolve) => {
    if (check()) return resolve()
    const event = `blockUpdate:${pos}`
    const done = () => { clearTimeout(timer); bot.removeListener(event, onUpdate); resolve() }
    const onUpdate = () => { if (check()) done() }
    const timer = setTimeout(done, ms)
    bot.on(event, onUpdate)
  })
}

async function run (bot, args) {
  const target = new Vec3(args.x, args.y, args.z)
  const block = bot.blockAt(target)
  if (!block) throw new Error(`block at ${target} is not loaded`)
  if (names(bot).airs.has(block.name)) throw new Error(`nothing to use at ${target} (air)`)
  // ensure: {property: value} - use the block only if it is not already so (open a door
  // that may be open already, without shutting it)
  const props0 = block.getProperties ? block.getProperties() : {}
  const ensure = args.ensure || null
  if (ensure && shows(block, ensure)) {
    return { block: block.name, properties: props0, used: false }
  }
  await bot.activateBlock(block)
  // let the block update arrive: with `ensure`, until the block shows it (on a loaded machine
  // it can take longer than the moment a block with no state to change is given)
  if (ensure) await until(bot, target, () => shows(bot.blockAt(target), ensure), ENSURE_WAIT_MS)
  else await new Promise((resolve) => setTimeout(resolve, 150))
  const after = bot.blockAt(target)
  const props = after && after.getProperties ? after.getProperties() : {}
  return { block: after ? after.name : null, properties: props, used: true }
}

module.exports = { run, defaultTimeoutMs: 5000 }
