'use strict'
// The bounds every action that paths puts on pathfinder's searches (lib/limits), and the
// reason a search failed, in words an action can end with.
const L = require('./limits')

const fmt = (n) => Number(n).toLocaleString('en-US')

// pathfinder reads these for each new search; they are per bot, so each action sets its own.
// (Its thinking per tick, tickTimeout, is the bridge's to share among its bots: lib/bots.js.)
// It has no node limit of its own: a search that generated PATH_MAX_NODES is told its time is
// up, so pathfinder ends it as a timeout (goto rejects; setGoal walks the best part found).
function bound (bot, { dig = false } = {}) {
  const pf = bot.pathfinder
  pf.searchRadius = dig ? L.DIG_SEARCH_RADIUS : L.WALK_SEARCH_RADIUS
  pf.thinkTimeout = L.PATH_THINK_MS
  if (pf.mcbotNodeBudget) return
  pf.mcbotNodeBudget = true
  bot.on('path_update', (r) => {
    if (r.status !== 'partial' || r.generatedNodes < L.PATH_MAX_NODES || !r.context) return
    r.context.mcbotOverBudget = true
    r.context.timeout = 0 // its next compute (the next tick) returns 'timeout' at once
  })
}

// Why a search result is a failure (null when it is not): `what` names the target.
function failure (bot, r, what) {
  const to = what ? ` to ${what}` : ''
  const nodes = fmt(r.generatedNodes)
  const radius = bot.pathfinder.searchRadius
  if (r.status === 'timeout' && r.context && r.context.mcbotOverBudget) return `no path${to} within ${radius} blocks after ${nodes} nodes`
  if (r.status === 'timeout') return `no path${to}: search stopped after ${r.context ? r.context.timeout : Math.round(r.time)} ms (${nodes} nodes)`
  if (r.status === 'noPath') return `no path${to} within ${radius} blocks (all ${nodes} nodes in reach searched)`
  return null
}

// Follow the searches pathfinder runs for one action. `reason`: the last failed one (cleared
// by a success); onFail(reason, result) is called on each failure, for the action to decide.
function watch (bot, what, onFail = null) {
  const w = { reason: null, stop: () => bot.removeListener('path_update', onUpdate) }
  function onUpdate (r) {
    if (r.status === 'success') { w.reason = null; return }
    const why = failure(bot, r, what)
    if (!why) return
    w.reason = why
    if (onFail) onFail(why, r)
  }
  bot.on('path_update', onUpdate)
  return w
}

module.exports = { bound, watch, failure }
