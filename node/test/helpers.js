// Shared test helpers: start server.js on a free port, connect mineflayer bots, bounded waits.
'use strict'

const { spawn } = require('child_process')
const path = require('path')
const { after } = require('node:test')
const mineflayer = require('mineflayer')

const SERVER = path.join(__dirname, '..', 'server.js')
// One Minecraft version per test run, for the server and every bot: MCBOT_MC_VERSION=1.18.2 node --test test/
const VERSION = process.env.MCBOT_MC_VERSION || '1.21.4'

function withTimeout (promise, ms, what) {
  let timer
  const timeout = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

const sleep = (ms) => new Promise(resolve => setTimeout(resolve, ms))

// Protocol trouble that must fail a test even when its own assertions pass: a packet the
// server could not encode or decode, a client kicked or erroring, a packet the client could
// not parse (mineflayer drops those silently with hideErrors).
const SERVER_TROUBLE = /MCBOT_PACKET_ERROR|Disconnecting client because error|Chunk size is \d+ but only|PartialReadError|uncaughtException|unhandledRejection|tick listener \S+ failed/
const botsByPort = new Map()
// What a test left running when it failed before its own clean-up was set up (a bot that never
// spawned, the server it was joining): ended when the file's tests are done, or the open
// connection and pipes would keep the test process alive for good.
const running = new Set()
after(() => {
  for (const bots of botsByPort.values()) for (const bot of bots) bot.end()
  for (const proc of running) proc.kill('SIGKILL')
})
function troubleOf (server) {
  const lines = server.log.filter(l => SERVER_TROUBLE.test(l)).map(l => 'server: ' + l.split('\n')[0])
  for (const bot of botsByPort.get(server.port) || []) lines.push(...bot.mcbotTrouble.map(t => `${bot.username}: ${t}`))
  return lines
}

// Resolves { port, proc, log, stop } once the READY line is printed.
// The timeouts here and below only guard against a hung server: a loaded machine is slow to
// start one and to join it.
// The test worlds send 4 chunks around each player unless a test asks for more: 81 chunks to
// generate, send and parse after each far teleport instead of the default's 169.
function startServer (config = {}, { version = VERSION, timeout = 60000 } = {}) {
  const settings = JSON.stringify({ viewDistance: 4, ...config })
  const proc = spawn(process.execPath, [SERVER, '--port', '0', '--version', version, '--config', settings], {
    stdio: ['pipe', 'pipe', 'pipe']
  })
  running.add(proc)
  proc.on('exit', () => running.delete(proc))
  const log = []
  const ready = new Promise((resolve, reject) => {
    let buf = ''
    proc.stdout.on('data', (d) => {
      buf += d
      let i
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i)
        buf = buf.slice(i + 1)
        log.push(line)
        if (process.env.MCBOT_TEST_VERBOSE) console.log('[server]', line)
        const m = /^MCBOT_SERVER_READY port=(\d+) version=(\S+)$/.exec(line)
        if (m) resolve(parseInt(m[1], 10))
      }
    })
    proc.stderr.on('data', (d) => { log.push(String(d)); if (process.env.MCBOT_TEST_VERBOSE) process.stderr.write(d) })
    proc.on('exit', (code) => reject(new Error(`server exited ${code}: ${log.slice(-5).join('\n')}`)))
  })
  return withTimeout(ready, timeout, 'server start').then((port) => ({
    port,
    proc,
    log,
    // Resolves the exit code; rejects when the run had protocol trouble (see troubleOf).
    async stop () {
      const trouble = troubleOf(this)
      botsByPort.delete(port)
      const code = await new Promise((resolve) => {
        if (proc.exitCode !== null) return resolve(proc.exitCode)
        proc.on('exit', (c) => resolve(c))
        proc.stdin.end() // the contract: closing stdin stops the server
        setTimeout(() => proc.kill('SIGKILL'), 5000).unref()
      })
      if (trouble.length) throw new Error('protocol trouble:\n' + trouble.join('\n'))
      return code
    }
  }))
}

// Record what goes wrong on the client: 'error', 'kicked', and packets that did not parse
// whole (checked on the play-state parser, which replaces the login one).
function watchClient (bot) {
  bot.mcbotTrouble = []
  bot.on('error', (e) => bot.mcbotTrouble.push('error ' + (e && e.message)))
  bot.on('kicked', (r) => bot.mcbotTrouble.push('kicked ' + JSON.stringify(r)))
  const guard = () => {
    const d = bot._client.deserializer
    if (!d || d.mcbotGuarded) return
    d.mcbotGuarded = true
    const parse = d.parsePacketBuffer.bind(d)
    d.parsePacketBuffer = (buffer) => {
      let packet
      try { packet = parse(buffer) } catch (e) { bot.mcbotTrouble.push('unparsable packet: ' + e.message.split('\n')[0]); throw e }
      if (packet.metadata.size !== buffer.length) bot.mcbotTrouble.push(`packet ${packet.data.name} read ${packet.metadata.size} of ${buffer.length} bytes`)
      return packet
    }
  }
  bot._client.on('state', (state) => { if (state === 'play') guard() })
}

async function connectBot (port, username, { plugins = [], timeout = 60000 } = {}) {
  const bot = mineflayer.createBot({ host: '127.0.0.1', port, username, version: VERSION, auth: 'offline', hideErrors: true })
  require('../lib/client_fixes').install(bot) // as lib/bots.js does
  require('../lib/hands').install(bot)
  watchClient(bot)
  if (!botsByPort.has(port)) botsByPort.set(port, [])
  botsByPort.get(port).push(bot)
  for (const p of plugins) bot.loadPlugin(p)
  try {
    await withTimeout(new Promise((resolve, reject) => {
      bot.once('spawn', resolve)
      bot.once('error', reject)
      bot.once('kicked', (r) => reject(new Error('kicked: ' + r)))
    }), timeout, `${username} spawn`)
    await waitFor(() => bot.health !== undefined && bot.entity && bot.entity.position, 30000, 'health packet')
    // wait for the ground under the bot to be loaded
    await waitFor(() => bot.blockAt(bot.entity.position.offset(0, -1, 0)), 30000, 'chunks under the bot')
  } catch (err) {
    bot.end()
    throw err
  }
  return bot
}

// A test of what no protocol version changes (the server process's own life, its clock, the
// pathfinder's search bounds): when MCBOT_ONE_VERSION names a version (make test does,
// scripts/pytest_matrix.sh), the test runs at that version only and says so at the others;
// unset (make test-matrix, make test-node), it runs at every version.
function oneVersion (reason) {
  const only = process.env.MCBOT_ONE_VERSION
  return only && only !== VERSION ? { skip: `one version only (${only}): ${reason}` } : {}
}

async function waitFor (predicate, ms, what = 'condition', every = 50) {
  const deadline = Date.now() + ms
  for (;;) {
    let v
    try { v = await predicate() } catch (e) { v = false }
    if (v) return v
    if (Date.now() > deadline) throw new Error(`${what} not met within ${ms} ms`)
    await sleep(every)
  }
}

// Resolve once `predicate` holds, checked on each of the bot's physics ticks; fail after
// `maxTicks` of them, saying where the bot is: a move of the bot's own counted in its ticks, not
// in wall-clock time a loaded machine stretches.
function untilTicks (bot, predicate, maxTicks, what) {
  return new Promise((resolve, reject) => {
    let ticks = 0
    const onTick = () => {
      let met = false
      try { met = predicate() } catch (e) { met = false }
      if (!met && ++ticks < maxTicks) return
      bot.removeListener('physicsTick', onTick)
      if (met) resolve(ticks)
      else reject(new Error(`${what} not met within ${maxTicks} physics ticks (at ${bot.entity.position})`))
    }
    bot.on('physicsTick', onTick)
  })
}

// Send an op command and resolve with the "mcbot: ..." (or other) reply line. One command at a
// time per bot: replies carry no id, so two in flight could each take the other's reply. The
// timeout only guards against a hung server: a big fill on a loaded machine takes seconds.
function command (bot, cmd, { match = /^mcbot: /, timeout = 30000 } = {}) {
  const run = () => {
    const reply = new Promise((resolve) => {
      const onMsg = (msg) => {
        const text = msg.toString()
        if (match.test(text)) { bot.removeListener('message', onMsg); resolve(text) }
      }
      bot.on('message', onMsg)
      setTimeout(() => bot.removeListener('message', onMsg), timeout + 100).unref()
    })
    bot.chat(cmd)
    return withTimeout(reply, timeout, `reply to ${cmd}`)
  }
  const result = (bot.mcbotCommands || Promise.resolve()).then(run, run)
  bot.mcbotCommands = result.catch(() => {})
  return result
}

// Run exactly n game ticks of a frozen world (`/mcbot tick freeze` first) and resolve once they
// ran: the reply follows every packet those ticks sent to this bot. The timeout only guards
// against a hung server; a slow machine takes longer without changing what happens.
function stepTicks (bot, n) {
  return command(bot, `/mcbot tick step ${n}`, { match: /^mcbot: (stepped|error)/, timeout: 60000 + n * 500 }).then((reply) => {
    if (!reply.startsWith('mcbot: stepped')) throw new Error(reply)
    return reply
  })
}

// The same n ticks run back to back, as fast as the machine goes (`/mcbot tick sprint`): for long
// waits on the world alone (mobs strolling, spawning). A client's own physics keep wall-clock
// time, so a bot that moves sees the world go by faster than it.
function sprintTicks (bot, n) {
  return command(bot, `/mcbot tick sprint ${n}`, { match: /^mcbot: (sprinted|error)/, timeout: 60000 + n * 100 }).then((reply) => {
    if (!reply.startsWith('mcbot: sprinted')) throw new Error(reply)
    return reply
  })
}

// Resolve once the bot has handled every packet the server wrote to it before it read this
// call's command: the reply comes behind them on the same connection. That includes what the
// server writes a few promise turns late, as flying-squid's serv.setBlock does its block
// changes (an explosion's crater at 1.21.2+): those turns all run before the server reads the
// next packet. Works on a frozen clock; the timeout only guards against a hung server.
function roundTrip (bot) {
  return command(bot, '/mcbot info', { timeout: 60000 })
}

// The final status of an action started with lib/actions' start (its 'mcbot_action_done').
function actionDone (bot, started) {
  return new Promise((resolve) => {
    const onDone = (st) => { if (st.id === started.id) { bot.removeListener('mcbot_action_done', onDone); resolve(st) } }
    bot.on('mcbot_action_done', onDone)
  })
}

// Start an action and wait for its end (its own time limit, plus 30 s for the end to arrive).
function runAction (bot, kind, args, timeoutMs) {
  const actions = require('../lib/actions')
  const started = actions.start(bot, kind, args, timeoutMs)
  return withTimeout(actionDone(bot, started), timeoutMs + 30000, `${kind} action`)
}

module.exports = { VERSION, actionDone, runAction, oneVersion, startServer, connectBot, waitFor, untilTicks, command, withTimeout, sleep, stepTicks, sprintTicks, roundTrip }
