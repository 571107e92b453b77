'use strict'
// Walk a few blocks in a straight line to the middle of a cell, with the movement controls
// (no pathfinder): through an open doorway. pathfinder plans a door cell as something to
// stand on (its path post-processing puts the waypoint on top of the door's shape), and its
// own door opening toggles a door whatever its state.
const { Vec3 } = require('vec3')
const { ticksFor } = require('../ticks')
const { controlLoop } = require('../controls')

const MAX_DISTANCE = 4
const STALL_TICKS = ticksFor(1500) // blocked (a closed door, a wall) when this many physics ticks bring it no closer

function run (bot, args, rec) {
  const { x, y, z } = args
  if (![x, y, z].every(Number.isFinite)) throw new Error('step needs numeric x, y, z')
  const target = new Vec3(Math.floor(x) + 0.5, Math.floor(y), Math.floor(z) + 0.5)
  const start = bot.entity.position
  if (start.distanceTo(target) > MAX_DISTANCE) throw new Error(`step is for short straight walks (${start.distanceTo(target).toFixed(1)} > ${MAX_DISTANCE} blocks)`)
  let best = Infinity
  let lastProgress = 0
  return controlLoop(bot, rec, (clock) => {
    const p = bot.entity.position
    const flat = Math.hypot(target.x - p.x, target.z - p.z)
    if (flat < 0.2) return { position: { x: p.x, y: p.y, z: p.z } }
    if (flat < best - 0.05) { best = flat; lastProgress = clock.ticks }
    if (clock.ticks - lastProgress > STALL_TICKS) {
      throw new Error(`blocked ${flat.toFixed(2)} blocks from ${target.x},${target.y},${target.z}`)
    }
    bot.lookAt(new Vec3(target.x, p.y + bot.entity.height * 0.9, target.z), true)
    bot.setControlState('forward', true)
    bot.setControlState('sneak', flat < 0.7) // slow down near the middle: stop there, not past it
  })
}

function stop (bot, rec) {
  if (rec.cleanup) rec.cleanup()
}

module.exports = { run, stop, defaultTimeoutMs: 5000 }
