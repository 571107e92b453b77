// A walk that may dig (move_to's digOnly) out of a 1x1 pit 4 deep, the pit a collect of stone
// leaves: it gets out, and never digs or builds in the box it is told to keep out of (keepOut:
// a hut and its site beside the pit, whose floor a staircase straight at the goal would hole).
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { startServer, connectBot, waitFor, command, oneVersion, runAction, roundTrip } = require('./helpers')
const { PLUGINS } = require('../lib/bots')

test('a digging walk climbs out of a pit around a box it must keep out of', { timeout: 240000, ...oneVersion('pathfinder digging, not the protocol') }, async (t) => {
  const server = await startServer({ seed: 5, hostiles: false, animals: false })
  const bot = await connectBot(server.port, 'digger', { plugins: PLUGINS })
  t.after(async () => { bot.quit(); await server.stop() })
  const p = bot.entity.position.floored()
  const [x, y, z] = [p.x, p.y + 12, p.z] // ground of our own in the air, away from the terrain
  await command(bot, `/mcbot fill ${x - 6} ${y - 6} ${z - 6} ${x + 10} ${y - 1} ${z + 6} dirt`)
  await command(bot, `/mcbot fill ${x - 6} ${y} ${z - 6} ${x + 10} ${y + 4} ${z + 6} air`)
  await command(bot, `/mcbot fill ${x} ${y - 4} ${z} ${x} ${y - 1} ${z} air`) // the pit
  await command(bot, `/mcbot tp digger ${x + 0.5} ${y - 4} ${z + 0.5}`)
  await waitFor(() => bot.entity.onGround && bot.entity.position.floored().equals(p.offset(0, 8, 0)), 10000, 'the bot at the bottom of the pit')
  // east of the pit, between it and the goal: kept whole
  const keep = [x + 1, y - 6, z - 2, x + 6, y + 4, z + 3]
  const inKeep = []
  for (let kx = keep[0]; kx < keep[3]; kx++) {
    for (let ky = keep[1]; ky < keep[4]; ky++) {
      for (let kz = keep[2]; kz < keep[5]; kz++) inKeep.push([kx, ky, kz, ky < y ? 'dirt' : 'air'])
    }
  }
  assert.ok(inKeep.every(([a, b, c, name]) => bot.blockAt(p.set(a, b, c))?.name === name), 'the box as built')

  const out = await runAction(bot, 'move_to', { x: x + 8.5, y, z: z + 0.5, range: 1, digOnly: ['dirt'], stallMs: 20000, keepOut: keep }, 120000)
  assert.strictEqual(out.state, 'done', out.error)
  const at = bot.entity.position
  assert.ok(at.floored().y === y && Math.abs(at.x - (x + 8.5)) <= 1.5, `out of the pit at the goal (at ${at})`)
  await roundTrip(bot)
  const changed = inKeep.filter(([a, b, c, name]) => bot.blockAt(p.set(a, b, c))?.name !== name)
  assert.deepStrictEqual(changed.map(([a, b, c]) => [a - x, b - y, c - z]), [], 'nothing dug or placed in the box')
})

// A collect given a ceiling (maxY: under cover at night, agency/tools/gathering.py) reaches its
// block under it, digging if it must, though a walk up over the top is the cheaper path: a
// dug-in bench bot's collect of an ore at its level walked up through its hut and out of the door.
test('a collect under a ceiling digs to its ore below it rather than walking up over the top', { timeout: 240000, ...oneVersion('pathfinder costs, not the protocol') }, async (t) => {
  const server = await startServer({ seed: 5, hostiles: false, animals: false })
  const bot = await connectBot(server.port, 'burrower', { plugins: PLUGINS })
  t.after(async () => { bot.quit(); await server.stop() })
  const p = bot.entity.position.floored()
  const [x, y, z] = [p.x, p.y + 12, p.z] // rock of our own in the air, away from the terrain
  await command(bot, `/mcbot fill ${x - 4} ${y - 2} ${z - 3} ${x + 8} ${y + 1} ${z + 3} stone`)
  await command(bot, `/mcbot fill ${x - 4} ${y + 2} ${z - 3} ${x + 8} ${y + 5} ${z + 3} air`)
  await command(bot, `/mcbot fill ${x} ${y} ${z} ${x} ${y + 1} ${z} air`) // the bot's pocket, open above
  await command(bot, `/mcbot setblock ${x - 1} ${y + 1} ${z} air`) // a step up out of it: the way over the top
  await command(bot, `/mcbot setblock ${x + 4} ${y} ${z} iron_ore`)
  await command(bot, `/mcbot setblock ${x + 4} ${y + 1} ${z} air`) // the ore open to the top
  await command(bot, '/give burrower stone_pickaxe 1', { match: /gave/ })
  await command(bot, `/mcbot tp burrower ${x + 0.5} ${y} ${z + 0.5}`)
  await waitFor(() => bot.entity.onGround && bot.entity.position.floored().equals(p.offset(0, 12, 0)), 10000, 'the bot in its pocket')
  await waitFor(() => bot.blockAt(p.offset(4, 12, 0))?.name === 'iron_ore', 5000, 'the ore')
  let highest = -Infinity
  const track = () => { highest = Math.max(highest, Math.floor(bot.entity.position.y)) }
  bot.on('move', track)
  t.after(() => bot.removeListener('move', track))

  const out = await runAction(bot, 'collect', { block: 'iron_ore', count: 1, maxDistance: 16, item: 'raw_iron', maxY: y }, 120000)
  assert.strictEqual(out.state, 'done', out.error)
  assert.ok(out.result.gained >= 1, `raw iron gained: ${JSON.stringify(out.result)}`)
  assert.strictEqual(highest, y, `the bot's feet stayed at its level (highest y ${highest - y} above it)`)
  assert.deepStrictEqual(bot.collectBlock.movements.exclusionAreasStep, [], 'the ceiling lifted after the collect')
})
