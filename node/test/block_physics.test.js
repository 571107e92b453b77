// plugins/block_physics.js and the suffocation of plugins/hazards.js, on a frozen clock: what
// falls, flows and drains is counted in game ticks.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const fs = require('fs')
const os = require('os')
const path = require('path')
const { Vec3 } = require('vec3')
const { startServer, connectBot, waitFor, command, stepTicks, sprintTicks, roundTrip, oneVersion } = require('./helpers')

test('gravel falls when undermined; water runs into an opened trench 7 cells and down a shaft; lava meeting it sets; flows drain when their source goes; two water sources make a third; a head in a block suffocates',
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
    // The cells of a fluid in the layer of c, r around it: 'dx dz' -> level.
    const fluidCells = (c, r, fluid) => {
      const cells = new Map()
      for (let dx = -r; dx <= r; dx++) {
        for (let dz = -r; dz <= r; dz++) {
          const b = bot.blockAt(c.offset(dx, 0, dz))
          if (b?.name === fluid) cells.set(`${dx} ${dz}`, Number(b.getProperties().level))
        }
      }
      return cells
    }
    const nextToSource = ['1 0', '-1 0', '0 1', '0 -1']
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

    await t.test('water on a floor recedes once its source is taken: from the source out, a level every 5 ticks, then gone', async () => {
      const c = new Vec3(p.x - 20, p.y + 50, p.z + 20) // a stone floor 19 x 19 in the open air
      await fill([c.x - 9, c.y - 1, c.z - 9], [c.x + 9, c.y - 1, c.z + 9], 'stone')
      await fill([c.x - 9, c.y, c.z - 9], [c.x + 9, c.y + 1, c.z + 9], 'air')
      await set(c.x, c.y, c.z, 'water')
      await stepTicks(bot, 5 * 8)
      const spread = fluidCells(c, 9, 'water')
      assert.strictEqual(spread.size, 113, 'a diamond 7 cells from the source')
      for (const [k, l] of spread) assert.strictEqual(l, k.split(' ').reduce((d, v) => d + Math.abs(Number(v)), 0), `level at ${k}`)
      await set(c.x, c.y, c.z, 'air') // taken, as a bucket takes it
      spread.delete('0 0')
      await stepTicks(bot, 4)
      assert.deepStrictEqual(fluidCells(c, 9, 'water'), spread, 'nothing moves before water\'s 5 ticks')
      await stepTicks(bot, 1)
      const first = fluidCells(c, 9, 'water')
      assert.ok(nextToSource.every((k) => first.get(k) > 1), `the cells the source fed are weaker: ${nextToSource.map((k) => first.get(k))}`)
      assert.ok(['7 0', '0 7', '-7 0', '0 -7'].every((k) => first.get(k) === 7), 'the edge is as it was')
      await stepTicks(bot, 15)
      const after20 = fluidCells(c, 9, 'water')
      assert.ok(after20.size >= 56, `half the flow still there 20 ticks on (${after20.size} cells)`)
      assert.ok([...after20].every(([k, l]) => l >= (spread.get(k) ?? 0)), 'none stronger than it was')
      assert.ok([...after20].filter(([k, l]) => l > spread.get(k)).length >= 20, 'many weaker')
      await stepTicks(bot, 30)
      assert.deepStrictEqual(fluidCells(c, 9, 'water'), new Map(), 'gone 50 ticks after the source')
    })

    await t.test('lava recedes the same way at lava\'s pace, a level every 30 ticks', async () => {
      const c = new Vec3(p.x + 20, p.y + 50, p.z + 20)
      await fill([c.x - 5, c.y - 1, c.z - 5], [c.x + 5, c.y - 1, c.z + 5], 'stone')
      await fill([c.x - 5, c.y, c.z - 5], [c.x + 5, c.y + 1, c.z + 5], 'air')
      await set(c.x, c.y, c.z, 'lava')
      await sprintTicks(bot, 30 * 4)
      const spread = fluidCells(c, 5, 'lava')
      assert.strictEqual(spread.size, 25, 'a diamond 3 cells from the source')
      for (const [k, l] of spread) assert.strictEqual(l, 2 * k.split(' ').reduce((d, v) => d + Math.abs(Number(v)), 0), `level at ${k}`)
      await set(c.x, c.y, c.z, 'air')
      spread.delete('0 0')
      await stepTicks(bot, 29)
      assert.deepStrictEqual(fluidCells(c, 5, 'lava'), spread, 'nothing moves before lava\'s 30 ticks')
      await stepTicks(bot, 1)
      const first = fluidCells(c, 5, 'lava')
      assert.ok(nextToSource.every((k) => first.get(k) > 2), `the cells the source fed are weaker: ${nextToSource.map((k) => first.get(k))}`)
      await stepTicks(bot, 20)
      const after50 = fluidCells(c, 5, 'lava')
      assert.ok([...spread.keys()].every((k) => after50.has(k)), 'all still there 50 ticks on, when water\'s was gone')
      await sprintTicks(bot, 100)
      assert.deepStrictEqual(fluidCells(c, 5, 'lava'), new Map(), 'gone 150 ticks after the source')
    })

    await t.test('two water sources make a source of the cell between them, over a solid floor; two of lava do not', async () => {
      for (const [fluid, delay, z] of [['water', 5, p.z - 20], ['lava', 30, p.z - 24]]) {
        const x = p.x - 20
        const y = p.y + 50
        await fill([x - 1, y - 1, z - 1], [x + 5, y, z + 1], 'stone')
        await fill([x, y, z], [x + 4, y, z], 'air') // a trench 5 long and 1 wide, open above
        await set(x, y, z, fluid)
        await sprintTicks(bot, delay * 5)
        const step = fluid === 'water' ? 1 : 2
        assert.deepStrictEqual([1, 2, 3].map((k) => level(x + k, y, z)), [step, 2 * step, 3 * step], `${fluid} ran along the trench`)
        const between = fluid === 'water' ? 0 : step
        await set(x + 2, y, z, fluid) // a second source two cells on: the flowing cell between them...
        await stepTicks(bot, delay)
        assert.strictEqual(level(x + 1, y, z), between, `${fluid}: ${fluid === 'water' ? 'a source now' : 'still flowing'}`)
        await set(x + 1, y, z, 'air') // ...and an open cell between them
        await stepTicks(bot, delay)
        assert.strictEqual(level(x + 1, y, z), between, `${fluid}: ${fluid === 'water' ? 'a source' : 'flowing'} again`)
        await set(x, y, z, 'air') // the two first sources taken
        await set(x + 2, y, z, 'air')
        await sprintTicks(bot, delay * 10)
        if (fluid === 'water') {
          assert.deepStrictEqual([0, 1, 2].map((k) => level(x + k, y, z)), [1, 0, 1], 'the made source stays and feeds its sides')
        } else {
          assert.deepStrictEqual([0, 1, 2, 3, 4].map((k) => name(x + k, y, z)), Array(5).fill('air'), 'the lava drained')
        }
      }
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

// The fluids a world's chunks hold stay where they are when the chunks load: nothing flows or
// drains until a block next to them changes. Built on a frozen clock (so nothing moved), saved,
// and played again by a new server from the folder.
test('fluids a saved world holds neither flow nor drain when its chunks load, only once a block beside them changes',
  { timeout: 180000, ...oneVersion('what falls and flows is the server\'s rule, not the protocol') }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbot-fluids-'))
    try {
      let s = await startServer({ worldFolder: dir, seed: 11, hostiles: false, animals: false })
      let bot = await connectBot(s.port, 'keeper')
      const p = bot.entity.position.floored()
      const y = p.y + 3 // a stone pad over the bot's head height, 3 to 11 blocks east of it
      const cells = []
      for (let x = p.x + 3; x <= p.x + 11; x++) for (let z = p.z - 3; z <= p.z + 3; z++) cells.push(new Vec3(x, y, z))
      const layer = () => cells.map((q) => { const b = bot.blockAt(q); return `${b?.name}${b?.getProperties().level ?? ''}` })
      try {
        await command(bot, '/mcbot tick freeze')
        await command(bot, `/mcbot fill ${p.x + 3} ${y - 1} ${p.z - 3} ${p.x + 11} ${y - 1} ${p.z + 3} stone`)
        await command(bot, `/mcbot fill ${p.x + 3} ${y} ${p.z - 3} ${p.x + 11} ${y + 1} ${p.z + 3} air`)
        // sources with open cells beside them, and flowing cells that nothing feeds
        for (const [dx, dz, block] of [[4, -2, 'water'], [4, 2, 'water[level=3]'], [10, -2, 'lava'], [10, 2, 'lava[level=2]']]) {
          await command(bot, `/mcbot setblock ${p.x + dx} ${y} ${p.z + dz} ${block}`)
        }
        await waitFor(() => bot.blockAt(p.offset(10, 3, 2))?.name === 'lava', 5000, 'the pad built')
        const built = layer()
        assert.strictEqual(await command(bot, '/mcbot save'), 'mcbot: saved the world and 1 players')
        bot.quit()
        await waitFor(() => s.log.some((l) => l.includes('keeper disconnected')), 30000, 'keeper gone')
        s.proc.kill('SIGTERM')
        assert.strictEqual(await new Promise((resolve) => s.proc.on('exit', resolve)), 0)

        s = await startServer({ worldFolder: dir, hostiles: false, animals: false })
        bot = await connectBot(s.port, 'keeper')
        await waitFor(() => bot.blockAt(p.offset(10, 3, 2)), 30000, 'the pad\'s chunk loaded')
        await command(bot, '/mcbot tick freeze')
        await stepTicks(bot, 100) // lava's 30 ticks three times over
        assert.deepStrictEqual(layer(), built, 'as it was saved')
        // a block set beside the flowing water: it is worked out again, and nothing feeds it
        await command(bot, `/mcbot setblock ${p.x + 5} ${y} ${p.z + 2} stone`)
        await stepTicks(bot, 5)
        assert.strictEqual(bot.blockAt(p.offset(4, 3, 2))?.name, 'air', 'drained once a neighbour changed')
      } finally {
        await command(bot, '/mcbot tick unfreeze').catch(() => {})
        bot.quit()
        await s.stop()
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
