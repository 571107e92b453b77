// lib/mob_paths.js: the way a walking mob takes around what stands between it and its target.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { findPath } = require('../lib/mob_paths')
const { oneVersion, startServer, connectBot, waitFor, command, stepTicks } = require('./helpers')

// A flat floor at y 0 (solid below y 1) and the given solid cells above it.
function world (cells) {
  const set = new Set(cells.map(([x, y, z]) => `${x},${y},${z}`))
  return (x, y, z) => y < 1 || set.has(`${x},${y},${z}`)
}
const wall = (x0, x1, z, height) => {
  const out = []
  for (let x = x0; x <= x1; x++) for (let y = 1; y <= height; y++) out.push([x, y, z])
  return out
}

test('around a wall it cannot step over, to the cell behind it', oneVersion('grid search, no world'), () => {
  const path = findPath(world(wall(-2, 2, 0, 2)), { x: 0, y: 1, z: -2 }, { x: 0, y: 1, z: 2 })
  assert.deepStrictEqual(path.at(-1), { x: 0, y: 1, z: 2 })
  assert.ok(path.every((c) => !(c.z === 0 && Math.abs(c.x) <= 2)), 'never through the wall')
  assert.ok(path.some((c) => Math.abs(c.x) === 3), 'round one end')
  for (let i = 1; i < path.length; i++) {
    const a = path[i - 1]
    const b = path[i]
    assert.strictEqual(Math.abs(a.x - b.x) + Math.abs(a.z - b.z), 1, 'one side step at a time')
  }
})

test('over a one-block step and down a drop of three, never up two', oneVersion('grid search, no world'), () => {
  const up = findPath(world(wall(-5, 5, 1, 1)), { x: 0, y: 1, z: 0 }, { x: 0, y: 2, z: 1 })
  assert.deepStrictEqual(up, [{ x: 0, y: 2, z: 1 }], 'a one-block step is climbed')
  const tower = world([...wall(-5, 5, 1, 3), [0, 1, 0], [0, 2, 0], [0, 3, 0]])
  assert.deepStrictEqual(findPath(tower, { x: 0, y: 4, z: 0 }, { x: 0, y: 1, z: -1 }), [{ x: 0, y: 1, z: -1 }], 'a drop of three')
  const cliff = world(wall(-9, 9, 1, 2))
  const path = findPath(cliff, { x: 0, y: 1, z: 0 }, { x: 0, y: 3, z: 1 })
  assert.ok(!path || path.every((c) => c.y === 1), 'two blocks up is no step')
})

test('a target boxed in: the nearest cell reached, within the node budget', oneVersion('grid search, no world'), () => {
  const box = [...wall(-1, 1, -1, 3), ...wall(-1, 1, 1, 3), [-1, 1, 0], [-1, 2, 0], [-1, 3, 0], [1, 1, 0], [1, 2, 0], [1, 3, 0]]
  let reads = 0
  const solid = world(box)
  const counted = (x, y, z) => { reads++; return solid(x, y, z) }
  const path = findPath(counted, { x: 0, y: 1, z: -6 }, { x: 0, y: 1, z: 0 }, { maxNodes: 200 })
  assert.ok(path.length > 0 && !path.some((c) => c.x === 0 && c.z === 0), 'never inside the box')
  assert.ok(reads < 200 * 4 * 8, `bounded reads (${reads})`)
})

test('a hunting zombie held up by a wall walks round its end and hits', { timeout: 240000, ...oneVersion('how mobs walk is the server\'s rule, not the protocol') }, async (t) => {
  const server = await startServer({ seed: 5, hostiles: false, animals: false })
  const bot = await connectBot(server.port, 'behind')
  t.after(async () => { await command(bot, '/mcbot tick unfreeze').catch(() => {}); bot.quit(); await server.stop() })
  await waitFor(() => bot.entity.onGround, 10000, 'standing')
  const h = bot.entity.position.floored()
  await command(bot, `/mcbot fill ${h.x - 10} ${h.y - 1} ${h.z - 14} ${h.x + 10} ${h.y - 1} ${h.z + 6} stone`)
  await command(bot, `/mcbot fill ${h.x - 10} ${h.y} ${h.z - 14} ${h.x + 10} ${h.y + 4} ${h.z + 6} air`)
  // a wall 5 wide and 3 high, 3 blocks north, with a window at eye height it sees the bot through
  await command(bot, `/mcbot fill ${h.x - 2} ${h.y} ${h.z - 3} ${h.x + 2} ${h.y + 2} ${h.z - 3} stone`)
  await command(bot, `/mcbot setblock ${h.x} ${h.y + 1} ${h.z - 3} air`)
  await command(bot, `/mcbot tp behind ${h.x + 0.5} ${h.y} ${h.z + 0.5}`, { match: /teleported behind/ })
  await waitFor(() => bot.entity.onGround && Math.abs(bot.entity.position.x - h.x - 0.5) < 0.01, 5000, 'in place')
  await command(bot, '/mcbot time 14000')
  await command(bot, '/mcbot tick freeze')
  const r = await command(bot, `/mcbot summon zombie ${h.x} ${h.y} ${h.z - 6}`)
  const id = parseInt(r.split(': ').pop(), 10)
  await waitFor(() => bot.entities[id], 3000, 'zombie visible')
  let widest = 0
  const track = (e) => { if (e.id === id) widest = Math.max(widest, Math.abs(e.position.x - h.x - 0.5)) }
  bot.on('entityMoved', track)
  let hurt = false
  bot.on('health', () => { if (bot.health < 20) hurt = true })
  await stepTicks(bot, 40)
  assert.ok(!hurt && widest < 1, 'at first it comes straight at the window')
  await stepTicks(bot, 260)
  bot.removeListener('entityMoved', track)
  assert.ok(widest > 2.5, `it went round an end of the wall (widest ${widest.toFixed(2)} from the middle)`)
  await waitFor(() => hurt, 5000, 'hit behind the wall')
})
