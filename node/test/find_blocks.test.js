// lib/find_blocks.js searches a whole sphere, nearest first: mineflayer's findBlocks reads sections
// in an octahedron and misses blocks off its diagonals, well within the distance asked for.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { startServer, connectBot, waitFor, command, oneVersion, runAction } = require('./helpers')
const { findWithin } = require('../lib/find_blocks')

const RADIUS = 32
const sectionOf = (p) => [Math.floor(p.x / 16), Math.floor(p.y / 16), Math.floor(p.z / 16)]
// How many sections apart two blocks are, counted as mineflayer's octahedron counts them.
const sectionSteps = (a, b) => sectionOf(a).reduce((n, s, i) => n + Math.abs(s - sectionOf(b)[i]), 0)
const apothem = Math.ceil((RADIUS + 8) / 16) // mineflayer's, for maxDistance RADIUS

test('a block search covers its whole sphere', { timeout: 120000, ...oneVersion('the search is mineflayer\'s chunk store, the same at every version') }, async (t) => {
  const server = await startServer({ seed: 23, hostiles: false, animals: false })
  const bot = await connectBot(server.port, 'finder')
  t.after(async () => { bot.quit(); await server.stop() })
  const me = bot.entity.position.floored()

  // A sponge (none grows in the world) within RADIUS but more sections off than the octahedron
  // holds: up a section and across on both axes.
  let spot = null
  for (let d = 16; d <= 24 && !spot; d++) {
    for (const [sx, sz] of [[1, 1], [1, -1], [-1, 1], [-1, -1]]) {
      const p = me.offset(sx * d, 16 - (((me.y % 16) + 16) % 16) + 2, sz * d)
      if (p.distanceTo(me) <= RADIUS - 2 && sectionSteps(p, me) > apothem) { spot = p; break }
    }
  }
  assert.ok(spot, 'a spot within the sphere and outside the octahedron')
  await command(bot, `/mcbot setblock ${spot.x} ${spot.y} ${spot.z} sponge`)
  await waitFor(() => bot.blockAt(spot)?.name === 'sponge', 10000, 'the sponge in view')
  const sponge = bot.registry.blocksByName.sponge.id

  const raw = bot.findBlocks({ matching: sponge, maxDistance: RADIUS, count: 4 })
  assert.deepStrictEqual(raw, [], `mineflayer's own search misses the sponge ${spot.distanceTo(me).toFixed(1)} blocks off`)
  const found = findWithin(bot, { matching: sponge, maxDistance: RADIUS, count: 4 })
  assert.deepStrictEqual(found.map(String), [spot.toString()], 'the sphere search finds it')
  assert.deepStrictEqual(findWithin(bot, { matching: sponge, maxDistance: Math.floor(spot.distanceTo(me)) - 1 }), [],
    'nothing beyond the radius asked for')
  assert.deepStrictEqual(findWithin(bot, { matching: sponge, maxDistance: RADIUS, filter: (b) => b.position.y < spot.y }), [],
    'the caller\'s filter holds')

  // A second sponge nearer: one asked for, the nearer one comes (its section is read first)
  const near = me.offset(3, 1, 0)
  await command(bot, `/mcbot setblock ${near.x} ${near.y} ${near.z} sponge`)
  await waitFor(() => bot.blockAt(near)?.name === 'sponge', 10000, 'the near sponge in view')
  assert.deepStrictEqual(findWithin(bot, { matching: sponge, maxDistance: RADIUS, count: 1 }).map(String), [near.toString()])
  assert.deepStrictEqual(findWithin(bot, { matching: sponge, maxDistance: RADIUS }).map(String), [near, spot].map(String), 'nearest first')

  // The `find` action looks as far as the loaded chunks go (up to 64): what a gatherer walks to
  // before it explores (agency/tools/gathering.py walk_to_far)
  const far = me.offset(44, -2, -30) // in the ground: the look reads blocks, not sight lines
  await command(bot, `/mcbot setblock ${far.x} ${far.y} ${far.z} sponge`)
  await waitFor(() => bot.blockAt(far)?.name === 'sponge', 10000, 'the far sponge in view')
  const looked = (await runAction(bot, 'find', { names: ['sponge', 'no_such_block'], maxDistance: 64, count: 8 }, 10000)).result
  assert.deepStrictEqual(looked.blocks.map((b) => `${b.name} ${b.x},${b.y},${b.z}`),
    [near, spot, far].map((p) => `sponge ${p.x},${p.y},${p.z}`), 'every sponge within 64, nearest first; an unknown name passed over')
  assert.ok(looked.blocks[2].distance > 50, 'the far one is past the sight box')
  const above = (await runAction(bot, 'find', { names: ['sponge'], maxDistance: 64, count: 8, minY: me.y }, 10000)).result
  assert.deepStrictEqual(above.blocks.map((b) => `${b.x},${b.y},${b.z}`), [near, spot].map((p) => `${p.x},${p.y},${p.z}`), 'none deeper than minY')
  const unknown = await runAction(bot, 'find', { names: ['no_such_block'] }, 10000)
  assert.strictEqual(unknown.state, 'failed')
  assert.match(unknown.error, /no such block in .*: no_such_block/)
})
