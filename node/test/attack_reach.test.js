// lib/actions/attack.js and hunt.js: a chase that lands no hit ends as out of reach, in the bot's own
// physics ticks, long before the action's time limit (the reflexes chased skeletons on ledges
// for 25 s at a time, the task held meanwhile); with no sword or axe a digging tool is the
// weapon (lib/names.js WEAPONS). A chase breaks off at args.stopAtHealth, and with a creeper
// within args.creeperWithin.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { oneVersion, startServer, connectBot, waitFor, command, runAction } = require('./helpers')
const { PLUGINS } = require('../lib/bots')

// A world with no mobs of its own and the bot on a stone floor reaching 12 blocks east and
// `half` blocks to each side, cleared `high` blocks up.
async function arena (t, seed, name, half, high) {
  const server = await startServer({ seed, hostiles: false, animals: false })
  const bot = await connectBot(server.port, name, { plugins: PLUGINS })
  t.after(async () => { bot.quit(); await server.stop() })
  const b = bot.entity.position.floored()
  await command(bot, `/mcbot fill ${b.x - 2} ${b.y - 1} ${b.z - half} ${b.x + 12} ${b.y - 1} ${b.z + half} stone`, { timeout: 60000 })
  await command(bot, `/mcbot fill ${b.x - 2} ${b.y} ${b.z - half} ${b.x + 12} ${b.y + high} ${b.z + half} air`, { timeout: 60000 })
  return { bot, b }
}

// A mob of `kind` summoned into a one-block cell walled in bedrock at `at` (two blocks high):
// in sight, going nowhere, no path within a hit of it. Its entity id.
async function sealed (bot, at, kind) {
  await command(bot, `/mcbot fill ${at.x - 1} ${at.y - 1} ${at.z - 1} ${at.x + 1} ${at.y + 2} ${at.z + 1} bedrock`)
  await command(bot, `/mcbot fill ${at.x} ${at.y} ${at.z} ${at.x} ${at.y + 1} ${at.z} air`)
  await waitFor(() => bot.blockAt(at)?.name === 'air' && bot.blockAt(at.offset(-1, 0, 0))?.name === 'bedrock', 10000, `the ${kind}'s box`)
  const r = await command(bot, `/mcbot summon ${kind} ${at.x + 0.5} ${at.y} ${at.z + 0.5}`, { match: new RegExp(`summoned ${kind}`) })
  const id = parseInt(r.split(': ').pop(), 10)
  await waitFor(() => bot.entities[id], 5000, `${kind} in view`)
  return id
}

test('an attack on a hostile it cannot reach ends as out of reach', { timeout: 240000, ...oneVersion('the chase is the pathfinder\'s, not the protocol\'s') }, async (t) => {
  const { bot, b } = await arena(t, 5, 'chaser', 2, 4)
  // a zombie sealed in bedrock 5 blocks up, 9 east: it stays there, no path leads within a
  // hit of it (the bot holds no blocks to pillar with), and the sun is down (it burns zombies)
  await command(bot, '/mcbot time 14000')
  const id = await sealed(bot, b.offset(9, 5, 0), 'zombie')

  const st = await runAction(bot, 'attack', { entityId: id }, 120000) // far above the stall
  assert.strictEqual(st.state, 'failed', `ended ${st.state}: ${st.error}`)
  assert.match(st.error, /could not get at the zombie \(\d+\.\d blocks away, no hit in 200 ticks\)/)
  assert.ok(bot.entities[id], 'the zombie is still there: it was never reached')

  // The same chase, the bot's health set to 5 once it is under way: it breaks off at
  // stopAtHealth, not at the stall (the reflexes retreat there).
  const chase = runAction(bot, 'attack', { entityId: id, stopAtHealth: 6 }, 120000)
  await waitFor(() => bot.pathfinder.goal, 10000, 'the chase under way')
  await command(bot, '/mcbot health chaser 5', { match: /chaser health 5/ })
  const off = await chase
  assert.strictEqual(off.state, 'failed', `ended ${off.state}: ${off.error}`)
  const [, left] = off.error.match(/^broke off: health (\d+\.\d) at or below 6 \(zombie, 0 hits landed\)/) || []
  assert.ok(Number(left) <= 6, off.error) // 5, and whatever regeneration gave back since

  // The same chase with a creeper 4 blocks off (sealed in bedrock: it cannot come nearer): it
  // breaks off at creeperWithin 7, for the reflexes to keep out of its blast.
  await sealed(bot, bot.entity.position.floored().offset(0, 0, 4), 'creeper')
  const away = await runAction(bot, 'attack', { entityId: id, creeperWithin: 7 }, 120000)
  assert.strictEqual(away.state, 'failed', `ended ${away.state}: ${away.error}`)
  assert.match(away.error, /^broke off: a creeper at \d+\.\d blocks \(zombie, 0 hits landed\)/)
})

test('with no sword or axe the attack hits with the pickaxe, not a fist', { timeout: 240000, ...oneVersion('the weapon list is the bot\'s, not the protocol\'s') }, async (t) => {
  const server = await startServer({ seed: 6, hostiles: false, animals: false })
  const bot = await connectBot(server.port, 'digger', { plugins: PLUGINS })
  t.after(async () => { bot.quit(); await server.stop() })
  const b = bot.entity.position.floored()
  // a closed stone room: the skeleton cannot back off out of reach, the sun cannot burn it
  await command(bot, `/mcbot fill ${b.x - 3} ${b.y - 1} ${b.z - 3} ${b.x + 3} ${b.y + 3} ${b.z + 3} stone`, { timeout: 60000 })
  await command(bot, `/mcbot fill ${b.x - 2} ${b.y} ${b.z - 2} ${b.x + 2} ${b.y + 2} ${b.z + 2} air`, { timeout: 60000 })
  await command(bot, '/give digger stone_pickaxe 1')
  await command(bot, '/give digger dirt 16')
  await waitFor(() => bot.inventory.items().some((i) => i.name === 'stone_pickaxe'), 5000, 'the pickaxe held')
  const r = await command(bot, `/mcbot summon skeleton ${b.x + 2.5} ${b.y} ${b.z + 0.5}`, { match: /summoned skeleton/ })
  const id = parseInt(r.split(': ').pop(), 10)
  await waitFor(() => bot.entities[id], 5000, 'skeleton in view')
  const st = await runAction(bot, 'attack', { entityId: id }, 120000)
  assert.strictEqual(st.state, 'done', `ended ${st.state}: ${st.error}`)
  const out = st.result
  assert.strictEqual(out.weapon, 'stone_pickaxe', JSON.stringify(out))
  assert.ok(out.gone, 'the skeleton is dead')
  // hits the server took, not swings (on a loaded machine a swing can fall inside the
  // skeleton's hurt cooldown and do nothing)
  assert.ok(out.landed >= 1 && out.landed <= 7, `${out.landed} hits landed of ${out.hits} (a skeleton has 20 health, a stone pickaxe hits for 3, a fist for 1)`)
})

test('a chase that may dig natural ground digs to a skeleton walled in deepslate; one that may not gives up', { timeout: 240000, ...oneVersion('the chase is the pathfinder\'s, not the protocol\'s') }, async (t) => {
  const { bot, b } = await arena(t, 7, 'tunneller', 6, 7)
  // a skeleton in a pocket of deepslate 9 blocks east, its walls five blocks thick (a hit
  // reaches 3 blocks, through a wall too): a cave mouth's skeleton, walled in so that it stays
  // (and out of the sun). Deepslate takes a stone pickaxe over 1 s a block, longer than a
  // beat of the fight: a chase that set its goal anew each beat never dug one through. The
  // ten blocks of the way in take longer than the chase's 10 s without a hit: each one dug
  // counts as progress (it gave up three blocks short on a loaded machine). The block stands in
  // the arena's air, clear of the ground around it: no way over its top.
  const s = b.offset(9, 0, 0)
  await command(bot, `/mcbot fill ${s.x - 5} ${s.y} ${s.z - 5} ${s.x + 5} ${s.y + 6} ${s.z + 5} deepslate`)
  await command(bot, `/mcbot fill ${s.x} ${s.y} ${s.z} ${s.x} ${s.y + 1} ${s.z} air`)
  await command(bot, '/give tunneller stone_sword 1')
  await command(bot, '/give tunneller stone_pickaxe 1')
  await waitFor(() => bot.blockAt(s)?.name === 'air' && bot.blockAt(s.offset(-5, 0, 0))?.name === 'deepslate', 10000, 'the pocket')
  await waitFor(() => ['stone_sword', 'stone_pickaxe'].every((n) => bot.inventory.items().some((i) => i.name === n)), 5000, 'sword and pickaxe held')
  const r = await command(bot, `/mcbot summon skeleton ${s.x + 0.5} ${s.y} ${s.z + 0.5}`, { match: /summoned skeleton/ })
  const id = parseInt(r.split(': ').pop(), 10)
  await waitFor(() => bot.entities[id], 5000, 'skeleton in view')

  const walled = await runAction(bot, 'attack', { entityId: id }, 120000)
  assert.strictEqual(walled.state, 'failed', `ended ${walled.state}: ${walled.error}`)
  assert.match(walled.error, /could not get at the skeleton/)
  assert.strictEqual(bot.blockAt(s.offset(-5, 0, 0))?.name, 'deepslate', 'a chase that may not dig left the wall whole')

  const before = bot.pathfinder.movements
  const dug = await runAction(bot, 'attack', { entityId: id, digOnly: ['deepslate'] }, 120000)
  assert.strictEqual(dug.state, 'done', `ended ${dug.state}: ${dug.error}`)
  assert.ok(dug.result.gone, 'the skeleton is dead')
  const wall = []
  for (let dx = -5; dx <= 5; dx++) for (let dz = -5; dz <= 5; dz++) for (const dy of [0, 1, 2]) if (dx || dz) wall.push(s.offset(dx, dy, dz))
  assert.ok(wall.some((p) => bot.blockAt(p)?.name === 'air'), 'the chase dug into the pocket')
  // what was in hand at each hit: after the killing blow the client still sees the skeleton
  // (knocked back, dying) for a moment, and a chase beat toward it may take up the pickaxe again
  assert.deepStrictEqual(dug.result.hitWith, ['stone_sword'], `the hits were the sword's, not the pickaxe it dug with: ${JSON.stringify(dug.result)}`)
  assert.strictEqual(bot.pathfinder.movements, before, 'the digging movements were the chase\'s only')
})

test('a hunt ends an animal it cannot reach after no hit in 200 ticks, not at its time limit', { timeout: 240000, ...oneVersion('the chase is the pathfinder\'s, not the protocol\'s') }, async (t) => {
  const { bot, b } = await arena(t, 8, 'hunter', 2, 4)
  const id = await sealed(bot, b.offset(9, 5, 0), 'cow') // 5 blocks up, 9 east

  const st = await runAction(bot, 'hunt', { kinds: ['cow'], radius: 32, giveUpMs: 120000 }, 180000)
  assert.strictEqual(st.state, 'done', `ended ${st.state}: ${st.error}`)
  assert.strictEqual(st.result.killed, false)
  assert.strictEqual(st.result.targetId, id)
  assert.match(st.result.why, /^could not get at the cow \(\d+\.\d blocks away, no hit in 200 ticks\)$/)
})
