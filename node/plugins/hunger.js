// Hunger, natural regeneration, starvation and eating, per vanilla (Java 1.18) rules:
// exhaustion from sprinting (0.1/m), jumping (0.05, sprint-jump 0.2), breaking blocks (0.005),
// attacking (0.1), taking damage (0.1) and healing (6 per hp); every 4.0 exhaustion costs one
// saturation point, or one food point when saturation is empty. All exhaustion is multiplied
// by cfg.hungerRate. Regeneration: saturated and full food heals every 10 ticks, food >= 18
// every 80 ticks; food 0 starves 1 hp every 80 ticks down to 1 hp on normal difficulty.
// Eating: use_item with a food held, finished after 32 ticks (16 for dried kelp) with entity
// status 9 and an update_health, as the vanilla server does (what bot.consume() waits for).
'use strict'

const ALWAYS_EDIBLE = new Set(['golden_apple', 'enchanted_golden_apple', 'chorus_fruit'])
const BOWL_FOODS = new Set(['mushroom_stew', 'rabbit_stew', 'beetroot_soup', 'suspicious_stew'])

module.exports.server = function (serv, cfg) {
  serv.on('tick', () => {
    for (const player of serv.players) player.mcbotHungerTick?.()
  })
}

module.exports.player = function (player, serv, cfg) {
  const { registry } = serv
  const Item = require('prismarine-item')(registry)
  const rate = cfg.hungerRate ?? 1

  player.foodSaturation = 5
  player.foodExhaustion = 0
  let regenTimer = 0
  let eating = null

  const survival = () => player.gameMode === 0 || player.gameMode === 2
  const sendVitals = () => player._client.write('update_health', {
    health: Math.max(0, player.health),
    food: player.food,
    foodSaturation: player.foodSaturation
  })
  player.mcbotSendVitals = sendVitals
  // flying-squid's own senders, kept for its callers, now carry saturation.
  player.updateFood = (food) => { player.food = food; sendVitals() }
  player.updateFoodSaturation = (s) => { player.foodSaturation = s; sendVitals() }

  player.mcbotExhaust = (amount) => {
    if (!survival() || player.mcbotDead) return
    player.foodExhaustion = Math.min(40, player.foodExhaustion + amount * rate)
  }
  player.mcbotHeal = (amount) => {
    if (player.mcbotDead || player.health >= 20) return
    player.health = Math.min(20, player.health + amount)
    sendVitals()
  }

  player.mcbotHungerTick = () => {
    if (player.mcbotDead || !player._client || player.health <= 0) return
    tickEating()
    if (!survival()) return
    let changed = false
    while (player.foodExhaustion >= 4) {
      player.foodExhaustion -= 4
      if (player.foodSaturation > 0) player.foodSaturation = Math.max(0, player.foodSaturation - 1)
      else if (serv.difficulty > 0) player.food = Math.max(0, player.food - 1)
      changed = true
    }
    const sat = player.foodSaturation
    if (sat > 0 && player.food >= 20 && player.health < 20) {
      if (++regenTimer >= 10) {
        const amount = Math.min(sat, 6)
        player.mcbotHeal(amount / 6)
        player.mcbotExhaust(amount)
        regenTimer = 0
      }
    } else if (player.food >= 18 && player.health < 20) {
      if (++regenTimer >= 80) { player.mcbotHeal(1); player.mcbotExhaust(6); regenTimer = 0 }
    } else if (player.food <= 0) {
      if (++regenTimer >= 80) {
        const floor = serv.difficulty >= 3 ? 0 : serv.difficulty === 2 ? 1 : 10
        if (player.health > floor) player.mcbotDamage?.(1, { cause: 'starve', bypassInvulnerability: true })
        regenTimer = 0
      }
    } else regenTimer = 0
    if (changed) sendVitals()
  }

  // --- activity ---------------------------------------------------------------------------
  let sprinting = false
  let last = null
  let lastOnGround = true
  function onMove (x, y, z, onGround) {
    if (last) {
      const horiz = Math.hypot(x - last.x, z - last.z)
      if (sprinting && horiz < 5) player.mcbotExhaust(0.1 * horiz)
      if (lastOnGround && !onGround && y > last.y) player.mcbotExhaust(sprinting ? 0.2 : 0.05)
    }
    last = { x, y, z }
    lastOnGround = onGround
  }
  player._client.on('position', (p) => onMove(p.x, p.y, p.z, p.onGround))
  player._client.on('position_look', (p) => onMove(p.x, p.y, p.z, p.onGround))
  // onGround from every movement packet, as vanilla: a landing without a move comes as a bare
  // 'flying' (or 'look') packet, and the jump after it is a jump
  for (const name of ['look', 'flying']) player._client.on(name, (p) => { lastOnGround = p.onGround })
  player._client.on('entity_action', ({ actionId }) => {
    if (actionId === 3 || actionId === 'start_sprinting') sprinting = true
    if (actionId === 4 || actionId === 'stop_sprinting') sprinting = false
  })
  player.on('dug', () => player.mcbotExhaust(0.005))
  player.on('attack', () => player.mcbotExhaust(0.1))

  // --- eating -------------------------------------------------------------------------------
  player._client.on('use_item', ({ hand }) => {
    const slot = hand === 1 ? 45 : 36 + player.heldItemSlot
    const item = player.inventory.slots[slot]
    // by name: minecraft-data 1.21.4's foods carry stale item ids (bread 855, the item is 886)
    const food = item && registry.foodsByName[registry.items[item.type]?.name]
    if (!food || player.mcbotDead) return
    if (player.food >= 20 && player.gameMode !== 1 && !ALWAYS_EDIBLE.has(food.name)) return
    eating = { slot, type: item.type, food, ticks: food.name === 'dried_kelp' ? 16 : 32 }
  })
  player._client.on('held_item_slot', () => { eating = null })
  player._client.on('block_dig', ({ status }) => { if (status === 5) eating = null })

  function tickEating () {
    if (!eating || --eating.ticks > 0) return
    const { slot, type, food } = eating
    eating = null
    const item = player.inventory.slots[slot]
    if (!item || item.type !== type) return
    player.food = Math.min(20, player.food + food.foodPoints)
    player.foodSaturation = Math.min(player.food, player.foodSaturation + food.saturation)
    if (player.gameMode !== 1) {
      item.count -= 1
      player.inventory.updateSlot(slot, item.count > 0 ? item : null)
      const back = BOWL_FOODS.has(food.name) ? 'bowl' : food.name === 'honey_bottle' ? 'glass_bottle' : null
      if (back) {
        const id = registry.itemsByName[back].id
        if (!player.inventory.slots[slot]) player.inventory.updateSlot(slot, new Item(id, 1))
        else player.giveItem(id, 1)
      }
    }
    player._client.write('entity_status', { entityId: player.id, entityStatus: 9 })
    sendVitals()
  }
}
