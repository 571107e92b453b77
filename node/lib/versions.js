'use strict'
// Check a server's version (from a server list ping) against what mineflayer supports,
// before createBot: `version: false` with an unsupported server crashes node
// (docs/contracts.md BRIDGE-6).
// The reply says where an unsupported server stands (`relation`: newer than the newest
// supported version, older than the oldest, or unknown in between) so Python can name the
// fix (ViaVersion/ViaBackwards on the server) and the supported range.
const minecraftData = require('minecraft-data')
const { testedVersions, oldestSupportedVersion, latestSupportedVersion } = require('mineflayer/lib/version')
const mineflayerVersion = require('mineflayer/package.json').version

const protocolOf = (v) => {
  const data = minecraftData.versionsByMinecraftVersion.pc[v]
  return data ? data.version : null
}

// A ping's version name is often decorated ("Paper 1.21.4", "Velocity 3.4.0"): the first
// x.y[.z] in it that minecraft-data knows.
function knownName (name) {
  if (!name) return null
  if (minecraftData.versionsByMinecraftVersion.pc[name]) return name
  for (const m of String(name).matchAll(/\d+\.\d+(?:\.\d+)?/g)) {
    if (minecraftData.versionsByMinecraftVersion.pc[m[0]]) return m[0]
  }
  return null
}

function relationOf (protocol, ok) {
  if (ok) return null
  if (protocol > protocolOf(latestSupportedVersion)) return 'newer'
  if (protocol < protocolOf(oldestSupportedVersion)) return 'older'
  return 'unknown'
}

function check (protocol, name) {
  const byProtocol = minecraftData.postNettyVersionsByProtocolVersion.pc[protocol] || []
  const candidates = byProtocol.map((v) => v.minecraftVersion)
  const named = knownName(name)
  if (named) candidates.unshift(named)
  const version = candidates.find((v) => testedVersions.includes(v)) || candidates.find((v) => minecraftData(v))
  const ok = Boolean(version) && testedVersions.includes(version)
  return {
    ok,
    version: version || null,
    protocol,
    relation: relationOf(protocol, ok),
    supported: testedVersions,
    oldest: oldestSupportedVersion,
    latest: latestSupportedVersion,
    range: `${oldestSupportedVersion} - ${latestSupportedVersion}`,
    mineflayer: mineflayerVersion
  }
}

module.exports = { check }
