// Walking bots cost node most of its time in two places, both caches here (profiled with
// twenty bots idle-walking: node at ~90 % of a core, every bridge call waiting on it):
//
// 1. pathfinder checks, every physics tick, whether the bot can sprint or walk straight to
//    its next node by simulating up to a few hundred ticks of player physics; A* and the
//    simulation ask `bot.blockAt(pos, false)` for the same few blocks over and over, and each
//    answer is a freshly built Block (about a third of node's time). Within one synchronous
//    stretch of JS nothing can change the world (packets arrive in later tasks), so answers
//    are remembered until the stretch ends (a microtask clears them) or a block or chunk
//    changes under it. Only `extraInfos === false` reads are cached: those are the physics
//    and pathfinding reads; a caller asking for sign text or paintings gets a fresh block.
//
// 2. prismarine-physics builds a PlayerState for every simulation and each one calls
//    `require('minecraft-data')(version)`, which rebuilds a Version object by walking every
//    known version before finding its own cached data. The same argument always gives the
//    same object, so the answer is memoized by argument.
'use strict'

const path = require('path')

function installBlockCache (bot) {
  const blockAt = bot.blockAt
  if (typeof blockAt !== 'function' || blockAt.mcbotCached) return
  let cache = null
  let world = null
  const clear = () => { cache = null }
  const cached = (point, extraInfos = true) => {
    if (extraInfos !== false || !point) return blockAt(point, extraInfos)
    if (cache === null || world !== bot.world) {
      cache = new Map()
      world = bot.world
      queueMicrotask(clear)
    }
    const key = `${Math.floor(point.x)},${Math.floor(point.y)},${Math.floor(point.z)}`
    let block = cache.get(key)
    if (block === undefined) {
      block = blockAt(point, false)
      cache.set(key, block)
    }
    return block
  }
  cached.mcbotCached = true
  bot.blockAt = cached
  // A change inside the same stretch (a block_change handler reading before and after) must
  // not see the old block: these run before any other listener.
  for (const event of ['blockUpdate', 'chunkColumnLoad', 'chunkColumnUnload']) bot.prependListener(event, clear)
}

let memoized = false

// The minecraft-data that prismarine-physics requires (node may hold more than one copy).
function memoizeMinecraftData () {
  if (memoized) return
  memoized = true
  const physicsDir = path.dirname(require.resolve('prismarine-physics'))
  const file = require.resolve('minecraft-data', { paths: [physicsDir] })
  const original = require(file)
  const answers = new Map()
  const memo = function (mcVersion, preNetty) {
    const key = `${mcVersion}|${preNetty || false}`
    if (!answers.has(key)) answers.set(key, original(mcVersion, preNetty))
    return answers.get(key)
  }
  Object.assign(memo, original)
  require.cache[file].exports = memo
}

module.exports = { installBlockCache, memoizeMinecraftData }
