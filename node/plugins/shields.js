// Shields, per vanilla (LivingEntity.isDamageSourceBlocked and the shield's 5-tick delay): a
// player using a shield (use_item with it in that hand) blocks, from 5 ticks after raising it,
// the whole of a hit whose source lies in front of it, the half of the world its view faces
// horizontally: a mob's blow, an arrow, an explosion. The shield is lowered by block_dig
// status 5 (mineflayer's deactivateItem), a use of the other hand, a change of held slot while
// it is in the main hand, its slot emptied, or a death. A blocked hit wears the shield
// 1 + floor(damage) when the damage is 3 or more (it breaks at its maximum) and shows the block
// (entity status 29) to the player and those around; unlike vanilla the mob that struck is not
// knocked back. Falls, fire, lava, drowning and suffocation have no source and are never
// blocked (damage.js asks only with one).
// mineflayer's physics does not slow a player using an item as a vanilla client does: its bots
// walk with a shield up at full speed, here as on any server.
'use strict'

const OFF_HAND = 45
const BLOCK_DELAY = 5 // ticks from raising the shield to its first block
const WEAR_FROM = 3 // vanilla: hits under 3 damage do not wear the shield

// prismarine-item's durabilityUsed setter writes nbt only: 1.20.5+ items carry their damage as
// a data component, which is what goes on the wire
function setDamage (item, used) {
  if (!item.components) { item.durabilityUsed = used; return }
  item.components = [...item.components.filter((c) => c.type !== 'damage'), { type: 'damage', data: used }]
  item.componentMap.set('damage', { type: 'damage', data: used })
}

module.exports.player = function (player, serv) {
  const { registry } = serv
  const shieldType = registry.itemsByName.shield?.id
  let raised = null // { slot, at: game tick }

  const shieldIn = (slot) => {
    const item = player.inventory.slots[slot]
    return item && item.type === shieldType ? item : null
  }
  // one item in use at a time: a use of the other hand (an eat) lowers the shield
  player._client.on('use_item', ({ hand }) => {
    const slot = hand === 1 ? OFF_HAND : 36 + player.heldItemSlot
    raised = shieldIn(slot) && !player.mcbotDead ? { slot, at: serv.tickCount } : null
  })
  player._client.on('block_dig', ({ status }) => { if (status === 5) raised = null })
  player._client.on('held_item_slot', () => { if (raised && raised.slot !== OFF_HAND) raised = null })
  player.on('mcbotDeath', () => { raised = null }) // a shield had after the respawn is raised anew

  // Is the shield up and ready, with `from` in front? (vanilla: the horizontal way from the
  // player to the source, against the view vector, at an angle over 90 degrees)
  const blocks = (from) => {
    if (raised && !shieldIn(raised.slot)) raised = null // its slot emptied: a shield put back is raised anew
    if (!raised || serv.tickCount - raised.at < BLOCK_DELAY) return false
    const yaw = player.yaw * 2 * Math.PI / 256 // flying-squid keeps the yaw as a byte
    const [vx, vz] = [-Math.sin(yaw), Math.cos(yaw)]
    const [dx, dz] = [player.position.x - from.x, player.position.z - from.z]
    return dx * vx + dz * vz < 0
  }

  // Called by mcbotDamage (damage.js) for a hit with a source: true when the shield took it.
  player.mcbotShieldBlocks = (amount, from) => {
    if (!from || !blocks(from)) return false
    const item = shieldIn(raised.slot)
    if (amount >= WEAR_FROM) {
      const used = (item.durabilityUsed || 0) + 1 + Math.floor(amount)
      setDamage(item, used)
      const broken = used >= (registry.items[shieldType].maxDurability || 336)
      player.inventory.updateSlot(raised.slot, broken ? null : item)
      if (broken) raised = null
    }
    player._writeNearby('entity_status', { entityId: player.id, entityStatus: 29 })
    return true
  }
}
