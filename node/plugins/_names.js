// Block and item names that changed between the supported versions, resolved for the running
// version from minecraft-data. The only place that knows renames: plugins and /mcbot commands
// may use either spelling (`grass` places short_grass at 1.21.4, `short_grass` grass at 1.18.2).
'use strict'

const RENAMED = [
  ['grass', 'short_grass'], // 1.20.3
  ['scute', 'turtle_scute'] // 1.20.5
]

// The spelling of `name` that exists in byName, or null.
function spell (byName, name) {
  const n = String(name).replace(/^minecraft:/, '')
  if (byName[n]) return n
  const pair = RENAMED.find(p => p.includes(n))
  return (pair && pair.find(other => byName[other])) || null
}

const blockName = (registry, name) => spell(registry.blocksByName, name)
const itemName = (registry, name) => spell(registry.itemsByName, name)

module.exports = { blockName, itemName }
