#!/usr/bin/env node
// mcbot embedded world: a flying-squid server plus our survival plugins (node/plugins/).
//
// Usage: node node/server.js --port 25565 --version 26.1 [--config '<json>']
//   config keys (all optional): worldFolder (string | null = in-memory), seed (int),
//   treeDensity (0..1, trees per surface column, default 0.015), hostiles (bool, default true),
//   hostileCap (int, default 12), hungerRate (float, 1.0 = vanilla), dayLengthScale
//   (float, daylight cycle speed multiplier, 1.0 = vanilla), viewDistance (chunks, default 6),
//   gameMode (survival | creative | adventure | spectator: the mode new players get),
//   animals (bool, default true: herds of cows/pigs/chickens/sheep on grass), animalCap (int,
//   default 10: no new herd near a player with that many animals within 128 blocks), terrain
//   (plains | caves, default plains; caves: vanilla's layout and biomes, plugins/surface.js, over
//   vanilla's underground, plugins/underground.js).
//
// Contract with the Python launcher:
//   - binds 127.0.0.1, offline mode, survival, difficulty normal, everybody-op;
//   - prints exactly one `MCBOT_SERVER_READY port=<P> version=<V>` line on stdout once listening;
//   - exits 0 when stdin closes or on SIGTERM/SIGINT (never outlives its parent);
//   - a failure to listen (EADDRINUSE...) exits 2 with one `MCBOT_SERVER_FAILED <reason>` line
//     on stderr; other errors are logged and kept non-fatal.
//   - stdin lines are console commands (e.g. `mcbot time 13000`), replies go to the log.
//
// Op commands (chat, usable by any player since everybody-op; see plugins/commands.js):
//   /mcbot damage <player> <amount>          /mcbot food <player> <food> [saturation]
//   /mcbot health <player> <hp>              /mcbot time <ticks>      (also /time set <n>)
//   /mcbot spawn <mob> <count> [player] [distance]   /mcbot summon <mob> <x> <y> <z>
//   /mcbot fill <x1> <y1> <z1> <x2> <y2> <z2> <block>[props]   /mcbot setblock <x> <y> <z> <block>[props]
//   /mcbot tp <player> <x> <y> <z>           /mcbot killall [mob]     /mcbot info [player]
//   /mcbot tick freeze|unfreeze|step <n>|sprint <n>   (game clock: a step runs exactly n ticks)
//   /mcbot save                              (write a saved world now; replies once written)
//   Coordinates accept ~ relative to the issuing player; replies start with "mcbot:".
'use strict'

const path = require('path')

// --- crash guard first: nothing a plugin or a client does may kill the world ---------------
let ready = false
let pipeGone = false // set by the EPIPE handler (never outlive the parent, below)
function logErr (kind, err) {
  if (pipeGone) return // nobody reads our log any more (see the EPIPE handler below)
  // one line, so the daemon's log keeps it whole (bot/runtime/server.py logs it as a warning)
  console.error(`[server] ${kind} (kept alive): ${String(err && err.stack ? err.stack : err).replace(/\n\s*/g, ' | ')}`)
}
function fatal (reason) {
  process.stderr.write(`MCBOT_SERVER_FAILED ${String(reason).replace(/\s+/g, ' ')}\n`)
  process.exit(2)
}
process.on('uncaughtException', (err) => {
  if (!ready && err && (err.code === 'EADDRINUSE' || err.code === 'EACCES')) fatal(`${err.code} ${err.message}`)
  logErr('uncaughtException', err)
})
process.on('unhandledRejection', (err) => logErr('unhandledRejection', err))
// flying-squid's errorHandler plugin calls process.exit on any uncaught error; it stands down
// when it believes it runs under mocha.
globalThis.isMocha = true

// --- never outlive the parent ---------------------------------------------------------------
// A saved world flushes its pending chunks first (bounded: 3 s), an in-memory one just exits.
let stopping = false
const pendingPlayerSaves = new Set()
function shutdown () {
  if (stopping) return
  stopping = true
  const world = serv && cfg.worldFolder && serv.overworld
  if (!world || !world.saveNow) process.exit(0)
  // players who logged out a moment ago may still be writing their data: wait for them too
  const saves = [world.saveNow(), ...serv.players.map(p => p.save?.()), ...pendingPlayerSaves]
  Promise.race([Promise.allSettled(saves), new Promise(resolve => setTimeout(resolve, 3000))])
    .finally(() => process.exit(0))
}
// flying-squid's exit-hook (registered late, from a dynamic import) would exit(143) on a
// signal before a saved world is flushed: only our handler may own the signals.
process.on('newListener', (event, listener) => {
  if ((event === 'SIGTERM' || event === 'SIGINT') && listener !== shutdown) {
    setImmediate(() => process.removeListener(event, listener))
  }
})
process.on('SIGTERM', shutdown)
process.on('SIGINT', shutdown)
process.stdin.on('end', shutdown)
process.stdin.on('close', shutdown)
// Belt and braces, for a stdin some other process still holds open: a parent that died
// (we were handed to init or a subreaper) stops us too. Checked every second.
const PARENT = process.ppid
setInterval(() => { if (process.ppid !== PARENT) shutdown() }, 1000).unref()
// A parent that died took the read end of our stdout/stderr with it: a write now fails with
// EPIPE, and an unhandled one would be logged to the same dead pipe again and again.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err && err.code === 'EPIPE') { pipeGone = true; shutdown() }
  })
}

// flying-squid's log plugin opens a readline prompt on stdout ('> '), which would glue itself
// to our READY line. Keep the readline on stdin (console commands) but give it no output.
const readline = require('readline')
const createInterface = readline.createInterface
readline.createInterface = (opts) => createInterface({ ...opts, output: undefined, terminal: false })
if (!process.stdout.isTTY) require('colors').disable()
if (!process.stdout.isTTY) readline.cursorTo = (stream, x, y, cb) => { if (typeof cb === 'function') cb(); return true }

// --- arguments ------------------------------------------------------------------------------
function parseArgs (argv) {
  const args = { port: 25565, version: '26.1', config: {} }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const next = () => {
      if (i + 1 >= argv.length) fatal(`missing value for ${a}`)
      return argv[++i]
    }
    if (a === '--port') args.port = parseInt(next(), 10)
    else if (a === '--version') args.version = next()
    else if (a === '--config') {
      try { args.config = JSON.parse(next()) || {} } catch (e) { fatal(`invalid --config JSON: ${e.message}`) }
    } else fatal(`unknown argument ${a}`)
  }
  if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535) fatal(`invalid --port ${args.port}`)
  return args
}

const args = parseArgs(process.argv.slice(2))
const cfg = {
  worldFolder: null,
  seed: Math.floor(Math.random() * 2147483647),
  treeDensity: 0.015,
  hostiles: true,
  hostileCap: 12,
  hungerRate: 1.0,
  dayLengthScale: 1.0,
  viewDistance: 6,
  animals: true,
  animalCap: 10,
  terrain: 'plains',
  ...args.config
}
cfg.version = args.version
const TERRAINS = ['plains', 'caves'] // plugins/terrain.js; caves: plugins/surface.js over plugins/underground.js
if (!TERRAINS.includes(cfg.terrain)) fatal(`unknown terrain '${cfg.terrain}' (one of: ${TERRAINS.join(', ')})`)
if (cfg.worldFolder) {
  try {
    require('./lib/world_lock').lockWorldFolder(cfg.worldFolder)
    const save = require('./lib/vanilla_saves').checkSave(cfg.worldFolder, require('prismarine-registry')(args.version),
      (line) => process.stdout.write(`world folder: ${line}\n`))
    if (save.files) process.stdout.write(`world folder ${cfg.worldFolder}: ${save.files} region files (newest data version ${save.newest})\n`)
  } catch (err) { fatal(err.message) }
  require('./lib/vanilla_saves').installSaveGuard((line) => process.stdout.write(`world folder: ${line}\n`))
}
const GAME_MODES = { survival: 0, creative: 1, adventure: 2, spectator: 3 }

require('./lib/squid_versions').liftVersionGate() // before flying-squid is required
require('./lib/chunk_fluids').installFluidMemo() // before any chunk class is made
const PLUGINS = ['ticks', 'protocol', 'teleports', 'clipping', 'fixes', 'visibility', 'drops', 'items', 'windows', 'furnace', 'crafting', 'hunger', 'damage', 'shields', 'doors', 'beds',
  'buckets', 'hazards', 'block_physics', 'mobs', 'spawning', 'animals', 'daylight', 'autosave', 'commands']
  .map((name) => ({ name, ...require(path.join(__dirname, 'plugins', name + '.js')) }))
const terrain = require('./plugins/terrain.js')

const mcServer = require('flying-squid')
const { makePlayerSavesAtomic } = require('./lib/player_saves')
// Packets cut from the stream without an Error thrown at every chunk's end (lib/framing.js).
require('./lib/framing').installQuietSplitter('flying-squid')
// world.js replaces a falsy seed with a random one and a saved world's level.dat seed wins;
// it writes the seed in use back into this object, which terrain.js reads.
const genOptions = { seed: (cfg.seed | 0) || 1, mcbot: cfg }
let serv
try {
  serv = mcServer.createMCServer({
    motd: 'mcbot embedded world',
    port: args.port,
    host: '127.0.0.1',
    'online-mode': false,
    version: args.version,
    gameMode: GAME_MODES[cfg.gameMode || 'survival'] ?? 0, // a new player's mode
    difficulty: 2,
    'everybody-op': true,
    'max-players': 20,
    'max-entities': 5000,
    'view-distance': cfg.viewDistance,
    kickTimeout: 30000,
    logging: false,
    plugins: {},
    modpe: false,
    'player-list-text': { header: { text: 'mcbot' }, footer: { text: 'embedded world' } },
    // flying-squid writes player data to `${worldFolder}/playerdata` unless it is undefined.
    worldFolder: cfg.worldFolder || undefined,
    generation: { name: path.join(__dirname, 'plugins', 'terrain.js'), options: genOptions }
  })
} catch (err) {
  fatal(err.message)
}

// one 'tick' listener per plugin that runs on the clock: more than Node's default warning mark
serv.setMaxListeners(50)

serv.on('error', (err) => {
  if (!ready && err && (err.code === 'EADDRINUSE' || err.code === 'EACCES')) fatal(`${err.code} ${err.message}`)
  logErr('server error', err)
})

require('./lib/food_data').fixFoods(serv.registry) // the foods as the game has them, before any plugin reads them
require('./lib/block_data').fixBlocks(serv.registry) // likewise the blocks
terrain.server(serv, cfg, genOptions)
for (const p of PLUGINS) p.server?.(serv, cfg)
serv.on('newPlayer', (player) => {
  // Track in-flight saves (logout saves are not awaited by flying-squid) so a shutdown right
  // after a player leaves does not exit before its inventory is on disk.
  makePlayerSavesAtomic(player, serv, cfg.worldFolder)
  const save = player.save
  if (save) {
    player.save = (...a) => {
      const pr = Promise.resolve(save.apply(player, a))
      pendingPlayerSaves.add(pr)
      pr.finally(() => pendingPlayerSaves.delete(pr)).catch(() => {})
      return pr
    }
  }
  for (const p of PLUGINS) {
    try { p.player?.(player, serv, cfg) } catch (err) { logErr(`plugin ${p.name} player hook`, err) }
  }
})

// 'ready' = listening and every built-in plugin (world included) initialised.
serv.on('ready', () => {
  const port = serv._server.socketServer.address().port
  cfg.seed = genOptions.seed
  ready = true

  process.stdout.write(`MCBOT_SERVER_READY port=${port} version=${args.version}\n`)
})
