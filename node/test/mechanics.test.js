// Hunger and eating, doors, fall damage - each seen from the bot's side of the protocol.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { Vec3 } = require('vec3')
const { startServer, connectBot, waitFor, command, withTimeout, stepTicks, roundTrip, actionDone } = require('./helpers')
const actions = require('../lib/actions')

// Resolves after the bot's next n jumps (left the ground while the jump control was held).
function jumps (bot, n) {
  return new Promise((resolve) => {
    let left = n
    let wasOnGround = bot.entity.onGround
    const onTick = () => {
      const onGround = bot.entity.onGround
      if (wasOnGround && !onGround && bot.controlState.jump && --left === 0) { bot.removeListener('physicsTick', onTick); resolve() }
      wasOnGround = onGround
    }
    bot.on('physicsTick', onTick)
  })
}

test('survival mechanics', { timeout: 360000 }, async (t) => {
  const server = await startServer({ seed: 99, hostiles: false, hungerRate: 40 })
  const bot = await connectBot(server.port, 'mech')
  t.after(async () => { bot.quit(); await server.stop() })
  const reg = bot.registry

  // A flat 9x9 stone pad around the bot, clear air above, so every test stands on known ground.
  const base = bot.entity.position.floored()
  await command(bot, `/mcbot fill ${base.x - 4} ${base.y - 1} ${base.z - 4} ${base.x + 4} ${base.y - 1} ${base.z + 4} stone`)
  await command(bot, `/mcbot fill ${base.x - 4} ${base.y} ${base.z - 4} ${base.x + 4} ${base.y + 12} ${base.z + 4} air`)
  await waitFor(() => bot.blockAt(base.offset(4, 0, 4))?.name === 'air', 3000, 'pad ready')

  // Counted in jumps, not seconds: each costs 0.05 * 40 = 2 exhaustion, and every 4 exhaustion
  // costs a food point (saturation empty), so 6 jumps take 3 points; the clock stands still
  // meanwhile, and the tick stepped after them turns the exhaustion into hunger.
  await t.test('food drains with activity (jumping, hungerRate 40)', async () => {
    await command(bot, '/mcbot tick freeze')
    try {
      await command(bot, '/mcbot food mech 20 0')
      await waitFor(() => bot.food === 20 && bot.foodSaturation === 0, 3000, 'food 20, saturation 0')
      const jumped = jumps(bot, 6)
      bot.setControlState('jump', true)
      await withTimeout(jumped, 60000, '6 jumps')
      bot.setControlState('jump', false)
      await waitFor(() => bot.entity.onGround, 10000, 'landed')
      await roundTrip(bot) // the server has read every move of those jumps
      assert.strictEqual(bot.food, 20, 'no tick has run yet')
      await stepTicks(bot, 1)
      assert.ok(bot.food <= 17, `food ${bot.food} after 6 jumps`)
    } finally {
      bot.setControlState('jump', false)
      await command(bot, '/mcbot tick unfreeze')
    }
  })

  // Counted in ticks on a frozen clock. The eating is started with activateItem and read from
  // the server's "finished eating" status (entity status 9), which is all bot.consume() does
  // itself, but bot.consume() gives up after 2.5 s of wall-clock time: 32 ticks on a loaded
  // machine can take longer.
  await t.test('eating bread adds bread\'s food and saturation, after 32 ticks', async () => {
    await command(bot, '/mcbot tick freeze')
    try {
      await command(bot, '/mcbot food mech 10 0')
      await waitFor(() => bot.food === 10, 3000, 'food 10')
      await command(bot, '/give mech bread 2', { match: /gave 2 bread/ })
      await waitFor(() => bot.inventory.count(reg.itemsByName.bread.id) === 2, 3000, 'bread')
      await bot.equip(reg.itemsByName.bread.id, 'hand')
      const bread = reg.foodsByName.bread
      let finished = 0
      bot._client.on('entity_status', (p) => { if (p.entityId === bot.entity.id && p.entityStatus === 9) finished++ })
      bot.activateItem()
      await stepTicks(bot, 31)
      assert.strictEqual(finished, 0, 'still eating after 31 ticks')
      assert.strictEqual(bot.food, 10)
      await stepTicks(bot, 1)
      assert.strictEqual(finished, 1, 'eaten on the 32nd tick')
      assert.strictEqual(bot.food, 10 + bread.foodPoints)
      assert.strictEqual(bot.foodSaturation, bread.saturation)
      assert.strictEqual(bot.inventory.count(reg.itemsByName.bread.id), 1)
    } finally {
      await command(bot, '/mcbot tick unfreeze')
    }
    await command(bot, '/mcbot food mech 20 5')
  })

  // mineflayer ends bot.consume() early, without an error, when the held stack changes (an item
  // picked up mid-eat): the consume action then waits for the server's food update instead of
  // reporting an eat that did not happen (the eat reflex ate again and again at food 15).
  await t.test('an eat cut short on the client still waits for the food to rise', async () => {
    await command(bot, '/mcbot tick freeze')
    try {
      await command(bot, '/mcbot food mech 10 0')
      await waitFor(() => bot.food === 10, 3000, 'food 10')
      const held = bot.inventory.count(reg.itemsByName.bread.id) // left by the test before
      await command(bot, '/give mech bread 1', { match: /gave 1 bread/ })
      await waitFor(() => bot.inventory.count(reg.itemsByName.bread.id) === held + 1, 3000, 'bread')
      const started = actions.start(bot, 'consume', { item: 'bread' }, 20000)
      const done = actionDone(bot, started)
      await waitFor(() => bot.usingHeldItem, 3000, 'eating started')
      await roundTrip(bot) // the server has the use_item
      await command(bot, '/give mech bread 1', { match: /gave 1 bread/ }) // the held stack grows mid-eat
      await waitFor(() => !bot.usingHeldItem, 3000, 'mineflayer ended the eat on the stack change')
      await stepTicks(bot, 32)
      const st = await withTimeout(done, 15000, 'the consume action')
      assert.strictEqual(st.state, 'done', st.error)
      assert.strictEqual(st.result.foodAfter, 10 + reg.foodsByName.bread.foodPoints, 'the eat reported is the eat made')
    } finally {
      await command(bot, '/mcbot tick unfreeze')
    }
    await command(bot, '/mcbot food mech 20 5')
  })

  // Counted in ticks on a frozen clock: food 20 with saturation heals every 10 ticks, and food 0
  // starves 1 hp every 80.
  await t.test('regeneration heals when food >= 18', async () => {
    await command(bot, '/mcbot tick freeze')
    try {
      await command(bot, '/mcbot damage mech 2')
      await waitFor(() => bot.health === 18, 3000, 'hurt')
      await stepTicks(bot, 10)
      assert.ok(bot.health > 18, `regenerating (health ${bot.health} after 10 ticks)`)
    } finally {
      await command(bot, '/mcbot tick unfreeze')
    }
  })

  await t.test('starvation: food 0 costs 1 hp per 80 ticks', async () => {
    await command(bot, '/mcbot tick freeze')
    try {
      // a tick at full health ends any count toward healing: the hunger clock starts at 0
      await command(bot, '/mcbot health mech 20')
      await stepTicks(bot, 1)
      await command(bot, '/mcbot food mech 0 0')
      await waitFor(() => bot.food === 0 && bot.health === 20, 3000, 'starving')
      await stepTicks(bot, 79)
      assert.strictEqual(bot.health, 20, 'no damage in the first 79 ticks')
      await stepTicks(bot, 1)
      assert.strictEqual(bot.health, 19, 'starvation damage on the 80th tick')
    } finally {
      await command(bot, '/mcbot tick unfreeze')
    }
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
    // (fall damage ignores the hurt immunity of the damage before it)
    await command(bot, `/mcbot tp mech ${base.x} ${base.y + 10} ${base.z}`)
    await waitFor(() => bot.entity.position.y > base.y + 8, 3000, 'up high')
    await waitFor(() => bot.entity.onGround && bot.entity.position.y < base.y + 0.1, 10000, 'landed')
    await roundTrip(bot) // the server has the landing
    assert.strictEqual(bot.health, 13)
  })

  // Water ends a fall: dropped a block into a pool 5 deep, the bot sinks to its floor (6 blocks
  // down in all, 3 damage on dry ground) and lands unhurt.
  await t.test('sinking through water to the floor deals no fall damage', async () => {
    const p = base.offset(10, 0, 0) // beside the pad: stone walls, a stone floor, water 5 deep
    await command(bot, `/mcbot fill ${p.x - 2} ${p.y - 6} ${p.z - 2} ${p.x + 2} ${p.y - 1} ${p.z + 2} stone`)
    await command(bot, `/mcbot fill ${p.x - 1} ${p.y - 5} ${p.z - 1} ${p.x + 1} ${p.y - 1} ${p.z + 1} water`)
    await command(bot, `/mcbot fill ${p.x - 2} ${p.y} ${p.z - 2} ${p.x + 2} ${p.y + 3} ${p.z + 2} air`)
    await waitFor(() => bot.blockAt(p.offset(0, -5, 0))?.name === 'water' && bot.blockAt(p.offset(0, -1, 0))?.name === 'water', 5000, 'the pool')
    await command(bot, '/mcbot health mech 20')
    await waitFor(() => bot.health === 20, 3000, 'full health')
    await command(bot, `/mcbot tp mech ${p.x + 0.5} ${p.y} ${p.z + 0.5}`)
    await waitFor(() => bot.entity.onGround && bot.entity.position.y < p.y - 4.9, 20000, 'on the pool floor')
    await roundTrip(bot) // the server has the landing
    assert.strictEqual(bot.health, 20)
    await command(bot, `/mcbot tp mech ${base.x} ${base.y} ${base.z}`)
    await waitFor(() => bot.entity.onGround && bot.entity.position.y === base.y, 5000, 'back on the pad')
  })
})
