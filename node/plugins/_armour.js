// Worn armour and the damage it absorbs, as vanilla: each piece's defense points and toughness
// by material (minecraft-data has the items and their durability, not these), and
// damage * (1 - clamp(defense - damage / (2 + toughness / 4), defense / 5, 20) / 25).
// Fall, drowning, suffocation, starving and commands pass armour by (vanilla's bypasses_armor).
// Armour does not wear out here, as tools do not (the world keeps no item damage).
'use strict'

const SLOTS = { helmet: 5, chestplate: 6, leggings: 7, boots: 8 } // the player window's armour slots
const DEFENSE = { // helmet, chestplate, leggings, boots
  leather: [1, 3, 2, 1],
  copper: [2, 4, 3, 1], // 1.21.9 on
  golden: [2, 5, 3, 1],
  chainmail: [2, 5, 4, 1],
  iron: [2, 6, 5, 2],
  diamond: [3, 8, 6, 3],
  netherite: [3, 8, 6, 3]
}
const TOUGHNESS = { diamond: 2, netherite: 3 }
const PIECES = Object.keys(SLOTS)
const ABSORBED_BY_ARMOUR = new Set(['mob', 'player', 'arrow', 'explosion', 'lava'])

// { defense, toughness } of one armour item's name, null when it is not armour
function pieceOf (name) {
  if (name === 'turtle_helmet') return { piece: 'helmet', defense: 2, toughness: 0 }
  const m = /^([a-z]+)_(helmet|chestplate|leggings|boots)$/.exec(name || '')
  if (!m || !DEFENSE[m[1]]) return null
  return { piece: m[2], defense: DEFENSE[m[1]][PIECES.indexOf(m[2])], toughness: TOUGHNESS[m[1]] || 0 }
}

function worn (slots) {
  let defense = 0
  let toughness = 0
  for (const slot of Object.values(SLOTS)) {
    const p = pieceOf(slots[slot]?.name)
    if (p) { defense += p.defense; toughness += p.toughness }
  }
  return { defense, toughness }
}

// The damage left of `amount` of `cause` after the armour in `slots` (a player window's slots).
function afterArmour (amount, cause, slots) {
  if (!ABSORBED_BY_ARMOUR.has(cause)) return amount
  const { defense, toughness } = worn(slots)
  if (defense <= 0) return amount
  const kept = Math.min(20, Math.max(defense / 5, defense - amount / (2 + toughness / 4)))
  return amount * (1 - kept / 25)
}

module.exports = { SLOTS, pieceOf, worn, afterArmour }
