// The menus windows.js serves (the leading underscore keeps it off the plugin list): the player
// inventory (2x2 crafting, armor), the crafting table and the furnace (slots 0 input, 1 fuel,
// 2 output over a container furnace.js owns and smelts). Each maps its slots onto its own items
// and the player's inventory, and says where a quick move (shift-click) sends a slot and what a
// slot takes.
'use strict'

// stacks: _stacks.js's helpers; openMenu() is the player's open menu, sendSlot(m, i) sends slot i
// of menu m (windows.js).
function makeMenus (player, registry, { maxStack, same }, { openMenu, sendSlot }) {
  const inv = player.inventory

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
        if (openMenu() !== m) { box.viewers.delete(m); return }
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
      close () { if (openMenu() === m) player.mcbotCloseWindow(); else box.viewers.delete(m) }
    }
    return m
  }

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

  return { invMenu, tableMenu, furnaceMenu, mayPlace, maxFor }
}

module.exports = { makeMenus }
