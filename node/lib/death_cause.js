'use strict'
// Why the bot died, as one word Python can count: the killer's kind ('zombie'), 'fall',
// 'starvation', ... else 'unknown'. Read from, best first:
// - the death message the server sends: a vanilla `death.*` translation (the killer is its
//   second argument), or the embedded world's plain line ("<bot> fell from a high place",
//   "<bot> was shot by Skeleton"); an explosion with a killer names the killer ('creeper'),
//   one without is 'explosion';
// - the last hit's source entity (1.20+ `damage_event` names it; older versions do not);
// - food at 0 (starving).
// Vanilla sends the message before the health packet that makes mineflayer emit 'death', the
// embedded world right after it: the death is reported once the message came, or after
// MESSAGE_WAIT_MS without one.

const MESSAGE_WAIT_MS = 1000
const RECENT_HIT_MS = 3000

// death.* translation keys (and the embedded world's lines) -> cause, first match wins.
const CAUSES = [
  [/death\.fell|attack\.fall($|\.)|high place|hit the ground/i, 'fall'],
  [/starve/i, 'starvation'],
  [/drown/i, 'drowning'],
  [/lava/i, 'lava'],
  [/fire|burn/i, 'fire'],
  [/outOfWorld|out of the world/i, 'void'],
  [/explosion|blew up/i, 'explosion'],
  [/cactus|pricked/i, 'cactus'],
  [/inWall|suffocat/i, 'suffocation'],
  [/freeze|froze/i, 'freezing']
]

function kindOf (entity) {
  if (!entity) return null
  if (entity.type === 'player') return 'player'
  return String(entity.name || entity.type || '').toLowerCase() || null
}

// The killer named in a death message's arguments: 'entity.minecraft.zombie' -> 'zombie'.
function killerIn (msg) {
  const killer = (msg.with || [])[1]
  if (!killer) return null
  const key = killer.translate || ''
  const m = /^entity\.minecraft\.(\w+)$/.exec(key)
  if (m) return m[1]
  return null
}

// The cause a message gives for `username`'s death, or null if it is not about that death.
function causeIn (msg, username) {
  const key = msg.translate || ''
  const text = String(msg.toString())
  if (key.startsWith('death.')) {
    const victim = (msg.with || [])[0]
    if (victim && String(victim.toString()) !== username) return null
    if (/explosion/.test(key) && killerIn(msg)) return killerIn(msg)
    const byKey = CAUSES.find(([re]) => re.test(key))
    if (byKey) return byKey[1]
    if (/player/.test(key)) return 'player'
    return killerIn(msg) || (/mob|arrow|thrown|sting|trident/.test(key) ? 'mob' : 'unknown')
  }
  if (!text.startsWith(username + ' ')) return null
  const rest = text.slice(username.length + 1)
  const slain = /^was (?:slain|shot|blown up) by (.+)$/.exec(rest)
  if (slain) return slain[1].trim().toLowerCase().replace(/\s+/g, '_')
  if (rest === 'died') return 'unknown'
  const byText = CAUSES.find(([re]) => re.test(rest))
  return byText ? byText[1] : null
}

// Hook one bot; returns onDeath(report): calls report(cause) once, at most MESSAGE_WAIT_MS later.
function install (bot) {
  const state = { hit: null, message: null, waiting: null }
  bot.on('entityHurt', (entity, source) => {
    if (!bot.entity || !entity || entity.id !== bot.entity.id) return
    state.hit = { kind: kindOf(source), at: Date.now() }
  })
  bot.on('message', (msg) => {
    const cause = causeIn(msg, bot.username)
    if (!cause) return
    if (state.waiting) state.waiting(cause)
    else state.message = { cause, at: Date.now() }
  })
  const fallback = () => {
    const hit = state.hit
    if (hit && hit.kind && Date.now() - hit.at < RECENT_HIT_MS) return hit.kind
    if (bot.food === 0) return 'starvation'
    return 'unknown'
  }
  return function onDeath (report) {
    const seen = state.message
    state.message = null
    if (seen && Date.now() - seen.at < MESSAGE_WAIT_MS) return report(seen.cause)
    const timer = setTimeout(() => { state.waiting = null; report(fallback()) }, MESSAGE_WAIT_MS)
    state.waiting = (cause) => { clearTimeout(timer); state.waiting = null; report(cause) }
  }
}

module.exports = { install, causeIn }
