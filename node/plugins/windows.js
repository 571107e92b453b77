// Server-authoritative inventory windows (1.17+ click protocol with state ids), replacing
// flying-squid's click handling, which trusted prismarine-windows and knew no crafting.
// Menus: the player inventory (2x2 crafting), the crafting table and the furnace (slots 0 input,
// 1 fuel, 2 output over a container furnace.js owns and smelts).
// Mirrors vanilla's handleContainerClick: apply the click, take the client's claimed slots as
// what it believes, then send set_slot for every slot where truth differs (or the whole
// window when the click carried a stale state id). A click in the crafting area always
// resends the result slot, as vanilla's slotChangedCraftingGrid does; mineflayer waits for it.
'use strict'

const { dropItem, Vec3 } = require('./_common')

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
  const Item = require('prismarine-item')(registry)
  const inv = player.inventory
  const maxStack = (it) => registry.items[it.type]?.stackSize ?? 64
  // 1.20.5+ items carry data components (damage, name...) instead of nbt: both are kept.
  const clone = (it, n) => {
    const c = new Item(it.type, n ?? it.count, it.metadata, it.nbt)
    if (it.components) { c.components = it.components; c.removedComponents = it.removedComponents || [] }
    return c
  }
  const extra = (it) => JSON.stringify([it.nbt ?? null, it.components?.length ? it.components : null, it.removedComponents?.length ? it.removedComponents : null])
  const sameKind = (a, b) => a && b && a.type === b.type && extra(a) === extra(b)
  const same = (a, b) => (!a && !b) || (sameKind(a, b) && a.count === b.count)
  const snap = (it) => (it ? { type: it.type, count: it.count, nbt: it.nbt, components: it.components, removedComponents: it.removedComponents } : null)

  let stateId = 0
  const nextState = () => { stateId = (stateId + 1) & 0x7fff; return stateId }
  let cursor = null
  let windowCounter = 0

  const invMenu = {
    id: 0,
    size: 46,
    result: 0,
    grid: [1, 2, 3, 4],
    w: 2,
    get: (i) => inv.slots[i] ?? null,
    set: (i, it) => { if (it && it.count <= 0) it = null; if (it) it.slot = i; inv.slots[i] = it },
    hotbar: (b) => 36 + b,
    quickMoveTargets (slot, it) {
      if (slot === 0) return [[9, 45, true]]
      if (slot >= 1 && slot <= 8) return [[9, 45, false]]
      const armor = armorSlot(it)
      const armorFirst = armor !== null && !inv.slots[armor] ? [[armor, armor + 1, false]] : []
      if (slot >= 9 && slot <= 35) return [...armorFirst, [36, 45, false]]
      if (slot >= 36 && slot <= 44) return [...armorFirst, [9, 36, false]]
      return [[9, 45, false]]
    }
  }

  // vanilla CraftingMenu over the table at `pos`: valid while the table stands and the player is
  // within 8 blocks of it (a table left open by a walk away kept its window for good)
  function tableMenu (id, pos) {
    const own = new Array(10).fill(null)
    const table = registry.blocksByName.crafting_table.id
    return {
      id,
      stillValid: () => !pos || (player.world?.sync?.getBlockType(pos) === table &&
        player.position.distanceTo(pos.offset(0.5, 0.5, 0.5)) <= 8),
      size: 46,
      result: 0,
      grid: [1, 2, 3, 4, 5, 6, 7, 8, 9],
      w: 3,
      own,
      get: (i) => (i < 10 ? own[i] : inv.slots[i - 1] ?? null),
      set: (i, it) => {
        if (it && it.count <= 0) it = null
        if (i < 10) { if (it) it.slot = i; own[i] = it } else { if (it) it.slot = i - 1; inv.slots[i - 1] = it }
      },
      fromInv: (s) => s + 1,
      hotbar: (b) => 37 + b,
      quickMoveTargets (slot) {
        if (slot === 0) return [[10, 46, true]]
        if (slot >= 1 && slot <= 9) return [[10, 46, false]]
        if (slot >= 10 && slot <= 36) return [[37, 46, false]]
        return [[10, 37, false]]
      }
    }
  }

  // vanilla AbstractFurnaceMenu over furnace.js's container `box` (items, setItem, data(), the
  // slot rules). Several players may look at one furnace: each menu remembers what its client
  // was last sent (remote), and broadcast() sends what changed since, as vanilla's
  // broadcastChanges does every tick.
  function furnaceMenu (id, box) {
    const m = {
      id,
      size: 39,
      result: null, // the output is taken, not crafted
      grid: [],
      box,
      remote: [undefined, undefined, undefined],
      remoteData: [],
      age: 0,
      get: (i) => (i < 3 ? box.items[i] ?? null : inv.slots[i + 6] ?? null),
      set: (i, it) => {
        if (it && it.count <= 0) it = null
        if (i < 3) { if (it) it.slot = i; box.setItem(i, it) } else { if (it) it.slot = i + 6; inv.slots[i + 6] = it }
      },
      fromInv: (s) => s - 6,
      hotbar: (b) => 30 + b,
      mayPlace: (slot, it) => slot >= 3 || box.mayPlace(slot, it),
      maxFor: (slot, it) => (slot < 3 ? box.maxStackFor(slot, it) : maxStack(it)),
      quickMoveTargets (slot, it) {
        if (slot === 2) return [[3, 39, true]]
        if (slot < 2) return [[3, 39, false]]
        if (box.canSmelt(it)) return [[0, 1, false]]
        if (box.isFuel(it)) return [[1, 2, false]]
        if (slot < 30) return [[30, 39, false]]
        return [[3, 30, false]]
      },
      onClose: () => box.viewers.delete(m),
      // vanilla stillValid: within 8 blocks of the furnace, or the menu closes
      broadcast () {
        if (menu !== m) { box.viewers.delete(m); return }
        if (player.position.distanceTo(box.pos.offset(0.5, 0.5, 0.5)) > 8) { player.mcbotCloseWindow(); return }
        // Nothing on the first tick: mineflayer's openFurnace listens for the properties only
        // once the window has opened, and ones arriving with its items would be lost for good
        // (the cook total never changes, so it would never come again).
        if (++m.age < 2) return
        for (let i = 0; i < 3; i++) if (!same(m.remote[i], m.get(i))) sendSlot(m, i)
        box.data().forEach((value, property) => {
          if (m.remoteData[property] === value) return
          m.remoteData[property] = value
          player._client.write('craft_progress_bar', { windowId: id, property, value })
        })
      },
      close () { if (menu === m) player.mcbotCloseWindow(); else box.viewers.delete(m) }
    }
    return m
  }
  let menu = invMenu

  function armorSlot (it) {
    if (!it) return null
    const n = registry.items[it.type]?.name || ''
    if (/_helmet$|^carved_pumpkin$|_head$|^turtle_helmet$/.test(n)) return 5
    if (/_chestplate$|^elytra$/.test(n)) return 6
    if (/_leggings$/.test(n)) return 7
    if (/_boots$/.test(n)) return 8
    return null
  }
  const mayPlace = (m, slot, it) => {
    if (slot === m.result) return false
    if (m.mayPlace) return m.mayPlace(slot, it)
    if (m.id === 0 && slot >= 5 && slot <= 8) return armorSlot(it) === slot
    return true
  }
  const maxFor = (m, slot, it) => (m.maxFor ? m.maxFor(slot, it) : m.id === 0 && slot >= 5 && slot <= 8 ? 1 : maxStack(it))

  // --- crafting ------------------------------------------------------------------------------
  function gridItems (m) { return m.grid.map(i => m.get(i)) }
  function updateResult (m) {
    const match = serv.mcbotMatchRecipe(gridItems(m), m.w)
    m.set(m.result, match ? match.result : null)
    return match
  }
  // Take the result once: consumes one set of ingredients, recomputes the result.
  function craftTake (m) {
    const grid = gridItems(m)
    const match = serv.mcbotMatchRecipe(grid, m.w)
    if (!match) { m.set(m.result, null); return null }
    serv.mcbotConsumeRecipe(grid, m.w, match)
    m.grid.forEach((slot, k) => m.set(slot, grid[k]))
    updateResult(m)
    player.emit('mcbotCrafted', match.result)
    return clone(match.result)
  }

  // vanilla moveItemStackTo: merge into matching stacks, then empty slots. Mutates it.count.
  function moveTo (m, it, start, end, reverse) {
    const order = []
    for (let i = start; i < end; i++) order.push(i)
    if (reverse) order.reverse()
    for (const i of order) {
      const cur = m.get(i)
      if (it.count > 0 && sameKind(cur, it) && mayPlace(m, i, it)) {
        const n = Math.min(it.count, maxFor(m, i, cur) - cur.count)
        if (n > 0) { cur.count += n; it.count -= n; m.set(i, cur) }
      }
    }
    for (const i of order) {
      if (it.count > 0 && !m.get(i) && mayPlace(m, i, it)) {
        const n = Math.min(it.count, maxFor(m, i, it))
        m.set(i, clone(it, n)); it.count -= n
      }
    }
  }
  function roomFor (m, it, ranges) {
    let room = 0
    for (const [start, end] of ranges) {
      for (let i = start; i < end; i++) {
        const cur = m.get(i)
        if (!cur) room += maxFor(m, i, it)
        else if (sameKind(cur, it)) room += Math.max(0, maxFor(m, i, cur) - cur.count)
      }
    }
    return room
  }

  function throwItem (it) {
    if (!it || it.count <= 0) return
    // the look as the client sent it (fixes.js): flying-squid's own copy is set a few promise
    // turns after the packet, so a click read in the same burst found the look before it
    const yaw = player.mcbotLook ? player.mcbotLook.yaw * Math.PI / 180 : (player.yaw || 0) * Math.PI / 128
    const v = new Vec3(-Math.sin(yaw) * 6, 2, Math.cos(yaw) * 6)
    dropItem(serv, player.world, player.position.offset(0, 1.3, 0), it.type, it.count, v)
  }

  // --- the click engine ---------------------------------------------------------------------
  let drag = null
  function click (m, slot, button, mode) {
    const inRange = slot >= 0 && slot < m.size
    if (mode === 0) {
      if (slot === -999) {
        if (cursor) { const n = button === 0 ? cursor.count : 1; throwItem(clone(cursor, n)); cursor.count -= n; if (cursor.count <= 0) cursor = null }
        return
      }
      if (!inRange) return
      if (slot === m.result) {
        const r = m.get(slot)
        if (!r || (cursor && !(sameKind(cursor, r) && cursor.count + r.count <= maxStack(r)))) return
        const got = craftTake(m)
        if (got) { if (cursor) cursor.count += got.count; else cursor = got }
        return
      }
      const it = m.get(slot)
      if (!cursor) {
        if (!it) return
        const n = button === 0 ? it.count : Math.ceil(it.count / 2)
        cursor = clone(it, n); it.count -= n; m.set(slot, it)
      } else if (!it) {
        if (!mayPlace(m, slot, cursor)) return
        const n = button === 0 ? Math.min(cursor.count, maxFor(m, slot, cursor)) : 1
        m.set(slot, clone(cursor, n)); cursor.count -= n
      } else if (sameKind(it, cursor) && mayPlace(m, slot, cursor)) {
        const n = Math.min(maxFor(m, slot, it) - it.count, button === 0 ? cursor.count : 1)
        if (n > 0) { it.count += n; cursor.count -= n; m.set(slot, it) }
      } else if (sameKind(it, cursor)) { // a take-only slot (furnace output) tops up the carried stack
        const n = Math.min(it.count, maxStack(cursor) - cursor.count)
        if (n > 0) { cursor.count += n; it.count -= n; m.set(slot, it) }
      } else if (mayPlace(m, slot, cursor) && cursor.count <= maxFor(m, slot, cursor)) {
        m.set(slot, cursor); cursor = it
      }
    } else if (mode === 1) {
      if (!inRange) return
      const it = m.get(slot)
      if (!it) return
      const ranges = m.quickMoveTargets(slot, it)
      if (slot === m.result) { // craft as many as fit
        for (let k = 0; k < 64; k++) {
          const r = m.get(m.result)
          if (!r || roomFor(m, r, ranges) < r.count) break
          const got = craftTake(m)
          if (!got) break
          for (const [s, e, rev] of ranges) moveTo(m, got, s, e, rev)
        }
        return
      }
      for (const [s, e, rev] of ranges) moveTo(m, it, s, e, rev)
      m.set(slot, it)
    } else if (mode === 2) {
      if (!inRange || cursor) return
      const hb = button === 40 ? null : m.hotbar(button)
      const getH = () => (hb === null ? inv.slots[45] ?? null : m.get(hb))
      const setH = (v) => { if (hb === null) invMenu.set(45, v); else m.set(hb, v) }
      const it = m.get(slot)
      const h = getH()
      if (slot === m.result) {
        if (!h && it) setH(craftTake(m))
        return
      }
      if (h && !mayPlace(m, slot, h)) return
      m.set(slot, h); setH(it)
    } else if (mode === 3) {
      const it = inRange ? m.get(slot) : null
      if (player.gameMode === 1 && !cursor && it) cursor = clone(it, maxStack(it))
    } else if (mode === 4) {
      if (!inRange || cursor) return
      if (slot === m.result) { throwItem(craftTake(m)); return }
      const it = m.get(slot)
      if (!it) return
      const n = button === 0 ? 1 : it.count
      throwItem(clone(it, n)); it.count -= n; m.set(slot, it)
    } else if (mode === 5) {
      const phase = button & 3
      if (slot === -999 && phase === 0) { drag = cursor ? { right: button === 4, slots: [] } : null; return }
      if (phase === 1 && drag && inRange && slot !== m.result) { if (!drag.slots.includes(slot)) drag.slots.push(slot); return }
      if (phase === 2 && drag && cursor && drag.slots.length) {
        const per = drag.right ? 1 : Math.max(1, Math.floor(cursor.count / drag.slots.length))
        for (const s of drag.slots) {
          if (!cursor || !mayPlace(m, s, cursor)) continue
          const cur = m.get(s)
          if (cur && !sameKind(cur, cursor)) continue
          const n = Math.min(per, cursor.count, maxFor(m, s, cursor) - (cur ? cur.count : 0))
          if (n <= 0) continue
          m.set(s, clone(cursor, (cur ? cur.count : 0) + n)); cursor.count -= n
          if (cursor.count <= 0) cursor = null
        }
      }
      drag = null
    } else if (mode === 6) {
      if (!cursor) return
      for (let i = 0; i < m.size && cursor.count < maxStack(cursor); i++) {
        const it = m.get(i)
        if (i === m.result || !sameKind(it, cursor)) continue
        const n = Math.min(it.count, maxStack(cursor) - cursor.count)
        cursor.count += n; it.count -= n; m.set(i, it)
      }
    }
    if (cursor && cursor.count <= 0) cursor = null
  }

  // --- packets ---------------------------------------------------------------------------------
  const sendSlot = (m, i) => {
    if (m.remote && i < m.remote.length) m.remote[i] = snap(m.get(i))
    player._client.write('set_slot', { windowId: m.id, stateId: nextState(), slot: i, item: Item.toNotch(m.get(i)) })
  }
  const sendCursor = () => player._client.write('set_slot', { windowId: -1, stateId: nextState(), slot: -1, item: Item.toNotch(cursor) })
  const sendAll = (m) => {
    const items = []
    for (let i = 0; i < m.size; i++) items.push(Item.toNotch(m.get(i)))
    if (m.remote) for (let i = 0; i < m.remote.length; i++) m.remote[i] = snap(m.get(i))
    player._client.write('window_items', { windowId: m.id, stateId: nextState(), items, carriedItem: Item.toNotch(cursor) })
  }
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
      if (!same(Item.fromNotch(packet.cursorItem), cursor)) sendCursor()
      if (sendResult) sendSlot(m, m.result)
      // the client now holds the truth for every slot, whether sent or already believed
      if (m.remote) for (let i = 0; i < m.remote.length; i++) m.remote[i] = snap(m.get(i))
      syncEquipment()
    } catch (err) {
      serv.err(`window_click: ${err.stack}`)
    }
  })

  // Closing returns the crafting grid and the carried item to the inventory (vanilla 1.17+).
  function closeMenu (m) {
    const back = m.grid.map(i => m.get(i)).filter(Boolean)
    if (cursor) back.push(cursor)
    cursor = null
    for (const i of m.grid) m.set(i, null)
    if (m.result !== null) m.set(m.result, null)
    m.onClose?.()
    if (m === invMenu) for (const i of [0, 1, 2, 3, 4]) sendSlot(m, i)
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
