// Block and item names that changed between versions, resolved for the running version with
// the one JS rename table (node/lib/names.js + names.json, shared with the bot side and held
// equal to agency's by a test): plugins and /mcbot commands may use either spelling
// (`grass` places short_grass at 1.21.4, `short_grass` grass at 1.18.2).
'use strict'

const names = require('../lib/names')

const bare = (name) => String(name).replace(/^minecraft:/, '')
const blockName = (registry, name) => names.blockName(registry, bare(name))
const itemName = (registry, name) => names.itemName(registry, bare(name))

module.exports = { blockName, itemName }
