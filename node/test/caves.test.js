// The "caves" terrain (plugins/underground.js) in a running world: the bot stands on the ground,
// and under it lie vanilla's layers, caves, lava and ores, which it can dig.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { Vec3 } = require('vec3')
const { startServer, connectBot, waitFor, command, sprintTicks, oneVersion } = require('./helpers')

test('a caves world: the bot spawns on grass over stone, deepslate, caves, lava, ores and bedrock, and digs deepslate', { timeout: 180000 }, async () => {
  const s = await startServer({ terrain: 'caves', seed: 5, hostiles: false, animals: false })
  const bot = await connectBot(s.port, 'caver')
  try {
    await waitFor(() => bot.entity.onGround, 10000, 'standing')
    const feet = bot.entity.position.floored()
    assert.strictEqual(bot.blockAt(feet.offset(0, -1, 0)).name, 'grass_block', 'spawned on the ground, not in a hole')
    await bot.waitForChunksToLoad()
    const seen = {}
    const c = bot.entity.position.floored()
    for (let x = c.x - 24; x <= c.x + 24; x += 2) {
      for (let z = c.z - 24; z <= c.z + 24; z += 2) {
        for (let y = -64; y < 40; y++) {
          const b = bot.blockAt(new Vec3(x, y, z))
          if (b) seen[b.name] = (seen[b.name] || 0) + 1
        }
      }
    }
    for (const name of ['bedrock', 'deepslate', 'stone', 'cave_air', 'lava']) assert.ok(seen[name] > 0, `${name} under the ground (${JSON.stringify(seen)})`)
    const ores = Object.keys(seen).filter((n) => n.endsWith('_ore'))
    assert.ok(ores.some((n) => n.startsWith('deepslate_')) && ores.length >= 5, `ores: ${ores.join(', ')}`)
    assert.strictEqual(bot.blockAt(new Vec3(c.x, -64, c.z)).name, 'bedrock')

    // dig a deepslate block from a pit in the rock at y -20 (with an iron pickaxe: cobbled deepslate drops)
    await command(bot, `/mcbot fill ${c.x - 1} -21 ${c.z - 1} ${c.x + 1} -18 ${c.z + 1} deepslate`)
    await command(bot, `/mcbot fill ${c.x} -20 ${c.z} ${c.x} -19 ${c.z} air`)
    await command(bot, `/mcbot tp caver ${c.x + 0.5} -20 ${c.z + 0.5}`, { match: /teleported caver/ })
    await waitFor(() => bot.entity.position.y < -19 && bot.entity.onGround, 10000, 'in the pit')
    await command(bot, '/give caver iron_pickaxe 1', { match: /gave 1 iron_pickaxe/ })
    await waitFor(() => bot.inventory.items().some((i) => i.name === 'iron_pickaxe'), 5000, 'pickaxe')
    await bot.equip(bot.registry.itemsByName.iron_pickaxe.id, 'hand')
    const below = bot.blockAt(new Vec3(c.x, -21, c.z))
    assert.strictEqual(below.name, 'deepslate')
    await bot.dig(below)
    await waitFor(() => bot.inventory.items().some((i) => i.name === 'cobbled_deepslate'), 10000, 'cobbled deepslate picked up')
  } finally {
    bot.quit()
    await s.stop()
  }
})

test('in a caves world monsters spawn under the ground by day, in the dark with no sky above', { timeout: 240000, ...oneVersion('where monsters spawn is the server\'s rule, not the protocol') }, async () => {
  const s = await startServer({ terrain: 'caves', seed: 6, hostiles: ['zombie'], animals: false })
  const bot = await connectBot(s.port, 'delver')
  try {
    await waitFor(() => bot.entity.onGround, 10000, 'standing')
    const c = bot.entity.position.floored()
    // a stone pocket at y -20 to stand in, among the caves
    await command(bot, `/mcbot fill ${c.x - 1} -22 ${c.z - 1} ${c.x + 1} -18 ${c.z + 1} stone`)
    await command(bot, `/mcbot fill ${c.x} -21 ${c.z} ${c.x} -20 ${c.z} air`)
    await command(bot, `/mcbot tp delver ${c.x + 0.5} -21 ${c.z + 0.5}`, { match: /teleported delver/ })
    await waitFor(() => bot.entity.position.y < -20 && bot.entity.onGround, 10000, 'in the pocket')
    await command(bot, '/mcbot time 1000')
    await command(bot, '/mcbot tick freeze')
    let zombies = []
    for (let round = 0; round < 20 && !zombies.length; round++) {
      await sprintTicks(bot, 200) // at most 4000 ticks: still day (sunset is 12000)
      const info = JSON.parse((await command(bot, '/mcbot info')).slice('mcbot: '.length))
      assert.ok(info.time % 24000 < 12000, `still day (${info.time})`)
      zombies = info.mobList.filter((m) => m.name === 'zombie')
    }
    await command(bot, '/mcbot tick unfreeze')
    assert.ok(zombies.length > 0, 'a zombie spawned under the ground by day')
    for (const z of zombies) assert.ok(z.pos[1] < 50, `underground, not on the surface (y ${z.pos[1]})`)
  } finally {
    bot.quit()
    await s.stop()
  }
})
