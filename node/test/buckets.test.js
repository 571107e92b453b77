// Buckets (plugins/buckets.js and lib/actions/fill_bucket.js): an empty bucket fills from a
// water or a lava source in view and takes it away, never from a flowing cell, steps up to a
// source out of reach, and fills with milk from a cow; one of a stack is filled.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { Vec3 } = require('vec3')
const { pathfinder } = require('mineflayer-pathfinder')
const { startServer, connectBot, waitFor, command, withTimeout } = require('./helpers')
const fillBucket = require('../lib/actions/fill_bucket')

test('buckets', { timeout: 180000 }, async (t) => {
  const server = await startServer({ seed: 5, hostiles: false, animals: false })
  const bot = await connectBot(server.port, 'filler', { plugins: [pathfinder] }) // a far source is walked to
  t.after(async () => { bot.quit(); await server.stop() })
  const count = (n) => bot.inventory.count(bot.registry.itemsByName[n].id)
  const p = bot.entity.position.floored()
  // a stone floor around the bot with three one-block pools in it, two blocks away
  await command(bot, `/mcbot fill ${p.x - 4} ${p.y - 2} ${p.z - 4} ${p.x + 4} ${p.y - 1} ${p.z + 4} stone`, { timeout: 30000 })
  await command(bot, `/mcbot fill ${p.x - 4} ${p.y} ${p.z - 4} ${p.x + 4} ${p.y + 2} ${p.z + 4} air`, { timeout: 30000 })
  const water = new Vec3(p.x + 2, p.y - 1, p.z)
  const lava = new Vec3(p.x - 2, p.y - 1, p.z)
  const flowing = new Vec3(p.x, p.y - 1, p.z + 2)
  await command(bot, `/mcbot setblock ${water.x} ${water.y} ${water.z} water`)
  await command(bot, `/mcbot setblock ${lava.x} ${lava.y} ${lava.z} lava`)
  await command(bot, `/mcbot setblock ${flowing.x} ${flowing.y} ${flowing.z} water[level=3]`)
  await waitFor(() => bot.blockAt(lava)?.name === 'lava' && bot.blockAt(water)?.name === 'water', 5000, 'pools made')
  await command(bot, '/give filler bucket 3', { match: /gave 3 bucket/ })
  await waitFor(() => count('bucket') === 3, 3000, 'buckets held')

  await t.test('a flowing cell is no source: nothing is filled', async () => {
    await command(bot, `/mcbot setblock ${water.x} ${water.y} ${water.z} stone`) // only the flowing cell left of water
    await waitFor(() => bot.blockAt(water)?.name === 'stone', 3000, 'water covered')
    await assert.rejects(fillBucket.run(bot, { fluid: 'water' }, { cancelled: false }), /no water source within 4.5 blocks in view/)
    await command(bot, `/mcbot setblock ${water.x} ${water.y} ${water.z} water`)
    await waitFor(() => bot.blockAt(water)?.name === 'water', 3000, 'water back')
  })

  await t.test('water and lava sources fill one bucket of the stack each and are taken away', async () => {
    const w = await withTimeout(fillBucket.run(bot, { fluid: 'water' }, { cancelled: false }), 15000, 'fill water')
    assert.deepStrictEqual(w, { fluid: 'water', filled: 'water_bucket', have: 1 })
    await waitFor(() => bot.blockAt(water)?.name === 'air', 3000, 'the water source taken')
    const l = await withTimeout(fillBucket.run(bot, { fluid: 'lava' }, { cancelled: false }), 15000, 'fill lava')
    assert.strictEqual(l.have, 1)
    await waitFor(() => bot.blockAt(lava)?.name === 'air', 3000, 'the lava source taken')
    assert.strictEqual(count('bucket'), 1)
  })

  await t.test('a source out of reach is stepped up to, standing dry', async () => {
    const far = new Vec3(p.x - 4, p.y - 1, p.z - 4) // about 6 blocks from the eyes: out of reach
    await command(bot, `/mcbot setblock ${far.x} ${far.y} ${far.z} lava`)
    await waitFor(() => bot.blockAt(far)?.name === 'lava', 3000, 'the far pool made')
    await command(bot, '/give filler bucket 1', { match: /gave 1 bucket/ })
    await waitFor(() => count('bucket') === 2, 3000, 'a second bucket held')
    const l = await withTimeout(fillBucket.run(bot, { fluid: 'lava' }, { cancelled: false }), 30000, 'fill far lava')
    assert.strictEqual(l.have, 2)
    await waitFor(() => bot.blockAt(far)?.name === 'air', 3000, 'the far lava source taken')
    assert.ok(!['lava', 'water'].includes(bot.blockAt(bot.entity.position.floored())?.name), 'standing dry')
    assert.strictEqual(count('bucket'), 1)
  })

  await t.test('a cow in reach fills the last bucket with milk', async () => {
    await command(bot, `/mcbot summon cow ${p.x + 0.5} ${p.y} ${p.z + 2.5}`, { match: /summoned cow/ })
    await waitFor(() => bot.nearestEntity((e) => e.name === 'cow'), 5000, 'the cow in view')
    const m = await withTimeout(fillBucket.run(bot, { fluid: 'milk' }, { cancelled: false }), 15000, 'milk')
    assert.strictEqual(m.filled, 'milk_bucket')
    assert.strictEqual(count('bucket'), 0)
    await assert.rejects(fillBucket.run(bot, { fluid: 'water' }, { cancelled: false }), /no empty bucket held/)
  })
})
