// Reading minecraft-data's protocol schema for protocol.js: what a field takes at the running
// version, found in the schema itself rather than assumed from a version number.
'use strict'

// Vanilla serializer names ('byte', 'item_stack') -> the value the metadata `type` field takes:
// the name itself where the schema maps names (1.19.4+), else the numeric id (1.18).
function metadataTypes (registry) {
  const types = registry.protocol.types
  const mapper = findMapper(types.entityMetadataEntry || types.entityMetadata, (m) => Object.values(m).includes('item_stack'))
  if (mapper) return Object.fromEntries(Object.values(mapper).map(n => [n, n]))
  const fields = types.entityMetadataItem?.[1]?.fields || {}
  const LEGACY = { byte: 'i8', int: 'varint', boolean: 'bool', item_stack: 'slot' }
  const out = {}
  for (const [name, t] of Object.entries(LEGACY)) {
    const id = Object.keys(fields).find(k => String(fields[k]).toLowerCase() === t)
    if (id !== undefined) out[name] = Number(id)
  }
  return out
}

function findMapper (spec, pred) {
  if (!spec || typeof spec !== 'object') return null
  if (Array.isArray(spec) && spec[0] === 'mapper' && spec[1]?.mappings && pred(spec[1].mappings)) return spec[1].mappings
  for (const v of Object.values(spec)) {
    const m = findMapper(v, pred)
    if (m) return m
  }
  return null
}

// name -> number for a mapper field (entity_action's 'start_sprinting' -> 3).
function reverseMapper (spec) {
  const m = Array.isArray(spec) && spec[0] === 'mapper' ? spec[1].mappings : {}
  return Object.fromEntries(Object.entries(m).map(([k, v]) => [v, Number(k)]))
}

// damage_event's sourceTypeId is the index in the damage_type registry sent at login.
function damageTypeIds (registry) {
  const codec = registry.loginPacket?.dimensionCodec?.['minecraft:damage_type']
  const entries = codec?.entries || []
  return Object.fromEntries(entries.map((e, i) => [e.key, i]))
}

// JSON chat component -> NBT compound (1.20.3+ sends text components as NBT).
function chatToNbt (value) {
  if (typeof value === 'string') return { type: 'string', value }
  if (typeof value === 'number') return { type: 'int', value }
  if (typeof value === 'boolean') return { type: 'byte', value: value ? 1 : 0 }
  if (Array.isArray(value)) return { type: 'list', value: { type: 'compound', value: value.map(v => chatToNbt(typeof v === 'string' ? { text: v } : v).value) } }
  const out = {}
  for (const [k, v] of Object.entries(value)) out[k] = chatToNbt(v)
  return { type: 'compound', name: '', value: out }
}

module.exports = { metadataTypes, reverseMapper, damageTypeIds, chatToNbt }
