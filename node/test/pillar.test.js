// The pillar action (lib/actions/pillar.js) in a stone block 19 high built with /mcbot fill: a
// plain bot with an iron pickaxe and cobblestone, in a chamber at its foot, digs straight up
// (two blocks over its head) and stands on the block's top, every block under it one it
// placed; it stops short of water beside the shaft, of gravel that would fall on it and of a
// block it was not allowed to dig, naming each and leaving it as it was; told to dam, it walls
// the water off and climbs on. A bot on the edge of a hole fills the cell under its feet first.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const toolPlugin = require('mineflayer-tool').plugin
const { Vec3 } = require('vec3')
const { startServer, connectBot, waitFor, command, withTimeout } = require('./helpers')
const pillar = require('../lib/actions/pillar')

const DEPTH = 16 // the chamber's floor this far under the spawn's feet; the block's top 2 over them

test('pillar', { timeout: 450000 }, async (t) => {
  const server = await startServer({ seed: 11, hostiles: false, animals: false })
  const bot = await connectBot(server.port, 'pillarer', { plugins: [toolPlugin] })
  t.after(async () => { bot.quit(); await server.stop() })

  const b = bot.entity.position.floored()
  const [bottom, top] = [b.y - DEPTH, b.y + 2]
  await command(bot, `/mcbot fill ${b.x + 3} ${bottom - 1} ${b.z + 3} ${b.x + 11} ${top} ${b.z + 11} stone`, { timeout: 60000 })
  await command(bot, '/give pillarer iron_pickaxe 1', { match: /gave 1 iron_pickaxe/ })
  await command(bot, '/give pillarer cobblestone 64', { match: /gave 64 cobblestone/ })
  await waitFor(() => bot.inventory.items().some((i) => i.name === 'cobblestone'), 3000, 'cobblestone held')
  const run = (args) => withTimeout(pillar.run(bot, args, { cancelled: false }), 120000, 'pillar')
  // the bot in a chamber two blocks high at the foot of column x, z; `block`: one set in the way
  const chamber = async (x, z, block) => {
    await command(bot, `/mcbot fill ${x} ${bottom} ${z} ${x} ${bottom + 1} ${z} air`)
    if (block) await command(bot, `/mcbot setblock ${block.pos.x} ${block.pos.y} ${block.pos.z} ${block.name}`)
    await command(bot, `/mcbot tp pillarer ${x + 0.5} ${bottom} ${z + 0.5}`)
    await waitFor(() => bot.entity.onGround && bot.entity.position.floored().equals(new Vec3(x, bottom, z)) &&
      (!block || bot.blockAt(block.pos)?.name === block.name), 10000, `standing at the foot of ${x},${z}`)
  }

  await t.test('bad arguments are refused with the reason', async () => {
    await assert.rejects(pillar.run(bot, { targetY: 'up' }, { cancelled: false }), /integer targetY/)
    await assert.rejects(pillar.run(bot, { targetY: b.y + 1000 }, { cancelled: false }), /at most 384/)
  })

  await t.test('up through 18 blocks of stone onto the top, on blocks of its own', async () => {
    const [x, z] = [b.x + 5, b.z + 5]
    await chamber(x, z)
    const out = await run({ targetY: top + 1, digOnly: ['stone'] })
    assert.deepStrictEqual(out, { steps: DEPTH + 3, y: top + 1, reason: 'reached' })
    assert.deepStrictEqual(bot.entity.position.floored(), new Vec3(x, top + 1, z))
    for (let y = bottom; y <= top; y++) assert.strictEqual(bot.blockAt(new Vec3(x, y, z)).name, 'cobblestone', `placed at y ${y}`)
    assert.strictEqual(bot.health, 20, 'unharmed')
  })

  await t.test('off the middle of its cell: the column beside, where its head reaches, is dug too', async () => {
    const [x, z] = [b.x + 7, b.z + 7]
    await command(bot, `/mcbot fill ${x} ${bottom} ${z} ${x + 1} ${bottom + 1} ${z} air`)
    await command(bot, `/mcbot tp pillarer ${x + 0.8} ${bottom} ${z + 0.5}`)
    await waitFor(() => bot.entity.onGround && bot.entity.position.floored().equals(new Vec3(x, bottom, z)), 10000, 'standing off the middle')
    const out = await run({ targetY: bottom + 6, digOnly: ['stone'] })
    assert.deepStrictEqual(out, { steps: 6, y: bottom + 6, reason: 'reached' })
    assert.strictEqual(bot.blockAt(new Vec3(x + 1, bottom + 7, z)).name, 'air', 'the head room beside dug')
  })

  await t.test('at the edge of a hole: the cell under the feet filled first', async () => {
    const [x, z] = [b.x + 5, b.z + 7]
    await command(bot, `/mcbot fill ${x - 1} ${bottom} ${z} ${x} ${bottom + 1} ${z} air`)
    await command(bot, `/mcbot setblock ${x} ${bottom - 1} ${z} air`)
    await command(bot, `/mcbot tp pillarer ${x + 0.2} ${bottom} ${z + 0.5}`)
    await waitFor(() => bot.entity.onGround && bot.entity.position.floored().equals(new Vec3(x, bottom, z)) &&
      bot.blockAt(new Vec3(x, bottom - 1, z))?.name === 'air', 10000, 'standing on the edge, over the hole')
    const out = await run({ targetY: bottom + 4, digOnly: ['stone'] })
    assert.deepStrictEqual(out, { steps: 4, y: bottom + 4, reason: 'reached' })
    assert.strictEqual(bot.blockAt(new Vec3(x, bottom - 1, z)).name, 'cobblestone', 'the hole under the feet filled')
  })

  await t.test('water beside the shaft: it stops under it, the water where it was', async () => {
    const [x, z] = [b.x + 9, b.z + 5]
    const water = { pos: new Vec3(x + 1, bottom + 10, z), name: 'water' }
    await chamber(x, z, water)
    await assert.rejects(run({ targetY: top + 1 }), new RegExp(`water at ${x + 1},${bottom + 10},${z}`))
    assert.strictEqual(bot.entity.position.floored().y, bottom + 7, 'two blocks under the one beside the water')
    assert.strictEqual(bot.blockAt(water.pos).name, 'water')
    assert.strictEqual(bot.blockAt(new Vec3(x, bottom + 10, z)).name, 'stone', 'nothing dug beside the water')
  })

  await t.test('water beside the shaft and in it, told to dam: walled off, and on up through it', async () => {
    const [x, z] = [b.x + 7, b.z + 5]
    const waters = [new Vec3(x + 1, bottom + 10, z), new Vec3(x, bottom + 14, z), new Vec3(x - 1, bottom + 14, z)]
    await chamber(x, z)
    for (const w of waters) await command(bot, `/mcbot setblock ${w.x} ${w.y} ${w.z} water`)
    await waitFor(() => waters.every((w) => bot.blockAt(w)?.name === 'water'), 3000, 'water placed')
    const out = await run({ targetY: bottom + 13, digOnly: ['stone'], dam: true })
    assert.deepStrictEqual(out, { steps: 13, y: bottom + 13, dammed: 3, reason: 'reached' })
    for (const w of [waters[0], waters[2]]) assert.strictEqual(bot.blockAt(w).name, 'cobblestone', `the water at ${w} walled off`)
    for (const y of [bottom + 14, bottom + 15]) assert.strictEqual(bot.blockAt(new Vec3(x, y, z)).name, 'air', `the shaft at y ${y} dug`)
    assert.strictEqual(bot.health, 20, 'unharmed')
  })

  await t.test('gravel in the shaft: not dug out from under', async () => {
    const [x, z] = [b.x + 5, b.z + 9]
    const gravel = { pos: new Vec3(x, bottom + 5, z), name: 'gravel' }
    await chamber(x, z, gravel)
    await assert.rejects(run({ targetY: top + 1 }), new RegExp(`falling gravel overhead at ${x},${bottom + 5},${z}`))
    assert.strictEqual(bot.entity.position.floored().y, bottom + 1, 'two blocks under the one under the gravel')
    assert.strictEqual(bot.blockAt(gravel.pos).name, 'gravel')
  })

  await t.test('a block it may not dig: it stops under it', async () => {
    const [x, z] = [b.x + 9, b.z + 9]
    const planks = { pos: new Vec3(x, bottom + 4, z), name: 'oak_planks' }
    await chamber(x, z, planks)
    await assert.rejects(run({ targetY: top + 1, digOnly: ['stone'] }), /oak_planks, not natural ground/)
    assert.strictEqual(bot.entity.position.floored().y, bottom + 1)
    assert.strictEqual(bot.blockAt(planks.pos).name, 'oak_planks')
  })
})
