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

module.exports = { tickCounter, ticksFor, TICK_MS }
