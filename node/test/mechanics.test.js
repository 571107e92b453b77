// Hunger and eating, doors, fall damage - each seen from the bot's side of the protocol.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { Vec3 } = require('vec3')
const { startServer, connectBot, waitFor, command, withTimeout, sleep } = require('./helpers')

test('survival mechanics', { timeout: 120000 }, async (t) => {
  const server = await startServer({ seed: 99, hostiles: false, hungerRate: 40 })
  const bot = await connectBot(server.port, 'mech')
  t.after(async () => { bot.quit(); await server.stop() })
  const reg = bot.registry

  // A flat 9x9 stone pad around the bot, clear air above, so every test stands on known ground.
  const base = bot.entity.position.floored()
  await command(bot, `/mcbot fill ${base.x - 4} ${base.y - 1} ${base.z - 4} ${base.x + 4} ${base.y - 1} ${base.z + 4} stone`)
  await command(bot, `/mcbot fill ${base.x - 4} ${base.y} ${base.z - 4} ${base.x + 4} ${base.y + 12} ${base.z + 4} air`)
  await waitFor(() => bot.blockAt(base.offset(4, 0, 4))?.name === 'air', 3000, 'pad ready')

  await t.test('food drains with activity (jumping, hungerRate 40)', async () => {
    await command(bot, '/mcbot food mech 20 0')
    await waitFor(() => bot.food === 20 && bot.foodSaturation === 0, 3000, 'food 20, saturation 0')
    // each jump costs 0.05 * 40 = 2 exhaustion; every 4 exhaustion costs a food point
    bot.setControlState('jump', true)
    await waitFor(() => bot.food <= 17, 15000, 'food dropping')
    bot.setControlState('jump', false)
    assert.ok(bot.food <= 17)
  })

  await t.test('eating bread adds bread\'s food and saturation', async () => {
    await command(bot, '/mcbot food mech 10 0')
    await waitFor(() => bot.food === 10, 3000, 'food 10')
    await command(bot, '/give mech bread 2', { match: /gave 2 bread/ })
    await waitFor(() => bot.inventory.count(reg.itemsByName.bread.id) === 2, 3000, 'bread')
    await bot.equip(reg.itemsByName.bread.id, 'hand')
    const bread = reg.foodsByName.bread
    const started = Date.now()
    await withTimeout(bot.consume(), 5000, 'consume bread')
    assert.ok(Date.now() - started >= 1400, 'eating takes 32 ticks')
    await waitFor(() => bot.food === 10 + bread.foodPoints, 2000, 'food after bread')
    assert.strictEqual(bot.foodSaturation, bread.saturation)
    assert.strictEqual(bot.inventory.count(reg.itemsByName.bread.id), 1)
    await command(bot, '/mcbot food mech 20 5')
  })

  await t.test('regeneration heals when food >= 18', async () => {
    await command(bot, '/mcbot damage mech 2')
    await waitFor(() => bot.health === 18, 3000, 'hurt')
    await waitFor(() => bot.health > 18, 5000, 'regenerating')
  })

  await t.test('starvation: food 0 costs 1 hp per 80 ticks', async () => {
    await command(bot, '/mcbot health mech 20')
    await command(bot, '/mcbot food mech 0 0')
    await waitFor(() => bot.food === 0 && bot.health === 20, 3000, 'starving')
    await waitFor(() => bot.health === 19, 6000, 'starvation damage')
    await command(bot, '/mcbot food mech 20 5')
  })

  await t.test('a placed door has both halves and toggles open', async () => {
    await command(bot, '/give mech oak_door 1', { match: /gave 1 oak_door/ })
    await waitFor(() => bot.inventory.count(reg.itemsByName.oak_door.id) === 1, 3000, 'door item')
    await bot.equip(reg.itemsByName.oak_door.id, 'hand')
    const at = base.offset(2, 0, 0)
    await bot.lookAt(at.offset(0.5, 0.5, 0.5), true)
    await withTimeout(bot.placeBlock(bot.blockAt(at.offset(0, -1, 0)), new Vec3(0, 1, 0)), 5000, 'place door')
    await waitFor(() => bot.blockAt(at.offset(0, 1, 0))?.name === 'oak_door', 3000, 'upper half')
    const lower = bot.blockAt(at)
    const upper = bot.blockAt(at.offset(0, 1, 0))
    assert.strictEqual(lower.getProperties().half, 'lower')
    assert.strictEqual(upper.getProperties().half, 'upper')
    assert.strictEqual(lower.getProperties().facing, 'east', 'faces where the player looks')
    assert.strictEqual(lower.getProperties().open, false)
    assert.strictEqual(upper.getProperties().hinge, lower.getProperties().hinge)
    await bot.activateBlock(lower)
    await waitFor(() => bot.blockAt(at).getProperties().open === true && bot.blockAt(at.offset(0, 1, 0)).getProperties().open === true, 3000, 'door opened')
    await bot.activateBlock(bot.blockAt(at.offset(0, 1, 0)))
    await waitFor(() => bot.blockAt(at).getProperties().open === false && bot.blockAt(at.offset(0, 1, 0)).getProperties().open === false, 3000, 'door closed')
    await bot.unequip('hand')
    await withTimeout(bot.dig(bot.blockAt(at.offset(0, 1, 0))), 10000, 'break door')
    await waitFor(() => bot.blockAt(at)?.name === 'air', 3000, 'both halves gone')
  })

  await t.test('a 10-block drop deals 7 damage', async () => {
    await command(bot, '/mcbot health mech 20')
    await waitFor(() => bot.health === 20, 3000, 'full health')
    await sleep(600) // past the invulnerability window
    await command(bot, `/mcbot tp mech ${base.x} ${base.y + 10} ${base.z}`)
    await waitFor(() => bot.entity.position.y > base.y + 8, 3000, 'up high')
    await waitFor(() => bot.entity.onGround && bot.entity.position.y < base.y + 0.1, 5000, 'landed')
    await waitFor(() => bot.health < 20, 2000, 'damaged')
    assert.strictEqual(bot.health, 13)
  })
})
