'use strict'
// Walk a few blocks in a straight line to the middle of a cell, with the movement controls
// (no pathfinder): through an open doorway. pathfinder plans a door cell as something to
// stand on (its path post-processing puts the waypoint on top of the door's shape), and its
// own door opening toggles a door whatever its state.
const { Vec3 } = require('vec3')
const { tickCounter, ticksFor } = require('../ticks')

const MAX_DISTANCE = 4
const STALL_TICKS = ticksFor(1500) // blocked (a closed door, a wall) when this many physics ticks bring it no closer

function run (bot, args, rec) {
  const { x, y, z } = args
  if (![x, y, z].every(Number.isFinite)) throw new Error('step needs numeric x, y, z')
  const target = new Vec3(Math.floor(x) + 0.5, Math.floor(y), Math.floor(z) + 0.5)
  const start = bot.entity.position
  if (start.distanceTo(target) > MAX_DISTANCE) throw new Error(`step is for short straight walks (${start.distanceTo(target).toFixed(1)} > ${MAX_DISTANCE} blocks)`)
  return new Promise((resolve, reject) => {
    let best = Infinity
    const clock = tickCounter(bot)
    let lastProgress = 0
    const done = (err, value) => {
      clearInterval(timer)
      clock.stop()
      bot.clearControlStates()
      return err ? reject(err) : resolve(value)
    }
    const timer = setInterval(() => {
      if (rec.cancelled) return done(null, null)
      const p = bot.entity.position
      const flat = Math.hypot(target.x - p.x, target.z - p.z)
      if (flat < 0.2) return done(null, { position: { x: p.x, y: p.y, z: p.z } })
      if (flat < best - 0.05) { best = flat; lastProgress = clock.ticks }
      if (clock.ticks - lastProgress > STALL_TICKS) {
        return done(new Error(`blocked ${flat.toFixed(2)} blocks from ${target.x},${target.y},${target.z}`))
      }
      bot.lookAt(new Vec3(target.x, p.y + bot.entity.height * 0.9, target.z), true)
      bot.setControlState('forward', true)
      bot.setControlState('sneak', flat < 0.7) // slow down near the middle: stop there, not past it
    }, 50)
    rec.cleanup = () => { clearInterval(timer); clock.stop(); bot.clearControlStates() }
  })
}

function stop (bot, rec) {
  if (rec.cleanup) rec.cleanup()
}

module.exports = { run, stop, defaultTimeoutMs: 5000 }
