'use strict'
// Kill one animal: the nearest living one of the given kinds within args.radius (ids in
// args.skip left alone: ones already given up on). Equip the best weapon held, close in with
// pathfinder, hit on the attack cooldown until the server reports it dead (entityDead), it
// is gone, no hit was swung for NO_HIT_TICKS, or args.giveUpMs passed (out of reach: killed
// false, `why` says which). Returns where it died, so the caller can walk over the drops (room
// made for them first in a full inventory: `tossed`, lib/room.js). The
// kinds (names in any version's form) come from agency, which owns what counts as game.
const { bound } = require('../path_search')
const { chase, chaseMovements } = require('../walking')
const { entityName, names } = require('../names')
const { tickCounter, ticksFor } = require('../ticks')
const { makeRoom } = require('../room')

const REACH = 3.0
// Slots kept empty for a kill's loot (a cow's beef and leather, a sheep's mutton and wool): with
// fewer free, up to this many stacks of filler (or outworn tools) are tossed before the chase; a
// drop that stacks with nothing held lies where it fell in a full inventory. A 26.1 bench bot
// (s9603 at 5832c56) with every slot taken, eight of them cobblestone, picked up the wool and
// feathers it had stacks of and none of the meat, and failed four food stocks so.
const LOOT_SLOTS = 2
const HIT_EVERY_MS = 650 // a sword's attack cooldown, roughly (as attack.js)
// As attack.js: a chase with no hit in this long is out of reach (an animal behind a fence, up
// a cliff, across water). A bench bot's hunt spent 25 s on each of three it could not reach,
// and a hurt bot's forage a minute on a herd walled off from it. Coming nearer than ever
// before (by a block) starts the count again, as each hit does (a hit animal runs): a far
// animal is walked to however long the walk.
const NO_HIT_TICKS = ticksFor(10000)

// The entities the server reported dead (id -> where they died), per bot: a body lingers in
// bot.entities for a moment after its death animation and must not be picked as the next
// target; the loot drops where it died, after the killing blow's knockback.
const deadByBot = new WeakMap()
function deadIds (bot) {
  let dead = deadByBot.get(bot)
  if (!dead) {
    dead = new Map()
    deadByBot.set(bot, dead)
    bot.on('entityDead', (e) => { if (e && e.position) dead.set(e.id, e.position.clone()) })
    bot.on('entityGone', (e) => { if (e) setTimeout(() => dead.delete(e.id), 5000) }) // after any run asking
  }
  return dead
}

function pickTarget (bot, kinds, radius, dead, skip) {
  let best = null
  for (const e of Object.values(bot.entities)) {
    if (e === bot.entity || !e.position || e.isValid === false || dead.has(e.id) || skip.has(e.id) || !kinds.has(e.name)) continue
    const d = e.position.distanceTo(bot.entity.position)
    if (d <= radius && (!best || d < best.d)) best = { e, d }
  }
  return best ? best.e : null
}

async function run (bot, args, rec) {
  const wanted = Array.isArray(args.kinds) ? args.kinds : []
  const kinds = new Set(wanted.map((k) => entityName(bot.registry, k)).filter(Boolean))
  if (kinds.size === 0) throw new Error(`no animal kind of [${wanted.join(', ')}] exists in ${bot.version}`)
  const radius = args.radius || 32
  const dead = deadIds(bot)
  const target = pickTarget(bot, kinds, radius, dead, new Set(Array.isArray(args.skip) ? args.skip : []))
  if (!target) throw new Error(`no ${[...kinds].join(' or ')} within ${radius} blocks to hunt`)
  const weapon = names(bot).weapons.map((n) => bot.inventory.items().find((i) => i.name === n)).find(Boolean)
  if (weapon) await bot.equip(weapon, 'hand')
  const tossed = []
  try {
    for (let t; tossed.length < LOOT_SLOTS && (t = await makeRoom(bot, null, target.position.floored(), LOOT_SLOTS));) tossed.push(t)
  } catch (e) {
    tossed.push({ failed: e.message }) // the hunt goes on: its loot may still find a slot
  }
  const restoreMovements = chaseMovements(bot) // the chase walks, never digs
  bound(bot) // the chase replans as the animal moves: each search bounded
  let hits = 0
  let last = target.position.clone()
  let why = null
  const giveUpAt = Date.now() + (args.giveUpMs || 25000)
  const clock = tickCounter(bot)
  let hitAt = 0 // the tick of the last hit, or of coming nearer than ever before
  let nearest = Infinity
  try {
    while (!rec.cancelled) {
      const e = bot.entities[target.id]
      if (!e || e.isValid === false || dead.has(target.id)) break
      last = e.position.clone()
      const d = e.position.distanceTo(bot.entity.position)
      if (d <= nearest - 1) {
        nearest = d
        hitAt = clock.ticks
      }
      if (d > REACH && clock.ticks - hitAt >= NO_HIT_TICKS) {
        why = `could not get at the ${target.name} (${d.toFixed(1)} blocks away, no hit in ${NO_HIT_TICKS} ticks)`
        break
      }
      if (Date.now() >= giveUpAt) {
        why = `not killed in ${(args.giveUpMs || 25000) / 1000} s (${hits} hits)`
        break
      }
      if (d > REACH) {
        chase(bot, e, 1.5)
      } else {
        bot.pathfinder.setGoal(null)
        await bot.lookAt(e.position.offset(0, e.height ? e.height * 0.6 : 0.6, 0), true)
        bot.attack(e)
        hits++
        hitAt = clock.ticks
      }
      await new Promise((resolve) => setTimeout(resolve, HIT_EVERY_MS))
    }
  } finally {
    clock.stop()
    bot.pathfinder.setGoal(null)
    restoreMovements()
  }
  const killed = dead.has(target.id)
  if (killed) last = dead.get(target.id)
  return {
    target: target.name,
    targetId: target.id,
    killed,
    hits,
    weapon: weapon ? weapon.name : null,
    at: { x: last.x, y: last.y, z: last.z },
    ...(tossed.length ? { tossed } : {}),
    ...(killed || !why ? {} : { why })
  }
}

function stop (bot) { bot.pathfinder.setGoal(null) }

module.exports = { run, stop, defaultTimeoutMs: 30000 }
