// plugins/drops.js: what a dug block drops, chance drops drawn from the seed and the position.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { Vec3 } = require('vec3')
const { VERSION } = require('./helpers')
const { dropsOf } = require('../plugins/drops')

const registry = require('prismarine-registry')(VERSION)
const bank = (fn) => {
  const out = []
  for (let x = 0; x < 100; x++) for (let z = 0; z < 100; z++) out.push(fn(new Vec3(x, 40, z)))
  return out
}
const flint = (seed) => (pos) => dropsOf(registry, 'gravel', seed, pos)[0][0] === 'flint'

test('a gravel bank drops the same flint for the same seed, about one in ten, other flint for another seed', () => {
  const first = bank(flint(1234))
  assert.deepStrictEqual(bank(flint(1234)), first, 'the same seed replays the same drops')
  const share = first.filter(Boolean).length / first.length
  assert.ok(share > 0.08 && share < 0.12, `flint from ${(share * 100).toFixed(1)} % of the gravel`)
  const other = bank(flint(99))
  assert.notDeepStrictEqual(other, first, 'another seed draws other flint')
})

test('a gravel column dug from below, each block falling into the same cell, draws anew each time', () => {
  const cell = new Vec3(5, 40, 5)
  const column = Array.from({ length: 1000 }, (_, before) => dropsOf(registry, 'gravel', 1234, cell, before)[0][0])
  const share = column.filter((item) => item === 'flint').length / column.length
  assert.ok(share > 0.07 && share < 0.13, `flint from ${(share * 100).toFixed(1)} % of the column`)
})

test('a block\'s own draws: leaves give saplings about one in twenty, copper ore 2 to 5 raw copper', () => {
  const saplings = bank((pos) => dropsOf(registry, 'oak_leaves', 7, pos).some(([item]) => item === 'oak_sapling'))
  const share = saplings.filter(Boolean).length / saplings.length
  assert.ok(share > 0.04 && share < 0.06, `saplings from ${(share * 100).toFixed(1)} % of the leaves`)
  const counts = new Set(bank((pos) => dropsOf(registry, 'copper_ore', 7, pos)[0][1]))
  assert.deepStrictEqual([...counts].sort(), [2, 3, 4, 5])
  assert.deepStrictEqual(dropsOf(registry, 'stone', 7, new Vec3(0, 0, 0)), [['cobblestone', 1]])
})
