// A collect's limits on the blocks it goes for. Told to take only dry blocks (dryOnly: the
// caller's rule for ore and stone, which flood as they open) it leaves an ore with water behind
// it and takes a dry one farther off: a 1.18.2 bench bot spent 8 minutes on iron ore in its
// flooded tunnel and took none. A bot that gets no closer to its block (the server setting it
// back, as a Paper server's rubber-banding does) gives the block up once stuck, not after the
// block's whole time: a 26.1 bench bot jumped into the ceiling of its mine for four minutes.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { startServer, connectBot, waitFor, command, oneVersion, runAction, roundTrip } = require('./helpers')
const { PLUGINS } = require('../lib/bots')
const { Vec3 } = require('vec3')

test('a collect of dry ore only, and one that gets no closer', { timeout: 240000, ...oneVersion('the block search and the walk, not the protocol') }, async (t) => {
  const server = await startServer({ seed: 5, hostiles: false, animals: false })
  const bot = await connectBot(server.port, 'miner', { plugins: PLUGINS })
  let admin = null // another player, for the second part
  t.after(async () => { bot.quit(); admin?.quit(); await server.stop() })
  await command(bot, '/give miner stone_pickaxe 1', { match: /gave/ })
  const p = bot.entity.position.floored()
  const [x, y, z] = [p.x, p.y + 12, p.z] // rock of our own in the air, away from the terrain

  await t.test('dry ore only: the nearer ore, water behind it, is left alone', async () => {
    await command(bot, `/mcbot fill ${x - 4} ${y - 2} ${z - 3} ${x + 8} ${y + 3} ${z + 3} stone`)
    await command(bot, `/mcbot fill ${x} ${y} ${z} ${x + 6} ${y + 1} ${z} air`) // a tunnel east
    const wet = new Vec3(x + 2, y, z + 1) // in the tunnel's wall, water sealed in the rock behind it
    const dry = new Vec3(x + 5, y, z + 1)
    await command(bot, `/mcbot setblock ${wet.x} ${wet.y} ${wet.z} iron_ore`)
    await command(bot, `/mcbot setblock ${wet.x} ${wet.y} ${wet.z + 1} water`)
    await command(bot, `/mcbot setblock ${dry.x} ${dry.y} ${dry.z} iron_ore`)
    await command(bot, `/mcbot tp miner ${x + 0.5} ${y} ${z + 0.5}`)
    await waitFor(() => bot.entity.onGround && bot.entity.position.floored().equals(new Vec3(x, y, z)), 10000, 'the bot in its tunnel')
    await waitFor(() => bot.blockAt(wet.offset(0, 0, 1))?.name === 'water' && bot.blockAt(dry)?.name === 'iron_ore', 5000, 'the ores and the water')

    const out = await runAction(bot, 'collect', { block: 'iron_ore', count: 1, maxDistance: 16, item: 'raw_iron', dryOnly: true }, 120000)
    assert.strictEqual(out.state, 'done', out.error)
    assert.strictEqual(out.result.gained, 1, JSON.stringify(out.result))
    await roundTrip(bot)
    assert.strictEqual(bot.blockAt(dry)?.name, 'air', 'the dry ore taken')
    assert.strictEqual(bot.blockAt(wet)?.name, 'iron_ore', 'the ore by the water left alone')
  })

  await t.test('stuck, set back by the server, it gives the block up', async () => {
    const [ox, oz] = [x + 20, z] // a floor of our own beside the tunnel's rock
    await command(bot, `/mcbot fill ${ox - 2} ${y - 1} ${oz - 2} ${ox + 12} ${y - 1} ${oz + 2} stone`)
    await command(bot, `/mcbot fill ${ox - 2} ${y} ${oz - 2} ${ox + 12} ${y + 3} ${oz + 2} air`)
    const ore = new Vec3(ox + 10, y, oz)
    await command(bot, `/mcbot setblock ${ore.x} ${ore.y} ${ore.z} iron_ore`)
    await command(bot, `/mcbot tp miner ${ox + 0.5} ${y} ${oz + 0.5}`)
    await waitFor(() => bot.entity.onGround && bot.entity.position.floored().equals(new Vec3(ox, y, oz)), 10000, 'the bot on the floor')
    await waitFor(() => bot.blockAt(ore)?.name === 'iron_ore', 5000, 'the ore')
    // another player's commands set the miner back every 10 of its ticks
    admin = await connectBot(server.port, 'admin')
    let ticks = 0
    const setBack = () => { if (++ticks % 10 === 0) admin.chat(`/mcbot tp miner ${ox + 0.5} ${y} ${oz + 0.5}`) }
    admin.on('physicsTick', setBack)
    try {
      const out = await runAction(bot, 'collect', { block: 'iron_ore', count: 1, maxDistance: 16, item: 'raw_iron', dryOnly: true, stallMs: 2000 }, 120000)
      assert.strictEqual(out.state, 'failed', JSON.stringify(out.result))
      assert.match(out.error, /could not collect any iron_ore: stuck: no closer than [\d.]+ blocks in 40 ticks from iron_ore at/)
    } finally {
      admin.removeListener('physicsTick', setBack)
    }
    assert.strictEqual(bot.blockAt(ore)?.name, 'iron_ore', 'the ore not reached')
  })
})
