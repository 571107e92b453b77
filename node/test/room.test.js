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

// Armour a full inventory gives up (lib/wear.js outclassed): a piece no better than the one
// worn in its slot (iron taken off for diamond), never one better, never another slot's.
test('outclassed armour', async (t) => {
  const { outclassed } = require('../lib/wear')
  const wearing = (...names) => {
    const slots = new Array(46).fill(null)
    for (const name of names) slots[{ helmet: 5, chestplate: 6, leggings: 7, boots: 8 }[name.split('_')[1]]] = { name }
    return { inventory: { slots } }
  }
  await t.test('an iron chestplate held under a diamond one worn goes', () => {
    assert.strictEqual(outclassed(wearing('diamond_chestplate'), held('dirt', 'iron_chestplate'))?.name, 'iron_chestplate')
  })
  await t.test('one as good as the worn one goes too', () => {
    assert.strictEqual(outclassed(wearing('iron_boots'), held('iron_boots'))?.name, 'iron_boots')
  })
  await t.test('a better piece, or one for a slot worn empty, stays', () => {
    assert.strictEqual(outclassed(wearing('iron_chestplate'), held('diamond_chestplate', 'iron_helmet')), null)
  })
})
