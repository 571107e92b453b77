'use strict'
// What a cell holds for a dig (a liquid, nothing) and filling cells with the blocks held
// (lib/names.js fillers): a hole in a step's floor (fillFloor), and water and lava walled off
// from a way being dug (dam), as a player climbs out of a flooded ravine. The pillar and the
// staircase dam when asked (`dam`) instead of stopping at the liquid: a 26.1 bench bot at the
// foot of a ravine the lake over it had flooded, water beside its head on three sides, found
// every way up and down refused for three and a half game days.
const { Vec3 } = require('vec3')
const { withTimeout } = require('./guard')
const { names } = require('./names')
const { placeAgainst, usable } = require('./hands')

const NEIGHBOURS = [new Vec3(1, 0, 0), new Vec3(-1, 0, 0), new Vec3(0, 1, 0), new Vec3(0, -1, 0), new Vec3(0, 0, 1), new Vec3(0, 0, -1)]
const PLACE_MS = 5000
// placements per cell asked for before a dam gives up: a flow worked out again after a
// placement (plugins/block_physics.js) may move into a neighbour of a cell just filled
const ROUNDS_PER_CELL = 2

const at = (p) => `${p.x},${p.y},${p.z}`

function isLiquid (bot, block) {
  if (!block) return false
  if (names(bot).liquids.has(block.name)) return true
  const props = block.getProperties ? block.getProperties() : {}
  return props.waterlogged === true || props.waterlogged === 'true'
}

const isEmpty = (bot, block) => !!block && block.boundingBox === 'empty' && !isLiquid(bot, block)

function filler (bot) {
  for (const name of names(bot).fillers) {
    const item = bot.inventory.items().find((i) => i.name === name)
    if (item) return item
  }
  return null
}

// The solid neighbour of `cell` to place against, among `faces` (offsets from the cell), one a
// use does not open first (a table or furnace placed beside: against it the bot sneaks,
// lib/hands.js), with the face of it toward the cell; null when none is solid.
function refFor (bot, cell, faces = NEIGHBOURS) {
  const refs = faces.map((n) => ({ ref: bot.blockAt(cell.plus(n)), face: n.scaled(-1) }))
    .filter(({ ref }) => ref && ref.boundingBox === 'block')
  return refs.find(({ ref }) => !usable(ref)) || refs[0] || null
}

// Fill the step's floor cell from the inventory, against a solid neighbour of it beside or under
// it (the cell above is the step being dug).
async function fillFloor (bot, pos) {
  const item = filler(bot)
  const best = refFor(bot, pos, NEIGHBOURS.filter((n) => n.y <= 0))
  if (!best) throw new Error(`no solid block to fill the hole at ${at(pos)} against`)
  await bot.equip(item, 'hand')
  await withTimeout(placeAgainst(bot, best.ref, best.face), PLACE_MS, `filling the hole at ${at(pos)}`)
}

// What a dam places: a filler that does not burn (planks by lava would), and in a cell to be
// dug after (`dug`) one that digs by hand first (dirt: a burrow needs no pickaxe).
function damBlock (bot, dug) {
  const held = (name) => bot.inventory.items().find((i) => i.name === name)
  return (dug && held('dirt')) || damKinds(bot).map(held).find(Boolean) || null
}

const damKinds = (bot) => names(bot).fillers.filter((n) => !n.endsWith('_planks'))

// How many blocks a dam may place from: those held of the kinds it places.
function damBlocksHeld (bot) {
  const kinds = new Set(damKinds(bot))
  return bot.inventory.items().filter((i) => kinds.has(i.name)).reduce((n, i) => n + i.count, 0)
}

// Fill the liquid cells among `cells` (Vec3s, lowest first: a cell filled is a solid neighbour
// for the next). `dug`: the cells that will be dug after (a filler that digs by hand first);
// `keep`: blocks left held for what comes after (a pillar's steps, a burrow's seal). Returns the
// cells filled; throws naming a liquid left when no block is held to spare, nothing solid is
// beside it, the placement failed or the flow kept coming back.
async function dam (bot, cells, { dug = [], keep = 0 } = {}) {
  const filled = []
  const what = (c) => `${bot.blockAt(c).name} at ${at(c)}`
  for (let round = 0; round < cells.length * ROUNDS_PER_CELL; round++) {
    const wet = cells.filter((c) => isLiquid(bot, bot.blockAt(c)))
    if (!wet.length) return filled
    const next = wet.map((cell) => ({ cell, ref: refFor(bot, cell) })).find(({ ref }) => ref)
    if (!next) throw new Error(`${what(wet[0])}, nothing solid beside it to wall it off against`)
    const item = damBlock(bot, dug.some((c) => c.equals(next.cell)))
    if (!item || damBlocksHeld(bot) <= keep) throw new Error(`${what(next.cell)}, no block to spare to wall it off with`)
    await bot.equip(item, 'hand')
    await withTimeout(placeAgainst(bot, next.ref.ref, next.ref.face), PLACE_MS, `walling off the ${what(next.cell)}`)
    filled.push(next.cell)
  }
  const left = cells.find((c) => isLiquid(bot, bot.blockAt(c)))
  if (left) throw new Error(`${what(left)} still flows in after ${filled.length} blocks placed`)
  return filled
}

module.exports = { isLiquid, isEmpty, filler, fillFloor, dam }
