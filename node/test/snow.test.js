// lib/block_data.js: a snow layer is walked through at every version (minecraft-data's 1.18.2
// gives it a full block's bounding box; a 1.18.2 shelter's builder could not step onto a snowy
// cell in a bench run).
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { startServer, connectBot, waitFor, command, runAction, VERSION } = require('./helpers')
const { PLUGINS } = require('../lib/bots')
const { fixBlocks } = require('../lib/block_data')

test('the snow layer has no full block\'s bounding box in any version\'s data once fixed', () => {
  for (const v of ['1.18.2', '1.21.4', '1.21.11', VERSION]) {
    const registry = fixBlocks(require('prismarine-registry')(v))
    assert.strictEqual(registry.blocksByName.snow.boundingBox, 'empty', v)
  }
})

test('a bot walks to a cell across a snowy floor and stands in the snow', { timeout: 240000 }, async (t) => {
  const server = await startServer({ seed: 8, hostiles: false, animals: false })
  const bot = await connectBot(server.port, 'snowwalker', { plugins: PLUGINS })
  t.after(async () => { bot.quit(); await server.stop() })
  const b = bot.entity.position.floored()
  // a corridor 10 long with walls and a roof: the only way to its far end is over the snow
  await command(bot, `/mcbot fill ${b.x - 1} ${b.y - 1} ${b.z - 1} ${b.x + 11} ${b.y + 2} ${b.z + 1} stone`, { timeout: 60000 })
  await command(bot, `/mcbot fill ${b.x} ${b.y} ${b.z} ${b.x + 10} ${b.y + 1} ${b.z} air`, { timeout: 60000 })
  await command(bot, `/mcbot fill ${b.x + 2} ${b.y} ${b.z} ${b.x + 10} ${b.y} ${b.z} snow`, { timeout: 60000 })
  await waitFor(() => bot.blockAt(b.offset(10, 0, 0))?.name === 'snow', 10000, 'the snow laid')
  const st = await runAction(bot, 'move_to', { x: b.x + 10.5, y: b.y, z: b.z + 0.5, range: 0 }, 60000)
  assert.strictEqual(st.state, 'done', `ended ${st.state}: ${st.error}`)
  assert.ok(bot.entity.position.floored().equals(b.offset(10, 0, 0)), `at ${bot.entity.position}`)
})
