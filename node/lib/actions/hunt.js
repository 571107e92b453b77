'use strict'
// Kill one animal: the nearest living one of the given kinds within args.radius (ids in
// args.skip left alone: ones already given up on). Equip the best weapon held, close in with
// pathfinder, hit on the attack cooldown until the server reports it dead (entityDead), it
// is gone, or args.giveUpMs passed (out of reach: killed false). Returns where it died, so
// the caller can walk over the drops. The kinds (names in any version's form) come from
// agency, which owns what counts as game.
const { bound } = require('../path_search')
const { chase, chaseMovements } = require('../walking')
const { entityName, names } = require('../names')

const REACH = 3.0
const HIT_EVERY_MS = 650 // a sword's attack cooldown, roughly (as attack.js)

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
  const restoreMovements = chaseMovements(bot) // the chase walks, never digs
  bound(bot) // the chase replans as the animal moves: each search bounded
  let hits = 0
  let last = target.position.clone()
  const giveUpAt = Date.now() + (args.giveUpMs || 25000)
  try {
    while (!rec.cancelled && Date.now() < giveUpAt) {
      const e = bot.entities[target.id]
      if (!e || e.isValid === false || dead.has(target.id)) break
      last = e.position.clone()
      if (e.position.distanceTo(bot.entity.position) > REACH) {
        chase(bot, e, 1.5)
      } else {
        bot.pathfinder.setGoal(null)
        await bot.lookAt(e.position.offset(0, e.height ? e.height * 0.6 : 0.6, 0), true)
        bot.attack(e)
        hits++
      }
      await new Promise((resolve) => setTimeout(resolve, HIT_EVERY_MS))
    }
  } finally {
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
    at: { x: last.x, y: last.y, z: last.z }
  }
}

function stop (bot) { bot.pathfinder.setGoal(null) }

module.exports = { run, stop, defaultTimeoutMs: 30000 }
