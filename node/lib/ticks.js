'use strict'
// A stall measured in the bot's own physics ticks (20 a second when the process keeps up), not
// in wall time: a process starved of CPU runs fewer ticks and moves less in each second, so a
// walk that is merely slow is not called stuck.
const TICK_MS = 50

// Counts the bot's physics ticks from now until stop().
function tickCounter (bot) {
  let ticks = 0
  const onTick = () => { ticks++ }
  bot.on('physicsTick', onTick)
  return {
    get ticks () { return ticks },
    stop () { bot.removeListener('physicsTick', onTick) }
  }
}

// Whole ticks in a stall given in milliseconds of game time (at least one).
function ticksFor (ms) {
  return Math.max(1, Math.round(ms / TICK_MS))
}

// Look at a point and resolve once the look has gone to the server. mineflayer's forced look
// only turns the bot: its physics tick sends it, after the caller's next packets (a toss right
// after it flew the way the bot looked before). The tick emits 'physicsTick' and then sends the
// look; this resolves after both. A bot whose physics do not run (no chunks under it) sends
// nothing either way: that wait is bounded.
async function lookAndSend (bot, point, boundMs = 1000) {
  await bot.lookAt(point, true)
  await new Promise((resolve) => {
    const timer = setTimeout(done, boundMs)
    function done () { clearTimeout(timer); bot.removeListener('physicsTick', done); resolve() }
    bot.once('physicsTick', done)
  })
}

module.exports = { tickCounter, ticksFor, lookAndSend, TICK_MS }
