// Every search an action starts is bounded (lib/limits.js): collecting stone with no pickaxe is
// refused before any search (mineflayer-tool's harvest-tool lookup would otherwise loop until
// node runs out of memory), and a walk or a collect toward a block sealed in bedrock ends with
// the bound that stopped its search, the heap staying small meanwhile. A collect gives up after
// MAX_FAILED such blocks in a row (and the next collect goes for those last), stops when its
// tool is gone, and names the blocks it took when none gave its item.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { startServer, connectBot, waitFor, command, withTimeout, oneVersion, runAction } = require('./helpers')
const { PLUGINS } = require('../lib/bots') // the bridge's bots load these

const HEAP_GROWTH_MB = 300 // generous: a bounded search holds a few tens of MB

// runAction's timeoutMs (helpers.js) is the action's own wall-clock limit (the bridge's, as in
// use), far above what its bounded searches take; a search may also end on its own time bound
// ('search stopped after N ms'), which is the bridge's behaviour under test, not a window of
// game time.

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

test('bounded searches', { timeout: 300000, ...oneVersion('search bounds and heap size belong to the pathfinder, not the protocol') }, async (t) => {
  const server = await startServer({ seed: 11, hostiles: false, animals: false })
  const bot = await connectBot(server.port, 'seeker', { plugins: PLUGINS })
  t.after(async () => { bot.quit(); await server.stop() })
  assert.deepStrictEqual(bot.inventory.items(), [], 'a fresh bot holds nothing')

  // A stone floor with room above it; sponges (harvested by hand) sealed in bedrock boxes on it,
  // 8, 9.4, 13 and 14.9 blocks from the bot: a collect tries them nearest first.
  const b = bot.entity.position.floored()
  await command(bot, `/mcbot fill ${b.x - 8} ${b.y - 3} ${b.z - 8} ${b.x + 16} ${b.y - 1} ${b.z + 8} stone`, { timeout: 60000 })
  await command(bot, `/mcbot fill ${b.x - 8} ${b.y} ${b.z - 8} ${b.x + 16} ${b.y + 4} ${b.z + 8} air`, { timeout: 60000 })
  const sponges = [[8, 0], [8, 5], [12, -5], [14, 5]].map(([dx, dz]) => b.offset(dx, 0, dz))
  for (const s of sponges) {
    await command(bot, `/mcbot fill ${s.x - 1} ${s.y - 1} ${s.z - 1} ${s.x + 1} ${s.y + 2} ${s.z + 1} bedrock`)
    await command(bot, `/mcbot setblock ${s.x} ${s.y} ${s.z} sponge`)
    await command(bot, `/mcbot setblock ${s.x} ${s.y + 1} ${s.z} air`)
  }
  const [sponge] = sponges
  const box = { x: sponge.x, y: sponge.y + 1, z: sponge.z } // the air cell above the nearest one
  await command(bot, `/mcbot tp seeker ${b.x + 0.5} ${b.y} ${b.z + 0.5}`)
  await waitFor(() => bot.entity.onGround && bot.entity.position.floored().equals(b) &&
    sponges.every((s) => bot.blockAt(s)?.name === 'sponge' && bot.blockAt(s.offset(0, 2, 0))?.name === 'bedrock'), 10000, 'the sealed sponges in view')

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
    // (guarded by lib/harvest's plugin among the bridge's; unguarded it never returns and fills the heap)
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
    // (a stall timer above the search's own time bound, PATH_THINK_MS: on a slow machine the
    // search may take longer than the walk's default 8 s without progress, and would lose)
    const { value: out, peak } = await peakHeap(runAction(bot, 'move_to', { ...box, range: 0, stallMs: 20000 }, 60000))
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

  await t.test('collecting sealed sponges gives up after 3 unreachable in a row, each on its search bound, the heap bounded', async () => {
    await command(bot, `/mcbot tp seeker ${b.x + 0.5} ${b.y} ${b.z + 0.5}`)
    await waitFor(() => bot.entity.onGround && bot.entity.position.floored().equals(b), 10000, 'back at the start')
    const tried = new Set() // the blocks collectblock went for (its goal: reach and look at one)
    const onGoal = (goal) => { if (goal && goal.pos) tried.add(goal.pos.toString()) }
    bot.on('goal_updated', onGoal)
    const start = process.memoryUsage().heapUsed
    const { value: out, peak } = await peakHeap(runAction(bot, 'collect', { block: 'sponge', count: 1, maxDistance: 32 }, 150000))
    bot.removeListener('goal_updated', onGoal)
    assert.strictEqual(out.state, 'failed', JSON.stringify(out))
    const at = `${sponge.x},${sponge.y},${sponge.z}`
    assert.match(out.error, new RegExp(`^could not collect any sponge: no path to sponge at ${at}` +
      '( within \\d+ blocks (after [\\d,]+ nodes|\\(all [\\d,]+ nodes in reach searched\\))|: search stopped after \\d+ ms \\([\\d,]+ nodes\\))' +
      ' \\(gave up after 3 sponge in a row could not be collected\\)$'))
    assert.deepStrictEqual([...tried], sponges.slice(0, 3).map(String), 'the three nearest tried, the farthest not')
    assert.ok(peak - start < HEAP_GROWTH_MB * 1e6, `heap grew ${((peak - start) / 1e6).toFixed(0)} MB`)
    for (const s of sponges) assert.strictEqual(bot.blockAt(s).name, 'sponge')
  })

  await t.test('the next collect goes for the sponges it just failed on last: an open one farther off is taken first', async () => {
    // 9.9 blocks off: nearer than the third sealed one, farther than the first two
    const open = b.offset(-7, 0, -7)
    await command(bot, `/mcbot setblock ${open.x} ${open.y} ${open.z} sponge`)
    await command(bot, `/mcbot tp seeker ${b.x + 0.5} ${b.y} ${b.z + 0.5}`)
    await waitFor(() => bot.entity.onGround && bot.entity.position.floored().equals(b) && bot.blockAt(open)?.name === 'sponge',
      10000, 'back at the start, the open sponge in view')
    const tried = []
    const onGoal = (goal) => { if (goal && goal.pos && !tried.includes(String(goal.pos))) tried.push(String(goal.pos)) }
    bot.on('goal_updated', onGoal)
    const out = await runAction(bot, 'collect', { block: 'sponge', count: 1, maxDistance: 32 }, 150000)
    bot.removeListener('goal_updated', onGoal)
    assert.strictEqual(out.state, 'done', JSON.stringify(out))
    assert.deepStrictEqual({ gained: out.result.gained, skipped: out.result.skipped }, { gained: 1, skipped: 0 })
    assert.deepStrictEqual(tried, [String(open)], 'the open sponge first, none of the sealed ones again')
  })

  await t.test('with no slot free a collect tosses a stack of filler first (collectblock wants a chest)', async () => {
    await waitFor(() => bot.entity.onGround, 10000, 'the bot on the ground')
    const dirt = () => bot.inventory.items().filter((i) => i.name === 'dirt').reduce((n, i) => n + i.count, 0)
    let given = 0
    while (bot.inventory.emptySlotCount() > 0 && given++ < 40) {
      const had = dirt()
      await command(bot, '/give seeker dirt 64', { match: /gave 64/ })
      await waitFor(() => dirt() > had, 5000, `the dirt given (${had} held, ${bot.inventory.emptySlotCount()} slots free)`)
    }
    assert.strictEqual(bot.inventory.emptySlotCount(), 0, 'every slot full')
    const slab = bot.entity.position.floored().offset(-2, 0, -2)
    await command(bot, `/mcbot setblock ${slab.x} ${slab.y} ${slab.z} sponge`)
    await waitFor(() => bot.blockAt(slab)?.name === 'sponge', 10000, 'the sponge in view')
    const out = await runAction(bot, 'collect', { block: 'sponge', count: 1, maxDistance: 16 }, 60000)
    assert.strictEqual(out.state, 'done', JSON.stringify(out))
    assert.deepStrictEqual([out.result.gained, out.result.tossed], [1, [{ name: 'dirt', count: 64 }]], JSON.stringify(out.result))
    for (const stack of bot.inventory.items().filter((i) => i.name === 'dirt')) await bot.tossStack(stack) // room for the rest
    assert.ok(bot.inventory.emptySlotCount() > 30, 'the dirt gone again')
  })

  await t.test('a collect stops when its pickaxe is gone after a block', async () => {
    // The embedded world wears no tool out (and /give takes no NBT), so the break is staged as the
    // client sees one: the server empties the tool's slot. Here that slot is emptied the moment
    // the first block's dig completes, before the collect goes on to the next block.
    await command(bot, `/mcbot tp seeker ${b.x + 0.5} ${b.y} ${b.z + 0.5}`)
    await waitFor(() => bot.entity.onGround && bot.entity.position.floored().equals(b), 10000, 'back at the start')
    await command(bot, '/give seeker wooden_pickaxe 1', { match: /gave 1/ })
    const pickaxe = await waitFor(() => bot.inventory.items().find((i) => i.name === 'wooden_pickaxe'), 3000, 'the pickaxe')
    const broke = () => bot.inventory.updateSlot(pickaxe.slot, null)
    bot.once('diggingCompleted', broke)
    const out = await runAction(bot, 'collect', { block: 'stone', count: 3, maxDistance: 32, item: 'cobblestone' }, 90000)
    bot.removeListener('diggingCompleted', broke)
    assert.strictEqual(out.state, 'done', JSON.stringify(out))
    const { collected, gained, stopped } = out.result
    assert.deepStrictEqual({ collected, gained }, { collected: 1, gained: 1 }, 'the block dug with the pickaxe, and no other')
    assert.match(stopped, /^cannot harvest stone without one of: .*wooden_pickaxe/)
  })

  await t.test('a collect whose blocks give none of its item says which it took, with what, and where the bot stood', async () => {
    // Glass drops nothing without silk touch: taken, and nothing after it.
    const glass = b.offset(-3, 0, 0)
    await command(bot, `/mcbot setblock ${glass.x} ${glass.y} ${glass.z} glass`)
    await waitFor(() => bot.blockAt(glass)?.name === 'glass', 10000, 'the glass in view')
    const out = await runAction(bot, 'collect', { block: 'glass', count: 1, maxDistance: 16 }, 90000)
    assert.strictEqual(bot.blockAt(glass).name, 'air', 'the glass was taken')
    assert.match(out.error, new RegExp(`^no glass came from 1 glass taken \\(first: glass at ${glass.x},${glass.y},${glass.z} ` +
      'taken with [a-z_ ]+, bot at -?\\d+\\.\\d,-?\\d+\\.\\d,-?\\d+\\.\\d\\)$'))
  })

  await t.test('a collectblock task that never ends does not hold up the next collect', async () => {
    // collectblock waits for a target entity to go before its task ends, and cancels (waits for)
    // its last task before each collect. Given the bot itself, which never goes, its task never
    // ends: the state a bench bot's hut walls met, its collects standing still for minutes.
    await waitFor(() => bot.entity.onGround, 10000, 'the bot on the ground')
    let ended = false
    bot.collectBlock.collect(bot.entity).then(() => { ended = true }, () => { ended = true })
    await waitFor(() => !bot.collectBlock.targets.empty, 3000, 'a collectblock task of its own')
    const dirt = bot.entity.position.floored().offset(-2, 0, 1)
    await command(bot, `/mcbot setblock ${dirt.x} ${dirt.y} ${dirt.z} dirt`)
    await waitFor(() => bot.blockAt(dirt)?.name === 'dirt', 10000, 'the dirt in view')
    // its own limit, under one block's PER_BLOCK_MS (45 s): waiting on the old task, it fails
    const out = await runAction(bot, 'collect', { block: 'dirt', count: 1, maxDistance: 16 }, 30000)
    assert.strictEqual(out.state, 'done', JSON.stringify(out))
    assert.deepStrictEqual([out.result.gained, out.result.staleTasks], [1, 1], JSON.stringify(out.result))
    assert.strictEqual(bot.blockAt(dirt).name, 'air', 'the dirt was taken')
    assert.ok(!ended, 'the old task was let go of, not ended')
  })

  await t.test('nor the pick of a plant, whose drops collectblock picks up', async () => {
    await waitFor(() => bot.entity.onGround, 10000, 'the bot on the ground')
    bot.collectBlock.collect(bot.entity).catch(() => {})
    await waitFor(() => !bot.collectBlock.targets.empty, 3000, 'a collectblock task of its own')
    const flower = bot.entity.position.floored().offset(2, 0, -1)
    await command(bot, `/mcbot setblock ${flower.x} ${flower.y - 1} ${flower.z} dirt`)
    await command(bot, `/mcbot setblock ${flower.x} ${flower.y} ${flower.z} dandelion`)
    await waitFor(() => bot.blockAt(flower)?.name === 'dandelion', 10000, 'the dandelion in view')
    const out = await runAction(bot, 'collect', { block: 'dandelion', count: 1, maxDistance: 16 }, 30000)
    assert.strictEqual(out.state, 'done', JSON.stringify(out))
    assert.deepStrictEqual([out.result.gained, out.result.staleTasks], [1, 1], JSON.stringify(out.result))
  })
})
