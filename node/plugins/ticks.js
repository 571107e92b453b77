// Game-clock control, like vanilla's /tick freeze | step | sprint | unfreeze: a frozen world runs
// no ticks (no mob moves, no time passes) until it is stepped, and a step of N runs exactly N
// ticks of 1/20 s each, at the normal rate; a sprint runs them back to back, as fast as the
// machine goes (the world is the same after it; only clients, whose own physics keep wall-clock
// time, see it go by faster). Tests use it to count game ticks instead of wall-clock windows,
// which a loaded machine stretches while the server's 20 ticks a second fall behind.
'use strict'

const TICKS_PER_SECOND = 20
const TICK_S = 1 / TICKS_PER_SECOND

module.exports.server = function (serv) {
  let stepping = null

  // One tick as flying-squid's own interval runs it, but always of 1/20 s. Its interval passes
  // the wall-clock time since serv.lastTickTime, which entity physics (a falling item) moves by:
  // the first tick after a freeze got the whole frozen span (physics skips a tick over 1 s),
  // later ones the machine's pace.
  function tickOnce () {
    serv.tickCount++
    serv.emit('tick', TICK_S, serv.tickCount)
    serv.lastTickTime = Date.now()
  }

  serv.mcbotTicksFrozen = () => !serv.tickInterval
  serv.mcbotFreezeTicks = () => { serv.stopTickInterval() }
  serv.mcbotUnfreezeTicks = () => {
    if (stepping) throw new Error('a step is still running')
    if (!serv.mcbotTicksFrozen()) return
    serv.lastTickTime = Date.now() // the first real tick measures from here, not across the freeze
    serv.setTickInterval(TICKS_PER_SECOND)
  }
  // Resolves with the tick count once n ticks have run; only while frozen, one step at a time.
  // It resolves a macrotask after the last tick, so what that tick does a few promise turns late
  // (flying-squid's entity physics awaits its block reads before it sends a move) is written
  // before the command's reply. A sprint leaves a macrotask between ticks too: that late work and
  // the packets clients sent meanwhile are handled before the next tick, as between real ones.
  serv.mcbotStepTicks = (n, { sprint = false } = {}) => {
    if (!serv.mcbotTicksFrozen()) return Promise.reject(new Error('freeze the ticks before stepping'))
    if (stepping) return Promise.reject(new Error('a step is still running'))
    stepping = new Promise((resolve) => {
      let left = n
      const finish = () => setImmediate(() => { stepping = null; resolve(serv.tickCount) })
      const next = () => {
        tickOnce()
        if (--left > 0) setImmediate(next)
        else finish()
      }
      if (sprint) { setImmediate(next); return }
      const timer = setInterval(() => {
        if (left-- > 0) tickOnce()
        if (left > 0) return
        clearInterval(timer)
        finish()
      }, 1000 / TICKS_PER_SECOND)
    })
    return stepping
  }
}
