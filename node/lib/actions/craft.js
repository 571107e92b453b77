'use strict'
// Craft one recipe `times` times. The recipe variant comes from minecraft-data through
// bot.recipesFor (so any wood kind works); Python plans which intermediates to craft.
// args: { item, times, table?: {x,y,z}, keep?: [names] }  (table: a placed crafting_table within
// reach; keep: items a later craft needs by name, left alone while another variant will do: the
// sticks of a birch door's plan are not made of the birch planks its door needs)
const { Vec3 } = require('vec3')
const { names, itemName } = require('../names')
const { makeRoom } = require('../room')
const { wearBest } = require('../wear')

const MAX_TOSSES = 4 // stacks tossed for one round's room at most

async function run (bot, args, rec) {
  const name = itemName(bot.registry, args.item)
  if (!name) throw new Error(`unknown item '${args.item}' in ${bot.version}`)
  const def = bot.registry.itemsByName[name]
  const times = Math.max(1, args.times || 1)
  let table = null
  if (args.table) {
    table = bot.blockAt(new Vec3(args.table.x, args.table.y, args.table.z))
    if (!table || table.name !== names(bot).craftingTable) throw new Error(`no crafting_table at ${args.table.x},${args.table.y},${args.table.z}`)
  }
  const keep = keptIds(bot, args.keep)
  const choose = () => {
    const found = keeping(bot, bot.recipesFor(def.id, null, 1, table), keep, times)
    if (found.length && !takes(found[0], keep)) return found
    // every single-wood variant takes a kept item: the other woods held, mixed in one grid as
    // vanilla's tags allow (1 oak and 1 spruce plank for the sticks), before the kept one
    const mixed = mixedRecipe(bot, def.id, table, keep)
    return found.length && (!mixed.length || takes(mixed[0], keep)) ? found : mixed
  }
  const recipes = choose()
  if (recipes.length === 0) {
    const needsTable = bot.recipesAll(def.id, null, true).length > 0 && bot.recipesAll(def.id, null, null).length === 0
    throw new Error(`no ${args.item} recipe craftable with the current inventory${needsTable && !table ? ' (needs a crafting table)' : ''}`)
  }
  // A window still open on the client (a table whose close was lost, or opened twice) takes
  // the clicks mineflayer means for the inventory grid and the craft waits forever for a slot
  // update that never comes: close it first.
  if (bot.currentWindow) bot.closeWindow(bot.currentWindow)
  await tidyInventoryWindow(bot)
  // A full inventory has no slot for what is made: mineflayer drops it on the ground (a 1.18.2
  // bench bot at 855429f, its armour and 391 cobblestone held, failed three iron boots on
  // 'crafted 1x oak_planks but gained none'). A stack of filler is tossed first, as a collect does
  // (../room.js), the open way nearest to away from the table, before each round: a stack lying
  // near may have filled the slot again meanwhile. With no room for a round's crafts, none is
  // begun (a round after one that made some ends the craft with what was made).
  const tossed = []
  // As many stacks as the round's crafts need (a 1.18.2 bench bot's hut, a round of 72 planks
  // from 18 logs, failed at every dusk for two game days with one stack tossed of the six of
  // filler it held), up to MAX_TOSSES a round.
  const roomMade = async (recipe, crafts) => {
    for (let n = 0; n < MAX_TOSSES && !hasRoomFor(bot, recipe, crafts); n++) {
      const t = await makeRoom(bot, name, table ? table.position : null, bot.inventory.emptySlotCount() + 1)
      if (!t) break
      tossed.push(t)
    }
    if (hasRoomFor(bot, recipe, crafts)) return true
    if (gained > 0) return false
    const why = tossed.length ? `${tossed.length} stack(s) tossed, nothing more may go` : 'no filler held to toss'
    throw new Error(`no room for ${args.item} in a full inventory (${why})`)
  }
  const before = count(bot, name)
  const perCraft = Math.max(1, Number(recipes[0].result && recipes[0].result.count) || 1)
  const wanted = times * perCraft
  let gained = 0
  // A click the server ignored (a loaded server, a window state the client got wrong after a
  // reconnect) makes one craft of several come to nothing or end half-way: craft what is still
  // missing, from the server's view of the inventory, up to three rounds.
  for (let round = 1; round <= 3 && gained < wanted; round++) {
    if (round > 1) await tidyInventoryWindow(bot)
    const recipe = round === 1 ? recipes[0] : choose()[0]
    if (!recipe) break // the ingredients are gone: the caller counts what was made
    const crafts = Math.ceil((wanted - gained) / perCraft)
    if (!(await roomMade(recipe, crafts))) break
    try {
      await bot.craft(recipe, crafts, table)
    } catch (err) {
      // mineflayer looks for each ingredient in the client's model of the inventory; a stale
      // model (a fresh bot just after a bridge rebuild) ends a craft half-way with 'missing
      // ingredient'. The next round starts from the server's view.
      if (round === 3 || !/missing ingredient/.test(err.message)) throw err
    }
    if (rec.cancelled) return null
    gained = count(bot, name) - before
    if (gained < wanted) { // the client's model may be stale: ask for the truth
      await bot._syncWindow(bot.inventory)
      gained = count(bot, name) - before
    }
  }
  if (gained <= 0) throw new Error(`crafted ${times}x ${args.item} but gained none`)
  let worn = [] // armour made is put on (the snapshot counts it as held); the craft stands if not
  try { worn = await wearBest(bot) } catch (e) { console.error(`[craft] ${name} made, not put on: ${e.message}`) }
  return { item: name, times, gained, ...(tossed.length ? { tossed } : {}), ...(worn.length ? { worn } : {}) }
}

// Has what `crafts` crafts of `recipe` make a place to go: the free slots, the room left in its
// stacks held, and a slot of an ingredient one craft uses all of (emptied into the grid first).
function hasRoomFor (bot, recipe, crafts) {
  const inv = bot.inventory
  const made = recipe.result
  const stackSize = bot.registry.items[made.id].stackSize
  const partial = inv.items().filter((i) => i.type === made.id).reduce((n, i) => n + Math.max(0, stackSize - i.count), 0)
  const usedUp = recipe.delta.some((d) => d.count < 0 && inv.count(d.id, null) <= -d.count)
  return (inv.emptySlotCount() + (usedUp ? 1 : 0)) * stackSize + partial >= made.count * crafts
}

function keptIds (bot, keep) {
  const ids = new Set()
  for (const n of keep || []) {
    const name = itemName(bot.registry, n)
    if (name) ids.add(bot.registry.itemsByName[name].id)
  }
  return ids
}

function takes (recipe, keep) {
  return recipe.delta.some((d) => d.count < 0 && keep.has(d.id))
}

// The variants in order of preference: those that leave the kept items alone and can run every
// craft asked for from what is held, then those that leave them alone, then the rest.
function keeping (bot, recipes, keep, times) {
  if (keep.size === 0) return recipes
  const held = new Map()
  for (const it of bot.inventory.items()) held.set(it.type, (held.get(it.type) || 0) + it.count)
  const rank = (r) => {
    const uses = r.delta.filter((d) => d.count < 0)
    const runs = Math.min(...uses.map((d) => Math.floor((held.get(d.id) || 0) / -d.count)))
    return (takes(r, keep) ? 2 : 0) + (runs >= times ? 0 : 1)
  }
  return recipes.map((r, i) => [rank(r), i, r]).sort((a, b) => a[0] - b[0] || a[1] - b[1]).map((x) => x[2])
}

// A shaped recipe with its cells filled from what is held when no single variant is (2 oak
// and 4 birch planks for a bookshelf): a cell takes any item it holds in some variant, as
// vanilla's tags do (the embedded world matches the same way: plugins/crafting.js), a kept one
// last. [] if none.
function mixedRecipe (bot, itemId, table, keep = new Set()) {
  const any = bot.recipesAll(itemId, null, true)[0] // mineflayer's Recipe class, whatever its version
  if (!any) return []
  const Recipe = any.constructor
  const raw = (bot.registry.recipes[itemId] || []).filter((r) => r.inShape)
  const families = new Map()
  for (const r of raw) {
    const sig = r.result.count + ':' + r.inShape.map((row) => row.map((c) => (c === null ? '_' : 'x')).join('')).join('/')
    if (!families.has(sig)) families.set(sig, { r, sets: r.inShape.map((row) => row.map(() => new Set())) })
    r.inShape.forEach((row, y) => row.forEach((id, x) => { if (id !== null) families.get(sig).sets[y][x].add(id) }))
  }
  for (const { r, sets } of families.values()) {
    const held = new Map()
    for (const it of bot.inventory.items()) held.set(it.type, (held.get(it.type) || 0) + it.count)
    const shape = sets.map((row) => row.map((choices) => {
      if (choices.size === 0) return null
      let best = null // the choice held most of (what is left of it)
      const better = (id) => {
        if (best === null) return true
        if (keep.has(best) !== keep.has(id)) return !keep.has(id)
        return held.get(id) > held.get(best)
      }
      for (const id of choices) if ((held.get(id) || 0) > 0 && better(id)) best = id
      if (best === null) return undefined
      held.set(best, held.get(best) - 1)
      return best
    }))
    if (shape.some((row) => row.includes(undefined))) continue
    const recipe = new Recipe({ result: r.result, inShape: shape, outShape: r.outShape })
    if (!recipe.requiresTable || table) return [recipe]
  }
  return []
}

// An interrupted craft can leave ingredients in the inventory's 2x2 grid (slots 1-4, which
// bot.inventory.items() does not list) or on the cursor; the next craft then clicks into a
// grid that is not empty and makes nothing. Put them back first.
async function tidyInventoryWindow (bot) {
  const inv = bot.inventory
  await bot._syncWindow(inv) // start from the server's view of the inventory, not a stale one
  if (inv.selectedItem) await bot.putSelectedItemRange(inv.inventoryStart, inv.inventoryEnd, inv, null)
  for (let slot = 1; slot <= 4; slot++) if (inv.slots[slot]) await bot.putAway(slot)
}

function count (bot, name) {
  return bot.inventory.items().filter((i) => i.name === name).reduce((n, i) => n + Number(i.count), 0)
}

// bot.craft cannot be interrupted half-way; closing the window ends it.
function stop (bot) { if (bot.currentWindow) bot.closeWindow(bot.currentWindow) }

module.exports = { run, stop, defaultTimeoutMs: 30000 }
