// Server-authoritative inventory windows (1.17+ click protocol with state ids), replacing
// flying-squid's click handling, which trusted prismarine-windows and knew no crafting.
// Menus (_menus.js): the player inventory (2x2 crafting), the crafting table and the furnace.
// Mirrors vanilla's handleContainerClick: apply the click (_clicks.js), take the client's claimed
// slots as what it believes, then send set_slot for every slot where truth differs (or the whole
// window when the click carried a stale state id). A click in the crafting area always
// resends the result slot, as vanilla's slotChangedCraftingGrid does; mineflayer waits for it.
// This plugin keeps each player's open menu, opens and closes it, and sends its packets.
'use strict'

const { stacksOf } = require('./_stacks')
const { makeMenus } = require('./_menus')
const { makeClicks } = require('./_clicks')

// Menu type ids of the running version (they shift between versions), from prismarine-windows.
const typeIds = {}

module.exports.server = function (serv) {
  const windows = require('prismarine-windows')(serv.registry)
  for (let t = 0; t < 60; t++) {
    const w = windows.createWindow(1, t, '', 46)
    if (w && /^minecraft:/.test(w.type) && typeIds[w.type] === undefined) typeIds[w.type] = t
  }
  // vanilla checks every tick that an open menu is still valid (the furnace's own check is in
  // its broadcast, furnace.js's tick)
  serv.on('tick', function stillValidMenus () {
    for (const player of serv.players) player.mcbotCheckMenu?.()
  })
}

module.exports.player = function (player, serv) {
  const { registry } = serv
  const stacks = stacksOf(registry)
  const { Item, same, snap, clone } = stacks
  const inv = player.inventory

  let stateId = 0
  const nextState = () => { stateId = (stateId + 1) & 0x7fff; return stateId }
  let windowCounter = 0

  // --- packets ---------------------------------------------------------------------------------
  const sendSlot = (m, i) => {
    if (m.remote && i < m.remote.length) m.remote[i] = snap(m.get(i))
    player._client.write('set_slot', { windowId: m.id, stateId: nextState(), slot: i, item: Item.toNotch(m.get(i)) })
  }
  const sendCursor = () => player._client.write('set_slot', { windowId: -1, stateId: nextState(), slot: -1, item: Item.toNotch(clicks.cursor) })
  const sendAll = (m) => {
    const items = []
    for (let i = 0; i < m.size; i++) items.push(Item.toNotch(m.get(i)))
    if (m.remote) for (let i = 0; i < m.remote.length; i++) m.remote[i] = snap(m.get(i))
    player._client.write('window_items', { windowId: m.id, stateId: nextState(), items, carriedItem: Item.toNotch(clicks.cursor) })
  }

  const menus = makeMenus(player, registry, stacks, { openMenu: () => menu, sendSlot })
  const { invMenu, tableMenu, furnaceMenu } = menus
  let menu = invMenu
  const clicks = makeClicks(serv, player, stacks, menus)
  const { click, updateResult, throwItem } = clicks

  player.mcbotResyncInventory = () => sendAll(menu)

  player._client.removeAllListeners('window_click')
  player._client.on('window_click', (packet) => {
    try {
      let m = menu.id === packet.windowId ? menu : null
      if (!m && packet.windowId === invMenu.id && menu !== invMenu) {
        // The client clicks its own inventory, so it has no table open, whatever we missed
        // (a close for an older window id): close ours, or every inventory click is dropped.
        closeMenu(menu)
        m = invMenu
      }
      if (!m) return // a click for a window we already closed
      const before = []
      for (let i = 0; i < m.size; i++) before.push(snap(m.get(i)))
      const staleState = packet.stateId !== stateId
      click(m, packet.slot, packet.mouseButton, packet.mode)

      const craftArea = packet.slot === m.result || m.grid.includes(packet.slot)
      const gridChanged = m.grid.some(i => !same(before[i], m.get(i)))
      if (gridChanged) updateResult(m)
      if (staleState) { sendAll(m); return }
      const believed = before.slice()
      for (const c of packet.changedSlots || []) {
        if (c.location >= 0 && c.location < m.size) believed[c.location] = Item.fromNotch(c.item)
      }
      // The result goes last: mineflayer moves on when it arrives, and by then it must have
      // every correction (and the latest state id) for its next click.
      const sendResult = craftArea || gridChanged
      for (let i = 0; i < m.size; i++) {
        if (sendResult && i === m.result) continue
        if (!same(believed[i], m.get(i))) sendSlot(m, i)
      }
      if (!same(Item.fromNotch(packet.cursorItem), clicks.cursor)) sendCursor()
      if (sendResult) sendSlot(m, m.result)
      // the client now holds the truth for every slot, whether sent or already believed
      if (m.remote) for (let i = 0; i < m.remote.length; i++) m.remote[i] = snap(m.get(i))
      syncEquipment()
    } catch (err) {
      serv.err(`window_click: ${err.stack}`)
    }
  })

  // Closing returns the crafting grid and the carried item to the inventory (vanilla 1.17+).
  // Only the slots that held something are sent, as vanilla's broadcast of changes does: every
  // packet sent moves the state id on, and each click the client stamped before it arrived is
  // then answered with the whole window (mineflayer closes its inventory after every toss).
  function closeMenu (m) {
    const back = m.grid.map(i => m.get(i)).filter(Boolean)
    if (clicks.cursor) back.push(clicks.cursor)
    clicks.cursor = null
    const emptied = [...m.grid, m.result].filter((i) => i !== null && m.get(i))
    for (const i of m.grid) m.set(i, null)
    if (m.result !== null) m.set(m.result, null)
    m.onClose?.()
    if (m === invMenu) for (const i of emptied) sendSlot(m, i)
    menu = invMenu
    for (const it of back) {
      const left = player.giveItem(it.type, it.count)
      if (left > 0) throwItem(clone(it, left))
    }
  }
  player._client.removeAllListeners('close_window')
  player._client.on('close_window', ({ windowId }) => {
    if (windowId === menu.id) closeMenu(menu)
    player.windowType = ''
    player.windowPos = undefined
  })

  player.mcbotCheckMenu = () => { if (menu.stillValid && !menu.stillValid()) player.mcbotCloseWindow() }
  player.mcbotOpenCraftingTable = (pos) => {
    if (menu !== invMenu) closeMenu(menu)
    windowCounter = (windowCounter % 100) + 1
    menu = tableMenu(windowCounter, pos)
    player._client.write('open_window', {
      windowId: menu.id,
      inventoryType: typeIds['minecraft:crafting'],
      windowTitle: JSON.stringify({ translate: 'container.crafting' })
    })
    sendAll(menu)
  }
  // The window properties follow from furnace.js's tick (broadcast).
  player.mcbotOpenFurnace = (box) => {
    if (menu !== invMenu) closeMenu(menu)
    windowCounter = (windowCounter % 100) + 1
    menu = furnaceMenu(windowCounter, box)
    box.viewers.add(menu)
    player._client.write('open_window', {
      windowId: menu.id,
      inventoryType: typeIds['minecraft:furnace'],
      windowTitle: JSON.stringify({ translate: 'container.furnace' })
    })
    sendAll(menu)
  }
  player.on('disconnected', () => menu.onClose?.())
  player.mcbotCloseWindow = () => {
    if (menu === invMenu) return
    player._client.write('close_window', { windowId: menu.id })
    closeMenu(menu)
    // the whole inventory again: mineflayer copies a container's view of it back only when the
    // client closes it, so after a close of ours (a furnace walked away from) it kept what it
    // believed before
    sendAll(invMenu)
  }

  // Changes made outside clicks (pickup, /give, placing, eating) reach the client with a
  // state id, in window 0 and in the open container's view of the same slot.
  inv.removeAllListeners('updateSlot')
  inv.on('updateSlot', (slot) => {
    sendSlot(invMenu, slot)
    if (menu !== invMenu && slot >= 9 && slot <= 44) sendSlot(menu, menu.fromInv(slot))
    syncEquipment()
  })

  // What other players see in this player's hands and armor slots.
  const shown = {}
  function syncEquipment () {
    const slots = { 0: 36 + player.heldItemSlot, 1: 45, 2: 8, 3: 7, 4: 6, 5: 5 }
    const changed = []
    for (const [eq, s] of Object.entries(slots)) {
      const it = inv.slots[s] ?? null
      const key = it ? `${it.type}x${it.count}` : ''
      if (shown[eq] === key) continue
      shown[eq] = key
      player.setEquipment(+eq, it)
      changed.push({ slot: +eq, item: Item.toNotch(it) })
    }
    if (changed.length) player._writeOthersNearby('entity_equipment', { entityId: player.id, equipments: changed })
  }
  player.mcbotSyncEquipment = syncEquipment
}
