// lib/actions/surface.js: up for air and ashore, from water wider than the 16 blocks the
// nearest-ground search reaches (a bench bot trod water in a lake for half a game day).
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { oneVersion, startServer, connectBot, waitFor, command, runAction } = require('./helpers')
const { PLUGINS } = require('../lib/bots')

test('a bot on the floor of a lake 50 blocks wide and 12 deep swims up and to its shore', { timeout: 300000, ...oneVersion('the swim is the bot\'s physics, not the protocol\'s') }, async (t) => {
  const server = await startServer({ seed: 9, hostiles: false, animals: false })
  const bot = await connectBot(server.port, 'swimmer', { plugins: PLUGINS })
  t.after(async () => { bot.quit(); await server.stop() })
  const b = bot.entity.position.floored()
  const R = 25
  const DEPTH = 12 // from its floor the rim is beyond the first look's rise (surface.js SHORE_RISE)
  // a stone basin, water DEPTH deep to the ground's level, a dry stone rim 3 wide, open sky
  const half = b.y - Math.ceil(DEPTH / 2) // two fills: one is at most 32768 blocks (plugins/commands.js)
  await command(bot, `/mcbot fill ${b.x - R - 3} ${b.y - DEPTH - 1} ${b.z - R - 3} ${b.x + R + 3} ${half - 1} ${b.z + R + 3} stone`, { timeout: 60000 })
  await command(bot, `/mcbot fill ${b.x - R - 3} ${half} ${b.z - R - 3} ${b.x + R + 3} ${b.y - 1} ${b.z + R + 3} stone`, { timeout: 60000 })
  await command(bot, `/mcbot fill ${b.x - R - 3} ${b.y} ${b.z - R - 3} ${b.x + R + 3} ${b.y + 6} ${b.z + R + 3} air`, { timeout: 60000 })
  await command(bot, `/mcbot fill ${b.x - R} ${b.y - DEPTH} ${b.z - R} ${b.x + R} ${b.y - 1} ${b.z + R} water`, { timeout: 60000 })
  await command(bot, '/mcbot time 1000')
  await waitFor(() => bot.blockAt(b.offset(R, -1, 0))?.name === 'water', 15000, 'the lake')
  await command(bot, `/mcbot tp swimmer ${b.x + 0.5} ${b.y - DEPTH} ${b.z + 0.5}`)
  await waitFor(() => bot.entity.position.y < b.y - DEPTH + 1, 15000, 'the bot at the lake\'s floor')
  let out = null
  for (let call = 0; call < 4 && !out?.onLand; call++) {
    const st = await runAction(bot, 'surface', {}, 24000)
    assert.strictEqual(st.state, 'done', `ended ${st.state}: ${st.error}`)
    out = st.result
    assert.ok(out.land, `no shore found from ${JSON.stringify(out.at)}`)
  }
  assert.ok(out.onLand, `not ashore after 4 calls: ${JSON.stringify(out)}`)
  const p = bot.entity.position
  assert.ok(Math.max(Math.abs(p.x - b.x), Math.abs(p.z - b.z)) > R, `on the rim, not in the lake: ${p}`)
})

test('a bot under water heads for a bank it can climb, not a nearer one two blocks over the water', { timeout: 300000, ...oneVersion('the swim is the bot\'s physics, not the protocol\'s') }, async (t) => {
  const server = await startServer({ seed: 9, hostiles: false, animals: false })
  const bot = await connectBot(server.port, 'climber', { plugins: PLUGINS })
  t.after(async () => { bot.quit(); await server.stop() })
  const b = bot.entity.position.floored()
  const R = 8
  const DEPTH = 6
  // a stone basin, water to the ground's level, a dry rim level with the water's top all round
  // but on the east, where a wall stands two blocks over the water
  await command(bot, `/mcbot fill ${b.x - R - 3} ${b.y - DEPTH - 1} ${b.z - R - 3} ${b.x + R + 3} ${b.y - 1} ${b.z + R + 3} stone`, { timeout: 60000 })
  await command(bot, `/mcbot fill ${b.x - R - 3} ${b.y} ${b.z - R - 3} ${b.x + R + 3} ${b.y + 6} ${b.z + R + 3} air`, { timeout: 60000 })
  await command(bot, `/mcbot fill ${b.x + R + 1} ${b.y} ${b.z - R - 3} ${b.x + R + 3} ${b.y + 1} ${b.z + R + 3} stone`, { timeout: 60000 })
  await command(bot, `/mcbot fill ${b.x - R} ${b.y - DEPTH} ${b.z - R} ${b.x + R} ${b.y - 1} ${b.z + R} water`, { timeout: 60000 })
  await command(bot, '/mcbot time 1000')
  await waitFor(() => bot.blockAt(b.offset(R, -1, 0))?.name === 'water', 15000, 'the lake')
  await command(bot, `/mcbot tp climber ${b.x + R - 1.5} ${b.y - DEPTH} ${b.z + 0.5}`)
  await waitFor(() => bot.entity.position.y < b.y - DEPTH + 1, 15000, 'the bot at the lake\'s floor')
  const st = await runAction(bot, 'surface', {}, 24000)
  assert.strictEqual(st.state, 'done', `ended ${st.state}: ${st.error}`)
  const out = st.result
  assert.ok(out.land && out.land.y === b.y - 1, `headed for ${JSON.stringify(out.land)}, not the low rim at y ${b.y - 1}`)
  assert.ok(out.onLand, `not ashore: ${JSON.stringify(out)}`)
  const p = bot.entity.position
  assert.ok(Math.max(Math.abs(p.x - b.x), Math.abs(p.z - b.z)) > R && p.x < b.x + R, `on the low rim, not in the lake nor on the wall: ${p}`)
})
