// The 'sleep' long action (node/lib/actions/sleep.js) on mineflayer's bot.sleep/bot.wake: what
// it adds to them. A bed the server refuses (obstructed: mineflayer does not check that one and
// only says "bot is not sleeping") fails with the server's own words; at night it resolves once
// the bot is in bed; {wake: true} gets up and waits for 'wake'; a cancelled action gets the bot
// out of bed.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { startServer, connectBot, waitFor, command } = require('./helpers')
const sleepAction = require('../lib/actions/sleep')

test('the sleep action', { timeout: 180000 }, async (t) => {
  const server = await startServer({ seed: 5, hostiles: false })
  const bot = await connectBot(server.port, 'napper')
  t.after(async () => { bot.quit(); await server.stop() })

  const base = bot.entity.position.floored()
  await command(bot, `/mcbot fill ${base.x - 4} ${base.y - 1} ${base.z - 4} ${base.x + 4} ${base.y - 1} ${base.z + 4} stone`)
  await command(bot, `/mcbot fill ${base.x - 4} ${base.y} ${base.z - 4} ${base.x + 4} ${base.y + 4} ${base.z + 4} air`)
  const foot = base.offset(2, 0, 0)
  const head = base.offset(2, 0, -1)
  await command(bot, `/mcbot setblock ${foot.x} ${foot.y} ${foot.z} white_bed[facing=north,part=foot]`)
  await command(bot, `/mcbot setblock ${head.x} ${head.y} ${head.z} white_bed[facing=north,part=head]`)
  await waitFor(() => bot.blockAt(head)?.name === 'white_bed' && bot.entity.onGround, 5000, 'a bed beside the bot')
  await command(bot, '/mcbot time 14000')
  await waitFor(() => bot.time.timeOfDay >= 14000, 3000, 'night')
  // No tick runs from here on: a bot alone asleep for 100 ticks would have the night skipped,
  // and nothing these tests do waits on a tick.
  await command(bot, '/mcbot tick freeze')
  const at = { x: foot.x, y: foot.y, z: foot.z }

  await t.test('an obstructed bed fails with the server\'s words', async () => {
    await command(bot, `/mcbot setblock ${head.x} ${head.y + 1} ${head.z} stone`)
    await waitFor(() => bot.blockAt(head.offset(0, 1, 0))?.name === 'stone', 3000, 'a block over the bed')
    await assert.rejects(sleepAction.run(bot, at, { cancelled: false }), /cannot sleep in the bed at .*the server says: .*obstructed/i)
    assert.strictEqual(bot.isSleeping, false)
    await command(bot, `/mcbot setblock ${head.x} ${head.y + 1} ${head.z} air`)
    await waitFor(() => bot.blockAt(head.offset(0, 1, 0))?.name === 'air', 3000, 'the bed clear')
  })

  await t.test('at night it resolves in bed; wake gets up and waits for it', async () => {
    const out = await sleepAction.run(bot, at, { cancelled: false })
    assert.strictEqual(out.sleeping, true)
    assert.strictEqual(bot.isSleeping, true)
    const up = await sleepAction.run(bot, { wake: true }, { cancelled: false })
    assert.deepStrictEqual(up, { sleeping: false, woke: true })
    const again = await sleepAction.run(bot, { wake: true }, { cancelled: false })
    assert.strictEqual(again.woke, false) // already up: nothing to do, no error
  })

  await t.test('a cancelled action gets the bot out of bed', async () => {
    await sleepAction.run(bot, at, { cancelled: false })
    assert.strictEqual(bot.isSleeping, true)
    sleepAction.stop(bot)
    await waitFor(() => !bot.isSleeping, 3000, 'out of bed')
  })

  await t.test('no bed there is a clear error', async () => {
    await assert.rejects(sleepAction.run(bot, { x: base.x - 2, y: base.y, z: base.z }, { cancelled: false }), /no bed at .* \(found air\)/)
  })
})
