// The staircase action (lib/actions/staircase.js) on a stone block built with /mcbot fill: a
// plain bot with a stone pickaxe digs down 10 steps one block at a time, fills a hole in a
// step's floor from its inventory, turns away from a lava pocket ahead without touching it and
// from gravel overhead (or, told to go straight, stops there), from obsidian it cannot dig and
// from a hole over a cave, and stops at once when cancelled; told to dam, it walls off water
// in its way rather than stopping there; a tunnel (lib/actions/tunnel.js)
// digs on at the level the stairs reached. With torches to spare the stairs are lit.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const toolPlugin = require('mineflayer-tool').plugin
const { Vec3 } = require('vec3')
const { startServer, connectBot, waitFor, command, withTimeout } = require('./helpers')
const actions = require('../lib/actions')
const staircase = require('../lib/actions/staircase')

// Every change of the standing height while the bot is on the ground: a drop of more than one
// block between two ground contacts is a fall the staircase must never make.
function watchDrops (bot) {
  const drops = []
  let last = bot.entity.position.y
  const onTick = () => {
    if (!bot.entity.onGround) return
    const y = bot.entity.position.y
    if (last - y > 1.01) drops.push(`${last.toFixed(2)} -> ${y.toFixed(2)}`)
    last = y
  }
  bot.on('physicsTick', onTick)
  return { drops, stop: () => bot.removeListener('physicsTick', onTick) }
}

// Resolves after the bot's next n physics ticks: its own clock, which walks and digs run on.
function physicsTicks (bot, n) {
  return new Promise((resolve) => {
    let left = n
    const onTick = () => { if (--left === 0) { bot.removeListener('physicsTick', onTick); resolve() } }
    bot.on('physicsTick', onTick)
  })
}

test('staircase', { timeout: 450000 }, async (t) => {
  const server = await startServer({ seed: 11, hostiles: false, animals: false })
  const bot = await connectBot(server.port, 'digger', { plugins: [toolPlugin] })
  t.after(async () => { bot.quit(); await server.stop() })

  // A stone block 12 deep under a cleared pad; the bot gets a stone pickaxe and 4 dirt. (Big
  // fills: the reply may be slow on a loaded machine.)
  const b = bot.entity.position.floored()
  await command(bot, `/mcbot fill ${b.x - 3} ${b.y - 12} ${b.z - 12} ${b.x + 16} ${b.y - 1} ${b.z + 24} stone`, { timeout: 60000 })
  await command(bot, `/mcbot fill ${b.x - 3} ${b.y} ${b.z - 12} ${b.x + 16} ${b.y + 3} ${b.z + 24} air`, { timeout: 60000 })
  await command(bot, '/give digger stone_pickaxe 1', { match: /gave 1 stone_pickaxe/ })
  await command(bot, '/give digger dirt 4', { match: /gave 4 dirt/ })
  await waitFor(() => bot.inventory.items().some((i) => i.name === 'dirt'), 3000, 'dirt held')
  const place = async (x, z) => {
    await command(bot, `/mcbot tp digger ${x + 0.5} ${b.y} ${z + 0.5}`)
    await waitFor(() => bot.entity.onGround && bot.entity.position.floored().equals(new Vec3(x, b.y, z)) &&
      bot.blockAt(new Vec3(x + 10, b.y - 12, z))?.name === 'stone', 10000, `standing at ${x},${b.y},${z}`)
  }

  await t.test('bad arguments are refused with the reason', async () => {
    await assert.rejects(staircase.run(bot, { targetY: 'deep' }, { cancelled: false }), /integer targetY/)
    await assert.rejects(staircase.run(bot, { targetY: b.y - 2, direction: 'up' }, { cancelled: false }), /unknown direction 'up'/)
    await assert.rejects(staircase.run(bot, { targetY: b.y - 100 }, { cancelled: false }), /at most 64|bottom of the world/)
  })

  await t.test('ten steps down, one block at a time, a hole in a floor filled from the inventory', async () => {
    const z = b.z - 6
    await place(b.x, z)
    const hole = new Vec3(b.x + 3, b.y - 4, z) // the floor of the third step
    await command(bot, `/mcbot setblock ${hole.x} ${hole.y} ${hole.z} air`)
    await waitFor(() => bot.blockAt(hole)?.name === 'air', 3000, 'hole made')
    const watch = watchDrops(bot)
    const out = await withTimeout(staircase.run(bot, { targetY: b.y - 10, direction: 'east' }, { cancelled: false }), 120000, 'staircase')
    watch.stop()
    assert.deepStrictEqual(out, { steps: 10, y: b.y - 10, turned: 0, torches: 0, reason: 'reached' })
    assert.deepStrictEqual(bot.entity.position.floored(), new Vec3(b.x + 10, b.y - 10, z))
    assert.deepStrictEqual(watch.drops, [], 'never dropped more than one block')
    assert.ok(['cobblestone', 'dirt'].includes(bot.blockAt(hole).name), `the hole was filled (${bot.blockAt(hole).name})`)
    for (let k = 1; k <= 10; k++) { // each step: floor kept, three blocks of air above it
      assert.strictEqual(bot.blockAt(new Vec3(b.x + k, b.y - k - 1, z)).boundingBox, 'block', `floor of step ${k}`)
      for (const dy of [0, 1, 2]) assert.strictEqual(bot.blockAt(new Vec3(b.x + k, b.y - k + dy, z)).name, 'air', `step ${k} +${dy}`)
    }
    assert.ok(bot.inventory.items().some((i) => i.name === 'cobblestone'), 'the dug stone was picked up')
  })

  await t.test('a tunnel from the foot of the stairs: level, two blocks high, on a solid floor', async () => {
    const tunnel = require('../lib/actions/tunnel')
    await assert.rejects(tunnel.run(bot, { blocks: 0 }, { cancelled: false }), /blocks between 1 and 64/)
    const start = bot.entity.position.floored() // where the ten steps ended, inside the stone
    const watch = watchDrops(bot)
    const out = await withTimeout(tunnel.run(bot, { blocks: 8, direction: 'south' }, { cancelled: false }), 120000, 'tunnel')
    watch.stop()
    assert.deepStrictEqual(out, { steps: 8, y: start.y, turned: 0, torches: 0, reason: 'reached' })
    assert.deepStrictEqual(bot.entity.position.floored(), start.offset(0, 0, 8))
    assert.deepStrictEqual(watch.drops, [], 'never dropped')
    for (let k = 1; k <= 8; k++) {
      assert.strictEqual(bot.blockAt(start.offset(0, -1, k)).boundingBox, 'block', `floor at ${k}`)
      for (const dy of [0, 1]) assert.strictEqual(bot.blockAt(start.offset(0, dy, k)).name, 'air', `cell ${k} +${dy}`)
      assert.strictEqual(bot.blockAt(start.offset(0, 2, k)).name, 'stone', `roof at ${k}`)
    }
  })

  await t.test('a lava pocket ahead: the staircase turns, nothing next to the lava is dug', async () => {
    const z = b.z + 12
    await place(b.x, z)
    const lava = new Vec3(b.x + 4, b.y - 3, z) // beside the third step's lower block
    await command(bot, `/mcbot setblock ${lava.x} ${lava.y} ${lava.z} lava`)
    await waitFor(() => bot.blockAt(lava)?.name === 'lava', 3000, 'lava placed')
    const watch = watchDrops(bot)
    const out = await withTimeout(staircase.run(bot, { targetY: b.y - 6, direction: 'east' }, { cancelled: false }), 120000, 'staircase')
    watch.stop()
    assert.strictEqual(out.reason, 'reached')
    assert.strictEqual(out.y, b.y - 6)
    assert.ok(out.turned >= 1, `turned (${JSON.stringify(out)})`)
    assert.strictEqual(bot.blockAt(lava).name, 'lava', 'the lava is untouched')
    for (const n of [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]) {
      assert.strictEqual(bot.blockAt(lava.offset(...n)).name, 'stone', `stone kept at lava + ${n}`)
    }
    assert.deepStrictEqual(watch.drops, [], 'never dropped more than one block')
    assert.ok(bot.health >= 20, 'unharmed')
  })

  await t.test('gravel over the way ahead: the staircase turns and leaves it standing', async () => {
    const x = b.x + 12
    const z = b.z + 6
    await place(x, z)
    const gravel = new Vec3(x + 1, b.y + 2, z) // above the first step's head room, east
    // on a stone the step would dig (gravel with nothing under it falls: plugins/block_physics.js)
    await command(bot, `/mcbot setblock ${gravel.x} ${gravel.y - 1} ${gravel.z} stone`)
    await command(bot, `/mcbot setblock ${gravel.x} ${gravel.y} ${gravel.z} gravel`)
    await waitFor(() => bot.blockAt(gravel)?.name === 'gravel', 3000, 'gravel placed')
    const out = await withTimeout(staircase.run(bot, { targetY: b.y - 3, direction: 'east' }, { cancelled: false }), 60000, 'staircase')
    assert.deepStrictEqual(out, { steps: 3, y: b.y - 3, turned: 1, torches: 0, reason: 'reached' })
    assert.strictEqual(bot.blockAt(gravel).name, 'gravel')
    assert.strictEqual(bot.blockAt(new Vec3(x + 1, b.y - 1, z)).name, 'stone', 'the east step was never dug')
  })

  await t.test('told to go straight, it stops at a hazard ahead rather than turning', async () => {
    const x = b.x + 12
    const z = b.z - 6
    await place(x, z)
    const gravel = new Vec3(x + 1, b.y + 2, z)
    await command(bot, `/mcbot setblock ${gravel.x} ${gravel.y - 1} ${gravel.z} stone`)
    await command(bot, `/mcbot setblock ${gravel.x} ${gravel.y} ${gravel.z} gravel`)
    await waitFor(() => bot.blockAt(gravel)?.name === 'gravel', 3000, 'gravel placed')
    await assert.rejects(
      staircase.run(bot, { targetY: b.y - 3, direction: 'east', straight: true }, { cancelled: false }),
      /blocked at .* after 0 steps: east: falling gravel overhead/
    )
    assert.ok(bot.entity.position.floored().equals(new Vec3(x, b.y, z)), 'not a step taken')
    assert.strictEqual(bot.blockAt(new Vec3(x + 1, b.y + 1, z)).name, 'stone', 'nothing dug')
  })

  await t.test('a block too hard for the pickaxe held ahead (obsidian): the staircase turns and leaves it', async () => {
    const z = b.z - 10
    await place(b.x, z)
    const hard = new Vec3(b.x + 1, b.y - 1, z) // the first step's lower block, east
    await command(bot, `/mcbot setblock ${hard.x} ${hard.y} ${hard.z} obsidian`)
    await waitFor(() => bot.blockAt(hard)?.name === 'obsidian', 3000, 'obsidian placed')
    const out = await withTimeout(staircase.run(bot, { targetY: b.y - 3, direction: 'east' }, { cancelled: false }), 60000, 'staircase')
    assert.strictEqual(out.reason, 'reached')
    assert.ok(out.turned >= 1, `turned (${JSON.stringify(out)})`)
    assert.strictEqual(bot.blockAt(hard).name, 'obsidian')
  })

  await t.test('a hole over a cave (nothing solid to fill it against): the staircase turns', async () => {
    const z = b.z + 22
    await place(b.x, z)
    // a pocket of air under the first step east: its floor has no solid block beside or below it
    await command(bot, `/mcbot fill ${b.x + 1} ${b.y - 5} ${z - 1} ${b.x + 3} ${b.y - 2} ${z + 1} air`)
    const hole = new Vec3(b.x + 1, b.y - 2, z)
    await waitFor(() => bot.blockAt(hole)?.name === 'air' && bot.blockAt(hole.offset(1, -3, 1))?.name === 'air', 5000, 'cave made')
    const watch = watchDrops(bot)
    const out = await withTimeout(staircase.run(bot, { targetY: b.y - 3, direction: 'east' }, { cancelled: false }), 60000, 'staircase')
    watch.stop()
    assert.strictEqual(out.reason, 'reached')
    assert.ok(out.turned >= 1, `turned (${JSON.stringify(out)})`)
    assert.deepStrictEqual(watch.drops, [], 'never dropped more than one block')
  })

  await t.test('a cancel halts the digging and the walk at once', async () => {
    const z = b.z + 2
    await place(b.x, z)
    const { id } = actions.start(bot, 'staircase', { targetY: b.y - 8, direction: 'east' })
    await waitFor(() => bot.entity.onGround && bot.entity.position.y <= b.y - 1, 60000, 'one step down')
    await waitFor(() => bot.targetDigBlock, 60000, 'digging the next step')
    const st = actions.cancel(id)
    assert.strictEqual(st.state, 'cancelled')
    assert.strictEqual(bot.targetDigBlock, null, 'digging stopped')
    assert.ok(!bot.controlState.forward, 'not walking')
    const y = Math.floor(bot.entity.position.y)
    await physicsTicks(bot, 30) // 1.5 s of the bot's own time, however slow the machine
    assert.strictEqual(Math.floor(bot.entity.position.y), y, 'no step after the cancel')
    assert.ok(y > b.y - 8)
  })

  await t.test('lava on every side: stops with an error naming the lava and where it is', async () => {
    const z = b.z + 20
    await place(b.x + 12, z)
    const s = new Vec3(b.x + 12, b.y, z)
    for (const [dx, dz] of [[2, 0], [-2, 0], [0, 2], [0, -2]]) {
      await command(bot, `/mcbot setblock ${s.x + dx} ${s.y - 1} ${s.z + dz} lava`)
    }
    await waitFor(() => bot.blockAt(s.offset(0, -1, -2))?.name === 'lava', 3000, 'lava placed')
    await assert.rejects(staircase.run(bot, { targetY: b.y - 4 }, { cancelled: false }),
      /staircase blocked at .* after 0 steps: .*lava at -?\d+,-?\d+,-?\d+/)
    assert.deepStrictEqual(bot.entity.position.floored(), s, 'did not move')
  })

  await t.test('water on every side, told to dam: the water ahead walled off, and down it goes', async () => {
    const z = b.z + 16
    await place(b.x + 8, z)
    const s = new Vec3(b.x + 8, b.y, z)
    const waters = [[2, 0], [-2, 0], [0, 2], [0, -2]].map(([dx, dz]) => s.offset(dx, -1, dz))
    for (const w of waters) await command(bot, `/mcbot setblock ${w.x} ${w.y} ${w.z} water`)
    await waitFor(() => waters.every((w) => bot.blockAt(w)?.name === 'water'), 3000, 'water placed')
    await assert.rejects(staircase.run(bot, { targetY: b.y - 4, direction: 'east' }, { cancelled: false }),
      /staircase blocked at .* after 0 steps: .*water at/)
    const out = await withTimeout(staircase.run(bot, { targetY: b.y - 4, direction: 'east', light: false, dam: true }, { cancelled: false }), 120000, 'staircase')
    assert.deepStrictEqual(out, { steps: 4, y: b.y - 4, turned: 0, torches: 0, dammed: 1, reason: 'reached' })
    assert.notStrictEqual(bot.blockAt(waters[0]).name, 'water', 'the water ahead walled off')
    for (const w of waters.slice(1)) assert.strictEqual(bot.blockAt(w).name, 'water', `the water at ${w} left as it was`)
    for (let k = 1; k <= 4; k++) assert.strictEqual(bot.blockAt(new Vec3(s.x + k, s.y - k, z)).name, 'air', `step ${k} dug`)
    assert.strictEqual(bot.health, 20, 'unharmed')
  })

  await t.test('torches to spare: it lights its way, no cell of the stairs farther than 7 blocks from one', async () => {
    const z = b.z - 2
    await place(b.x, z)
    await command(bot, '/give digger torch 6', { match: /gave 6 torch/ })
    await waitFor(() => bot.inventory.items().some((i) => i.name === 'torch'), 3000, 'torches held')
    const out = await withTimeout(staircase.run(bot, { targetY: b.y - 10, direction: 'east' }, { cancelled: false }), 120000, 'staircase')
    assert.strictEqual(out.reason, 'reached')
    const cells = Array.from({ length: 11 }, (_, k) => new Vec3(b.x + k, b.y - k, z))
    const torches = cells.filter((p) => bot.blockAt(p).name === 'torch')
    assert.ok(out.torches >= 1 && torches.length === out.torches, `${torches.length} torches on the steps, ${out.torches} said`)
    for (const p of cells) assert.ok(torches.some((q) => q.distanceTo(p) <= 7), `a torch within 7 blocks of ${p}`)
    assert.ok(out.torches <= 3, `no more than the cells 0, 4 and 8 need (${out.torches})`)
    const held = bot.inventory.items().filter((i) => i.name === 'torch').reduce((n, i) => n + i.count, 0)
    assert.strictEqual(held, 6 - out.torches)
  })

  await t.test('told not to light (a burrow fills its way in again): no torch, torches held', async () => {
    const z = b.z + 9
    await place(b.x, z)
    const out = await withTimeout(staircase.run(bot, { targetY: b.y - 5, direction: 'east', light: false }, { cancelled: false }), 120000, 'staircase')
    assert.deepStrictEqual(out, { steps: 5, y: b.y - 5, turned: 0, torches: 0, reason: 'reached' })
    for (let k = 0; k <= 5; k++) assert.notStrictEqual(bot.blockAt(new Vec3(b.x + k, b.y - k, z)).name, 'torch')
  })
})
