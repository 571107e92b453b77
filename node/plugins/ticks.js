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

  // One tick as flying-squid's own interval ran it, but always of 1/20 s: its interval passed
  // the wall-clock time since the last tick, which entity physics (a falling item) moves by.
  // Each plugin's listener runs on its own: one that throws (or rejects) is logged and the
  // others still run. With a plain emit, a listener that threw every tick stopped all those after
  // it (hunger's eating, the mobs, spawning) while the clock went on: a bench bot's eats timed
  // out for a day with no word of why.
  function tickOnce () {
    serv.tickCount++
    for (const listener of serv.rawListeners('tick')) {
      try {
        const r = listener.call(serv, TICK_S, serv.tickCount)
        if (r && typeof r.catch === 'function') r.catch((err) => tickFault(listener, err))
      } catch (err) {
        tickFault(listener, err)
      }
    }
    serv.lastTickTime = Date.now()
  }

  // Logged at its 1st, 10th, 100th... time, per listener and kind of error (its type and the
  // line it was thrown at, not its message, which may name a block or an entity), so one every
  // tick cannot flood; at most MAX_FAULT_KINDS kinds are told apart.
  const MAX_FAULT_KINDS = 100
  const faults = new Map()
  function tickFault (listener, err) {
    const name = listener.listener?.name || listener.name || '(anonymous)' // a once() wrapper's own
    const what = String(err && err.stack ? err.stack : err)
    const lines = what.split('\n')
    const key = `${name} ${err?.name} ${lines.find((l) => /^\s*at /.test(l)) ?? lines[0]}`
    if (!faults.has(key) && faults.size >= MAX_FAULT_KINDS) faults.delete(faults.keys().next().value)
    const n = (faults.get(key) || 0) + 1
    faults.set(key, n)
    if (Number.isInteger(Math.log10(n))) {
      console.error(`[server] tick listener ${name.replace(/\s+/g, '_')} failed (kept alive, ${n} time${n > 1 ? 's' : ''}): ${what.replace(/\n\s*/g, ' | ')}`)
    }
  }

  // The running clock ticks the same way. flying-squid's interval passed the wall-clock time
  // since the last tick, so on a loaded machine one late tick moved a thrown item a block or two
  // at once (through what it should hit) and a tick over 1 s moved nothing. Vanilla's game slows
  // when its server falls behind; every tick is still 1/20 s of game time.
  serv.setTickInterval = (ticksPerSecond) => {
    serv.stopTickInterval()
    serv.tickInterval = setInterval(tickOnce, 1000 / ticksPerSecond)
  }
  serv.setTickInterval(TICKS_PER_SECOND)

  serv.mcbotTicksFrozen = () => !serv.tickInterval
  serv.mcbotFreezeTicks = () => { serv.stopTickInterval() }
  serv.mcbotUnfreezeTicks = () => {
    if (stepping) throw new Error('a step is still running')
    if (!serv.mcbotTicksFrozen()) return
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
