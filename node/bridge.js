// The single entry file Python requires (by absolute path) through JSPyBridge.
// Every helper does its bulk work in ONE bridge call and returns a JSON string, so
// Python never loops over JS objects. Bots are addressed by id: Python holds no proxies.
'use strict'

const { installCrashGuard, exitWithParent } = require('./lib/guard')
installCrashGuard('bridge')
exitWithParent()
// A terminal's Ctrl-C reaches the whole process group: let Python shut the bot down in
// order (it quits every bot, then ends us) instead of dying under it.
process.on('SIGINT', () => {})
// node's stdout is the Python process's stdout (JSPyBridge inherits it): keep it clean for
// `mcbot snapshot`'s JSON. Console output goes to stderr, which Python routes to its log.
for (const k of ['log', 'info', 'warn', 'debug']) console[k] = (...a) => console.error(...a)
process.stdout.write = process.stderr.write.bind(process.stderr)
// Python's watchdog reads this beat beside JSPyBridge: a node that stops beating is wedged.
require('./lib/heartbeat').startHeartbeat(process.env.MCBOT_BRIDGE_HEARTBEAT_FILE,
  Number(process.env.MCBOT_BRIDGE_HEARTBEAT_MS) || 500)

const bots = require('./lib/bots')
const { snapshot } = require('./lib/snapshot')
const { region } = require('./lib/region')
const { Vec3 } = require('vec3')
const actions = require('./lib/actions/index')
const versions = require('./lib/versions')
const threats = require('./lib/threats')
const viewer = require('./lib/viewer')

const json = (fn) => (...args) => JSON.stringify(fn(...args))
const jsonAsync = (fn) => async (...args) => JSON.stringify(await fn(...args))

module.exports = {
  ping: () => 'pong',
  createBot: (optionsJson) => bots.createBot(JSON.parse(optionsJson)),
  status: json((id) => bots.status(id)),
  quit: (id) => bots.quit(id),
  quitAll: () => bots.quitAll(),
  drainEvents: json((id, max) => bots.drainEvents(id, max)),
  chat: (id, message) => { bots.get(id).chat(message); return true },
  snapshot: json((id, hostileRadius) => snapshot(bots.get(id), hostileRadius)),
  region: json((id, boxJson) => region(bots.get(id), JSON.parse(boxJson))),
  // Properties read one by one, for the benchmark's side-by-side comparison only.
  botProxy: (id) => bots.get(id),
  vec3: (x, y, z) => new Vec3(x, y, z),
  startAction: json((id, kind, argsJson, timeoutMs) =>
    actions.start(bots.get(id), kind, JSON.parse(argsJson || '{}'), timeoutMs)),
  pollAction: json((actionId) => actions.poll(actionId)),
  cancelAction: json((actionId) => actions.cancel(actionId)),
  actionKinds: json(() => actions.kinds()),
  // Reflex wake-up: set the radii by kind, then poll for hostiles that came within them.
  watchThreats: (id, radiiJson) => threats.watch(bots.get(id), JSON.parse(radiiJson)),
  threatsSince: json((id, seq) => threats.since(bots.get(id), seq)),
  checkVersion: json((protocol, name) => versions.check(protocol, name)),
  chatFacts: json((id, sinceSeq) => require('./lib/chat_guard').facts(bots.getEvenEnded(id), sinceSeq)),
  memory: json(() => process.memoryUsage()),
  // The 3D view: one web server per bridge, re-attached to each new bot (lib/viewer.js).
  startViewer: jsonAsync((id, optsJson) => viewer.start(bots.get(id), JSON.parse(optsJson || '{}'))),
  stopViewer: jsonAsync(() => viewer.stop()),
  viewerStatus: json(() => viewer.status())
}

// One helper for many keys in one call: a fleet's bots each read their snapshot, threats and
// action status often, and one call per bot queues up on the bridge's single thread.
// (fn, {key: [args...]}) -> {key: {value} | {error}}; a JSON helper's answer is embedded parsed.
module.exports.many = (fn, argsJson) => {
  const helper = module.exports[fn]
  if (typeof helper !== 'function' || fn === 'many') throw new Error(`many: no helper '${fn}'`)
  const out = {}
  for (const [key, args] of Object.entries(JSON.parse(argsJson))) {
    try {
      const value = helper(...args)
      out[key] = { value: typeof value === 'string' ? JSON.parse(value) : value }
    } catch (e) { out[key] = { error: String((e && e.message) || e) } }
  }
  return JSON.stringify(out)
}
