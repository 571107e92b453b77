// server.js's contract with one bot: the READY line, spawn vitals, the op commands (/give
// counts, /time, /mcbot food, damage, setblock, fill, info, tp, save), world edits applied in
// order and sent only to the players that have their chunks, renamed blocks, refused
// placements, tosses, respawn and mob removal; the gameMode and dayLengthScale options.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { Vec3 } = require('vec3')
const { startServer, connectBot, waitFor, command, withTimeout, stepTicks, roundTrip, oneVersion } = require('./helpers')

// The bot's own physics ticks (client side), counted as they run.
const physicsTicks = (bot, n) => new Promise((resolve) => {
  let seen = 0
  const on = () => { if (++seen >= n) { bot.removeListener('physicsTick', on); resolve() } }
  bot.on('physicsTick', on)
})

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
        // pickup delay's 2 s (a throw's 40 ticks). The item used to be taken back by its thrower at
        // the first tick.
        await new Promise((resolve) => setTimeout(resolve, 2200))
        await stepTicks(bot, 40)
        assert.ok(item.isValid, 'the stick still lies in the world after its 40 ticks of pickup delay')
        assert.ok(Math.abs(item.position.x - from.x) > 1.75, `the stick flew out of reach (${(item.position.x - from.x).toFixed(2)} blocks)`)
        assert.strictEqual(Math.sign(item.position.x - from.x), Math.sign(dx), `a toss looking ${dx < 0 ? 'west' : 'east'}`)
      }
    } finally {
      await command(bot, '/mcbot tick unfreeze')
    }
  })

  await t.test("a stack thrown against a wall falls back within reach and is its thrower's again only after 40 ticks, as vanilla's", async () => {
    const { lookAndSend } = require('../lib/ticks')
    const stick = bot.registry.itemsByName.stick.id
    await command(bot, '/give contract stick 1', { match: /gave 1 stick/ })
    await waitFor(() => bot.inventory.count(stick) >= 1, 3000, 'a stick')
    const feet = bot.entity.position.floored()
    await command(bot, `/mcbot fill ${feet.x - 1} ${feet.y} ${feet.z - 1} ${feet.x - 1} ${feet.y + 2} ${feet.z + 1} stone`)
    await waitFor(() => bot.blockAt(feet.offset(-1, 1, 0))?.name === 'stone', 3000, 'the wall')
    await command(bot, '/mcbot tick freeze')
    try {
      const spawned = new Promise((resolve) => {
        const onSpawn = (e) => { if (e.name === 'item') { bot.removeListener('entitySpawn', onSpawn); resolve(e) } }
        bot.on('entitySpawn', onSpawn)
      })
      const held = bot.inventory.count(stick)
      await lookAndSend(bot, bot.entity.position.offset(-1, 1.6, 0))
      await bot.toss(stick, null, 1)
      const item = await withTimeout(spawned, 5000, 'the thrown stick')
      await stepTicks(bot, 39)
      await roundTrip(bot)
      assert.ok(item.isValid, 'the stick still lies in the world after 39 ticks')
      assert.strictEqual(bot.inventory.count(stick), held - 1)
      await stepTicks(bot, 2)
      await waitFor(() => bot.inventory.count(stick) === held, 3000, 'the stick taken back')
    } finally {
      await command(bot, '/mcbot tick unfreeze')
      await command(bot, `/mcbot fill ${feet.x - 1} ${feet.y} ${feet.z - 1} ${feet.x - 1} ${feet.y + 2} ${feet.z + 1} air`)
    }
  })

  await t.test('a killed bot respawns at spawn with full vitals', async () => {
    const died = new Promise(resolve => bot.once('death', resolve))
    // listened for before the damage: the respawn can come in the same read as the death, before
    // a listener added once the death's promise resolved (a fresh-clone make test at b541995)
    const respawned = new Promise(resolve => bot.once('respawn', resolve))
    await command(bot, '/mcbot damage contract 30')
    await withTimeout(died, 5000, 'death')
    await withTimeout(respawned, 30000, 'respawn')
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
