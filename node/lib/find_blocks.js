'use strict'
// Blocks of a kind within a sphere around the bot, nearest first.
//
// mineflayer's bot.findBlocks reads sections in an octahedron (|dx| + |dy| + |dz| sections at
// most ceil((maxDistance + 8) / 16)), which misses the sphere's diagonals: logs 28 blocks off,
// a section up and two across, were "no oak_log within 32 blocks" while the bot's sight box held
// them. Asking it for the octahedron that holds the whole sphere, and keeping only the sphere
// (and the caller's filter) in its per-block test, finds every one. Sections whose palette lacks
// the kind are still skipped unread.

const { SCAN_MAX_COUNT } = require('./limits')

// Per axis a block d blocks off lies at most floor(d / 16) + 1 sections away, and the three
// offsets sum to at most sqrt(3) * d / 16 + 3 sections; mineflayer's apothem is
// ceil((maxDistance + 8) / 16), so this distance makes it large enough.
function octahedronCovering (radius) {
  return Math.ceil(Math.sqrt(3) * radius) + 40
}

function findWithin (bot, { matching, maxDistance, count = SCAN_MAX_COUNT, filter = null }) {
  const centre = bot.entity.position.floored()
  const keep = (b) => b.position.distanceTo(centre) <= maxDistance && (!filter || filter(b))
  return bot.findBlocks({ matching, point: centre, maxDistance: octahedronCovering(maxDistance), count, useExtraInfo: keep })
}

module.exports = { findWithin, octahedronCovering }
