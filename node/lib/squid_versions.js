'use strict'
// Lets flying-squid 1.12 serve the versions after the last it was tested with (1.21.4); what
// changed in their packets is adapted by plugins/protocol.js, and every version we serve runs
// the node tests. Call before flying-squid is required: its index reads the gate at load.
const NEWEST = '26.1'

function liftVersionGate () {
  require('flying-squid/src/lib/version').latestSupportedVersion = NEWEST
  // prismarine-provider-anvil 2.13 picks its chunk format by major version and knows none after
  // 1.21, so flying-squid's world plugin threw at start at 26.1. Its 1.18 format is the one 26.1
  // saves too (sections of palettes); the chunk itself stays the version's own, with its real
  // version comparisons (26.1's fluid counts).
  const chunkPath = require.resolve('prismarine-provider-anvil/src/chunk')
  const anvilChunk = require(chunkPath)
  require.cache[chunkPath].exports = (registry) => anvilChunk(knownMajor(registry))
}

function knownMajor (registry) {
  if (typeof registry === 'string' || !registry.version['>']('1.21.11')) return registry
  const version = Object.create(registry.version, { majorVersion: { value: '1.21' } })
  return Object.create(registry, { version: { value: version } })
}

module.exports = { liftVersionGate, NEWEST }
