// server.js's saved worlds (worldFolder): blocks, inventory and seed kept across a SIGTERM
// restart, players written by the autosave every 600 ticks, and a bot saved just across a
// chunk line getting its chunks when it rejoins.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const path = require('path')
const fs = require('fs')
const os = require('os')
const zlib = require('zlib')
const nbt = require('prismarine-nbt')
const mineflayer = require('mineflayer')
const { startServer, connectBot, waitFor, command, withTimeout, sprintTicks, VERSION } = require('./helpers')

// A restart finds what /mcbot save wrote (its reply comes once the chunks and the players are on
// disk), not whatever a periodic save or the stopping server's bounded flush got to on a loaded
// machine. The bot leaves first: its logout save is one the stopping server waits for.
const left = (s, name) => waitFor(() => s.log.some(l => l.includes(`${name} disconnected`)), 30000, `${name} gone`)

test('a worldFolder world keeps blocks, inventory and seed across a SIGTERM restart', { timeout: 180000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbot-world-'))
  try {
    let s = await startServer({ worldFolder: dir, seed: 77, hostiles: false })
    let bot = await connectBot(s.port, 'keeper')
    const p = bot.entity.position.floored()
    await command(bot, `/mcbot setblock ${p.x + 2} ${p.y} ${p.z} gold_block`)
    await command(bot, '/give keeper bread 3', { match: /gave 3 bread/ })
    assert.strictEqual(await command(bot, '/mcbot save'), 'mcbot: saved the world and 1 players')
    bot.quit()
    await left(s, 'keeper')
    s.proc.kill('SIGTERM')
    assert.strictEqual(await new Promise(resolve => s.proc.on('exit', resolve)), 0)
    s = await startServer({ worldFolder: dir, hostiles: false })
    bot = await connectBot(s.port, 'keeper')
    try {
      await waitFor(() => bot.blockAt(p.offset(2, 0, 0)), 30000, 'chunk loaded')
      assert.strictEqual(bot.blockAt(p.offset(2, 0, 0)).name, 'gold_block')
      assert.deepStrictEqual(bot.inventory.items().map(i => `${i.name}x${i.count}`), ['breadx3'])
      assert.ok(s.log.some(l => /World seed: 77/.test(l)), 'seed read back from level.dat')
    } finally {
      bot.quit()
      await s.stop()
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

// What the player's file on disk holds (lib/player_saves.js renames whole files into place).
function savedItems (file) {
  if (!fs.existsSync(file)) return null
  const player = nbt.simplify(nbt.parseUncompressed(zlib.gunzipSync(fs.readFileSync(file))))
  return player.Inventory.map((i) => `${i.id.replace('minecraft:', '')}x${i.Count}`)
}

test('a saved world writes its players every 600 ticks: a killed world keeps what the bot picked up', { timeout: 180000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbot-crash-'))
  let s = null
  try {
    s = await startServer({ worldFolder: dir, seed: 78, hostiles: false })
    let bot = await connectBot(s.port, 'crasher')
    const dat = path.join(dir, 'playerdata', `${bot.player.uuid}.dat`)
    // The login ends, and saves the player, at its first movement packet (plugins/fixes.js):
    // a bot standing still sends its position every second, and nothing else
    await waitFor(() => savedItems(dat) !== null, 30000, 'the save at the end of the login')
    await command(bot, '/mcbot tick freeze') // no tick, no autosave, until the sprint
    await command(bot, '/give crasher bread 3', { match: /gave 3 bread/ })
    assert.deepStrictEqual(savedItems(dat), [], 'saved before any autosave ran')
    await sprintTicks(bot, 600)
    await waitFor(() => savedItems(dat).length > 0, 30000, 'the bread written by the autosave')
    s.proc.kill('SIGKILL') // no logout, no flush: only what the autosave wrote
    await new Promise(resolve => s.proc.on('exit', resolve))
    bot.end()
    s = await startServer({ worldFolder: dir, hostiles: false })
    bot = await connectBot(s.port, 'crasher')
    try {
      assert.deepStrictEqual(bot.inventory.items().map(i => `${i.name}x${i.count}`), ['breadx3'])
    } finally {
      bot.quit()
      await s.stop()
    }
  } finally {
    if (s && s.proc.exitCode === null) s.proc.kill('SIGKILL') // a failed step leaves no world writing here
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('a bot saved just across a chunk line (z = -0.3) gets its 5x5 chunks after a world restart', { timeout: 270000 }, async () => {
  // mineflayer centres its wait on `pos >> 4`, which truncates -0.3 to chunk 0 (the bot is in
  // chunk -1): without the chunks sent right after spawn (plugins/fixes.js) the rejoin timed out.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbot-edge-'))
  let s = await startServer({ worldFolder: dir, seed: 1337, hostiles: false })
  try {
    let bot = await connectBot(s.port, 'edge')
    const y = Math.floor(bot.entity.position.y) + 1
    await command(bot, `/mcbot tp edge 0.5 ${y} -0.3`, { match: /teleported edge/ })
    await waitFor(() => bot.entity.onGround && bot.entity.position.z < 0 && bot.entity.position.z > -1, 5000, 'standing at z -0.3')
    await command(bot, '/mcbot save')
    bot.quit()
    await left(s, 'edge')
    s.proc.kill('SIGTERM')
    await new Promise(resolve => s.proc.on('exit', resolve))
    s = await startServer({ worldFolder: dir, hostiles: false })
    // As lib/bots.js gets a bot ready: the wait starts at spawn, before any chunk arrives.
    bot = mineflayer.createBot({ host: '127.0.0.1', port: s.port, username: 'edge', version: VERSION, auth: 'offline', hideErrors: true })
    try {
      await withTimeout(new Promise((resolve) => bot.once('spawn', resolve)), 60000, 'edge spawn')
      await waitFor(() => bot.health !== undefined, 30000, 'health packet')
      assert.ok(bot.entity.position.z < 0 && bot.entity.position.z > -1, `rejoined at z ${bot.entity.position.z}`)
      await withTimeout(bot.waitForChunksToLoad(), 60000, 'the 5x5 chunks around the rejoined bot')
    } finally {
      bot.quit()
    }
  } finally {
    await s.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
