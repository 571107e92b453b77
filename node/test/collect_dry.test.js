// A collect told to take only dry blocks (dryOnly: the caller's rule for ore and stone, which
// flood as they open) leaves an ore with water behind it and takes a dry one farther off:
// a 1.18.2 bench bot spent 8 minutes on iron ore in its flooded tunnel and took none.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { startServer, connectBot, waitFor, command, oneVersion, runAction, roundTrip } = require('./helpers')
const { PLUGINS } = require('../lib/bots')
const { Vec3 } = require('vec3')

test('a collect of dry ore only leaves the nearer ore with water behind it', { timeout: 180000, ...oneVersion('the block search, not the protocol') }, async (t) => {
  const server = await startServer({ seed: 5, hostiles: false, animals: false })
  const bot = await connectBot(server.port, 'miner', { plugins: PLUGINS })
  t.after(async () => { bot.quit(); await server.stop() })
  await command(bot, '/give miner stone_pickaxe 1', { match: /gave/ })
  const p = bot.entity.position.floored()
  const [x, y, z] = [p.x, p.y + 12, p.z] // rock of our own in the air, away from the terrain
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
