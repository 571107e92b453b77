// Furnaces through mineflayer's own furnace API (bot.openFurnace): placing, smelting at vanilla
// speed (200 ticks per item, so one item per test), fuel running out, shift-clicks, contents
// kept when the window closes, across a restart, and dropped when the furnace is broken.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const fs = require('fs')
const os = require('os')
const path = require('path')
const { Vec3 } = require('vec3')
const { startServer, connectBot, waitFor, command, withTimeout, sleep } = require('./helpers')

// Resolves once `check(furnace)` holds after one of its window property updates.
function whenFurnace (furnace, check, ms, what) {
  if (check(furnace)) return Promise.resolve()
  return withTimeout(new Promise((resolve) => {
    const onUpdate = () => { if (check(furnace)) { furnace.removeListener('update', onUpdate); resolve() } }
    furnace.on('update', onUpdate)
  }), ms, what)
}

function helpersFor (bot) {
  const reg = bot.registry
  const id = (n) => reg.itemsByName[n].id
  const count = (n) => bot.inventory.count(id(n))
  const give = async (item, n) => {
    const before = count(item)
    await command(bot, `/give ${bot.username} ${item} ${n}`, { match: new RegExp(`gave ${n} ${item}`) })
    await waitFor(() => count(item) === before + n, 3000, `${n} ${item}`)
  }
  return { id, count, give }
}

test('furnaces', { timeout: 120000 }, async (t) => {
  const server = await startServer({ seed: 5, hostiles: false })
  const bot = await connectBot(server.port, 'smelter')
  t.after(async () => { bot.quit(); await server.stop() })
  const { id, count, give } = helpersFor(bot)

  // A stone pad with clear air above, the bot in the middle of it.
  const base = bot.entity.position.floored()
  await command(bot, `/mcbot fill ${base.x - 4} ${base.y - 1} ${base.z - 4} ${base.x + 4} ${base.y - 1} ${base.z + 4} stone`)
  await command(bot, `/mcbot fill ${base.x - 4} ${base.y} ${base.z - 4} ${base.x + 4} ${base.y + 4} ${base.z + 4} air`)
  await command(bot, `/mcbot tp smelter ${base.x + 0.5} ${base.y} ${base.z + 0.5}`)
  await waitFor(() => bot.blockAt(base.offset(4, 0, 4))?.name === 'air' && bot.entity.onGround, 3000, 'pad ready')
  const placed = base.offset(1, 0, 0) // next to the bot: what it drops lands within pickup reach
  const props = (pos) => bot.blockAt(pos).getProperties()

  await t.test('placing a furnace puts a furnace block facing the player, unlit', async () => {
    await give('furnace', 1)
    await bot.equip(id('furnace'), 'hand')
    await withTimeout(bot.placeBlock(bot.blockAt(placed.offset(0, -1, 0)), new Vec3(0, 1, 0)), 5000, 'place furnace')
    await waitFor(() => bot.blockAt(placed)?.name === 'furnace', 3000, 'furnace block')
    assert.strictEqual(props(placed).facing, 'west', 'the bot looked east to place it')
    assert.strictEqual(String(props(placed).lit), 'false')
    assert.strictEqual(count('furnace'), 0)
  })

  await t.test('raw iron and coal smelt into an iron ingot (fuel and progress move)', async () => {
    await give('raw_iron', 1)
    await give('coal', 1)
    const furnace = await withTimeout(bot.openFurnace(bot.blockAt(placed)), 5000, 'open furnace')
    assert.strictEqual(furnace.type, 'minecraft:furnace')
    await furnace.putInput(id('raw_iron'), null, 1)
    await furnace.putFuel(id('coal'), null, 1)
    await whenFurnace(furnace, f => f.fuel > 0 && f.progress > 0, 5000, 'burning and cooking')
    assert.strictEqual(furnace.totalFuel, 1600, 'coal burns 1600 ticks')
    assert.strictEqual(furnace.totalProgress, 200, 'an item cooks in 200 ticks')
    await waitFor(() => String(props(placed).lit) === 'true', 3000, 'lit block')
    const started = Date.now()
    await waitFor(() => furnace.outputItem()?.name === 'iron_ingot', 13000, 'iron ingot', 100)
    assert.ok(Date.now() - started >= 8000, 'no faster than vanilla')
    assert.strictEqual(furnace.inputItem(), null)
    assert.strictEqual(furnace.fuelItem(), null, 'the coal was burnt')
    await furnace.takeOutput()
    await bot._syncWindow(furnace)
    assert.strictEqual(furnace.outputItem(), null)
    assert.strictEqual(furnace.count(id('iron_ingot')), 1, 'the ingot in the inventory')
    assert.ok(furnace.fuel > 0, 'coal still burning')
    bot.closeWindow(furnace)
  })

  await t.test('contents survive closing and reopening; cooking goes on with the window closed', async () => {
    await give('cobblestone', 2)
    let furnace = await withTimeout(bot.openFurnace(bot.blockAt(placed)), 5000, 'open furnace')
    await furnace.putInput(id('cobblestone'), null, 2)
    await whenFurnace(furnace, f => f.progress > 0, 3000, 'cooking')
    bot.closeWindow(furnace)
    await sleep(1500)
    furnace = await withTimeout(bot.openFurnace(bot.blockAt(placed)), 5000, 'reopen furnace')
    assert.strictEqual(furnace.inputItem()?.name, 'cobblestone')
    assert.strictEqual(furnace.inputItem()?.count, 2)
    // 1.5 s closed = 30 ticks on top of what it had
    await whenFurnace(furnace, f => f.totalProgress === 200 && f.progress * 200 >= 30, 3000, 'progress made while closed')
    assert.ok(furnace.fuel > 0, 'still burning')
    assert.strictEqual(count('cobblestone'), 0)
    bot.closeWindow(furnace)
  })

  await t.test('fuel running out stops smelting; progress falls back', async () => {
    const at = base.offset(-1, 0, 0)
    await command(bot, `/mcbot setblock ${at.x} ${at.y} ${at.z} furnace[facing=east]`)
    await waitFor(() => bot.blockAt(at)?.name === 'furnace', 3000, 'second furnace')
    await give('beef', 1)
    await give('stick', 1)
    const furnace = await withTimeout(bot.openFurnace(bot.blockAt(at)), 5000, 'open furnace')
    await furnace.putInput(id('beef'), null, 1)
    await furnace.putFuel(id('stick'), null, 1)
    await whenFurnace(furnace, f => f.totalFuel === 100 && f.fuel > 0, 3000, 'stick burning (100 ticks)')
    await whenFurnace(furnace, f => f.fuel === 0, 8000, 'stick burnt out')
    assert.ok(furnace.progress > 0.3 && furnace.progress < 0.6, `half cooked at most (${furnace.progress})`)
    await whenFurnace(furnace, f => f.progress === 0, 5000, 'progress back to 0')
    await waitFor(() => String(props(at).lit) === 'false', 2000, 'furnace out')
    assert.strictEqual(furnace.outputItem(), null)
    assert.strictEqual(furnace.inputItem()?.name, 'beef')
    assert.strictEqual(furnace.fuelItem(), null)
    bot.closeWindow(furnace)
  })

  await t.test('shift-click: smeltables to the input, fuel to the fuel slot, others across the inventory', async () => {
    const at = base.offset(0, 0, 1)
    await command(bot, `/mcbot setblock ${at.x} ${at.y} ${at.z} furnace[facing=north]`)
    await waitFor(() => bot.blockAt(at)?.name === 'furnace', 3000, 'third furnace')
    await give('clay_ball', 4)
    await give('oak_planks', 3)
    await give('dirt', 1)
    const furnace = await withTimeout(bot.openFurnace(bot.blockAt(at)), 5000, 'open furnace')
    const slotOf = (name) => furnace.findInventoryItem(id(name)).slot
    await bot.clickWindow(slotOf('clay_ball'), 0, 1)
    await bot.clickWindow(slotOf('oak_planks'), 0, 1)
    const dirtFrom = slotOf('dirt')
    await bot.clickWindow(dirtFrom, 0, 1)
    await whenFurnace(furnace, f => f.fuel > 0, 3000, 'burning')
    await bot._syncWindow(furnace)
    assert.strictEqual(furnace.inputItem()?.name, 'clay_ball')
    assert.strictEqual(furnace.inputItem()?.count, 4)
    assert.strictEqual(furnace.fuelItem()?.name, 'oak_planks')
    assert.strictEqual(furnace.fuelItem()?.count, 2, 'one plank already burning')
    const dirtTo = slotOf('dirt')
    assert.ok((dirtFrom < 30) !== (dirtTo < 30), `dirt moved between main inventory and hotbar (${dirtFrom} -> ${dirtTo})`)
    // the output slot takes nothing
    await bot.clickWindow(slotOf('dirt'), 0, 0)
    await bot.clickWindow(2, 0, 0)
    await bot._syncWindow(furnace)
    assert.strictEqual(furnace.outputItem(), null)
    assert.strictEqual(furnace.selectedItem?.name, 'dirt')
    await bot.clickWindow(dirtTo, 0, 0)
    // the input back to the inventory
    await bot.clickWindow(0, 0, 1)
    await bot._syncWindow(furnace)
    assert.strictEqual(furnace.inputItem(), null)
    assert.strictEqual(furnace.count(id('clay_ball')), 4)
    bot.closeWindow(furnace)
  })

  await t.test('two players at one furnace see each other\'s changes', async () => {
    const at = base.offset(0, 0, 1) // the shift-click furnace, planks burning, no input
    const other = await connectBot(server.port, 'stoker')
    try {
      await command(other, `/mcbot tp stoker ${base.x + 0.5} ${base.y} ${base.z - 0.5}`)
      await waitFor(() => other.entity.position.distanceTo(at.offset(0.5, 0, 0.5)) < 3 && other.blockAt(at)?.name === 'furnace', 5000, 'stoker near the furnace')
      const mine = await withTimeout(bot.openFurnace(bot.blockAt(at)), 5000, 'open furnace')
      const theirs = await withTimeout(other.openFurnace(other.blockAt(at)), 5000, 'stoker opens it too')
      await mine.putInput(id('clay_ball'), null, 1)
      await waitFor(() => theirs.inputItem()?.name === 'clay_ball', 3000, 'the other window shows the input')
      await whenFurnace(theirs, f => f.progress > 0, 3000, 'the other window shows the cooking')
      await theirs.takeInput()
      await waitFor(() => mine.inputItem() === null, 3000, 'the first window shows it taken')
      assert.strictEqual(theirs.count(id('clay_ball')), 1)
      bot.closeWindow(mine)
      other.closeWindow(theirs)
    } finally {
      other.quit()
    }
  })

  await t.test('breaking a furnace with a pickaxe drops the furnace and its contents', async () => {
    await give('wooden_pickaxe', 1)
    await bot.equip(id('wooden_pickaxe'), 'hand')
    const before = { furnace: count('furnace'), smelt: count('cobblestone') + count('stone') }
    await withTimeout(bot.dig(bot.blockAt(placed)), 10000, 'dig furnace')
    assert.strictEqual(bot.blockAt(placed).name, 'air')
    await waitFor(() => count('furnace') === before.furnace + 1, 5000, 'furnace picked up')
    // the 2 cobblestone put in, some of it smelted to stone meanwhile
    await waitFor(() => count('cobblestone') + count('stone') === before.smelt + 2, 5000, 'contents picked up')
  })
})

test('a saved world keeps furnace contents across a restart', { timeout: 60000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbot-furnace-'))
  try {
    let server = await startServer({ worldFolder: dir, seed: 5, hostiles: false })
    let bot = await connectBot(server.port, 'keeper')
    const at = bot.entity.position.floored().offset(2, 0, 0)
    try {
      const { id, give } = helpersFor(bot)
      await command(bot, `/mcbot setblock ${at.x} ${at.y} ${at.z} furnace`)
      await waitFor(() => bot.blockAt(at)?.name === 'furnace', 3000, 'furnace')
      await give('potato', 3)
      const furnace = await withTimeout(bot.openFurnace(bot.blockAt(at)), 5000, 'open furnace')
      await furnace.putInput(id('potato'), null, 3)
      await bot._syncWindow(furnace)
      assert.strictEqual(furnace.inputItem()?.count, 3)
      bot.closeWindow(furnace)
      await sleep(1500) // a world save (every second) writes the furnaces
    } finally {
      bot.quit()
    }
    await sleep(500)
    server.proc.kill('SIGTERM')
    assert.strictEqual(await new Promise(resolve => server.proc.on('exit', resolve)), 0)
    await server.stop()
    server = await startServer({ worldFolder: dir, hostiles: false })
    bot = await connectBot(server.port, 'keeper')
    try {
      await waitFor(() => bot.blockAt(at)?.name === 'furnace', 5000, 'furnace after restart')
      const furnace = await withTimeout(bot.openFurnace(bot.blockAt(at)), 5000, 'reopen furnace')
      assert.strictEqual(furnace.inputItem()?.name, 'potato')
      assert.strictEqual(furnace.inputItem()?.count, 3)
      bot.closeWindow(furnace)
    } finally {
      bot.quit()
      await server.stop()
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
