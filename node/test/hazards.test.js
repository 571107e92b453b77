// plugins/hazards.js: drowning and lava, counted in game ticks on a frozen clock.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { startServer, connectBot, waitFor, command, sprintTicks, stepTicks } = require('./helpers')

test('under water the air runs out in 300 ticks, then 2 damage; out of it the air comes back; lava burns 4', { timeout: 180000 }, async () => {
  const s = await startServer({ hostiles: false, animals: false })
  const bot = await connectBot(s.port, 'diver')
  try {
    await waitFor(() => bot.entity.onGround, 10000, 'standing')
    let lowest = bot.health // each hurt, before the natural regeneration takes it back
    bot.on('health', () => { lowest = Math.min(lowest, bot.health) })
    const p = bot.entity.position.floored()
    const x = p.x + 4
    const z = p.z
    // a flooded shaft two deep under a stone lid, in a stone block
    await command(bot, `/mcbot fill ${x - 1} ${p.y - 1} ${z - 1} ${x + 1} ${p.y + 3} ${z + 1} stone`)
    await command(bot, `/mcbot fill ${x} ${p.y} ${z} ${x} ${p.y + 1} ${z} water`)
    await command(bot, '/mcbot tick freeze')
    await command(bot, `/mcbot tp diver ${x + 0.5} ${p.y} ${z + 0.5}`, { match: /teleported diver/ })
    await waitFor(() => Math.floor(bot.entity.position.x) === x, 5000, 'in the shaft')
    await stepTicks(bot, 100)
    await waitFor(() => bot.oxygenLevel <= 14, 5000, `air falling (${bot.oxygenLevel})`)
    assert.strictEqual(bot.health, 20, 'no harm while there is air')
    await sprintTicks(bot, 230) // 330 ticks under water: the air ran out at 300, the first hurt at 320
    await waitFor(() => lowest <= 18, 5000, `drowning (${lowest})`)
    await command(bot, `/mcbot tp diver ${p.x + 0.5} ${p.y} ${p.z + 0.5}`, { match: /teleported diver/ })
    await waitFor(() => Math.floor(bot.entity.position.x) === p.x, 5000, 'out of the water')
    await stepTicks(bot, 80)
    await waitFor(() => bot.oxygenLevel === 20, 5000, `air back (${bot.oxygenLevel})`)

    await command(bot, '/mcbot health diver 20')
    await waitFor(() => bot.health === 20, 5000, 'healed')
    lowest = 20
    await command(bot, `/mcbot setblock ${p.x} ${p.y} ${p.z} lava`)
    await stepTicks(bot, 1)
    await waitFor(() => lowest <= 16, 5000, `burnt by lava (${lowest})`)
  } finally {
    await command(bot, '/mcbot tick unfreeze').catch(() => {})
    bot.quit()
    await s.stop()
  }
})
