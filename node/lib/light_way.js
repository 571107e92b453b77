'use strict'
// Torches along the bot's own stairs and tunnels, as a player lights a mine: hostiles spawn
// wherever the block light is 0 (node/plugins/spawning.js), underground at any hour, and walk
// up the bot's way to it. After a step, a bot holding more torches than the KEEP its hut may
// take puts one on the floor of the cell it just left when no bright block (a torch, lava,
// glowstone: names.js `bright`) is within LIT_WITHIN blocks. A torch's light (14, one less
// per block of air) reaches that far and more, so a lit way has no dark cell in it (a bright
// block behind rock counts too: its light may not get through). Best effort: a torch not
// placed never stops the dig.
const { Vec3 } = require('vec3')
const { withTimeout } = require('./guard')
const { names } = require('./names')
const { placeAgainst } = require('./hands')

const LIT_WITHIN = 7
const KEEP = 2
const PLACE_MS = 6000 // mineflayer's placeBlock waits up to 5 s for the server's answer

// A bright block within LIT_WITHIN of `at`, cell by cell: bot.findBlock searches only the
// 16-block sections sharing a face with the bot's, and a staircase's last torch is often in
// one beside those, diagonally.
function litNear (bot, at, bright) {
  const r = LIT_WITHIN
  for (let dx = -r; dx <= r; dx++) {
    for (let dy = -r; dy <= r; dy++) {
      for (let dz = -r; dz <= r; dz++) {
        if (dx * dx + dy * dy + dz * dz > r * r) continue
        const b = bot.blockAt(at.offset(dx, dy, dz), false)
        if (b && bright.has(b.type)) return true
      }
    }
  }
  return false
}

// Places a torch on the floor of `left` (a cell the bot walked out of); true when placed.
async function lightTheWay (bot, left, rec) {
  const n = names(bot)
  const held = bot.inventory.items().filter((i) => i.name === n.torch)
  if (held.reduce((sum, i) => sum + i.count, 0) <= KEEP) return false
  if (litNear(bot, bot.entity.position.floored(), n.bright)) return false
  const cell = bot.blockAt(left)
  const floor = bot.blockAt(left.offset(0, -1, 0))
  if (!cell || !n.airs.has(cell.name) || !floor || floor.boundingBox !== 'block') return false
  try {
    if (rec.cancelled) return false
    await bot.equip(held[0], 'hand')
    if (rec.cancelled) return false
    await withTimeout(placeAgainst(bot, floor, new Vec3(0, 1, 0)), PLACE_MS, `placing a torch at ${left}`)
    return true
  } catch {
    return false
  }
}

module.exports = { lightTheWay, LIT_WITHIN, KEEP }
