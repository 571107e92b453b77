// The click engine of windows.js's menus (the leading underscore keeps it off the plugin list):
// vanilla's clicks by mode (0 pick up or place, 1 quick move, 2 hotbar swap, 3 creative clone,
// 4 throw, 5 drag, 6 collect), the carried item (the cursor) and taking a crafted result.
'use strict'

const { dropItem, Vec3 } = require('./_common')

// stacks: _stacks.js's helpers; menus: _menus.js's.
function makeClicks (serv, player, { maxStack, clone, sameKind }, { invMenu, mayPlace, maxFor }) {
  const inv = player.inventory
  let cursor = null

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
    // 40 ticks before anyone may take it, as vanilla's player throws: with the 10 of a block's
    // drop, a stack thrown against a wall fell back within reach and its thrower took it again
    // before its next click (a craft after a full inventory's toss came to nothing:
    // node/test/crafting.test.js)
    dropItem(serv, player.world, player.position.offset(0, 1.3, 0), it.type, it.count, v, 40)
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

  return {
    click,
    updateResult,
    throwItem,
    get cursor () { return cursor },
    set cursor (it) { cursor = it }
  }
}

module.exports = { makeClicks }
