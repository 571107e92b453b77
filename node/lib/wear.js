'use strict'
// Armour is for wearing: a piece held that beats what its slot has (by defense, then toughness)
// is put on. Returns the names put on.
const { SLOTS, pieceOf } = require('../plugins/_armour')

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
  return put
}

// What is worn, as { name, count } stacks (a snapshot counts it as held).
function wornItems (bot) {
  return Object.values(SLOTS).map((s) => bot.inventory.slots[s]).filter(Boolean)
}

module.exports = { wearBest, wornItems }
