// Game-clock control, like vanilla's /tick freeze | step | unfreeze: a frozen world runs no
// ticks (no mob moves, no time passes) until it is stepped, and a step of N runs exactly N
// ticks at the normal rate. Tests use it to count game ticks instead of wall-clock windows,
// which a loaded machine stretches while the server's 20 ticks a second fall behind.
'use strict'

const TICKS_PER_SECOND = 20

module.exports.server = function (serv) {
  let stepping = null

  // One tick the way flying-squid's own interval runs it (plugins/tick.js in flying-squid).
  function tickOnce () {
    serv.tickCount++
    const t = Date.now()
    let delta = (t - serv.lastTickTime) / 1000
    if (delta > 100) delta = 0
    serv.emit('tick', delta, serv.tickCount)
    serv.lastTickTime = t
  }

  serv.mcbotTicksFrozen = () => !serv.tickInterval
  serv.mcbotFreezeTicks = () => { serv.stopTickInterval() }
  serv.mcbotUnfreezeTicks = () => {
    if (stepping) throw new Error('a step is still running')
    if (serv.mcbotTicksFrozen()) serv.setTickInterval(TICKS_PER_SECOND)
  }
  // Resolves with the tick count once n ticks have run; only while frozen, one step at a time.
  serv.mcbotStepTicks = (n) => {
    if (!serv.mcbotTicksFrozen()) return Promise.reject(new Error('freeze the ticks before stepping'))
    if (stepping) return Promise.reject(new Error('a step is still running'))
    stepping = new Promise((resolve) => {
      let left = n
      const timer = setInterval(() => {
        if (left-- > 0) tickOnce()
        if (left <= 0) { clearInterval(timer); stepping = null; resolve(serv.tickCount) }
      }, 1000 / TICKS_PER_SECOND)
    })
    return stepping
  }
}
