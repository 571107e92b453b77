'use strict'
// Dig a tunnel at the bot's level: `blocks` steps forward, each clearing the two blocks ahead
// (head and feet) with the staircase's checks (lib/actions/staircase.js): a liquid in or next
// to a cell to clear, or a falling block overhead, turns it right or left, never back; a hole
// in the floor is filled from the inventory. Underground it brings new rock into sight without
// climbing back to the surface (an ore looked for further: agency/tools/gathering.py).
// args: { blocks (1..64), direction?, dam? (as the staircase's) }. Returns { steps, y, turned,
// torches, dammed (with dam), reason }.
const staircase = require('./staircase')

async function run (bot, args, rec) {
  const blocks = args.blocks
  if (!Number.isInteger(blocks) || blocks < 1 || blocks > staircase.MAX_STEPS) {
    throw new Error(`tunnel needs blocks between 1 and ${staircase.MAX_STEPS} (got ${JSON.stringify(blocks)})`)
  }
  if (args.direction !== undefined && !staircase.DIRS[args.direction]) {
    throw new Error(`unknown direction '${args.direction}' (one of ${staircase.ORDER.join(', ')})`)
  }
  if (!bot.entity.onGround) throw new Error('the bot is not standing on the ground')
  const deadline = Date.now() + blocks * staircase.STEP_MS
  const walk = { dir: args.direction || staircase.facing(bot), steps: 0, turned: 0, torches: 0, light: true, dam: args.dam === true, dammed: 0 }
  while (walk.steps < blocks) {
    if (rec.cancelled) return staircase.result(bot, walk, 'cancelled')
    if (Date.now() > deadline) throw new Error(`tunnel timed out after ${blocks * staircase.STEP_MS} ms (${walk.steps} of ${blocks} steps)`)
    if (!(await staircase.step(bot, walk, 0, rec, 'tunnel'))) return staircase.result(bot, walk, 'cancelled')
  }
  return staircase.result(bot, walk, 'reached')
}

module.exports = { run, stop: staircase.stop, defaultTimeoutMs: staircase.defaultTimeoutMs }
