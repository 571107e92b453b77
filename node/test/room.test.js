// Which tool a full inventory gives up (lib/room.js outworn): a wooden or stone one of a kind an
// iron or diamond one is held of, the lowest first; a golden one is no better (it wears out
// fast), and a tool of another kind does not count.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { outworn } = require('../lib/room')

const held = (...names) => names.map((name) => ({ name, count: 1 }))

test('outworn', async (t) => {
  await t.test('a stone pickaxe beside an iron one goes', () => {
    assert.strictEqual(outworn(held('stone_pickaxe', 'iron_pickaxe', 'dirt'))?.name, 'stone_pickaxe')
  })
  await t.test('the lowest first: wooden before stone, beside a diamond one', () => {
    assert.strictEqual(outworn(held('stone_pickaxe', 'diamond_pickaxe', 'wooden_pickaxe'))?.name, 'wooden_pickaxe')
  })
  await t.test('a golden one is not better: nothing goes', () => {
    assert.strictEqual(outworn(held('stone_pickaxe', 'golden_pickaxe')), null)
  })
  await t.test('a better tool of another kind does not count', () => {
    assert.strictEqual(outworn(held('wooden_axe', 'iron_pickaxe', 'iron_sword')), null)
  })
})
