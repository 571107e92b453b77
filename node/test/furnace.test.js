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
const { startServer, connectBot, waitFor, command, withTimeout, stepTicks, roundTrip } = require('./helpers')
const smelt = require('../lib/actions/smelt')

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

test('furnaces', { timeout: 360000 }, async (t) => {
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
  const ticksOf = (progress) => Math.round(progress * 200)

  // Smelting is counted in game ticks on a frozen clock, up to the breaking at the end (whose
  // pickups need the clock running). A window's readings come a little behind: the server
  // sends its properties from the window's 2nd tick on, and mineflayer reads a fuel or progress
  // value only once it has the total sent after it, so a window shows its furnace from its 3rd
  // tick on.
  await command(bot, '/mcbot tick freeze')

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
    await stepTicks(bot, 3)
    assert.ok(furnace.fuel > 0 && furnace.progress > 0, `burning and cooking (fuel ${furnace.fuel}, progress ${furnace.progress})`)
    assert.strictEqual(furnace.totalFuel, 1600, 'coal burns 1600 ticks')
    assert.strictEqual(furnace.totalProgress, 200, 'an item cooks in 200 ticks')
    assert.strictEqual(String(props(placed).lit), 'true', 'lit block')
    await stepTicks(bot, 196)
    assert.strictEqual(ticksOf(furnace.progress), 199)
    assert.strictEqual(furnace.outputItem(), null, 'not cooked after 199 ticks')
    await stepTicks(bot, 1)
    assert.strictEqual(furnace.outputItem()?.name, 'iron_ingot', 'cooked on the 200th tick')
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
    await stepTicks(bot, 3)
    const before = ticksOf(furnace.progress)
    assert.strictEqual(before, 3, 'cooking')
    bot.closeWindow(furnace)
    await stepTicks(bot, 30)
    furnace = await withTimeout(bot.openFurnace(bot.blockAt(placed)), 5000, 'reopen furnace')
    assert.strictEqual(furnace.inputItem()?.name, 'cobblestone')
    assert.strictEqual(furnace.inputItem()?.count, 2)
    await stepTicks(bot, 3)
    assert.strictEqual(furnace.totalProgress, 200)
    assert.strictEqual(ticksOf(furnace.progress), before + 30 + 3, 'the 30 ticks closed counted on top of what it had')
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
    await stepTicks(bot, 3)
    assert.ok(furnace.totalFuel === 100 && furnace.fuel > 0, 'stick burning (100 ticks)')
    await stepTicks(bot, 97)
    assert.ok(furnace.fuel > 0, 'the stick burns its 100th tick')
    await stepTicks(bot, 1)
    assert.strictEqual(furnace.fuel, 0, 'stick burnt out')
    assert.ok(furnace.progress > 0.3 && furnace.progress < 0.6, `half cooked at most (${furnace.progress})`)
    // unlit progress falls back 2 a tick
    await stepTicks(bot, 49)
    assert.strictEqual(furnace.progress, 0, 'progress back to 0')
    assert.strictEqual(String(props(at).lit), 'false', 'furnace out')
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
    await stepTicks(bot, 3)
    assert.ok(furnace.fuel > 0, 'burning')
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
      // (a step's reply follows what its ticks sent on its own connection; a round trip on the
      // other one waits for the rest)
      await mine.putInput(id('clay_ball'), null, 1)
      await stepTicks(bot, 3)
      await roundTrip(other)
      assert.strictEqual(theirs.inputItem()?.name, 'clay_ball', 'the other window shows the input')
      assert.ok(theirs.progress > 0, 'the other window shows the cooking')
      await theirs.takeInput()
      await stepTicks(other, 1)
      await roundTrip(bot)
      assert.strictEqual(mine.inputItem(), null, 'the first window shows it taken')
      assert.strictEqual(theirs.count(id('clay_ball')), 1)
      bot.closeWindow(mine)
      other.closeWindow(theirs)
    } finally {
      other.quit()
    }
  })

  await t.test('a smelt stopped while it cooks takes back before another\'s equip closes its window', async () => {
    // A stop is reported at once; the reflex that takes the body equips its sword at once, which
    // closes the furnace window (lib/hands.js): the equip waits for the smelt loop's take-back.
    const at = base.offset(0, 0, -1)
    await command(bot, `/mcbot setblock ${at.x} ${at.y} ${at.z} furnace[facing=south]`)
    await waitFor(() => bot.blockAt(at)?.name === 'furnace', 3000, 'fourth furnace')
    await give('iron_sword', 1)
    await give('cobblestone', 3)
    await give('coal', 1)
    const off = bot.inventory.firstEmptySlotRange(bot.inventory.inventoryStart, bot.inventory.hotbarStart)
    await bot.moveSlotItem(bot.inventory.findInventoryItem(id('iron_sword')).slot, off) // the equip moves it
    const rec = { cancelled: false }
    const run = smelt.run(bot, { x: at.x, y: at.y, z: at.z, output: 'stone', inputs: ['cobblestone'], want: 3, fuels: [{ name: 'coal', count: 1, ticks: 1600 }] }, rec)
    await waitFor(() => rec.cooking, 5000, 'the smelt loaded and cooking')
    rec.cancelled = true
    smelt.stop(bot, rec)
    await bot.equip(id('iron_sword'), 'hand')
    assert.strictEqual(await run, null, 'the stopped smelt returns nothing')
    assert.strictEqual(bot.currentWindow, null)
    assert.strictEqual(bot.heldItem?.name, 'iron_sword', 'the sword stays in the hand the equip put it in')
    assert.strictEqual(count('iron_sword'), 1)
    assert.strictEqual(count('cobblestone'), 3, 'the input not smelted (the clock is frozen) came back')
    const furnace = await withTimeout(bot.openFurnace(bot.blockAt(at)), 5000, 'open the fourth furnace')
    assert.strictEqual(furnace.inputItem(), null, 'nothing left in the furnace')
    bot.closeWindow(furnace)
  })

  await t.test('breaking a furnace with a pickaxe drops the furnace and its contents', async () => {
    await command(bot, '/mcbot tick unfreeze') // picking up the drops takes ticks
    await give('wooden_pickaxe', 1)
    await bot.equip(id('wooden_pickaxe'), 'hand')
    const before = { furnace: count('furnace'), smelt: count('cobblestone') + count('stone') }
    await withTimeout(bot.dig(bot.blockAt(placed)), 10000, 'dig furnace')
    assert.strictEqual(bot.blockAt(placed).name, 'air')
    await waitFor(() => count('furnace') === before.furnace + 1, 30000, 'furnace picked up')
    // the 2 cobblestone put in, some of it smelted to stone meanwhile
    await waitFor(() => count('cobblestone') + count('stone') === before.smelt + 2, 30000, 'contents picked up')
  })
})

test('a saved world keeps furnace contents across a restart', { timeout: 180000 }, async () => {
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
      // written with the chunks: a restart finds this, whatever the pace of the periodic save
      assert.match(await command(bot, '/mcbot save'), /saved the world/)
    } finally {
      // gone before the server goes: a SIGTERM that came first kicked it ("Server closed"),
      // which the server's stop counts as protocol trouble (a fresh-clone make test at 0110c61)
      const gone = new Promise((resolve) => bot.once('end', resolve))
      bot.quit()
      await withTimeout(gone, 10000, 'the bot gone')
    }
    server.proc.kill('SIGTERM')
    assert.strictEqual(await new Promise(resolve => server.proc.on('exit', resolve)), 0)
    await server.stop()
    server = await startServer({ worldFolder: dir, hostiles: false })
    bot = await connectBot(server.port, 'keeper')
    try {
      await waitFor(() => bot.blockAt(at)?.name === 'furnace', 30000, 'furnace after restart')
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
