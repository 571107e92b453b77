// Moves that press the bot's box flush against a block face: stepping up a one-block ledge,
// walking along a wall, climbing out of water onto a bank. At 1.21.11 the server checks them
// with a single-precision box and sends the bot back for an overlap of 1e-8 (plugins/clipping.js
// does as vanilla does); lib/client_fixes.js keeps the bot's box off the faces there.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { Physics, PlayerState } = require('prismarine-physics')
const { Vec3 } = require('vec3')
const { startServer, connectBot, waitFor, untilTicks, command, VERSION } = require('./helpers')
const { installWallGap, removeWallGap, WALL_GAP } = require('../lib/client_fixes')

test('prismarine-physics stops a bot flush on a wall, which a float box overlaps; with the gap it stays off, in water too', () => {
  const registry = require('prismarine-registry')(VERSION)
  const Block = require('prismarine-block')(registry)
  const cell = (name) => name === 'air' ? Block.fromStateId(0, 0) : Block.fromStateId(registry.blocksByName[name].defaultState, 0)
  // a floor below y 64, a wall from z = 0 up to y 70, water over the floor up to y 69 north of the wall
  const world = {
    getBlock: (p) => {
      const at = p.floored()
      const name = at.y < 64 || (at.z >= 0 && at.y < 70) ? 'stone' : (at.y < 70 && at.z < 0 ? 'water' : 'air')
      const b = cell(name)
      return Object.assign(Object.create(Object.getPrototypeOf(b)), b, { position: at })
    }
  }
  const run = (from, control, ticks) => {
    const physics = Physics(registry, world)
    const bot = { entity: { position: from.clone(), velocity: new Vec3(0, 0, 0), onGround: false, isInWater: false, isInLava: false, isInWeb: false, isCollidedHorizontally: false, isCollidedVertically: false, elytraFlying: false, yaw: Math.PI, pitch: 0, effects: {}, attributes: {} }, jumpTicks: 0, jumpQueued: false, fireworkRocketDuration: 0, inventory: { slots: [] }, game: { gameMode: 'survival' }, version: VERSION, registry, supportFeature: registry.supportFeature }
    let maxZ = -Infinity
    for (let i = 0; i < ticks; i++) {
      physics.simulatePlayer(new PlayerState(bot, { forward: false, back: false, left: false, right: false, jump: false, sprint: false, sneak: false, ...control }), world).apply(bot)
      if (bot.entity.position.y < 70) maxZ = Math.max(maxZ, bot.entity.position.z) // beside the wall, not on it
    }
    return maxZ
  }
  const floatHalf = Math.fround(0.6) / 2
  const swim = () => run(new Vec3(0.5, 65.1, -2.9), { forward: true, jump: true }, 40) // up through the water, against the wall
  const flush = swim()
  assert.strictEqual(flush, -0.3, 'pressed flat on the face at z = 0')
  assert.ok(flush + floatHalf > 0, 'a 0.6f-wide box there overlaps the wall')
  installWallGap()
  let kept
  try { kept = swim() } finally { removeWallGap() } // the bots below get it as they would (from 1.21.9)
  assert.ok(kept + floatHalf < 0, `with the gap the float box stays off the wall (z ${kept})`)
  assert.ok(kept > -0.3 - 2 * WALL_GAP, `and the bot is still against it (z ${kept})`)
})

test('a bot steps up a ledge, walks along a wall and climbs out of water onto a bank', { timeout: 240000 }, async (t) => {
  const server = await startServer({ seed: 3, hostiles: false, animals: false })
  const bot = await connectBot(server.port, 'mover')
  t.after(async () => { bot.quit(); await server.stop() })
  let sentBack = 0
  bot.on('forcedMove', () => { sentBack++ })
  const p = bot.entity.position.floored()
  const [x, y, z] = [p.x, p.y + 10, p.z] // a course in the air, away from the terrain
  await command(bot, `/mcbot fill ${x - 2} ${y - 1} ${z - 2} ${x + 14} ${y - 1} ${z + 6} stone`)
  await command(bot, `/mcbot fill ${x - 2} ${y} ${z - 2} ${x + 14} ${y + 4} ${z + 6} air`)
  await command(bot, `/mcbot fill ${x + 4} ${y} ${z - 2} ${x + 14} ${y} ${z + 6} stone`) // a one-block ledge from x + 4
  await command(bot, `/mcbot fill ${x + 4} ${y + 1} ${z + 3} ${x + 14} ${y + 3} ${z + 3} stone`) // a wall along the ledge
  await command(bot, `/mcbot tp mover ${x} ${y} ${z + 2}`)
  await waitFor(() => bot.entity.onGround && Math.abs(bot.entity.position.y - y) < 0.01, 15000, 'on the course')
  // up the ledge as a player does: walk at it holding jump (no path search: the step itself is
  // what is tested, and a planner on a loaded machine gives up on its own clock)
  await bot.lookAt(new Vec3(x + 8.5, y + 2.6, z + 2.5), true)
  bot.setControlState('forward', true)
  bot.setControlState('jump', true)
  try {
    await untilTicks(bot, () => bot.entity.onGround && bot.entity.position.y > y + 0.99 && bot.entity.position.x > x + 4.3, 400, 'up the ledge')
  } finally {
    bot.clearControlStates()
  }
  assert.ok(Math.abs(bot.entity.position.y - (y + 1)) < 0.01, `on the ledge (at ${bot.entity.position}, sent back ${sentBack} times)`)
  // along the wall, pressed against it: forward along +x with the wall at +z
  bot.setControlState('right', true) // facing +x (yaw -90), right is +z
  await bot.look(-Math.PI / 2, 0, true)
  bot.setControlState('forward', true)
  const from = bot.entity.position.x
  try {
    await untilTicks(bot, () => bot.entity.position.x > from + 6, 400, 'walked 6 blocks along the wall')
  } finally {
    bot.clearControlStates()
  }

  // water three deep in a stone basin, level with the course's floor: the bank is a block up
  await command(bot, `/mcbot fill ${x - 3} ${y - 4} ${z - 3} ${x + 4} ${y - 1} ${z + 3} stone`)
  await command(bot, `/mcbot fill ${x - 2} ${y - 3} ${z - 2} ${x + 3} ${y - 1} ${z + 2} water`)
  await command(bot, `/mcbot tp mover ${x} ${y - 3} ${z}`)
  await waitFor(() => bot.entity.isInWater, 15000, 'in the water')
  // out as a player does: look at the bank, swim forward holding jump
  await bot.lookAt(new Vec3(x + 0.5, y + 1.6, z + 6.5), true)
  bot.setControlState('forward', true)
  bot.setControlState('jump', true)
  try {
    await untilTicks(bot, () => bot.entity.onGround && !bot.entity.isInWater && bot.entity.position.z > z + 3, 400, 'on the bank')
  } finally {
    bot.clearControlStates()
  }
  assert.ok(Math.abs(bot.entity.position.y - y) < 0.01, `out of the water, on the bank (at ${bot.entity.position})`)
  assert.ok(sentBack <= 3, `the server sent the bot back ${sentBack} times`)
})
