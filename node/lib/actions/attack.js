'use strict'
// Fight the nearest hostile (of one kind when args.name is given; or a given entity id)
// within reach: equip the best weapon held, close in with pathfinder, hit on the attack
// cooldown until it is gone (or args.maxHits hits landed: a strike before backing off).
// It breaks off (an error starting BROKE_OFF) at args.stopAtHealth or less, or with a creeper
// near (creeperNear): the reflexes retreat or evade there, but wait on the fight meanwhile (a
// bench bot chasing a skeleton went from health 20 to dead under zombies in 9 s).
// With args.digOnly (block names) the chase digs through those where its path needs it: a
// skeleton in a hillside's cave mouth or on a ledge is dug up to, as a player does (a 26.1
// bench bot on a mountain retreated from skeletons it could not walk to, shooting from 3-16
// blocks, again and again through two of its game days, its work by the furnace held each time).
// A shield in the off-hand is up while an archer is near, down for each swing (lib/shield.js);
// the result says how often it went up and how many hits it took.
const { bound } = require('../path_search')
const { chase, chaseMovements } = require('../walking')
const { entityName, isHostile, names } = require('../names')
const { tickCounter, ticksFor } = require('../ticks')
const { shieldGuard } = require('../shield')

const REACH = 3.0
const HIT_EVERY_MS = 650 // a sword's attack cooldown, roughly
// A fight with no hit swung in reach in this long is out of reach (a skeleton on a ledge, or one that
// backs off through a cave as fast as the bot follows): it ends then, not at the action's time
// limit (the reflexes chased such skeletons 25 s a time, shot all the while: two of a bench's
// deaths). A reachable hostile 16 blocks off is hit within 5 s. Digging is progress too (the
// action's own time limit bounds a chase that digs on): a wall of deepslate three blocks thick
// is six blocks of 1.2 s with a stone pickaxe, and the chase through it ran out of its 10 s on
// a loaded machine (a make test run beside six bench bots).
const NO_HIT_TICKS = ticksFor(10000)
const BROKE_OFF = 'broke off'

function breakOff (bot, args) {
  if (!Number.isFinite(args.stopAtHealth) || bot.health > args.stopAtHealth) return null
  return `${BROKE_OFF}: health ${bot.health.toFixed(1)} at or below ${args.stopAtHealth}`
}

// It breaks off too when a creeper other than the target comes within args.creeperWithin: the
// reflexes keep out of its blast (a 26.1 bench bot at 855429f closing in on a skeleton for 10 s
// had a creeper come up to 2 blocks, and died).
function creeperNear (bot, args, target) {
  if (!Number.isFinite(args.creeperWithin)) return null
  for (const e of Object.values(bot.entities)) {
    if (e.id === target.id || e.name !== 'creeper' || !e.position || e.isValid === false) continue
    const d = e.position.distanceTo(bot.entity.position)
    if (d <= args.creeperWithin) return `${BROKE_OFF}: a creeper at ${d.toFixed(1)} blocks`
  }
  return null
}

function pickTarget (bot, args) {
  if (args.entityId !== undefined) return bot.entities[args.entityId] || null
  const radius = args.radius || 8
  const kind = args.name ? entityName(bot.registry, args.name) || args.name : null
  let best = null
  for (const e of Object.values(bot.entities)) {
    if (e === bot.entity || !e.position || e.isValid === false || !isHostile(bot, e)) continue
    if (kind && e.name !== kind) continue
    const d = e.position.distanceTo(bot.entity.position)
    if (d <= radius && (!best || d < best.d)) best = { e, d }
  }
  return best ? best.e : null
}

async function run (bot, args, rec) {
  const target = pickTarget(bot, args)
  if (!target) throw new Error(`no ${args.name || 'hostile'} within reach to attack`)
  const weapon = names(bot).weapons.map((n) => bot.inventory.items().find((i) => i.name === n)).find(Boolean)
  if (weapon) await bot.equip(weapon, 'hand')
  const restoreMovements = chaseMovements(bot, args.digOnly)
  bound(bot, { dig: bot.pathfinder.movements.canDig }) // the chase replans as the target moves: each search bounded
  let hits = 0
  let landed = 0 // hits the server took (a swing inside the target's hurt cooldown does nothing)
  const hitWith = new Set() // what was in hand at each hit ('hand': nothing)
  const onHurt = (e) => { if (e.id === target.id) landed++ }
  bot.on('entityHurt', onHurt)
  const clock = tickCounter(bot)
  const guard = rec.guard = shieldGuard(bot) // stopped by a cancel too, not only at the loop's end
  let hitAt = 0 // the tick of the last hit, or of the last beat the chase was digging
  try {
    while (!rec.cancelled) {
      const e = bot.entities[target.id]
      if (!e || e.isValid === false) break
      const why = breakOff(bot, args) || creeperNear(bot, args, e)
      if (why) throw new Error(`${why} (${target.name}, ${hits} hits landed)`)
      const d = e.position.distanceTo(bot.entity.position)
      // (read each beat: pathfinder's removeAllListeners('diggingCompleted', fn) drops every
      // listener of that event, so one of ours saw only the first block)
      if (bot.pathfinder.isMining()) hitAt = clock.ticks
      if (d > REACH && clock.ticks - hitAt >= NO_HIT_TICKS) {
        throw new Error(`could not get at the ${target.name} (${d.toFixed(1)} blocks away, no hit in ${NO_HIT_TICKS} ticks)`)
      }
      await chaseOrHit(bot, e, d, weapon, Boolean(args.digOnly), guard, (item) => { hits++; hitAt = clock.ticks; hitWith.add(item) })
      if (args.maxHits && hits >= args.maxHits) break
      await new Promise((resolve) => setTimeout(resolve, HIT_EVERY_MS))
    }
  } finally {
    clock.stop()
    guard.stop()
    bot.removeListener('entityHurt', onHurt)
    bot.pathfinder.setGoal(null)
    restoreMovements()
  }
  const shield = guard.raised ? { shield: { raised: guard.raised, blocked: guard.blocked } } : {}
  return { target: target.name, targetId: target.id, hits, landed, weapon: weapon ? weapon.name : null, hitWith: [...hitWith], gone: !bot.entities[target.id], ...shield }
}

// One beat of the fight: out of reach, follow; in reach, stop, look and hit (with the weapon:
// a chase that dug took up the digging tool).
async function chaseOrHit (bot, e, d, weapon, digs, guard, hit) {
  if (d > REACH) {
    chase(bot, e, 1.5)
  } else {
    bot.pathfinder.setGoal(null)
    // the chase's last dig may still be taking up its tool (pathfinder equips, then digs): once
    // that is in hand the weapon goes back (a 1.18.2 test's last hits were the pickaxe's, 1 run of 3)
    if (weapon && digs) await bot.waitForTicks(2)
    if (weapon && bot.heldItem?.name !== weapon.name) {
      const held = bot.inventory.items().find((i) => i.name === weapon.name)
      if (held) await bot.equip(held, 'hand')
    }
    await bot.lookAt(e.position.offset(0, e.height ? e.height * 0.8 : 1.4, 0), true)
    guard.lower() // up again on the next tick while an archer is near
    bot.attack(e)
    hit(bot.heldItem?.name || 'hand')
  }
}

function stop (bot, rec) {
  bot.pathfinder.setGoal(null)
  rec?.guard?.stop() // the shield down at once: the loop may run a beat more after a cancel
}

module.exports = { run, stop, defaultTimeoutMs: 20000 }
