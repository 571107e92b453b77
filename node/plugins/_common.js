// Helpers shared by the mcbot plugins (the leading underscore keeps it off the plugin list).
'use strict'

const { Vec3 } = require('vec3')
const { blockName, itemName } = require('./_names')

// State id for a block name plus property overrides, using minecraft-data's state order
// (the first property is the most significant digit, as in vanilla's state numbering).
function stateId (registry, name, props = {}) {
  const block = registry.blocksByName[blockName(registry, name)]
  if (!block) throw new Error(`unknown block ${name}`)
  if (!block.states || block.states.length === 0) return block.defaultState ?? block.minStateId
  let rest = block.defaultState - block.minStateId
  const digits = []
  for (let i = block.states.length - 1; i >= 0; i--) {
    const s = block.states[i]
    digits[i] = rest % s.num_values
    rest = Math.floor(rest / s.num_values)
  }
  let data = 0
  block.states.forEach((s, i) => {
    let v = digits[i]
    if (props[s.name] !== undefined) v = encodeValue(s, props[s.name])
    data = data * s.num_values + v
  })
  return block.minStateId + data
}

function encodeValue (state, value) {
  const str = String(value)
  if (state.type === 'bool') return str === 'true' ? 0 : 1 // vanilla orders true before false
  if (state.type === 'enum') {
    const i = state.values.indexOf(str)
    if (i < 0) throw new Error(`bad value ${str} for ${state.name}`)
    return i
  }
  const n = parseInt(str, 10)
  return n - (state.values ? parseInt(state.values[0], 10) : 0)
}

// Properties of a state id, as { name: 'true' | 'north' | '3' ... } strings.
function stateProps (registry, id) {
  const block = registry.blocksByStateId[id]
  if (!block || !block.states) return {}
  let rest = id - block.minStateId
  const out = {}
  for (let i = block.states.length - 1; i >= 0; i--) {
    const s = block.states[i]
    const v = rest % s.num_values
    rest = Math.floor(rest / s.num_values)
    if (s.type === 'bool') out[s.name] = v === 0 ? 'true' : 'false'
    else if (s.type === 'enum') out[s.name] = s.values[v]
    else out[s.name] = String(v + (s.values ? parseInt(s.values[0], 10) : 0))
  }
  return out
}

// "oak_door[facing=north,half=lower]" -> state id
function parseBlockSpec (registry, spec) {
  const m = /^(?:minecraft:)?([a-z0-9_]+)(?:\[([^\]]*)\])?$/.exec(spec)
  if (!m) throw new Error(`bad block ${spec}`)
  const props = {}
  if (m[2]) {
    for (const kv of m[2].split(',')) {
      const [k, v] = kv.split('=')
      if (k && v !== undefined) props[k.trim()] = v.trim()
    }
  }
  return stateId(registry, m[1], props)
}

// Solid for movement: full collision boxes, with doors solid only while closed.
function isSolidState (registry, id) {
  const block = registry.blocksByStateId[id]
  if (!block) return false
  if (block.name.endsWith('_door')) return stateProps(registry, id).open !== 'true'
  return block.boundingBox === 'block'
}

function chatReply (serv, ctx, text) {
  if (ctx && ctx.player) ctx.player.chat('mcbot: ' + text)
  else serv.info('mcbot: ' + text)
}

// Spawn a dropped item entity: pickup delay 10 ticks unless told (a player's throw: 40, as
// vanilla's), despawn after 6000 (plugins/items.js counts them in game ticks).
function dropItem (serv, world, position, itemId, count = 1, velocity, pickupTicks = 10) {
  return serv.spawnObject(serv.registry.entitiesByName.item.id, world, position, {
    velocity: velocity || new Vec3(Math.random() * 2 - 1, 3, Math.random() * 2 - 1),
    itemId,
    itemCount: count,
    pickupTime: pickupTicks * 50,
    deathTime: 5 * 60 * 1000
  })
}

const randInt = (lo, hi) => lo + Math.floor(Math.random() * (hi - lo + 1))

// A random block column at a random angle, min..min+span blocks from pos (natural spawning).
function columnAround (pos, min, span, random = Math.random) {
  const a = random() * Math.PI * 2
  const r = min + random() * span
  return { x: Math.floor(pos.x + Math.cos(a) * r), z: Math.floor(pos.z + Math.sin(a) * r) }
}

module.exports = { stateId, stateProps, parseBlockSpec, isSolidState, chatReply, dropItem, randInt, columnAround, blockName, itemName, Vec3 }
