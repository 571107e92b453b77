// server.js contract: READY line, op commands, /give counts, /time, respawn, stdin exit.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { spawn } = require('child_process')
const path = require('path')
const fs = require('fs')
const os = require('os')
const zlib = require('zlib')
const nbt = require('prismarine-nbt')
const mineflayer = require('mineflayer')
const { Vec3 } = require('vec3')
const { startServer, connectBot, waitFor, command, withTimeout, stepTicks, sprintTicks, roundTrip, VERSION, oneVersion } = require('./helpers')

test('server contract', { timeout: 270000 }, async (t) => {
  const server = await startServer({ seed: 7, hostiles: false })
  const bot = await connectBot(server.port, 'contract')
  t.after(async () => { bot.quit(); await server.stop() })

  await t.test('ready line printed exactly once', () => {
    assert.strictEqual(server.log.filter(l => l.startsWith('MCBOT_SERVER_READY')).length, 1)
  })

  await t.test('spawn is survival, on the ground, with vitals', () => {
    assert.strictEqual(bot.game.gameMode, 'survival')
    assert.strictEqual(bot.health, 20)
    assert.strictEqual(bot.food, 20)
    assert.strictEqual(typeof bot.foodSaturation, 'number')
    const below = bot.blockAt(bot.entity.position.offset(0, -1, 0))
    assert.strictEqual(below.name, 'grass_block')
  })

  await t.test('/give stores numeric counts that add up on later gives', async () => {
    await command(bot, '/give contract dirt 5', { match: /gave 5 dirt/ })
    await waitFor(() => bot.inventory.count(bot.registry.itemsByName.dirt.id) === 5, 3000, '5 dirt')
    await command(bot, '/give contract dirt 3', { match: /gave 3 dirt/ })
    await waitFor(() => bot.inventory.count(bot.registry.itemsByName.dirt.id) === 8, 3000, '8 dirt')
    const stack = bot.inventory.items().find(i => i.name === 'dirt')
    assert.strictEqual(typeof stack.count, 'number')
  })

  await t.test('/time set and /mcbot time', async () => {
    await command(bot, '/mcbot tick freeze') // the clock stands still: the times read are the times set
    try {
      await command(bot, '/time set 13000', { match: /Time was changed/ })
      await roundTrip(bot)
      assert.strictEqual(bot.time.timeOfDay, 13000, 'night time')
      await command(bot, '/mcbot time 1000')
      assert.strictEqual(bot.time.timeOfDay, 1000, 'day time')
    } finally {
      await command(bot, '/mcbot tick unfreeze')
    }
  })

  await t.test('/mcbot food and damage', async () => {
    await command(bot, '/mcbot food contract 7 2')
    await waitFor(() => bot.food === 7 && bot.foodSaturation === 2, 3000, 'food 7')
    await command(bot, '/mcbot damage contract 4')
    await waitFor(() => bot.health === 16, 3000, 'health 16')
    await command(bot, '/mcbot health contract 20')
    await command(bot, '/mcbot food contract 20 5')
  })

  await t.test('/mcbot setblock, fill, info, tp', async () => {
    const p = bot.entity.position.floored()
    await command(bot, `/mcbot setblock ${p.x + 2} ${p.y} ${p.z} stone`)
    await waitFor(() => bot.blockAt(p.offset(2, 0, 0))?.name === 'stone', 3000, 'stone placed')
    const r = await command(bot, '/mcbot fill ~3 ~ ~3 ~4 ~1 ~4 oak_planks')
    assert.match(r, /filled 8 blocks/)
    await waitFor(() => bot.blockAt(p.offset(4, 1, 4))?.name === 'oak_planks', 3000, 'planks filled')
    const info = JSON.parse((await command(bot, '/mcbot info contract')).slice('mcbot: '.length))
    assert.strictEqual(info.players[0].name, 'contract')
    const err = await command(bot, '/mcbot fill 0 0 0 100 100 100 stone')
    assert.match(err, /error/)
    assert.strictEqual(await command(bot, '/mcbot save'), 'mcbot: nothing to save: the world is in memory')
  })

  await t.test('world edits apply in the order sent: a setblock sent right after a large fill lands on top of it', async () => {
    const p = bot.entity.position.floored()
    const [x, y, z] = [p.x + 160, p.y - 3, p.z + 160] // chunks nobody has loaded: the fill waits on their generation
    const replies = []
    const onMsg = (msg) => { if (/^mcbot: (filled|set) /.test(msg.toString())) replies.push(msg.toString()) }
    bot.on('message', onMsg)
    try {
      bot.chat(`/mcbot fill ${x} ${y} ${z} ${x + 31} ${y + 7} ${z + 31} stone`) // 8192 blocks
      bot.chat(`/mcbot setblock ${x + 31} ${y + 7} ${z + 31} gold_block`) // not waiting on the fill's reply
      await waitFor(() => replies.length === 2, 30000, 'both replies')
    } finally {
      bot.removeListener('message', onMsg)
    }
    assert.deepStrictEqual(replies.map((r) => r.split(' ')[1]), ['filled', 'set'])
    await command(bot, `/mcbot tp contract ${x + 31} ${y + 8} ${z + 31}`)
    const top = new Vec3(x + 31, y + 7, z + 31)
    await waitFor(() => bot.blockAt(top)?.name === 'gold_block', 15000, 'the setblock on top of the fill')
    assert.strictEqual(bot.blockAt(top.offset(-1, 0, 0))?.name, 'stone')
    await command(bot, `/mcbot tp contract ${p.x} ${p.y} ${p.z}`)
    await waitFor(() => bot.entity.position.distanceTo(p.offset(0.5, 0, 0.5)) < 1, 15000, 'back at the start')
  })

  await t.test('a fill sends its blocks only to the players that have their chunks', async () => {
    const p = bot.entity.position.floored()
    let changes = 0
    const onChange = () => { changes++ }
    bot._client.on('block_change', onChange)
    try {
      // the reply comes after every write of the fill, on the same connection as its packets
      await command(bot, `/mcbot fill ${p.x + 400} ${p.y} ${p.z} ${p.x + 403} ${p.y + 1} ${p.z + 3} stone`) // far away
      assert.strictEqual(changes, 0)
      await command(bot, `/mcbot fill ${p.x + 3} ${p.y + 6} ${p.z + 3} ${p.x + 4} ${p.y + 6} ${p.z + 4} glass`) // overhead
      assert.strictEqual(changes, 4)
      await command(bot, `/mcbot fill ${p.x + 3} ${p.y + 6} ${p.z + 3} ${p.x + 4} ${p.y + 6} ${p.z + 4} air`)
    } finally {
      bot._client.removeListener('block_change', onChange)
    }
  })

  await t.test('a teleport sent right after a fill lands on what the fill built', async () => {
    const p = bot.entity.position.floored()
    const [x, z] = [p.x - 300, p.z + 100] // chunks nobody has loaded
    const top = 106 // a floating block of stone, 32 high, over any terrain; its last slab (x + 31) is filled last
    bot.chat(`/mcbot fill ${x} ${top - 31} ${z} ${x + 31} ${top} ${z + 31} stone`) // 32768 blocks
    const arrived = await command(bot, `/mcbot tp contract ${x + 31} ${top + 1} ${z + 31}`, { match: /^mcbot: (teleported|error)/ }) // not waiting on the fill
    assert.match(arrived, /^mcbot: teleported/)
    await waitFor(() => bot.entity.position.distanceTo(new Vec3(x + 31.5, top + 1, z + 31.5)) < 1 && bot.entity.onGround, 15000, 'standing after the teleport')
    await physicsTicks(bot, 20) // a second of the bot's physics: over nothing it would be falling by now
    assert.strictEqual(bot.entity.position.y, top + 1)
    assert.strictEqual(bot.blockAt(new Vec3(x + 31, top, z + 31))?.name, 'stone')
    await command(bot, `/mcbot tp contract ${p.x} ${p.y} ${p.z}`)
    await waitFor(() => bot.entity.position.distanceTo(p.offset(0.5, 0, 0.5)) < 1, 15000, 'back at the start')
  })

  await t.test('renamed blocks: grass and short_grass both place this version\'s plant, which digs', async () => {
    const plant = bot.registry.blocksByName.short_grass ? 'short_grass' : 'grass' // renamed in 1.20.3
    const p = bot.entity.position.floored()
    await command(bot, `/mcbot fill ${p.x - 2} ${p.y - 1} ${p.z + 2} ${p.x - 1} ${p.y - 1} ${p.z + 2} grass_block`)
    for (const [dx, spelling] of [[-2, 'grass'], [-1, 'short_grass']]) {
      const r = await command(bot, `/mcbot setblock ${p.x + dx} ${p.y} ${p.z + 2} ${spelling}`)
      assert.doesNotMatch(r, /error/)
      await waitFor(() => bot.blockAt(p.offset(dx, 0, 2))?.name === plant, 3000, `${spelling} placed as ${plant}`)
    }
    // minecraft-data 1.21.4 has no loot for short_grass; the dig must still complete
    await withTimeout(bot.dig(bot.blockAt(p.offset(-1, 0, 2))), 5000, `dig ${plant}`)
    await waitFor(() => bot.blockAt(p.offset(-1, 0, 2))?.name === 'air', 3000, `${plant} gone`)
  })

  await t.test('a placement the server refuses is answered at once, with the blocks as they are', async () => {
    const dirt = bot.registry.itemsByName.dirt.id
    const held = bot.inventory.count(dirt) + 1
    await command(bot, '/give contract dirt 1', { match: /gave 1 dirt/ })
    await waitFor(() => bot.inventory.count(dirt) === held, 3000, 'dirt')
    await bot.equip(dirt, 'hand')
    const feet = bot.entity.position.floored()
    const answered = []
    const onChange = (p) => answered.push(`${p.location.x},${p.location.y},${p.location.z}`)
    bot._client.on('block_change', onChange)
    try {
      // the bot's own feet: flying-squid refuses, and used to say nothing (mineflayer waited 5 s)
      await assert.rejects(bot.placeBlock(bot.blockAt(feet.offset(0, -1, 0)), new Vec3(0, 1, 0)), /refused to place dirt/)
    } finally {
      bot._client.removeListener('block_change', onChange)
    }
    assert.deepStrictEqual(answered, [`${feet.x},${feet.y - 1},${feet.z}`, `${feet.x},${feet.y},${feet.z}`])
    assert.strictEqual(bot.blockAt(feet).name, 'air')
    assert.strictEqual(bot.inventory.count(dirt), held, 'the dirt is still held')
  })

  await t.test('a toss right after a look flies the way of that look, and lies out of reach after its pickup delay in game ticks', async () => {
    const { lookAndSend } = require('../lib/ticks')
    await command(bot, '/give contract stick 2', { match: /gave 2 stick/ })
    await waitFor(() => bot.inventory.count(bot.registry.itemsByName.stick.id) >= 2, 3000, 'sticks')
    await command(bot, '/mcbot tick freeze')
    try {
      for (const dx of [-4, 4]) { // west, then east at once: the second toss must not fly west
        const spawned = new Promise((resolve) => {
          const onSpawn = (e) => { if (e.name === 'item') { bot.removeListener('entitySpawn', onSpawn); resolve(e) } }
          bot.on('entitySpawn', onSpawn)
        })
        const from = bot.entity.position.clone()
        await lookAndSend(bot, from.offset(dx, 1.6, 0))
        await bot.toss(bot.registry.itemsByName.stick.id, null, 1)
        const item = await withTimeout(spawned, 5000, 'the tossed stick')
        // A loaded machine's ticks fall behind the wall clock: here none run for longer than the
        // pickup delay's 0.5 s. The item used to be taken back by its thrower at the first tick.
        await new Promise((resolve) => setTimeout(resolve, 700))
        await stepTicks(bot, 10)
        assert.ok(item.isValid, 'the stick still lies in the world after its 10 ticks of pickup delay')
        assert.ok(Math.abs(item.position.x - from.x) > 1.75, `the stick flew out of reach (${(item.position.x - from.x).toFixed(2)} blocks)`)
        assert.strictEqual(Math.sign(item.position.x - from.x), Math.sign(dx), `a toss looking ${dx < 0 ? 'west' : 'east'}`)
      }
    } finally {
      await command(bot, '/mcbot tick unfreeze')
    }
  })

  await t.test('a killed bot respawns at spawn with full vitals', async () => {
    const died = new Promise(resolve => bot.once('death', resolve))
    await command(bot, '/mcbot damage contract 30')
    await withTimeout(died, 5000, 'death')
    await withTimeout(new Promise(resolve => bot.once('respawn', resolve)), 30000, 'respawn')
    await waitFor(() => bot.health === 20 && bot.food === 20, 30000, 'full vitals')
    await waitFor(() => bot.blockAt(bot.entity.position.offset(0, -1, 0)), 30000, 'chunks after respawn')
    assert.strictEqual(bot.inventory.items().length, 0, 'inventory dropped on death')
  })

  await t.test('spawned mobs are removed from bot.entities when killed', async () => {
    const r = await command(bot, '/mcbot spawn cow 1 contract 3')
    const id = parseInt(r.split(': ').pop(), 10)
    await waitFor(() => bot.entities[id], 3000, 'cow visible')
    await command(bot, '/kill @e[type=cow]', { match: /.*/, timeout: 2000 }).catch(() => {})
    await waitFor(() => !bot.entities[id], 30000, 'cow removed')
  })
})

test('config gameMode is the mode a new player logs in with', { timeout: 90000 }, async () => {
  const s = await startServer({ gameMode: 'creative', hostiles: false })
  const bot = await connectBot(s.port, 'builder')
  try {
    assert.strictEqual(bot.game.gameMode, 'creative')
  } finally {
    bot.quit()
    await s.stop()
  }
})

test('two players see each other, follow a long teleport, a punch hurts, leaving is seen', { timeout: 180000 }, async () => {
  const s = await startServer({ seed: 5, hostiles: false })
  const a = await connectBot(s.port, 'alice')
  const b = await connectBot(s.port, 'bob')
  try {
    // from 1.20.2 players spawn through spawn_entity, which needs the player type
    await waitFor(() => a.players.bob?.entity?.name === 'player', 5000, 'alice sees bob as a player')
    await waitFor(() => b.players.alice?.entity?.name === 'player', 5000, 'bob sees alice as a player')
    // a 20-block jump goes out as entity_teleport (1.21.2+ changed its fields: it kicked alice)
    const start = b.entity.position.clone()
    await command(b, '/mcbot tp bob ~20 ~ ~')
    await waitFor(() => b.entity.position.distanceTo(start) > 15, 5000, 'bob moved')
    await waitFor(() => a.players.bob.entity.position.distanceTo(b.entity.position) < 0.5, 5000, 'alice saw the teleport')
    const p = a.entity.position.floored()
    await command(b, `/mcbot tp bob ${p.x + 1} ${p.y} ${p.z}`)
    await waitFor(() => a.players.bob.entity.position.distanceTo(a.entity.position) < 2, 5000, 'bob next to alice')
    const hurtBy = []
    b.on('entityHurt', (e, source) => { if (e === b.entity) hurtBy.push(source ? source.username : null) })
    a.attack(a.players.bob.entity)
    await waitFor(() => b.health === 19, 3000, 'bare hand: 1 damage')
    await waitFor(() => hurtBy.length > 0, 2000, 'bob saw himself hurt')
    if (b.registry.protocol.play.toClient.types.packet_damage_event) assert.strictEqual(hurtBy[0], 'alice')
    const left = new Promise(resolve => a.on('playerLeft', (p) => { if (p.username === 'bob') resolve() }))
    b.quit()
    await withTimeout(left, 5000, 'alice sees bob leave')
    assert.strictEqual(a.players.bob, undefined)
  } finally {
    a.quit()
    b.quit()
    await s.stop()
  }
})

test('a move sent before the client saw its teleport does not undo it: the players at the destination see each other', { timeout: 180000 }, async () => {
  const s = await startServer({ seed: 5, hostiles: false, animals: false })
  const a = await connectBot(s.port, 'ann')
  const b = await connectBot(s.port, 'ben')
  try {
    // a flat floor around ann, so that ben lands still beside her and sends no more moves
    const p = a.entity.position.floored()
    await command(a, `/mcbot fill ${p.x - 3} ${p.y - 1} ${p.z - 3} ${p.x + 3} ${p.y - 1} ${p.z + 3} stone`)
    await command(a, `/mcbot fill ${p.x - 3} ${p.y} ${p.z - 3} ${p.x + 3} ${p.y + 2} ${p.z + 3} air`)
    await command(b, '/mcbot tp ben ~300 ~ ~') // out of sight (entities are seen within 150 blocks)
    await waitFor(() => !a.players.ben?.entity && !b.players.ann?.entity, 10000, 'out of each other\'s sight')
    const far = b.entity.position.clone()
    // Ben's client sends one more move from far away after the server has moved him, as a
    // client that had not yet read the teleport does.
    b._client.prependOnceListener('position', () => {
      b._client.write('position', { x: far.x, y: far.y, z: far.z, onGround: true, flags: { onGround: true, hasHorizontalCollision: false } })
    })
    await command(a, `/mcbot tp ben ${p.x + 2} ${p.y} ${p.z}`)
    await waitFor(() => b.entity.position.distanceTo(p) < 3 && b.entity.onGround, 10000, 'ben standing beside ann')
    // the server has read every move ben sent before this command, and each has sent what
    // the server wrote to it before the reply
    await roundTrip(b)
    await roundTrip(a)
    assert.ok(b.players.ann?.entity, 'ben sees ann')
    assert.ok(a.players.ben?.entity && a.players.ben.entity.position.distanceTo(b.entity.position) < 0.5, 'ann sees ben where he is')
  } finally {
    a.quit()
    b.quit()
    await s.stop()
  }
})

test('server exits when stdin closes and fails clearly on a busy port', { timeout: 90000, ...oneVersion('the life of the server process, not the protocol') }, async () => {
  const a = await startServer({})
  const code = await new Promise((resolve) => {
    const proc = spawn(process.execPath, [path.join(__dirname, '..', 'server.js'), '--port', String(a.port)], { stdio: ['pipe', 'pipe', 'pipe'] })
    let err = ''
    proc.stderr.on('data', d => { err += d })
    proc.on('exit', (c) => resolve({ c, err }))
  })
  assert.notStrictEqual(code.c, 0)
  assert.match(code.err, /MCBOT_SERVER_FAILED EADDRINUSE/)
  assert.strictEqual(await a.stop(), 0)
})

// A restart finds what /mcbot save wrote (its reply comes once the chunks and the players are on
// disk), not whatever a periodic save or the stopping server's bounded flush got to on a loaded
// machine. The bot leaves first: its logout save is one the stopping server waits for.
// The bot's own physics ticks (client side), counted as they run.
const physicsTicks = (bot, n) => new Promise((resolve) => {
  let seen = 0
  const on = () => { if (++seen >= n) { bot.removeListener('physicsTick', on); resolve() } }
  bot.on('physicsTick', on)
})
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

// Counted in ticks on a frozen clock: the day clock moves on every 20th tick, so any 40 ticks
// in a row move it twice, 2000 each at 100x (20 at 1x).
test('dayLengthScale speeds up the daylight cycle', { timeout: 90000, ...oneVersion('the day length is the server clock, not the protocol') }, async () => {
  const s = await startServer({ dayLengthScale: 100, hostiles: false })
  const bot = await connectBot(s.port, 'clock')
  try {
    await command(bot, '/mcbot tick freeze')
    await roundTrip(bot)
    const t0 = bot.time.timeOfDay
    await stepTicks(bot, 40)
    const advanced = (bot.time.timeOfDay - t0 + 24000) % 24000
    assert.strictEqual(advanced, 4000, `advanced ${advanced} in 40 ticks at 100x`)
  } finally {
    bot.quit()
    await s.stop()
  }
})

test('the server stops when its parent dies even while another process holds its stdin open', { timeout: 180000, ...oneVersion('the life of the server process, not the protocol') }, async () => {
  // A daemon killed with SIGKILL closes our stdin, and we exit on that; but a copy of the
  // pipe's write end elsewhere (here `sleep`, on a FIFO) keeps stdin open: the parent check
  // must stop us anyway.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbot-orphan-'))
  const fifo = path.join(dir, 'stdin')
  require('child_process').execFileSync('mkfifo', [fifo])
  const server = path.join(__dirname, '..', 'server.js')
  const script = `sleep 60 > '${fifo}' & echo "SLEEP_PID $!"; "${process.execPath}" '${server}' --port 0 --version ${VERSION} --config '{"hostiles":false}' < '${fifo}' & echo "SERVER_PID $!"; wait`
  const sh = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  sh.stdout.on('data', (d) => { out += d })
  let serverPid = null
  try {
    await waitFor(() => /MCBOT_SERVER_READY/.test(out), 20000, 'server ready')
    serverPid = parseInt(/SERVER_PID (\d+)/.exec(out)[1], 10)
    sh.kill('SIGKILL')
    const alive = () => { try { process.kill(serverPid, 0); return true } catch (e) { return false } }
    // the server's own parent check runs every second of wall-clock time: that timer is what is
    // under test, and the bound leaves room for a loaded machine
    await waitFor(() => !alive(), 20000, 'the orphaned server to exit')
  } finally {
    if (serverPid) { try { process.kill(serverPid, 'SIGKILL') } catch (e) { /* gone */ } }
    const sleeper = /SLEEP_PID (\d+)/.exec(out)
    if (sleeper) { try { process.kill(parseInt(sleeper[1], 10), 'SIGKILL') } catch (e) { /* gone */ } }
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('one world process per world folder: a second is refused while the first runs, then takes it over', { timeout: 120000, ...oneVersion('the life of the server process, not the protocol') }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbot-lock-'))
  const first = await startServer({ worldFolder: dir, hostiles: false })
  try {
    const second = spawn(process.execPath, [path.join(__dirname, '..', 'server.js'), '--port', '0', '--version', VERSION,
      '--config', JSON.stringify({ worldFolder: dir })], { stdio: ['pipe', 'pipe', 'pipe'] })
    let err = ''
    second.stderr.on('data', (d) => { err += d })
    const code = await new Promise((resolve) => second.on('exit', resolve))
    assert.strictEqual(code, 2)
    assert.match(err, new RegExp(`MCBOT_SERVER_FAILED the world folder .* is in use by process ${first.proc.pid}`))
  } finally {
    first.proc.kill('SIGKILL') // its lock stays behind, naming a process that is gone
    await new Promise((resolve) => first.proc.on('exit', resolve))
  }
  const third = await startServer({ worldFolder: dir, hostiles: false })
  await third.stop()
  fs.rmSync(dir, { recursive: true, force: true })
})
