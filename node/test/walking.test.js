// A walk costs no food and a flight's sprint does (lib/walking.js): move_to walks unless asked
// to sprint, and the server charges vanilla's exhaustion for a sprinted metre (plugins/hunger.js).
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { startServer, connectBot, waitFor, command, runAction } = require('./helpers')
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
})
