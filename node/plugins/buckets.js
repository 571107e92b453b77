// Buckets: an empty bucket used (use_item) fills from the first water or lava cell the player's
// look meets within reach, if it is a source (level 0), and takes the source away, as vanilla's
// does; used on a cow or a mooshroom (use_entity, an interaction) it fills with milk. One bucket of
// a stack is filled; the filled one takes its slot when it was the last, else goes to the
// inventory. (Pouring a filled bucket back is not served.)
'use strict'

const { stateProps } = require('./_common')

const REACH = 5 // blocks from the eyes, as a survival player's
const STEP = 0.05
const EYE = 1.62
const FILLED = { water: 'water_bucket', lava: 'lava_bucket' }
const MILKED = new Set(['cow', 'mooshroom'])

module.exports.player = function (player, serv) {
  const { registry } = serv
  const Item = require('prismarine-item')(registry)
  const bucketId = registry.itemsByName.bucket?.id

  let lastMilk = 0
  const heldSlot = (hand) => (hand === 1 ? 45 : 36 + player.heldItemSlot)

  function fill (slot, filledName) {
    const item = player.inventory.slots[slot]
    const filled = registry.itemsByName[filledName].id
    if (item.count <= 1) {
      player.inventory.updateSlot(slot, new Item(filled, 1))
    } else {
      item.count -= 1
      player.inventory.updateSlot(slot, item)
      player.giveItem(filled, 1)
    }
  }

  // The first cell along the look, up to REACH: a fluid cell, or null when a solid block is first.
  function lookedAtFluid () {
    const look = player.mcbotLook || { yaw: 0, pitch: 0 }
    const yaw = look.yaw * Math.PI / 180
    const pitch = look.pitch * Math.PI / 180
    const dir = { x: -Math.sin(yaw) * Math.cos(pitch), y: -Math.sin(pitch), z: Math.cos(yaw) * Math.cos(pitch) }
    const from = player.position
    let last = null
    for (let t = 0; t <= REACH; t += STEP) {
      const p = from.offset(dir.x * t, EYE + dir.y * t, dir.z * t).floored()
      if (last && p.equals(last)) continue
      last = p
      const id = player.world.sync.getBlockStateId(p) || 0
      const block = registry.blocksByStateId[id]
      if (!block) continue
      if (FILLED[block.name]) return { pos: p, fluid: block.name, level: Number(stateProps(registry, id).level || 0) }
      if (block.boundingBox === 'block') return null
    }
    return null
  }

  player._client.on('use_item', ({ hand }) => {
    const slot = heldSlot(hand)
    const item = player.inventory.slots[slot]
    if (!item || item.type !== bucketId || player.mcbotDead) return
    const hit = lookedAtFluid()
    if (!hit || hit.level !== 0) return // flowing fluid: vanilla's bucket takes sources only
    serv.setBlock(player.world, hit.pos, 0).then(() => fill(slot, FILLED[hit.fluid]))
      .catch((err) => serv.err(`bucket at ${hit.pos}: ${err.message}`))
  })

  player._client.on('use_entity', ({ target, mouse, hand } = {}) => {
    if (mouse === 1) return // a hit
    // An interaction comes as one or two packets (at a point, 2, and plain, 0): one fill a tick.
    if (Date.now() - lastMilk < 50) return
    const entity = serv.entities[target]
    const slot = heldSlot(hand ?? 0)
    const item = player.inventory.slots[slot]
    if (!entity || !MILKED.has(entity.name) || !item || item.type !== bucketId || player.mcbotDead) return
    if (entity.position.distanceTo(player.position) > REACH + 1) return
    lastMilk = Date.now()
    fill(slot, 'milk_bucket')
  })
}
