'use strict'
// Place an item from the inventory at x,y,z against any solid neighbour: one that does nothing
// when used first; against a block that opens or toggles (a furnace, a table, a door) the bot
// sneaks, as a player does, so the use places instead of opening it.
const { Vec3 } = require('vec3')
const { names, itemName } = require('../names')
const { placeAgainst, usable } = require('../hands')

const FACES = [new Vec3(0, -1, 0), new Vec3(0, 1, 0), new Vec3(1, 0, 0), new Vec3(-1, 0, 0), new Vec3(0, 0, 1), new Vec3(0, 0, -1)]

async function run (bot, args) {
  const target = new Vec3(args.x, args.y, args.z)
  const here = bot.blockAt(target)
  if (!here) throw new Error(`block at ${target} is not loaded`)
  if (!names(bot).replaceable.has(here.name)) throw new Error(`${target} is occupied by ${here.name}`)
  const wanted = itemName(bot.registry, args.block) || args.block
  const item = bot.inventory.items().find((i) => i.name === wanted)
  if (!item) throw new Error(`no ${args.block} in inventory`)
  const solid = FACES.map((f) => ({ b: bot.blockAt(target.plus(f)), face: f.scaled(-1) }))
    .filter(({ b }) => b && b.boundingBox === 'block')
  const ref = solid.find(({ b }) => !usable(b)) || solid[0]
  if (!ref) throw new Error(`no solid block next to ${target} to place against`)
  await bot.equip(item, 'hand')
  await placeAgainst(bot, ref.b, ref.face)
  const placed = bot.blockAt(target)
  return { placed: placed ? placed.name : null, position: { x: target.x, y: target.y, z: target.z } }
}

module.exports = { run, defaultTimeoutMs: 15000 }
