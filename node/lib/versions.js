'use strict'
// Check a server's version (from a server list ping) against what mineflayer supports,
// before createBot: `version: false` with an unsupported server crashes node (bridge-notes).
const minecraftData = require('minecraft-data')
const { testedVersions } = require('mineflayer/lib/version')

function check (protocol, name) {
  const byProtocol = minecraftData.postNettyVersionsByProtocolVersion.pc[protocol] || []
  const candidates = byProtocol.map((v) => v.minecraftVersion)
  if (name && minecraftData.versionsByMinecraftVersion.pc[name]) candidates.unshift(name)
  const version = candidates.find((v) => testedVersions.includes(v)) || candidates.find((v) => minecraftData(v))
  return {
    ok: Boolean(version) && testedVersions.includes(version),
    version: version || null,
    protocol,
    supported: testedVersions
  }
}

module.exports = { check }
