'use strict'
// Room in a full inventory. mineflayer-collectblock empties a full inventory into a chest before
// it collects, and with none known it fails every block ('There are no defined chest
// locations!'): a 26.1 bench bot at day 2.6 failed its diamond pickaxe four times so. A collect
// makes room first: one stack of filler the bot dug on its way (dirt, gravel, sand, the stone
// variants) is tossed, the largest held first, never the item being collected, and never the
// last stack of cobblestone or cobbled deepslate (tools, a furnace and a burrow's refill use them).
// With no filler to spare, a wooden or stone tool of a kind the bot holds a better one of goes
// (a 1.18.2 bench bot at 5832c56 with every slot taken, a diamond, an iron, a stone and a
// wooden pickaxe among them and 37 sand, failed its hut twice on 'no room for oak_planks').
// Last, a piece of armour no better than the one worn in its slot (iron taken off for diamond).

const { lookAndSend } = require('./ticks')
const { outclassed } = require('./wear')

const FILLER = new Set([
  'dirt', 'coarse_dirt', 'rooted_dirt', 'gravel', 'sand', 'red_sand', 'granite', 'diorite', 'andesite', 'tuff',
  'calcite', 'dripstone_block', 'pointed_dripstone', 'netherrack', 'cobblestone', 'cobbled_deepslate'
])
const KEEP = { cobblestone: 64, cobbled_deepslate: 64 } // held back whatever is tossed
const TIERS = ['wooden', 'stone', 'iron', 'golden', 'diamond', 'netherite'] // worst first (gold: fast, but wears)
const TOOLS = ['pickaxe', 'axe', 'shovel', 'sword', 'hoe']

// A wooden or stone tool of a kind the bot holds an iron or better one of: the lowest such.
function outworn (items) {
  const tier = (name) => TIERS.indexOf(name.split('_')[0])
  const kind = (name) => TOOLS.find((k) => name.endsWith('_' + k) && name.split('_').length === 2)
  const tools = items.filter((i) => kind(i.name) && tier(i.name) >= 0)
  const better = (i) => tools.some((o) => kind(o.name) === kind(i.name) && tier(o.name) >= 2 && tier(o.name) !== 3)
  return tools.filter((i) => tier(i.name) <= 1 && better(i)).sort((a, b) => tier(a.name) - tier(b.name))[0] || null
}

// The way a tossed stack flies out of the bot's reach: of the eight ways round, the one most
// like `away` (a unit vector, or null: the way the bot faces) whose two cells ahead are open at
// its feet and head. A stack thrown at a wall falls at the bot's feet and is picked up again once
// its pickup delay (2 s) is over: a 26.1 bench bot at y -20 tossed and took back a stack of
// cobblestone over and over, and a craft's stack came back before its furnace was made, which
// fell to the ground for want of a slot: six furnaces made and lost, 48 stones (seed 8173 at
// a8c0d4b). Null when every way is shut.
function openWay (bot, away) {
  const feet = bot.entity.position.floored()
  const open = (dx, dz) => [1, 2].every((k) => [0, 1].every((dy) => {
    const b = bot.blockAt(feet.offset(dx * k, dy, dz * k))
    return b !== null && b.boundingBox === 'empty'
  }))
  const yaw = bot.entity.yaw
  const want = away || { x: -Math.sin(yaw), z: -Math.cos(yaw) }
  const ways = []
  for (const dx of [-1, 0, 1]) for (const dz of [-1, 0, 1]) if (dx || dz) ways.push({ dx, dz })
  ways.sort((a, b) => (b.dx * want.x + b.dz * want.z) / Math.hypot(b.dx, b.dz) - (a.dx * want.x + a.dz * want.z) / Math.hypot(a.dx, a.dz))
  return ways.find((w) => open(w.dx, w.dz)) || null
}

// Toss one stack of filler when fewer than `slots` slots are empty, out of reach (openWay) and
// away from `target` (the block the bot is about to walk to: a stack tossed its way is picked up
// again on the way); what was tossed ({ name, count }), or null (room enough, or nothing held
// may go).
async function makeRoom (bot, keepName, target = null, slots = 1) {
  if (bot.inventory.emptySlotCount() >= slots) return null
  const items = bot.inventory.items()
  const total = (name) => items.filter((i) => i.name === name).reduce((n, i) => n + i.count, 0)
  const spare = items.filter((i) => FILLER.has(i.name) && i.name !== keepName && total(i.name) - i.count >= (KEEP[i.name] || 0))
  spare.sort((a, b) => total(b.name) - total(a.name) || b.count - a.count)
  const others = items.filter((i) => i.name !== keepName)
  const stack = spare[0] || outworn(others) || outclassed(bot, others)
  if (!stack) return null
  const eye = bot.entity.position.offset(0, bot.entity.height, 0)
  let away = null
  if (target) {
    const off = eye.minus(target.offset(0.5, 0.5, 0.5))
    const flat = Math.hypot(off.x, off.z)
    away = flat > 0 ? { x: off.x / flat, z: off.z / flat } : null
  }
  const way = openWay(bot, away)
  // sent before the toss: a forced look goes out with the next physics tick, after it (lib/ticks)
  if (way) await lookAndSend(bot, eye.offset(way.dx * 4, 0, way.dz * 4))
  else if (away) await lookAndSend(bot, eye.offset(away.x * 4, 0, away.z * 4))
  await bot.tossStack(stack)
  return { name: stack.name, count: stack.count }
}

module.exports = { makeRoom, FILLER, outworn }
