// Worn armour's share of a hit (plugins/_armour.js, plugins/damage.js), without a world: the
// damage plugin on a stand-in player whose hits the test deals itself.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { EventEmitter } = require('node:events')
const damage = require('../plugins/damage')
const { afterArmour } = require('../plugins/_armour')

function wearing (...names) {
  const slots = new Array(46).fill(null)
  for (const name of names) slots[{ helmet: 5, chestplate: 6, leggings: 7, boots: 8 }[name.split('_')[1]]] = { name }
  return slots
}

function player (slots, serv) {
  const p = {
    health: 20,
    inventory: { slots },
    position: { x: 0, y: 64, z: 0 },
    _client: new EventEmitter(),
    mcbotSendVitals () {},
    sendSelfPosition () {}
  }
  damage.player(p, serv)
  return p
}

const close = (a, b) => assert.ok(Math.abs(a - b) < 1e-9, `${a} is not ${b}`)

test('armour', async (t) => {
  await t.test('an iron chestplate keeps 1.2 of 25 parts of a 10 hit off, none of a fall; a full diamond set 12.8 parts', () => {
    close(afterArmour(10, 'mob', wearing('iron_chestplate')), 9.52)
    close(afterArmour(10, 'fall', wearing('iron_chestplate')), 10)
    // 20 points and 8 toughness: 20 - 10 / 4 = 17.5 kept of 25
    close(afterArmour(10, 'arrow', wearing('diamond_helmet', 'diamond_chestplate', 'diamond_leggings', 'diamond_boots')), 3)
  })
  await t.test('a stronger hit inside the hurt window deals the difference, and armour takes its part of that', () => {
    const serv = { tickCount: 100, mcbotHurtEffect () {} }
    const p = player(wearing('iron_chestplate'), serv)
    close(p.mcbotDamage(4, { cause: 'mob' }), 3.36) // 4 x (1 - max(1.2, 6 - 4 / 2) / 25)
    close(p.mcbotDamage(10, { cause: 'mob' }), 5.28) // (10 - 4) x (1 - max(1.2, 6 - 6 / 2) / 25)
    assert.strictEqual(p.mcbotDamage(8, { cause: 'mob' }), 0) // weaker than the window's 10
    close(p.health, 20 - 3.36 - 5.28)
  })
})
