// From a fresh world to a stone pickaxe's first use, with mineflayer's own plugins:
// collect logs from a tree near spawn (collectblock), craft planks and sticks in the 2x2
// grid, craft and place a crafting table, craft a wooden pickaxe on it, mine stone with it.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { pathfinder } = require('mineflayer-pathfinder')
const collectBlock = require('mineflayer-collectblock').plugin
const { Vec3 } = require('vec3')
const { startServer, connectBot, waitFor, command, withTimeout } = require('./helpers')

test('wood to pickaxe to stone', { timeout: 240000 }, async (t) => {
  // Seed 42: the nearest low logs stand on the bot's level. With 12345 the first log was a
  // block lower: pathfinder dug itself a hole next to the trunk and, now and then under load,
  // looped for good planning a diagonal jump out of it under the leaves (both versions).
  const server = await startServer({ seed: 42, hostiles: false })
  const bot = await connectBot(server.port, 'lumberjack', { plugins: [pathfinder, collectBlock] })
  t.after(async () => { bot.quit(); await server.stop() })
  const reg = bot.registry
  const count = (name) => bot.inventory.count(reg.itemsByName[name].id)
  const recipe = (name, table = null) => {
    const r = bot.recipesFor(reg.itemsByName[name].id, null, 1, table)[0]
    assert.ok(r, `a recipe for ${name} is available`)
    return r
  }

  await t.test('trees grow within 20 blocks of spawn', () => {
    const logs = bot.findBlocks({ matching: reg.blocksByName.oak_log.id, maxDistance: 20, count: 10 })
    assert.ok(logs.length >= 4, `found ${logs.length} logs`)
    const near = bot.findBlocks({ matching: reg.blocksByName.oak_log.id, maxDistance: 3, count: 1 })
    assert.strictEqual(near.length, 0, 'spawn is in the open')
  })

  await t.test('coal and iron ore lie in the stone below', () => {
    assert.ok(bot.findBlocks({ matching: reg.blocksByName.coal_ore.id, maxDistance: 48, count: 1 }).length > 0, 'coal ore')
    assert.ok(bot.findBlocks({ matching: reg.blocksByName.iron_ore.id, maxDistance: 48, count: 1 }).length > 0, 'iron ore')
  })

  await t.test('collectblock gathers 3 oak logs', async () => {
    const origin = bot.entity.position.clone()
    const targets = bot.findBlocks({ matching: reg.blocksByName.oak_log.id, maxDistance: 24, count: 40 })
      .filter(p => p.y <= origin.y + 1) // low logs: reachable from the ground
      .sort((a, b) => a.distanceTo(origin) - b.distanceTo(origin))
      .slice(0, 3)
      .map(p => bot.blockAt(p))
    assert.strictEqual(targets.length, 3)
    const t0 = Date.now()
    await withTimeout(bot.collectBlock.collect(targets, { ignoreNoPath: false }), 150000, 'collect logs') // slow on a loaded 2-core machine
    console.log(`# collected 3 logs in ${Date.now() - t0} ms`)
    await waitFor(() => count('oak_log') >= 3, 5000, '3 logs in inventory')
  })

  // Counts are relative: collecting may also pick up an extra log or a stick from leaves.
  let planks0, sticks0
  await t.test('2x2 grid: planks and sticks', async () => {
    const logs = count('oak_log')
    planks0 = count('oak_planks') + 4 * logs
    await withTimeout(bot.craft(recipe('oak_planks'), logs, null), 15000, 'craft planks')
    assert.strictEqual(count('oak_planks'), planks0)
    assert.strictEqual(count('oak_log'), 0)
    sticks0 = count('stick') + 4
    await withTimeout(bot.craft(recipe('stick'), 1, null), 15000, 'craft sticks')
    assert.strictEqual(count('stick'), sticks0)
    assert.strictEqual(count('oak_planks'), planks0 - 2)
  })

  let table
  await t.test('crafting table: craft and place', async () => {
    await withTimeout(bot.craft(recipe('crafting_table'), 1, null), 15000, 'craft table')
    assert.strictEqual(count('crafting_table'), 1)
    assert.strictEqual(count('oak_planks'), planks0 - 6)
    await bot.equip(reg.itemsByName.crafting_table.id, 'hand')
    const pos = bot.entity.position.floored()
    await command(bot, `/mcbot setblock ${pos.x + 2} ${pos.y - 1} ${pos.z} dirt`)
    await command(bot, `/mcbot fill ${pos.x + 2} ${pos.y} ${pos.z} ${pos.x + 2} ${pos.y + 1} ${pos.z} air`)
    await waitFor(() => bot.blockAt(pos.offset(2, -1, 0))?.name === 'dirt', 3000, 'ground ready')
    const ground = bot.blockAt(pos.offset(2, -1, 0))
    await withTimeout(bot.placeBlock(ground, new Vec3(0, 1, 0)), 10000, 'place table')
    table = bot.blockAt(pos.offset(2, 0, 0))
    assert.strictEqual(table.name, 'crafting_table')
    assert.strictEqual(count('crafting_table'), 0)
  })

  await t.test('3x3 table: wooden pickaxe', async () => {
    await withTimeout(bot.craft(recipe('wooden_pickaxe', table), 1, table), 20000, 'craft pickaxe')
    assert.strictEqual(count('wooden_pickaxe'), 1)
    assert.strictEqual(count('oak_planks'), planks0 - 9)
    assert.strictEqual(count('stick'), sticks0 - 2)
    assert.strictEqual(bot.currentWindow, null, 'table window closed')
  })

  await t.test('stone: nothing by hand, cobblestone with the pickaxe', async () => {
    const pos = bot.entity.position.floored()
    const a = pos.offset(-2, 0, 0)
    const b = pos.offset(-2, 0, 1)
    await command(bot, `/mcbot setblock ${a.x} ${a.y} ${a.z} stone`)
    await command(bot, `/mcbot setblock ${b.x} ${b.y} ${b.z} stone`)
    await waitFor(() => bot.blockAt(a)?.name === 'stone' && bot.blockAt(b)?.name === 'stone', 3000, 'stone set')
    await bot.unequip('hand')
    await withTimeout(bot.dig(bot.blockAt(a)), 15000, 'dig by hand')
    await new Promise(resolve => setTimeout(resolve, 1000))
    assert.strictEqual(count('cobblestone'), 0, 'stone dug by hand drops nothing')
    await bot.equip(reg.itemsByName.wooden_pickaxe.id, 'hand')
    await withTimeout(bot.dig(bot.blockAt(b)), 10000, 'dig with pickaxe')
    const drop = await waitFor(() => bot.nearestEntity(e => e.name === 'item'), 3000, 'cobblestone dropped')
    await withTimeout(bot.collectBlock.collect(drop, {}), 10000, 'pick up').catch((e) => console.log('collect', e.message, drop.position, bot.entity.position))
    await waitFor(() => count('cobblestone') === 1, 5000, 'cobblestone picked up')
  })
})
