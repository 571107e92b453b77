'use strict'
// prismarine-viewer 1.33 draws with the assets of the versions it lists, the newest 1.21.4. A
// newer world's chunks would show the wrong blocks at 1.21.11 (its state ids shifted) and
// nothing at 26.1 (no assets at all). For those the page is told 1.21.4 and every block state
// it is sent is translated by name and properties (lib/names.js renames; a block 1.21.4 does
// not have is drawn as stone). Biomes are translated by name too (plains when unknown).
const { supportedVersions } = require('prismarine-viewer/viewer/lib/version')
const BitArray = require('prismarine-chunk/src/pc/common/BitArrayNoSpan')
const { blockName } = require('./names')

const DRAWN = supportedVersions[supportedVersions.length - 1]

// The version the page draws for a bot at `version`: its own when the viewer has assets for
// its minor version, else the newest the viewer has (null: no translation needed).
function drawnAs (registry) {
  return registry.version['>'](DRAWN) ? DRAWN : null
}

// An emitter for WorldView that translates what it sends from `registry` to `DRAWN`.
function translatingEmitter (socket, registry) {
  const states = stateMap(registry, require('prismarine-registry')(DRAWN))
  const biomes = biomeMap(registry, require('prismarine-registry')(DRAWN))
  return {
    on: (...a) => socket.on(...a),
    emit (name, payload) {
      if (name === 'loadChunk') return socket.emit(name, { ...payload, chunk: translateColumn(payload.chunk, states, biomes) })
      if (name === 'blockUpdate') return socket.emit(name, { ...payload, stateId: states(payload.stateId) })
      return socket.emit(name, payload)
    }
  }
}

function stateMap (from, to) {
  const FromBlock = require('prismarine-block')(from)
  const ToBlock = require('prismarine-block')(to)
  const stone = to.blocksByName.stone.defaultState
  const cache = new Map()
  return (id) => {
    let out = cache.get(id)
    if (out !== undefined) return out
    const block = FromBlock.fromStateId(id, 0)
    const name = block?.name && blockName(to, block.name)
    out = stone
    if (name) {
      try {
        out = ToBlock.fromProperties(name, block.getProperties(), 0).stateId ?? to.blocksByName[name].defaultState
      } catch {
        out = to.blocksByName[name].defaultState // a property the drawn version lacks
      }
    }
    cache.set(id, out)
    return out
  }
}

function biomeMap (from, to) {
  const plains = to.biomesByName.plains.id
  return (id) => to.biomesByName[from.biomes[id]?.name]?.id ?? plains
}

function translateColumn (json, states, biomes) {
  const column = JSON.parse(json)
  column.sections = column.sections.map((s) => {
    const section = JSON.parse(s)
    section.data = translateContainer(section.data, states)
    return JSON.stringify(section)
  })
  column.biomes = column.biomes.map((b) => translateContainer(b, biomes))
  return JSON.stringify(column)
}

// A palette container's JSON (prismarine-chunk pc/common/PaletteContainer.js) with every
// value mapped: one value, a palette, or (direct) the values themselves.
function translateContainer (json, map) {
  const c = JSON.parse(json)
  if (c.type === 'single') c.value = map(c.value)
  else if (c.type === 'indirect') c.palette = c.palette.map(map)
  else if (c.type === 'direct') {
    const data = BitArray.fromJson(c.data)
    for (let i = 0; i < data.capacity; i++) data.set(i, map(data.get(i)))
    c.data = data.toJson()
  }
  return JSON.stringify(c)
}

module.exports = { drawnAs, translatingEmitter, DRAWN }
