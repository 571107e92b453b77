// Crafting beyond the happy path: more recipes through bot.craft, shift-click on the result,
// mirrored shapes, mixed variants (any planks), and closing a table with items still in its grid.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { startServer, connectBot, waitFor, command, withTimeout, stepTicks, roundTrip } = require('./helpers')

test('crafting', { timeout: 270000 }, async (t) => {
  const server = await startServer({ seed: 3, hostiles: false })
  const bot = await connectBot(server.port, 'smith')
  t.after(async () => { bot.quit(); await server.stop() })
  const reg = bot.registry
  const id = (n) => reg.itemsByName[n].id
  const count = (n) => bot.inventory.count(id(n))
  const give = async (item, n) => {
    const before = count(item)
    await command(bot, `/give smith ${item} ${n}`, { match: new RegExp(`gave ${n} ${item}`) })
    await waitFor(() => count(item) === before + n, 3000, `${n} ${item}`)
  }
  // every free slot of another player's inventory filled with stacks of `filler`
  const fillUp = async (other, filler) => {
    for (let free = other.inventory.emptySlotCount(); free > 0; free = other.inventory.emptySlotCount()) {
      await command(other, `/give ${other.username} ${filler} 64`, { match: new RegExp(`gave 64 ${filler}`) })
      await waitFor(() => other.inventory.emptySlotCount() < free, 3000, `a slot filled with ${filler}`)
    }
  }
  const p = bot.entity.position.floored()
  await command(bot, `/mcbot setblock ${p.x + 1} ${p.y} ${p.z} crafting_table`)
  await waitFor(() => bot.blockAt(p.offset(1, 0, 0))?.name === 'crafting_table', 3000, 'table')
  const table = bot.blockAt(p.offset(1, 0, 0))

  await t.test('bot.craft: torch (coal + stick), oak_door, chest, stone_pickaxe', async () => {
    await give('coal', 1)
    await give('stick', 3)
    await give('oak_planks', 14)
    await give('cobblestone', 3)
    const craft = async (name, n, useTable) => {
      const r = bot.recipesFor(id(name), null, 1, useTable ? table : null)[0]
      assert.ok(r, `recipe for ${name}`)
      await withTimeout(bot.craft(r, n, useTable ? table : null), 20000, `craft ${name}`)
    }
    await craft('torch', 1, false)
    assert.strictEqual(count('torch'), 4)
    assert.strictEqual(count('coal'), 0)
    await craft('oak_door', 1, true)
    assert.strictEqual(count('oak_door'), 3)
    await craft('chest', 1, true)
    assert.strictEqual(count('chest'), 1)
    await craft('stone_pickaxe', 1, true)
    assert.strictEqual(count('stone_pickaxe'), 1)
    assert.strictEqual(count('oak_planks'), 0)
    assert.strictEqual(count('stick'), 0)
    await bot._syncWindow(bot.inventory)
    assert.strictEqual(count('torch'), 4, 'client and server agree after a full resync')
  })

  await t.test('the craft action mixes variants as vanilla tags do: a bookshelf of oak and birch planks', async () => {
    const craftAction = require('../lib/actions/craft')
    await give('oak_planks', 2)
    await give('birch_planks', 4)
    await give('book', 3)
    assert.strictEqual(bot.recipesFor(id('bookshelf'), null, 1, table).length, 0, 'no single wood is enough')
    const out = await withTimeout(craftAction.run(bot, { item: 'bookshelf', times: 1, table: table.position }, {}), 20000, 'craft action')
    assert.strictEqual(out.gained, 1)
    assert.strictEqual(count('bookshelf'), 1)
    assert.strictEqual(count('oak_planks') + count('birch_planks') + count('book'), 0, 'every ingredient used')
  })

  await t.test('armour the craft action makes is put on: the snapshot holds it, and it absorbs part of a mob\'s hit, none of a fall', async () => {
    const craftAction = require('../lib/actions/craft')
    const { snapshot } = require('../lib/snapshot')
    await give('iron_ingot', 8)
    const out = await withTimeout(craftAction.run(bot, { item: 'iron_chestplate', times: 1, table: table.position }, {}), 20000, 'craft action')
    assert.deepStrictEqual([out.gained, out.worn], [1, ['iron_chestplate']])
    await waitFor(() => bot.inventory.slots[6]?.name === 'iron_chestplate', 3000, 'the chestplate on')
    assert.strictEqual(count('iron_chestplate'), 0, 'worn, not in the inventory\'s slots')
    assert.deepStrictEqual(snapshot(bot).inventory.filter((i) => i.name === 'iron_chestplate'), [{ name: 'iron_chestplate', count: 1 }])
    // the chestplate's 6 points keep clamp(6 - 10 / 2, 6 / 5, 20) = 1.2 of 25 parts of a 10 hit
    assert.match(await command(bot, '/mcbot damage smith 10 mob', { match: /damaged smith/ }), /by 9\.52/)
    await command(bot, '/mcbot health smith 20')
    assert.match(await command(bot, '/mcbot damage smith 5 fall', { match: /damaged smith/ }), /by 5,/)
    await command(bot, '/mcbot health smith 20')
    assert.match(await command(bot, '/mcbot damage smith 5 thorns'), /cause must be one of/)
    await give('golden_chestplate', 1) // 5 points: worse than the iron one worn, left held
    assert.deepStrictEqual(await require('../lib/actions/wear').run(bot), { worn: [] })
    assert.strictEqual(count('golden_chestplate'), 1)
    // an equip of the piece worn (the snapshot counts it held) is done, not 'no iron_chestplate'
    const equip = require('../lib/actions/equip')
    assert.deepStrictEqual(await equip.run(bot, { item: 'iron_chestplate', destination: 'torso' }), { equipped: 'iron_chestplate', destination: 'torso' })
    await give('shield', 1) // taken up in the empty off-hand, which is held too
    assert.deepStrictEqual(await require('../lib/actions/wear').run(bot), { worn: ['shield'] })
    await waitFor(() => bot.inventory.slots[45]?.name === 'shield', 3000, 'the shield in the off-hand')
    assert.deepStrictEqual(snapshot(bot).inventory.filter((i) => i.name === 'shield'), [{ name: 'shield', count: 1 }])
  })

  await t.test('a barrel of oak slabs made first (any wooden slab, as the planner makes them)', async () => {
    const craftAction = require('../lib/actions/craft')
    await give('oak_planks', 9)
    const slabs = await withTimeout(craftAction.run(bot, { item: 'oak_slab', times: 1, table: table.position }, {}), 20000, 'craft action')
    assert.strictEqual(slabs.gained, 6)
    const out = await withTimeout(craftAction.run(bot, { item: 'barrel', times: 1, table: table.position }, {}), 20000, 'craft action')
    assert.strictEqual(out.gained, 1)
    assert.strictEqual(count('barrel'), 1)
    assert.strictEqual(count('oak_slab'), 4, 'two slabs used')
    assert.strictEqual(count('oak_planks'), 0, 'six planks used')
  })

  await t.test('shift-click on the result crafts as many as the grid allows', async () => {
    await give('oak_log', 5)
    const logSlot = bot.inventory.findInventoryItem(id('oak_log')).slot
    await bot.clickWindow(logSlot, 0, 0) // pick up all 5 logs
    await bot.clickWindow(1, 0, 0) // put them in the grid
    await waitFor(() => bot.inventory.slots[0]?.name === 'oak_planks', 3000, 'result shown')
    await bot.clickWindow(0, 0, 1) // shift-click the result
    await bot._syncWindow(bot.inventory)
    assert.strictEqual(count('oak_planks'), 20)
    assert.strictEqual(bot.inventory.slots[1], null, 'grid used up')
    assert.strictEqual(bot.inventory.slots[0], null, 'no result left')
  })

  await t.test('mirrored shapes match (axe blade on either side)', async () => {
    await give('stick', 2)
    bot.activateBlock(table)
    const [win] = await withTimeout(new Promise(resolve => bot.once('windowOpen', (...a) => resolve(a))), 5000, 'table opens')
    // mirrored axe: planks in the top-right 2 and middle-right, sticks in the middle column
    const put = async (slot, item) => {
      const src = win.findInventoryItem(id(item))
      await bot.clickWindow(src.slot, 0, 0)
      await bot.clickWindow(slot, 1, 0)
      await bot.putSelectedItemRange(win.inventoryStart, win.inventoryEnd, win, null)
    }
    await put(2, 'oak_planks'); await put(3, 'oak_planks'); await put(6, 'oak_planks')
    await put(5, 'stick'); await put(8, 'stick')
    await waitFor(() => win.slots[0]?.name === 'wooden_axe', 3000, 'mirrored axe recognised')
    // close with the grid full: everything comes back
    // (the server puts the grid back as it reads the close; the resync's click comes after it)
    bot.closeWindow(win)
    await bot._syncWindow(bot.inventory)
    assert.strictEqual(count('oak_planks'), 20)
    assert.strictEqual(count('stick'), 2)
    assert.strictEqual(count('wooden_axe'), 0)
  })

  await t.test('the craft action first puts back what an interrupted craft left in the 2x2 grid', async () => {
    const craftAction = require('../lib/actions/craft')
    await give('oak_log', 3)
    const logSlot = bot.inventory.findInventoryItem(id('oak_log')).slot
    await bot.clickWindow(logSlot, 0, 0) // pick up the logs
    await bot.clickWindow(2, 1, 0) // leave one in the grid, as a craft cut short would
    await bot.putSelectedItemRange(bot.inventory.inventoryStart, bot.inventory.inventoryEnd, bot.inventory, null)
    await waitFor(() => bot.inventory.slots[2]?.name === 'oak_log', 3000, 'a log left in the grid')
    const before = count('oak_planks')
    const out = await withTimeout(craftAction.run(bot, { item: 'oak_planks', times: 3 }, {}), 20000, 'craft action')
    assert.strictEqual(out.gained, 12)
    assert.strictEqual(count('oak_planks'), before + 12)
    assert.strictEqual(bot.inventory.slots[2], null, 'grid empty again')
  })

  await t.test('an inventory click while the server still thinks a table is open closes it: crafting works', async () => {
    const craftAction = require('../lib/actions/craft')
    await give('oak_log', 2)
    bot.activateBlock(table)
    const [win] = await withTimeout(new Promise(resolve => bot.once('windowOpen', (...a) => resolve(a))), 5000, 'table opens')
    assert.ok(win)
    bot.currentWindow = null // the client forgets the table without telling the server (a lost close)
    const before = count('oak_planks')
    const out = await withTimeout(craftAction.run(bot, { item: 'oak_planks', times: 2 }, {}), 20000, 'craft action')
    assert.strictEqual(out.gained, 8)
    assert.strictEqual(count('oak_planks'), before + 8)
  })

  await t.test('a table window left open on the client does not swallow a 2x2 craft', async () => {
    const craftAction = require('../lib/actions/craft')
    await give('oak_log', 2)
    bot.activateBlock(table)
    await withTimeout(new Promise(resolve => bot.once('windowOpen', resolve)), 5000, 'table opens')
    assert.ok(bot.currentWindow) // never closed, as after a lost close or a second open
    const before = count('oak_planks')
    const out = await withTimeout(craftAction.run(bot, { item: 'oak_planks', times: 2 }, {}), 25000, 'craft action')
    assert.strictEqual(out.gained, 8)
    assert.strictEqual(count('oak_planks'), before + 8)
    assert.strictEqual(bot.currentWindow, null)
  })

  await t.test('a block placed on a furnace goes on top of it: the bot sneaks instead of opening it', async () => {
    const placeAction = require('../lib/actions/place')
    const f = p.offset(-2, 0, 1)
    await command(bot, `/mcbot setblock ${f.x} ${f.y} ${f.z} furnace`)
    await waitFor(() => bot.blockAt(f)?.name === 'furnace', 3000, 'furnace')
    await give('crafting_table', 1)
    const out = await withTimeout(placeAction.run(bot, { block: 'crafting_table', x: f.x, y: f.y + 1, z: f.z }), 15000, 'place')
    assert.strictEqual(out.placed, 'crafting_table')
    assert.strictEqual(bot.currentWindow, null, 'no furnace window opened')
    assert.strictEqual(bot.getControlState('sneak'), false, 'standing up again')
  })
  await t.test('the craft action leaves the planks a later craft needs by name while another wood will do', async () => {
    const craftAction = require('../lib/actions/craft')
    await give('birch_planks', 6)
    await give('spruce_planks', 2)
    const other = () => count('oak_planks') + count('spruce_planks')
    const before = other()
    const out = await withTimeout(craftAction.run(bot, { item: 'stick', times: 1, keep: ['birch_planks'] }, {}), 20000, 'craft action')
    assert.strictEqual(out.gained, 4)
    assert.strictEqual(other(), before - 2, 'the sticks were made of another wood')
    assert.strictEqual(count('birch_planks'), 6, "the birch door's planks are all there")
    // every wood held kept: keeping is a preference, not a refusal
    const all = ['birch_planks', 'oak_planks', 'spruce_planks']
    const again = await withTimeout(craftAction.run(bot, { item: 'stick', times: 1, keep: all }, {}), 20000, 'craft action')
    assert.strictEqual(again.gained, 4)
  })
  await t.test('when only the kept wood makes the item alone, the other woods are mixed in one grid first', async () => {
    const craftAction = require('../lib/actions/craft')
    const run = (args) => withTimeout(craftAction.run(bot, args, {}), 20000, 'craft action')
    // one oak and one spruce plank left: the oak of the earlier subtests made into tables and sticks
    const tables = Math.floor(count('oak_planks') / 4)
    if (tables) await run({ item: 'crafting_table', times: tables, keep: ['birch_planks', 'spruce_planks'] })
    while (count('oak_planks') >= 2) await run({ item: 'stick', times: 1, keep: ['birch_planks', 'spruce_planks'] })
    if (count('oak_planks') === 0) await give('oak_planks', 1)
    while (count('spruce_planks') >= 2) await run({ item: 'stick', times: 1, keep: ['birch_planks', 'oak_planks'] })
    if (count('spruce_planks') === 0) await give('spruce_planks', 1)
    if (count('birch_planks') < 2) await give('birch_planks', 2)
    assert.deepStrictEqual([count('oak_planks'), count('spruce_planks')], [1, 1])
    const birch = count('birch_planks')
    const out = await run({ item: 'stick', times: 1, keep: ['birch_planks'] })
    assert.strictEqual(out.gained, 4)
    assert.deepStrictEqual([count('oak_planks'), count('spruce_planks'), count('birch_planks')], [0, 0, birch])
  })

  await t.test('closing the inventory with nothing in its grid sends no slot: the next clicks are not answered with the whole window', async () => {
    // mineflayer closes its inventory after every toss; five slots sent for an empty grid moved
    // the state id on, and the craft clicks that followed got whole windows back, one of which
    // answered the craft action's sync before its own (a second craft of the same planks)
    const sent = []
    const onPacket = (data, meta) => { if (meta.name === 'set_slot' || meta.name === 'window_items') sent.push(meta.name) }
    await bot._syncWindow(bot.inventory)
    bot._client.on('packet', onPacket)
    try {
      bot.closeWindow(bot.inventory)
      await bot._syncWindow(bot.inventory) // answered after the close: the server keeps the order
    } finally {
      bot._client.removeListener('packet', onPacket)
    }
    assert.deepStrictEqual(sent, ['window_items'], 'only the sync answered')
  })

  await t.test('a craft with no room and no filler to toss is refused before it takes an ingredient (mineflayer drops what has no slot)', async () => {
    const craftAction = require('../lib/actions/craft')
    const other = await connectBot(server.port, 'tinker')
    try {
      const has = (n) => other.inventory.count(id(n))
      await command(other, '/give tinker acacia_log 2', { match: /gave 2 acacia_log/ })
      await waitFor(() => has('acacia_log') === 2, 3000, 'the logs')
      await fillUp(other, 'bone')
      await assert.rejects(withTimeout(craftAction.run(other, { item: 'acacia_planks', times: 1 }, {}), 20000, 'craft action'), /no room for acacia_planks in a full inventory/)
      await roundTrip(other)
      assert.strictEqual(has('acacia_log'), 2, 'no log taken')
      assert.strictEqual(has('acacia_planks'), 0)
    } finally {
      other.quit()
    }
  })

  // The craft action's acacia planks with no game tick running: a stack tossed for room that
  // falls back within the bot's reach is not given back after its pickup delay (the craft's
  // clicks need no tick)
  const planksWithTicksFrozen = async (b, times = 1) => {
    const craftAction = require('../lib/actions/craft')
    await command(b, '/mcbot tick freeze')
    try {
      return await withTimeout(craftAction.run(b, { item: 'acacia_planks', times }, {}), 30000, 'craft action')
    } finally {
      await command(b, '/mcbot tick unfreeze')
    }
  }

  await t.test('with no filler to spare, a craft makes room by tossing a wooden tool of a kind an iron one is held of', async () => {
    const other = await connectBot(server.port, 'whittler')
    try {
      const has = (n) => other.inventory.count(id(n))
      for (const item of ['acacia_log 2', 'iron_pickaxe 1', 'wooden_pickaxe 1', 'stone_sword 1']) {
        const [name, n] = item.split(' ')
        await command(other, `/give whittler ${item}`, { match: new RegExp(`gave ${n} ${name}`) })
        await waitFor(() => has(name) === Number(n), 3000, item)
      }
      await fillUp(other, 'bone')
      const out = await planksWithTicksFrozen(other)
      assert.strictEqual(out.gained, 4, JSON.stringify(out))
      assert.deepStrictEqual(out.tossed, [{ name: 'wooden_pickaxe', count: 1 }])
      assert.strictEqual(has('iron_pickaxe'), 1)
      assert.strictEqual(has('stone_sword'), 1, 'no better sword held: kept')
    } finally {
      other.quit()
    }
  })

  await t.test('with no slot free the craft action tosses a stack of filler first (a full inventory makes nothing)', async () => {
    await give('acacia_log', 2) // one stays in its slot: the planks made have no slot of their own
    // the rest of the slots filled with dirt, a stack each
    for (let free = bot.inventory.emptySlotCount(); free > 0; free = bot.inventory.emptySlotCount()) {
      await command(bot, '/give smith dirt 64', { match: /gave 64 dirt/ })
      await waitFor(() => bot.inventory.emptySlotCount() < free, 3000, 'a slot filled')
    }
    const dirt = count('dirt')
    const out = await planksWithTicksFrozen(bot)
    assert.strictEqual(out.gained, 4, JSON.stringify(out))
    assert.deepStrictEqual(out.tossed, [{ name: 'dirt', count: 64 }])
    await waitFor(() => count('dirt') === dirt - 64, 3000, 'one stack of dirt gone')
  })

  await t.test('a stack tossed for room flies the open way, out of reach: one thrown at a wall fell back and came back after its pickup delay', async () => {
    const { makeRoom } = require('../lib/room')
    const { lookAndSend } = require('../lib/ticks')
    const feet = bot.entity.position.floored()
    const wall = `${feet.x - 1} ${feet.y} ${feet.z - 1} ${feet.x - 1} ${feet.y + 2} ${feet.z + 1}`
    await command(bot, `/mcbot fill ${wall} stone`)
    await waitFor(() => bot.blockAt(feet.offset(-1, 1, 0))?.name === 'stone', 3000, 'the wall')
    for (let free = bot.inventory.emptySlotCount(); free > 0; free = bot.inventory.emptySlotCount()) {
      await command(bot, '/give smith dirt 64', { match: /gave 64 dirt/ })
      await waitFor(() => bot.inventory.emptySlotCount() < free, 3000, 'a slot filled')
    }
    await command(bot, '/mcbot tick freeze')
    try {
      await lookAndSend(bot, bot.entity.position.offset(-4, 1.6, 0)) // facing the wall
      const dirt = count('dirt')
      const tossed = await makeRoom(bot, null, null)
      assert.deepStrictEqual(tossed, { name: 'dirt', count: 64 })
      await waitFor(() => count('dirt') === dirt - 64, 3000, 'the stack thrown')
      await stepTicks(bot, 60) // past the throw's 40 ticks of pickup delay
      await roundTrip(bot)
      assert.strictEqual(count('dirt'), dirt - 64, 'the stack lies out of reach, not taken back')
      assert.strictEqual(bot.inventory.emptySlotCount(), 1, 'the slot stays free')
    } finally {
      await command(bot, '/mcbot tick unfreeze')
      await command(bot, `/mcbot fill ${wall} air`)
    }
  })

  await t.test('a craft of several makes room for all of them: a stack of its item with room for one craft is not enough', async () => {
    const craftAction = require('../lib/actions/craft')
    await give('acacia_log', 2)
    await give('acacia_planks', 60 - count('acacia_planks')) // one stack of 60: room for one craft's 4
    for (let free = bot.inventory.emptySlotCount(); free > 0; free = bot.inventory.emptySlotCount()) {
      await command(bot, '/give smith dirt 64', { match: /gave 64 dirt/ })
      await waitFor(() => bot.inventory.emptySlotCount() < free, 3000, 'a slot filled')
    }
    const planks = count('acacia_planks')
    await command(bot, '/mcbot tick freeze')
    let out
    try {
      out = await withTimeout(craftAction.run(bot, { item: 'acacia_planks', times: 2 }, {}), 20000, 'craft action')
    } finally {
      await command(bot, '/mcbot tick unfreeze')
    }
    assert.strictEqual(out.gained, 8, JSON.stringify(out))
    assert.deepStrictEqual(out.tossed, [{ name: 'dirt', count: 64 }])
    assert.strictEqual(count('acacia_planks'), planks + 8)
  })

  await t.test('walled in on every side, a stack is still tossed for room (every way shut: away from the table)', async () => {
    const { makeRoom } = require('../lib/room')
    const feet = bot.entity.position.floored()
    // the eight cells round the feet and head: the bot's own two are never filled (no suffocation)
    const walls = [[-1, -1, 1, -1], [-1, 1, 1, 1], [-1, 0, -1, 0], [1, 0, 1, 0]]
      .map(([x0, z0, x1, z1]) => `${feet.x + x0} ${feet.y} ${feet.z + z0} ${feet.x + x1} ${feet.y + 1} ${feet.z + z1}`)
    for (const w of walls) await command(bot, `/mcbot fill ${w} stone`)
    await waitFor(() => bot.blockAt(feet.offset(1, 1, 1))?.name === 'stone' && bot.blockAt(feet.offset(-1, 0, 0))?.name === 'stone', 3000, 'the walls')
    for (let free = bot.inventory.emptySlotCount(); free > 0; free = bot.inventory.emptySlotCount()) {
      await command(bot, '/give smith dirt 64', { match: /gave 64 dirt/ })
      await waitFor(() => bot.inventory.emptySlotCount() < free, 3000, 'a slot filled')
    }
    await command(bot, '/mcbot tick freeze')
    try {
      const dirt = count('dirt')
      assert.deepStrictEqual(await makeRoom(bot, null, table.position), { name: 'dirt', count: 64 })
      await waitFor(() => count('dirt') === dirt - 64 && bot.inventory.emptySlotCount() === 1, 3000, 'a slot freed')
    } finally {
      await command(bot, '/mcbot tick unfreeze')
      for (const w of walls) await command(bot, `/mcbot fill ${w} air`)
      const t0 = table.position
      await command(bot, `/mcbot setblock ${t0.x} ${t0.y} ${t0.z} crafting_table`) // a wall may have stood in its place
    }
  })

  await t.test('a craft whose planks need more slots than one stack makes tosses as many stacks of filler as it needs', async () => {
    const other = await connectBot(server.port, 'joiner')
    try {
      const has = (n) => other.inventory.count(id(n))
      await command(other, '/give joiner acacia_log 48', { match: /gave 48 acacia_log/ })
      await waitFor(() => has('acacia_log') === 48, 3000, 'the logs')
      await fillUp(other, 'dirt')
      const out = await planksWithTicksFrozen(other, 48)
      // 192 planks: three stacks; the first round alone needs more room than one stack tossed
      assert.strictEqual(out.gained, 192, JSON.stringify(out))
      assert.ok(out.tossed.length >= 2 && out.tossed.every((x) => x.name === 'dirt' && x.count === 64), JSON.stringify(out.tossed))
    } finally {
      other.quit()
    }
  })
})
