// lib/world_stats.js: what `mcbot world compare` counts, on a made-up chunk and on real vanilla
// chunks (prismarine-provider-anvil's 1.21.1 fixture).
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const crypto = require('crypto')
const fs = require('fs')
const path = require('path')
const { Vec3 } = require('vec3')
const { emptyStats, addColumn, vanillaStats, ourStats, MIN_Y, BAND } = require('../lib/world_stats')
const { oneVersion } = require('./helpers')

const band = (y) => Math.floor((y - MIN_Y) / BAND)

test('a made-up chunk: air under the ground, fluids below y 0, ores by band, the surface, one tree', oneVersion('counts block names'), () => {
  const registry = require('prismarine-registry')('1.21.1')
  const Chunk = require('prismarine-chunk')(registry)
  const column = new Chunk({ minY: -64, worldHeight: 384 })
  const set = (x, y, z, name) => column.setBlockStateId(new Vec3(x, y, z), registry.blocksByName[name].defaultState)
  for (let x = 0; x < 16; x++) {
    for (let z = 0; z < 16; z++) {
      for (let y = -64; y < 60; y++) set(x, y, z, 'stone')
      set(x, 60, z, 'grass_block')
    }
  }
  set(3, -40, 3, 'air') // a cave cell
  set(3, -41, 3, 'lava')
  set(4, -20, 4, 'water')
  set(5, -60, 5, 'deepslate_diamond_ore')
  set(5, 30, 5, 'iron_ore')
  for (let y = 61; y < 66; y++) set(8, y, 8, 'oak_log') // a trunk: one tree
  set(8, 66, 8, 'oak_leaves')
  set(9, 61, 9, 'short_grass') // stands on the ground: not the surface

  const stats = emptyStats()
  addColumn(stats, column, registry)
  assert.strictEqual(stats.chunks, 1)
  assert.strictEqual(stats.undergroundAir[band(-40)], 1)
  assert.strictEqual(stats.underground[band(-40)], 256 * 16)
  assert.strictEqual(stats.undergroundAir.reduce((a, b) => a + b), 1)
  assert.strictEqual(stats.lavaBelow0, 1)
  assert.strictEqual(stats.waterBelow0, 1)
  assert.strictEqual(stats.ores.diamond[band(-60)], 1)
  assert.strictEqual(stats.ores.iron[band(30)], 1)
  assert.strictEqual(stats.trees, 1)
  assert.deepStrictEqual(stats.surface, { grass_block: 256 })
})

test('the real vanilla 1.21.1 chunks: 16 full chunks, caves, every ore but emerald, diamonds only deep, the fixture untouched', oneVersion('reads a fixed file'), async () => {
  const file = path.join(path.dirname(require.resolve('prismarine-provider-anvil/package.json')), 'test', 'fixtures', '1.21.1', 'r.0.0.mca')
  const digest = () => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex')
  const before = digest()
  const stats = await vanillaStats('1.21.1')
  assert.strictEqual(stats.chunks, 16)
  assert.ok(stats.undergroundAir.reduce((a, b) => a + b) > 1000, 'caves')
  for (const ore of ['coal', 'iron', 'copper', 'gold', 'redstone', 'lapis', 'diamond']) {
    assert.ok(stats.ores[ore].reduce((a, b) => a + b) > 20, `${ore} ore`)
  }
  assert.strictEqual(stats.ores.diamond.slice(band(16) + 1).reduce((a, b) => a + b), 0, 'no diamond above y 16')
  assert.ok(stats.lavaBelow0 > 0)
  assert.strictEqual(digest(), before, 'the fixture is only read')
})

test("the embedded world's chunks are counted with their generation time", oneVersion('counts block names'), () => {
  const stats = ourStats('1.21.1', 3, 4)
  assert.strictEqual(stats.chunks, 4)
  assert.ok(stats.ores.coal.reduce((a, b) => a + b) > 0)
  assert.ok(stats.generateMs.p50 > 0 && stats.generateMs.p95 >= stats.generateMs.p50)
})

test('the caves terrain: caves, lava below y 0, every ore but emerald, diamonds only deep; none of it in the plains', oneVersion('counts block names'), () => {
  const stats = ourStats('1.21.1', 9, 9, { terrain: 'caves' })
  const sum = (a) => a.reduce((x, y) => x + y, 0)
  assert.ok(sum(stats.undergroundAir) > 1000, 'caves')
  assert.ok(stats.lavaBelow0 > 0)
  assert.ok(sum(stats.ores.diamond) > 0 && sum(stats.ores.diamond.slice(band(16) + 1)) === 0, 'diamonds below y 17 only')
  for (const ore of ['coal', 'iron', 'copper', 'gold', 'redstone', 'lapis']) assert.ok(sum(stats.ores[ore]) > 0, ore)
  const plains = ourStats('1.21.1', 9, 9)
  assert.strictEqual(sum(plains.ores.diamond), 0, 'the plains have no diamonds')
})
