// Every search an action starts is bounded (lib/limits.js): collecting stone with no pickaxe is
// refused before any search (mineflayer-tool's harvest-tool lookup would otherwise loop until
// node runs out of memory), and a walk or a collect toward a block sealed in bedrock ends with
// the bound that stopped its search, the heap staying small meanwhile.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { pathfinder } = require('mineflayer-pathfinder')
const collectBlock = require('mineflayer-collectblock').plugin
const toolPlugin = require('mineflayer-tool').plugin
const { startServer, connectBot, waitFor, command, withTimeout } = require('./helpers')
const actions = require('../lib/actions')

const HEAP_GROWTH_MB = 300 // generous: a bounded search holds a few tens of MB

// Start an action through the bridge's action API and resolve its final status.
function runAction (bot, kind, args, timeoutMs) {
  const started = actions.start(bot, kind, args, timeoutMs)
  const done = new Promise((resolve) => {
    const onDone = (s) => { if (s.id === started.id) { bot.removeListener('mcbot_action_done', onDone); resolve(s) } }
    bot.on('mcbot_action_done', onDone)
  })
  return withTimeout(done, timeoutMs + 30000, `${kind} action`)
}

// Highest heapUsed seen while `promise` runs, sampled on a timer (a loop that never yields
// would stop the samples too: the action's end is awaited, so such a test fails on its timeout).
async function peakHeap (promise) {
  let peak = process.memoryUsage().heapUsed
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().heapUsed) }, 100)
  try { return { value: await promise, peak } } finally { clearInterval(timer) }
}

const searches = (bot) => {
  const seen = []
  const on = (r) => seen.push(r.status)
  bot.on('path_update', on)
  return { seen, stop: () => bot.removeListener('path_update', on) }
}

test('bounded searches', { timeout: 300000 }, async (t) => {
  const server = await startServer({ seed: 11, hostiles: false, animals: false })
  const bot = await connectBot(server.port, 'seeker', { plugins: [pathfinder, toolPlugin, collectBlock] })
  t.after(async () => { bot.quit(); await server.stop() })
  assert.deepStrictEqual(bot.inventory.items(), [], 'a fresh bot holds nothing')

  // A stone floor with room above it; a sponge (harvested by hand) sealed in a bedrock box on it.
  const b = bot.entity.position.floored()
  await command(bot, `/mcbot fill ${b.x - 8} ${b.y - 3} ${b.z - 8} ${b.x + 16} ${b.y - 1} ${b.z + 8} stone`, { timeout: 20000 })
  await command(bot, `/mcbot fill ${b.x - 8} ${b.y} ${b.z - 8} ${b.x + 16} ${b.y + 4} ${b.z + 8} air`, { timeout: 20000 })
  const box = { x: b.x + 8, y: b.y + 1, z: b.z }
  await command(bot, `/mcbot fill ${box.x - 1} ${box.y - 2} ${box.z - 1} ${box.x + 1} ${box.y + 1} ${box.z + 1} bedrock`)
  await command(bot, `/mcbot setblock ${box.x} ${box.y - 1} ${box.z} sponge`)
  await command(bot, `/mcbot setblock ${box.x} ${box.y} ${box.z} air`)
  const sponge = b.offset(8, 0, 0)
  await command(bot, `/mcbot tp seeker ${b.x + 0.5} ${b.y} ${b.z + 0.5}`)
  await waitFor(() => bot.entity.onGround && bot.entity.position.floored().equals(b) &&
    bot.blockAt(sponge)?.name === 'sponge' && bot.blockAt(sponge.offset(0, 2, 0))?.name === 'bedrock', 10000, 'the sealed sponge in view')

  await t.test('collecting stone with an empty inventory is refused before any search', async () => {
    const watch = searches(bot)
    const out = await runAction(bot, 'collect', { block: 'stone', count: 3, maxDistance: 32, item: 'cobblestone' }, 90000)
    watch.stop()
    assert.strictEqual(out.state, 'failed')
    assert.match(out.error, /^cannot harvest stone without one of: .*wooden_pickaxe.*stone_pickaxe/)
    assert.deepStrictEqual(watch.seen, [], 'no path was searched')
    assert.ok(bot.entity.position.floored().equals(b), 'the bot did not move')
  })

  await t.test('the harvest-tool lookup no longer loops when no tool is held', async () => {
    // (guarded by the collect action above; unguarded it never returns and fills the heap)
    const stone = bot.blockAt(bot.entity.position.offset(1, -1, 0))
    assert.strictEqual(stone.name, 'stone')
    await assert.rejects(withTimeout(bot.tool.equipForBlock(stone, { requireHarvest: true, getFromChest: true, maxTools: 2 }), 10000, 'equipForBlock'),
      /harvestable tool/)
  })

  await t.test('dig asking for the drop is refused without a harvest tool', async () => {
    const below = bot.entity.position.floored().offset(1, -1, 0)
    const out = await runAction(bot, 'dig', { x: below.x, y: below.y, z: below.z, harvest: true }, 30000)
    assert.strictEqual(out.state, 'failed')
    assert.match(out.error, /^cannot harvest stone without one of: .*wooden_pickaxe/)
    assert.strictEqual(bot.blockAt(below).name, 'stone')
  })

  await t.test('a walk to the sealed box ends on its search bound, the heap bounded', async () => {
    const start = process.memoryUsage().heapUsed
    const { value: out, peak } = await peakHeap(runAction(bot, 'move_to', { ...box, range: 0 }, 60000))
    assert.strictEqual(out.state, 'failed', JSON.stringify(out))
    assert.match(out.error, /^no progress toward .*no path within \d+ blocks (after [\d,]+ nodes|\(all [\d,]+ nodes in reach searched\))|search stopped after \d+ ms/)
    assert.ok(peak - start < HEAP_GROWTH_MB * 1e6, `heap grew ${((peak - start) / 1e6).toFixed(0)} MB`)
  })

  await t.test('a walk that may dig to the sealed box ends on its search bound, the heap bounded', async () => {
    await command(bot, `/mcbot tp seeker ${b.x + 0.5} ${b.y} ${b.z + 0.5}`)
    await waitFor(() => bot.entity.onGround && bot.entity.position.floored().equals(b), 10000, 'back at the start')
    const start = process.memoryUsage().heapUsed
    const args = { ...box, range: 0, digOnly: ['stone', 'dirt', 'grass_block'], stallMs: 20000 }
    const { value: out, peak } = await peakHeap(runAction(bot, 'move_to', args, 60000))
    assert.strictEqual(out.state, 'failed', JSON.stringify(out))
    assert.match(out.error, /^no progress toward .*no path within \d+ blocks (after [\d,]+ nodes|\(all [\d,]+ nodes in reach searched\))|search stopped after \d+ ms/)
    assert.ok(peak - start < HEAP_GROWTH_MB * 1e6, `heap grew ${((peak - start) / 1e6).toFixed(0)} MB`)
  })

  await t.test('collecting the sealed sponge ends on its search bound, the heap bounded', async () => {
    await command(bot, `/mcbot tp seeker ${b.x + 0.5} ${b.y} ${b.z + 0.5}`)
    await waitFor(() => bot.entity.onGround && bot.entity.position.floored().equals(b), 10000, 'back at the start')
    const start = process.memoryUsage().heapUsed
    const { value: out, peak } = await peakHeap(runAction(bot, 'collect', { block: 'sponge', count: 1, maxDistance: 32 }, 90000))
    assert.strictEqual(out.state, 'failed', JSON.stringify(out))
    const at = `${sponge.x},${sponge.y},${sponge.z}`
    assert.match(out.error, new RegExp(`^could not collect any sponge: no path to sponge at ${at}` +
      '( within \\d+ blocks (after [\\d,]+ nodes|\\(all [\\d,]+ nodes in reach searched\\))|: search stopped after \\d+ ms)'))
    assert.ok(peak - start < HEAP_GROWTH_MB * 1e6, `heap grew ${((peak - start) / 1e6).toFixed(0)} MB`)
    assert.strictEqual(bot.blockAt(sponge).name, 'sponge')
  })
})
