'use strict'
// Long actions: started with a handle at once, polled or read from the event queue,
// cancellable, each with its own JS-side timeout. Python never awaits a long promise.
const { withTimeout } = require('../guard')

const KINDS = {
  move_to: require('./move_to'),
  step: require('./step'),
  dig: require('./dig'),
  place: require('./place'),
  collect: require('./collect'),
  find: require('./find'),
  activate: require('./activate'),
  attack: require('./attack'),
  craft: require('./craft'),
  equip: require('./equip'),
  wear: require('./wear'),
  consume: require('./consume'),
  smelt: require('./smelt'),
  hunt: require('./hunt'),
  sleep: require('./sleep'),
  staircase: require('./staircase'),
  pillar: require('./pillar'),
  tunnel: require('./tunnel'),
  fill_bucket: require('./fill_bucket'),
  follow: require('./follow'),
  give: require('./give'),
  surface: require('./surface')
}

const MAX_KEPT = 500
const actions = new Map() // id -> { status, bot, kind }
let nextId = 1

function register (name, impl) { KINDS[name] = impl }

function kinds () { return Object.keys(KINDS) }

function start (bot, kind, args, timeoutMs) {
  const impl = KINDS[kind]
  if (!impl) throw new Error(`unknown action kind '${kind}' (known: ${kinds().join(', ')})`)
  const id = `a${nextId++}`
  const status = { id, kind, state: 'running', startedAt: Date.now(), endedAt: null, result: null, error: null }
  const rec = { status, bot, impl, cancelled: false }
  actions.set(id, rec)
  prune()
  const ms = timeoutMs || impl.defaultTimeoutMs || 30000
  withTimeout(Promise.resolve().then(() => impl.run(bot, args, rec)), ms, `${kind}`)
    .then((result) => finish(rec, rec.cancelled ? 'cancelled' : 'done', result, null))
    .catch((err) => {
      const message = String((err && err.message) || err)
      const timedOut = /timed out after/.test(message)
      const state = rec.cancelled ? 'cancelled' : (timedOut ? 'timeout' : 'failed')
      if (timedOut) {
        // Past its time the action is over for good: its loops check rec.cancelled (an attack
        // that timed out kept chasing and swinging, and failed every action after it).
        rec.cancelled = true
        rec.timedOut = true // (a collect remembers the block it was on: lib/actions/collect.js)
        stopQuietly(rec)
      }
      finish(rec, state, null, message)
    })
  return { ...status }
}

function finish (rec, state, result, error) {
  if (rec.status.state !== 'running') return
  Object.assign(rec.status, { state, result: result === undefined ? null : result, error, endedAt: Date.now() })
  try { rec.bot.emit('mcbot_action_done', { ...rec.status }) } catch (e) { /* bot gone */ }
}

function poll (id) {
  const rec = actions.get(id)
  if (!rec) throw new Error(`no action with id ${id}`)
  return { ...rec.status }
}

function cancel (id) {
  const rec = actions.get(id)
  if (!rec) throw new Error(`no action with id ${id}`)
  if (rec.status.state === 'running') {
    rec.cancelled = true
    stopQuietly(rec)
    finish(rec, 'cancelled', null, 'cancelled')
  }
  return { ...rec.status }
}

function stopQuietly (rec) {
  try { if (rec.impl.stop) rec.impl.stop(rec.bot, rec) } catch (e) { /* best effort */ }
}

function prune () {
  if (actions.size <= MAX_KEPT) return
  for (const [id, rec] of actions) {
    if (rec.status.state !== 'running') actions.delete(id)
    if (actions.size <= MAX_KEPT) break
  }
}

module.exports = { start, poll, cancel, kinds, register }
