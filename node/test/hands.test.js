// lib/hands.js against the embedded server: a placement against a crafting table without
// sneaking opens the table (as vanilla does), and an equip then would click the table's slots
// with the inventory's numbers; the hands close such a stray window first, so the eat of food
// from the main inventory takes. The place action sneaks against a table and opens nothing, and
// the world closes a table window as vanilla does (the table broken, the player 8 blocks off).
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { Vec3 } = require('vec3')
const { startServer, connectBot, waitFor, command, runAction } = require('./helpers')

test('no click into a stray window: an eat after a placement opened a table', { timeout: 180000 }, async (t) => {
  const server = await startServer({ seed: 11, hostiles: false, animals: false })
  const bot = await connectBot(server.port, 'hands')
  t.after(async () => { bot.quit(); await server.stop() })
  const p = bot.entity.position.floored()
  await command(bot, `/mcbot fill ${p.x - 3} ${p.y - 1} ${p.z - 3} ${p.x + 3} ${p.y - 1} ${p.z + 3} stone`)
  await command(bot, `/mcbot fill ${p.x - 3} ${p.y} ${p.z - 3} ${p.x + 3} ${p.y + 4} ${p.z + 3} air`)
  const table = p.offset(2, 0, 0)
  await command(bot, `/mcbot setblock ${table.x} ${table.y} ${table.z} crafting_table`)
  await waitFor(() => bot.blockAt(table)?.name === 'crafting_table', 5000, 'the table')
  // a full hotbar, as on a long run: the mutton and the wool go to the main inventory
  for (const it of ['iron_sword', 'cobblestone', 'dirt', 'oak_planks', 'torch', 'stick', 'coal', 'oak_log', 'stone_pickaxe']) {
    await command(bot, `/give hands ${it} ${/sword|pickaxe/.test(it) ? 1 : 8}`, { match: /gave/ })
  }
  await command(bot, '/give hands white_wool 3', { match: /gave/ })
  await command(bot, '/give hands mutton 1', { match: /gave/ })
  await waitFor(() => bot.inventory.items().some((i) => i.name === 'mutton'), 5000, 'the mutton')
  assert.ok(bot.inventory.items().find((i) => i.name === 'mutton').slot < 36, 'the mutton is in the main inventory')

  await t.test('a plain placement against the table opens it, and the eat still takes', async () => {
    await bot.equip(bot.inventory.items().find((i) => i.name === 'cobblestone'), 'hand')
    const placed = await bot.placeBlock(bot.blockAt(table), new Vec3(0, 1, 0)).then(() => true, () => false)
    assert.ok(!placed, 'the use opened the table instead of placing')
    await waitFor(() => bot.currentWindow?.type === 'minecraft:crafting', 5000, 'the table open')
    await command(bot, '/mcbot food hands 10 0')
    await waitFor(() => bot.food === 10, 5000, 'food 10')
    const st = await runAction(bot, 'consume', { item: 'mutton' }, 20000)
    assert.strictEqual(st.state, 'done', `ended ${st.state}: ${st.error}`)
    assert.strictEqual(st.result.ate, 'mutton')
    assert.ok(bot.food > 10, `food ${bot.food}`)
    assert.strictEqual(bot.mcbotStrayWindows, 1, 'the table closed before the equip clicked')
  })

  await t.test('a hand-back that never settles is waited for once, not by every equip after it', async () => {
    bot.mcbotHandBack = new Promise(() => {}) // a stopped smelt's take-back stuck
    await bot.equip(bot.inventory.items().find((i) => i.name === 'iron_sword'), 'hand')
    assert.strictEqual(bot.mcbotHandBack, null, 'the stuck hand-back is let go')
    await bot.equip(bot.inventory.items().find((i) => i.name === 'stick'), 'hand')
    assert.strictEqual(bot.heldItem?.name, 'stick')
  })

  await t.test('the place action sneaks against the table: a block on it, no window', async () => {
    const st = await runAction(bot, 'place', { x: table.x, y: table.y + 1, z: table.z, block: 'cobblestone' }, 15000)
    assert.strictEqual(st.state, 'done', `ended ${st.state}: ${st.error}`)
    await waitFor(() => bot.blockAt(table.offset(0, 1, 0))?.name === 'cobblestone', 5000, 'the cobblestone on the table')
    assert.ok(!bot.currentWindow, 'no window opened')
  })
  await t.test('the world closes a table window once the table is gone or the player is 8 blocks off', async () => {
    await command(bot, `/mcbot setblock ${table.x} ${table.y + 1} ${table.z} air`)
    const use = () => bot.activateBlock(bot.blockAt(table))
    await use()
    await waitFor(() => bot.currentWindow?.type === 'minecraft:crafting', 5000, 'the table open')
    await command(bot, `/mcbot setblock ${table.x} ${table.y} ${table.z} air`)
    await waitFor(() => !bot.currentWindow, 5000, 'the window closed by the table broken')
    await command(bot, `/mcbot setblock ${table.x} ${table.y} ${table.z} crafting_table`)
    await waitFor(() => bot.blockAt(table)?.name === 'crafting_table', 5000, 'the table again')
    await use()
    await waitFor(() => bot.currentWindow?.type === 'minecraft:crafting', 5000, 'the table open again')
    await command(bot, `/mcbot fill ${p.x + 12} ${p.y - 1} ${p.z} ${p.x + 12} ${p.y - 1} ${p.z} stone`)
    await command(bot, `/mcbot tp hands ${p.x + 12.5} ${p.y} ${p.z + 0.5}`, { match: /teleported/ })
    await waitFor(() => !bot.currentWindow, 5000, 'the window closed by the walk away')
    assert.ok(bot.entity.position.distanceTo(table) > 8, `the bot at ${bot.entity.position}`)
  })
})
