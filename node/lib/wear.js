'use strict'
// Armour is for wearing: a piece held that beats what its slot has (by defense, then toughness)
// is put on, and a shield taken up in an empty off-hand. Returns the names put on.
const { SLOTS, pieceOf } = require('../plugins/_armour')

const OFF_HAND = 45 // the player window's off-hand slot
const DESTINATION = { helmet: 'head', chestplate: 'torso', leggings: 'legs', boots: 'feet' }

const better = (a, b) => !b || a.defense > b.defense || (a.defense === b.defense && a.toughness > b.toughness)

async function wearBest (bot) {
  const put = []
  for (const [piece, slot] of Object.entries(SLOTS)) {
    const best = bot.inventory.items()
      .map((item) => ({ item, armour: pieceOf(item.name) }))
      .filter(({ armour }) => armour && armour.piece === piece)
      .reduce((a, b) => (!a || better(b.armour, a.armour) ? b : a), null)
    if (!best || !better(best.armour, pieceOf(bot.inventory.slots[slot]?.name))) continue
    await bot.equip(best.item, DESTINATION[piece])
    put.push(best.item.name)
  }
  // a shield goes to an empty off-hand, where a fight raises it (lib/shield.js)
  const shield = bot.inventory.items().find((i) => i.name === 'shield')
  if (shield && !bot.inventory.slots[OFF_HAND]) {
    await bot.equip(shield, 'off-hand')
    put.push(shield.name)
  }
  return put
}

// What is worn or held in the off-hand (a shield), as stacks: a snapshot counts them as held.
function wornItems (bot) {
  return [...Object.values(SLOTS), OFF_HAND].map((s) => bot.inventory.slots[s]).filter(Boolean)
}

// A piece of armour among `items` no better than the one worn in its slot, or null.
function outclassed (bot, items) {
  return items.find((i) => {
    const armour = pieceOf(i.name)
    const on = armour && pieceOf(bot.inventory.slots[SLOTS[armour.piece]]?.name)
    return on && !better(armour, on)
  }) || null
}

module.exports = { wearBest, wornItems, outclassed, OFF_HAND }
