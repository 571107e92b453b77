'use strict'
// The loop of an action that moves by the controls (no pathfinder): `each(clock)` runs every
// 50 ms and sets the controls; it ends the action by returning a result (or throwing), keeps
// on by returning undefined. A cancel ends it with null; the controls are let go at the end.
const { tickCounter } = require('./ticks')

function controlLoop (bot, rec, each) {
  return new Promise((resolve, reject) => {
    const clock = tickCounter(bot)
    const release = () => { clearInterval(timer); clock.stop(); bot.clearControlStates() }
    const timer = setInterval(() => {
      if (rec.cancelled) { release(); return resolve(null) }
      let out
      try {
        out = each(clock)
      } catch (err) {
        release()
        return reject(err)
      }
      if (out !== undefined) { release(); resolve(out) }
    }, 50)
    rec.cleanup = release
  })
}

module.exports = { controlLoop }
