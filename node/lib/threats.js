'use strict'
// Threat watch: the moment a hostile comes within its kind's reflex radius, as the server's
// entity packets (or the bot's own steps) bring it there, stamped and numbered. Python polls
// `since(seq)` (one cheap call) to wake its reflexes at once instead of on their next tick,
// and the reaction-time benchmark reads the stamps. The radii are the reflexes' own
// (agency/execution/combat.py threat_radii), set by Python with `watch`.
const { isHostile } = require('./names')

const KEPT = 50

function install (bot) {
  const w = { radii: null, seq: 0, inside: new Set(), last: [] }
  bot.mcbotThreats = w
  const check = (e) => {
    if (!w.radii || !bot.entity || e === bot.entity || !e.position || e.isValid === false) return
    if (!isHostile(bot, e)) return
    const radius = w.radii[e.name] ?? w.radii.default
    const distance = e.position.distanceTo(bot.entity.position)
    if (distance > radius) { w.inside.delete(e.id); return }
    if (w.inside.has(e.id)) return
    w.inside.add(e.id)
    w.seq++
    w.last.push({ seq: w.seq, id: e.id, name: e.name, distance, ts: Date.now() })
    if (w.last.length > KEPT) w.last.shift()
  }
  bot.on('entitySpawn', check)
  bot.on('entityMoved', check)
  bot.on('entityGone', (e) => w.inside.delete(e.id))
  // The bot walking up to a mob that stands still: no entity packet says so.
  bot.on('move', () => { for (const e of Object.values(bot.entities)) check(e) })
}

function watch (bot, radii) {
  const w = bot.mcbotThreats
  w.radii = radii
  w.inside.clear() // who is inside is judged again with the new radii
  return true
}

function since (bot, seq) {
  const w = bot.mcbotThreats
  return { seq: w.seq, threats: w.last.filter((t) => t.seq > seq) }
}

module.exports = { install, watch, since }
