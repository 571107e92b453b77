// A walk that may dig (move_to's digOnly) out of a 1x1 pit 4 deep, the pit a collect of stone
// leaves: it gets out, and never digs or builds in the box it is told to keep out of (keepOut:
// a hut and its site beside the pit, whose floor a staircase straight at the goal would hole).
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { startServer, connectBot, waitFor, command, oneVersion, runAction, roundTrip } = require('./helpers')
const { PLUGINS } = require('../lib/bots')
const { Vec3 } = require('vec3')

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
// block under it and under cover, digging if it must, though a walk over the top or along a
// trench open to the sky is the cheaper path: dug-in bench bots' collects of an ore at their
// level walked up through the hut and out of the door, or down into a hollow open to the sky.
test('a collect under a ceiling digs to its ore under cover rather than walking over the top or in the open', { timeout: 240000, ...oneVersion('pathfinder costs, not the protocol') }, async (t) => {
  const server = await startServer({ seed: 5, hostiles: false, animals: false })
  const bot = await connectBot(server.port, 'burrower', { plugins: PLUGINS })
  t.after(async () => { bot.quit(); await server.stop() })
  await command(bot, '/give burrower stone_pickaxe 1', { match: /gave/ })
  const p = bot.entity.position.floored()
  let cells = []
  const track = () => cells.push(bot.entity.position.floored())
  bot.on('move', track)
  t.after(() => bot.removeListener('move', track))

  // rock of our own in the air, away from the terrain, roofed over at y + 6 (covered, as in a
  // mine) but for what a test opens to the sky; the bot in a pocket in it open to the space
  // over the rock, an ore 4 blocks east
  async function pocket (x, y, z) {
    await command(bot, `/mcbot fill ${x - 4} ${y - 2} ${z - 3} ${x + 8} ${y + 1} ${z + 3} stone`)
    await command(bot, `/mcbot fill ${x - 4} ${y + 2} ${z - 3} ${x + 8} ${y + 5} ${z + 3} air`)
    await command(bot, `/mcbot fill ${x - 4} ${y + 6} ${z - 3} ${x + 8} ${y + 6} ${z + 3} stone`)
    await command(bot, `/mcbot fill ${x} ${y} ${z} ${x} ${y + 1} ${z} air`)
    await command(bot, `/mcbot setblock ${x + 4} ${y} ${z} iron_ore`)
    // open over it (a collect digs a block it sees a face of: a tunnel dug to it shows none)
    await command(bot, `/mcbot setblock ${x + 4} ${y + 1} ${z} air`)
    await command(bot, `/mcbot tp burrower ${x + 0.5} ${y} ${z + 0.5}`)
    const at = new Vec3(x, y, z)
    await waitFor(() => bot.entity.onGround && bot.entity.position.floored().equals(at), 10000, 'the bot in its pocket')
    await waitFor(() => bot.blockAt(at.offset(4, 0, 0))?.name === 'iron_ore', 5000, 'the ore')
    cells = []
  }
  async function collect (maxY) {
    const had = bot.inventory.items().filter((i) => i.name === 'raw_iron').reduce((n, i) => n + i.count, 0)
    const out = await runAction(bot, 'collect', { block: 'iron_ore', count: had + 1, maxDistance: 16, item: 'raw_iron', maxY, covered: true }, 120000)
    assert.strictEqual(out.state, 'done', out.error)
    assert.ok(out.result.gained >= 1, `raw iron gained: ${JSON.stringify(out.result)}`)
    assert.deepStrictEqual(bot.collectBlock.movements.exclusionAreasStep, [], 'the ceiling lifted after the collect')
  }

  await t.test('not up over the top', async () => {
    const [x, y, z] = [p.x, p.y + 12, p.z]
    await pocket(x, y, z)
    await command(bot, `/mcbot setblock ${x - 1} ${y + 1} ${z} air`) // a step up out of the pocket
    await collect(y)
    const highest = Math.max(...cells.map((c) => c.y))
    assert.strictEqual(highest, y, `the bot's feet stayed at its level (highest y ${highest - y} above it)`)
  })

  await t.test('not along a trench open to the sky', async () => {
    const [x, y, z] = [p.x + 20, p.y + 12, p.z]
    await pocket(x, y, z)
    // a trench beside the pocket and the ore, its roof taken away: the open sky over it
    await command(bot, `/mcbot fill ${x - 1} ${y} ${z - 1} ${x + 5} ${y + 6} ${z - 1} air`)
    await collect(y)
    const open = cells.filter((c) => c.z === z - 1)
    assert.deepStrictEqual(open.map((c) => [c.x - x, c.y - y]), [], 'never a step into the trench')
  })

  // a dug-in 26.1 bench bot's collect took a tree in a valley for a log under cover (its trunk
  // over its foot) and walked 50 blocks through a cave at night to it
  await t.test('not to a tree in the open, its own logs over its foot', async () => {
    const [x, y, z] = [p.x + 40, p.y + 12, p.z]
    await pocket(x, y, z)
    // a trunk where the ore was, up through the roof: nothing but its own logs over its foot (a
    // wood the terrain has none of: a tree under the rock is under cover, as under an overhang)
    await command(bot, `/mcbot fill ${x + 4} ${y} ${z} ${x + 4} ${y + 6} ${z} jungle_log`)
    await waitFor(() => bot.blockAt(new Vec3(x + 4, y + 6, z))?.name === 'jungle_log', 5000, 'the trunk')
    const out = await runAction(bot, 'collect', { block: 'jungle_log', count: 1, maxDistance: 16, maxY: y, covered: true }, 120000)
    assert.strictEqual(out.state, 'failed', JSON.stringify(out.result))
    assert.match(String(out.error), /no jungle_log under cover within 16 blocks/)
    const left = cells.filter((c) => !c.equals(new Vec3(x, y, z)))
    assert.deepStrictEqual(left.map((c) => [c.x - x, c.y - y, c.z - z]), [], 'the bot stayed in its pocket')
    assert.strictEqual(bot.blockAt(new Vec3(x + 4, y, z))?.name, 'jungle_log', 'the trunk left standing')
    // rock over rock is cover: the pocket's own stone is taken
    const rock = await runAction(bot, 'collect', { block: 'stone', count: 1, maxDistance: 16, item: 'cobblestone', maxY: y, covered: true }, 120000)
    assert.strictEqual(rock.state, 'done', rock.error)
    assert.ok(rock.result.gained >= 1, `cobblestone gained: ${JSON.stringify(rock.result)}`)
  })
})
