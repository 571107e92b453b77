// plugins/block_physics.js and the suffocation of plugins/hazards.js, on a frozen clock: what
// falls and what flows is counted in game ticks.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { Vec3 } = require('vec3')
const { startServer, connectBot, waitFor, command, stepTicks, roundTrip, oneVersion } = require('./helpers')

test('gravel falls when undermined; water runs into an opened trench 7 cells and down a shaft; lava meeting it sets; a head in a block suffocates',
  { timeout: 240000, ...oneVersion('what falls and flows is the server\'s rule, not the protocol') }, async (t) => {
    const s = await startServer({ hostiles: false, animals: false })
    const bot = await connectBot(s.port, 'mason')
    t.after(async () => { await command(bot, '/mcbot tick unfreeze').catch(() => {}); bot.quit(); await s.stop() })
    await waitFor(() => bot.entity.onGround, 10000, 'standing')
    const p = bot.entity.position.floored()
    const name = (x, y, z) => bot.blockAt(new Vec3(x, y, z))?.name
    const level = (x, y, z) => Number(bot.blockAt(new Vec3(x, y, z))?.getProperties().level)
    const set = (x, y, z, block) => command(bot, `/mcbot setblock ${x} ${y} ${z} ${block}`)
    const fill = (a, b, block) => command(bot, `/mcbot fill ${a.join(' ')} ${b.join(' ')} ${block}`)
    await command(bot, '/mcbot tick freeze')

    await t.test('a column of gravel over a removed block falls onto the floor, block by block', async () => {
      const x = p.x + 6
      const y = p.y + 20 // in the open air: a stone floor, a stone prop, three gravel on it
      await set(x, y, p.z, 'stone')
      await set(x, y + 2, p.z, 'stone')
      for (const dy of [3, 4, 5]) await set(x, y + dy, p.z, 'gravel')
      await stepTicks(bot, 10)
      assert.deepStrictEqual([3, 4, 5].map((dy) => name(x, y + dy, p.z)), ['gravel', 'gravel', 'gravel'], 'held up by the prop')
      await set(x, y + 2, p.z, 'air')
      await stepTicks(bot, 1)
      assert.strictEqual(name(x, y + 3, p.z), 'gravel', 'vanilla waits 2 ticks')
      await stepTicks(bot, 10)
      assert.deepStrictEqual([1, 2, 3, 4, 5].map((dy) => name(x, y + dy, p.z)), ['gravel', 'gravel', 'gravel', 'air', 'air'])
    })

    await t.test('water runs 7 cells along an opened trench, a level a cell, then down a shaft to its floor', async () => {
      const x = p.x - 12
      const y = p.y + 30
      const z = p.z + 4
      // a stone block 13 long, a water source at its west end, the trench's cells still stone; the
      // block goes 8 down, so nothing that flows in it gets out
      await fill([x - 1, y - 8, z - 1], [x + 11, y + 1, z + 1], 'stone')
      await set(x, y, z, 'water')
      await fill([x + 1, y, z], [x + 10, y, z], 'air') // opened
      await stepTicks(bot, 5 * 9)
      assert.deepStrictEqual([1, 2, 3, 4, 5, 6, 7].map((k) => name(x + k, y, z)), Array(7).fill('water'))
      assert.deepStrictEqual([1, 4, 7].map((k) => level(x + k, y, z)), [1, 4, 7])
      assert.strictEqual(name(x + 8, y, z), 'air', 'no further than 7')
      await fill([x + 3, y - 6, z], [x + 3, y - 1, z], 'air') // a shaft under the third cell, in the stone
      await stepTicks(bot, 5 * 8)
      assert.deepStrictEqual([1, 2, 3, 4, 5, 6].map((d) => name(x + 3, y - d, z)), Array(6).fill('water'), 'fell down the shaft')

      const lava = new Vec3(x + 3, y - 3, z + 1) // in the shaft's wall
      await set(lava.x, lava.y, lava.z, 'lava')
      await set(lava.x, lava.y, lava.z - 1, 'air') // the water beside it taken and coming back: they meet
      await stepTicks(bot, 30)
      assert.strictEqual(name(lava.x, lava.y, lava.z), 'obsidian', 'a lava source touched by water sets to obsidian')
    })

    await t.test('water over three terraces fills them with at most two writes a cell', async () => {
      const x = p.x + 10
      const y = p.y + 40
      const z = p.z - 12
      // a stone trough 16 long, 5 wide inside, stepping down 3 blocks every 5
      await fill([x - 1, y - 10, z - 3], [x + 16, y + 2, z + 3], 'stone')
      for (const [k, floor] of [[0, y], [5, y - 3], [10, y - 6]]) await fill([x + k, floor, z - 2], [x + 15, y + 1, z + 2], 'air')
      await stepTicks(bot, 5)
      const writes = new Map()
      const count = (oldBlock, newBlock) => {
        const q = newBlock.position
        if (q.x >= x && q.x <= x + 15 && q.z >= z - 2 && q.z <= z + 2 && q.y >= y - 6 && q.y <= y + 1) {
          const key = `${q.x} ${q.y} ${q.z}`
          writes.set(key, (writes.get(key) || 0) + 1)
        }
      }
      bot.on('blockUpdate', count)
      await set(x, y, z, 'water')
      await stepTicks(bot, 5 * 30)
      await roundTrip(bot)
      bot.off('blockUpdate', count)
      assert.ok(name(x + 12, y - 6, z) === 'water', 'down both steps')
      const most = Math.max(...writes.values())
      assert.ok(writes.size > 40 && most <= 2, `${writes.size} cells, at most ${most} writes to one`)
    })

    await t.test('a block at the head hurts 1 every 10 ticks', async () => {
      let hurts = 0
      let last = bot.health
      bot.on('health', () => { if (bot.health < last) hurts++; last = bot.health })
      const head = bot.entity.position.offset(0, 1.62, 0).floored()
      await set(head.x, head.y, head.z, 'stone')
      await stepTicks(bot, 21)
      await waitFor(() => hurts >= 3, 5000, `suffocating (${hurts} hurts)`)
      assert.strictEqual(hurts, 3, 'at the 1st, 11th and 21st tick')
    })
  })
