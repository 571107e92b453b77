// lib/names.js: the running version's names, from its registry.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { VERSION } = require('./helpers')
const { forRegistry } = require('../lib/names')

test('a hole is filled with stone or earth first, and with planks when nothing else is held', () => {
  const { fillers } = forRegistry(require('prismarine-registry')(VERSION))
  assert.deepStrictEqual(fillers.slice(0, 3), ['cobblestone', 'cobbled_deepslate', 'dirt'])
  const planks = fillers.filter((n) => n.endsWith('_planks'))
  assert.ok(planks.includes('oak_planks') && planks.includes('spruce_planks'), planks.join(', '))
  assert.deepStrictEqual(fillers.slice(-planks.length), planks, 'planks last')
})
