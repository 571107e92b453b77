// lib/snapshot.js: what the snapshot says of the rock over the bot's head (`cover`).
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { startServer, connectBot, waitFor, command } = require('./helpers')
const { snapshot } = require('../lib/snapshot')

test('cover counts the solid blocks over the head, leaves left out', { timeout: 120000 }, async () => {
  const s = await startServer({ hostiles: false, animals: false })
  const bot = await connectBot(s.port, 'miner')
  try {
    await waitFor(() => bot.entity.onGround, 10000, 'standing')
    const p = bot.entity.position.floored()
    const above = (dy) => bot.blockAt(p.offset(0, dy, 0))
    await command(bot, `/mcbot fill ${p.x} ${p.y + 2} ${p.z} ${p.x} ${p.y + 20} ${p.z} air`)
    await waitFor(() => above(2).name === 'air' && above(12).name === 'air', 5000, 'open sky')
    assert.strictEqual(snapshot(bot).cover, 0)

    // five blocks of stone a block over the head, then two of them turned to leaves
    await command(bot, `/mcbot fill ${p.x} ${p.y + 3} ${p.z} ${p.x} ${p.y + 7} ${p.z} stone`)
    await waitFor(() => above(3).name === 'stone' && above(7).name === 'stone', 5000, 'the stone')
    assert.strictEqual(snapshot(bot).cover, 5)
    await command(bot, `/mcbot fill ${p.x} ${p.y + 4} ${p.z} ${p.x} ${p.y + 5} ${p.z} oak_leaves`)
    await waitFor(() => above(4).name === 'oak_leaves' && above(5).name === 'oak_leaves', 5000, 'the leaves')
    assert.strictEqual(snapshot(bot).cover, 3)
  } finally {
    bot.quit()
    await s.stop()
  }
})
