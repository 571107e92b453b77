'use strict'
// A shield in the off-hand (where a craft's wear puts it) is up while an archer is near, and
// lowered for each swing (a vanilla client cannot attack with it up). Up the whole time, not only
// while a bow is drawn (a drawn bow shows in the archer's metadata, plugins/mob_kinds.js): its
// arrow flies on after the draw ends, and when it is past can be told only from the server's
// clock, which the bot's does not keep (a loaded machine runs them at different paces);
// mineflayer's physics does not slow a bot using an item. It blocks only what comes from in
// front, and a bot closing in on an archer faces it: the guard is for a fight
// (actions/attack.js), not for a flight.
const { OFF_HAND } = require('./wear')

const ARCHERS = new Set(['skeleton', 'stray', 'bogged', 'pillager'])
const GUARD_WITHIN = 24 // blocks: a skeleton shoots from up to 15, a pillager from 8

// Start guarding; returns { lower() before a swing, stop(), raised, blocked }.
function shieldGuard (bot) {
  let up = false
  const stats = { raised: 0, blocked: 0 }
  const held = () => bot.inventory.slots[OFF_HAND]?.name === 'shield'
  const archerNear = () => Object.values(bot.entities).some((e) => e !== bot.entity && ARCHERS.has(e.name) &&
    e.isValid !== false && e.position && e.position.distanceTo(bot.entity.position) <= GUARD_WITHIN)
  const raise = () => { bot.activateItem(true); up = true; stats.raised++ }
  const lower = () => { if (up) { bot.deactivateItem(); up = false } }
  const onTick = () => {
    const want = held() && archerNear()
    if (want && !up) raise()
    else if (!want) lower()
  }
  const onStatus = (p) => { if (p.entityStatus === 29 && p.entityId === bot.entity?.id) stats.blocked++ }
  const onDeath = () => { up = false } // the server lowered it (plugins/shields.js)
  bot.on('physicsTick', onTick)
  bot.on('death', onDeath)
  bot._client.on('entity_status', onStatus)
  let stopped = false
  return {
    lower,
    stop () { // once, at the fight's end or its cancel, whichever comes first
      if (stopped) return
      stopped = true
      bot.removeListener('physicsTick', onTick)
      bot.removeListener('death', onDeath)
      bot._client.removeListener('entity_status', onStatus)
      lower()
    },
    get raised () { return stats.raised },
    get blocked () { return stats.blocked }
  }
}

module.exports = { shieldGuard }
