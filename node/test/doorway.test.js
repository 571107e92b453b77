// The actions the night-shelter reflex uses: activate with `ensure` (use a block only if it
// is not already so) and step (a straight walk through an open doorway, which pathfinder
// cannot plan: it puts the waypoint on top of the door).
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { startServer, connectBot, waitFor, command } = require('./helpers')
const activate = require('../lib/actions/activate')
const step = require('../lib/actions/step')

test('through a door: activate ensure, step in, blocked by a closed door', { timeout: 180000 }, async (t) => {
  const server = await startServer({ seed: 3, hostiles: false })
  const bot = await connectBot(server.port, 'walker')
  t.after(async () => { bot.quit(); await server.stop() })

  // a planks wall along x = w.x with a west-facing door in it; the bot stands west of the door
  const w = bot.entity.position.floored().offset(3, 0, 0)
  await command(bot, `/mcbot fill ${w.x - 6} ${w.y - 1} ${w.z - 6} ${w.x + 6} ${w.y - 1} ${w.z + 6} stone`)
  await command(bot, `/mcbot fill ${w.x - 6} ${w.y} ${w.z - 6} ${w.x + 6} ${w.y + 4} ${w.z + 6} air`)
  await command(bot, `/mcbot fill ${w.x} ${w.y} ${w.z - 6} ${w.x} ${w.y + 3} ${w.z + 6} oak_planks`)
  await command(bot, `/mcbot setblock ${w.x} ${w.y} ${w.z} oak_door[facing=west,half=lower,open=false]`)
  await command(bot, `/mcbot setblock ${w.x} ${w.y + 1} ${w.z} oak_door[facing=west,half=upper,open=false]`)
  await command(bot, `/mcbot tp walker ${w.x - 1} ${w.y} ${w.z}`)
  await waitFor(() => bot.entity.onGround && bot.entity.position.floored().x === w.x - 1 &&
    bot.blockAt(w)?.name === 'oak_door', 10000, 'in front of the door')
  const door = { x: w.x, y: w.y, z: w.z }
  const inside = { x: w.x + 1, y: w.y, z: w.z }

  // The step's own stall timer is the behaviour under test, and it runs on wall-clock time (1.5 s
  // without getting closer): 'fast' is well short of the test's timeout, with room for a
  // loaded machine.
  await t.test('a closed door blocks the step, which fails fast', async () => {
    const started = Date.now()
    await assert.rejects(step.run(bot, inside, { cancelled: false }), /blocked/)
    assert.ok(Date.now() - started < 15000, `failed after ${Date.now() - started} ms`)
    assert.ok(bot.entity.position.floored().x < w.x + 1) // short of the cell behind the door
  })

  await t.test('ensure open uses the door once; a second ensure leaves it open', async () => {
    const first = await activate.run(bot, { ...door, ensure: { open: true } })
    assert.strictEqual(first.used, true)
    assert.strictEqual(first.properties.open, true)
    const again = await activate.run(bot, { ...door, ensure: { open: true } })
    assert.strictEqual(again.used, false)
    assert.strictEqual(bot.blockAt(w).getProperties().open, true)
  })

  await t.test('step walks through the open doorway into the cell behind it', async () => {
    const out = await step.run(bot, inside, { cancelled: false })
    assert.ok(out.position)
    await waitFor(() => bot.entity.onGround, 10000, 'standing')
    assert.strictEqual(bot.entity.position.floored().x, w.x + 1)
    assert.strictEqual(bot.entity.position.floored().z, w.z)
    const closed = await activate.run(bot, { ...door, ensure: { open: false } })
    assert.strictEqual(closed.used, true)
    assert.strictEqual(closed.properties.open, false)
  })
})
