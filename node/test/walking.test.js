// A walk costs no food and a flight's sprint does (lib/walking.js): move_to walks unless asked
// to sprint, and the server charges vanilla's exhaustion for a sprinted metre (plugins/hunger.js);
// a flight told to stop hurt (stopAtHealth) breaks off when hurt, and one told to break off near
// a kind of mob (breakOffNear) when one comes near.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { oneVersion, startServer, connectBot, waitFor, command, runAction } = require('./helpers')
const { PLUGINS } = require('../lib/bots')

test('a walk of 80 blocks leaves the food as it was; the same run sprinted costs saturation', { timeout: 240000 }, async (t) => {
  const server = await startServer({ seed: 3, hostiles: false, animals: false })
  const bot = await connectBot(server.port, 'walker', { plugins: PLUGINS })
  t.after(async () => { bot.quit(); await server.stop() })
  const p = bot.entity.position.floored()
  const [x, y, z] = [p.x, p.y + 10, p.z] // a runway in the air, flat: no jump on the way
  await command(bot, `/mcbot fill ${x - 2} ${y - 1} ${z - 2} ${x + 84} ${y - 1} ${z + 2} stone`)
  await command(bot, `/mcbot fill ${x - 2} ${y} ${z - 2} ${x + 84} ${y + 3} ${z + 2} air`)
  const run = async (to, sprint) => {
    await command(bot, '/mcbot health walker 20')
    await command(bot, '/mcbot food walker 20 5')
    await waitFor(() => bot.food === 20 && bot.foodSaturation === 5 && bot.entity.onGround, 15000, 'fed, saturation 5, standing')
    const out = await runAction(bot, 'move_to', { x: to + 0.5, y, z: z + 0.5, range: 0.5, sprint }, 60000)
    assert.strictEqual(out.state, 'done', out.error)
    return bot.foodSaturation
  }
  await command(bot, `/mcbot tp walker ${x} ${y} ${z}`)
  await waitFor(() => bot.entity.onGround && Math.abs(bot.entity.position.y - y) < 0.01, 15000, 'on the runway')
  assert.strictEqual(await run(x + 80, false), 5, 'walked: no exhaustion')
  const sprinted = await run(x, true) // back, sprinting: 8 exhaustion, two saturation points
  assert.ok(sprinted < 5, `sprinted: saturation ${sprinted}`)
  assert.strictEqual(bot.pathfinder.movements.allowSprinting, false, 'the chase after a flight walks')
  // a flight told to stop hurt (stopAtHealth: one from an archer under ground) breaks off where it is
  await command(bot, '/mcbot health walker 20')
  await waitFor(() => bot.health === 20 && bot.entity.onGround, 15000, 'healed, standing')
  const flight = runAction(bot, 'move_to', { x: x + 80.5, y, z: z + 0.5, range: 0.5, sprint: true, stopAtHealth: 15 }, 60000)
  await waitFor(() => bot.entity.position.x > x + 5, 15000, 'under way')
  await command(bot, '/mcbot damage walker 6')
  const out = await flight
  assert.strictEqual(out.state, 'failed')
  assert.match(out.error, /^broke off: health 14 at or below 15/)
  assert.ok(bot.entity.position.x < x + 60, `stopped short (at x ${bot.entity.position.x.toFixed(1)})`)
  // ... or when a mob of a kind comes near (breakOffNear: a creeper, for an evasion): a cow penned
  // beside the runway 2 blocks off the bot's line
  const [cx, cz] = [x + 40, z + 2]
  await command(bot, `/mcbot fill ${cx - 1} ${y} ${cz - 1} ${cx + 1} ${y + 1} ${cz + 1} stone`)
  await command(bot, `/mcbot fill ${cx} ${y} ${cz} ${cx} ${y + 1} ${cz} air`)
  await command(bot, `/mcbot summon cow ${cx + 0.5} ${y} ${cz + 0.5}`)
  await waitFor(() => Object.values(bot.entities).some((e) => e.name === 'cow'), 10000, 'the cow in its pen')
  const start = bot.entity.position.x
  const passing = await runAction(bot, 'move_to', { x: x + 80.5, y, z: z + 0.5, range: 0.5, breakOffNear: { name: 'cow', within: 3 } }, 60000)
  assert.strictEqual(passing.state, 'failed', `walked ${start.toFixed(1)} -> ${bot.entity.position.x.toFixed(1)}`)
  assert.match(passing.error, /^broke off: a cow at [0-3]\.\d blocks/)
  assert.ok(Math.abs(bot.entity.position.x - cx) < 4, `stopped by the pen (at x ${bot.entity.position.x.toFixed(1)})`)
})

test('a path jumps no gap with a deep drop under it: it goes round, walking or sprinting', { timeout: 240000, ...oneVersion('the path is the pathfinder\'s, not the protocol\'s') }, async (t) => {
  const server = await startServer({ seed: 4, hostiles: false, animals: false })
  const bot = await connectBot(server.port, 'jumper', { plugins: PLUGINS })
  t.after(async () => { bot.quit(); await server.stop() })
  const p = bot.entity.position.floored()
  // a runway in the air 12 blocks over the ground, cut across by a gap (1 block wide, then 2)
  // with nothing under it; 3 blocks to the side the runway goes on whole: the way round
  const [x, y, z] = [p.x, p.y + 12, p.z]
  await command(bot, `/mcbot fill ${x - 2} ${y - 1} ${z - 2} ${x + 14} ${y - 1} ${z + 5} stone`)
  await command(bot, `/mcbot fill ${x - 2} ${y} ${z - 2} ${x + 14} ${y + 3} ${z + 5} air`)
  await command(bot, `/mcbot fill ${x + 6} ${y - 1} ${z - 2} ${x + 6} ${y - 1} ${z + 2} air`)
  await command(bot, `/mcbot tp jumper ${x + 0.5} ${y} ${z + 0.5}`)
  await waitFor(() => bot.entity.onGround && Math.abs(bot.entity.position.y - y) < 0.01, 15000, 'on the runway')
  const across = async (to, sprint, gap) => {
    let over = null // where the bot was over the gap, if it ever was
    const watch = () => {
      const q = bot.entity.position
      if (gap.includes(Math.floor(q.x)) && Math.floor(q.z) <= z + 1) over = over || q.clone() // (its edge, z + 2, is brushed going round)
    }
    bot.on('physicsTick', watch)
    try {
      const out = await runAction(bot, 'move_to', { x: to + 0.5, y, z: z + 0.5, range: 0.5, sprint }, 60000)
      assert.strictEqual(out.state, 'done', out.error)
    } finally {
      bot.removeListener('physicsTick', watch)
    }
    assert.strictEqual(over, null, `jumped the gap at ${over}`)
    assert.ok(Math.abs(bot.entity.position.y - y) < 0.01, `on the runway at ${bot.entity.position}`)
  }
  await across(x + 12, false, [x + 6]) // walking: pathfinder would jump the 1-block gap
  await command(bot, `/mcbot fill ${x + 7} ${y - 1} ${z - 2} ${x + 7} ${y - 1} ${z + 2} air`)
  await across(x, true, [x + 6, x + 7]) // sprinting (a flight): it would jump the 2-block gap
})
