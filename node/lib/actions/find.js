'use strict'
// The nearest blocks of some kinds in the chunks the bot has loaded, farther than the sight box
// Python reads (32 around, 8 up and down): { names: [...], maxDistance, count, minY }. A gatherer
// looks this far before it wanders (agency/tools/gathering.py): a bench bot spawned on a
// strip of plains by a desert found its one tree and then "no log within 32 blocks" twice
// over, with a wood 60 blocks off and 12 blocks up a hill. Names this version lacks are
// passed over; none known is an error naming them.
const { blockName } = require('../names')
const { findWithin } = require('../find_blocks')
const { SCAN_MAX_DISTANCE, SCAN_MAX_COUNT } = require('../limits')

function run (bot, args) {
  const asked = Array.isArray(args.names) ? args.names : []
  const names = [...new Set(asked.map((n) => blockName(bot.registry, String(n))).filter(Boolean))]
  if (names.length === 0) throw new Error(`no such block in ${bot.version}: ${asked.join(', ') || '(none asked)'}`)
  const maxDistance = Math.min(Number(args.maxDistance) || SCAN_MAX_DISTANCE, SCAN_MAX_DISTANCE)
  const count = Math.max(1, Math.min(Number(args.count) || 1, SCAN_MAX_COUNT))
  const me = bot.entity.position
  // minY: none deeper (a collect of the surface walks to it; it digs no shaft down to one)
  const filter = Number.isFinite(args.minY) ? (b) => b.position.y >= args.minY : null
  const blocks = findWithin(bot, { matching: names.map((n) => bot.registry.blocksByName[n].id), maxDistance, count, filter })
    .map((p) => ({ name: bot.blockAt(p)?.name ?? null, x: p.x, y: p.y, z: p.z, distance: Number(p.offset(0.5, 0.5, 0.5).distanceTo(me).toFixed(2)) }))
  return { blocks, maxDistance }
}

module.exports = { run, defaultTimeoutMs: 10000 }
