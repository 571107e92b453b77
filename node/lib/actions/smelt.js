'use strict'
// Smelt in a placed furnace through mineflayer's own furnace API (bot.openFurnace): take out
// what is done, load the input and the fuel, wait for the outputs and take them.
// args: { x, y, z, output, inputs: [names], anyLog?, want, fuels: [{ name, count, ticks }],
//         cookTicks?, stallMs? }
//   want:   outputs to take out of the furnace in this call (ones already in its output slot count)
//   inputs: the names that smelt into `output` (anyLog: any log that burns does too)
//   fuels:  what Python chose to burn, best first, at most `count` of each; this call burns
//           only as many as the furnace still needs (its burn time left and fuel slot counted)
// Everything is checked before anything is put in: a short input or fuel is a result
// ({ status: 'nothing_to_smelt' | 'short_input' | 'short_fuel' }), not an error.
// Stopped while it cooks (cancel, timeout): what is not smelted yet, the fuel in its slot and
// the outputs come back to the inventory before the window closes (takeBack). Left in the
// furnace they were lost to the bot: a bench bot stopped at dusk came back in the morning to a
// plan with no raw iron held, put down a new furnace and mined its iron again. What a furnace
// still holds from before (an output, our input) the next call takes out and counts. The stop
// is reported at once and whoever takes the body equips at once, which would close the window
// mid-take: the hands wait for the take-back first (lib/hands.js handedBack).
const { Vec3 } = require('vec3')
const { withTimeout } = require('../guard')
const { itemName } = require('../names')

const POLL_MS = 200
const TAKE_BACK_MS = 1000
const PROPS_WAIT_MS = 1500

// Burn ticks of a fuel already in the slot (the same small table as agency.game.furnace).
function slotFuelTicks (name) {
  if (name === 'coal' || name === 'charcoal') return 1600
  if (/(_planks|_log|_wood)$/.test(name) && !/crimson|warped/.test(name)) return 300
  if (name === 'stick') return 100
  return 0
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

// While a furnace window is open the inventory is its lower part (bot.inventory catches up on close).
function count (win, name) {
  return win.items().filter((i) => i.name === name).reduce((n, i) => n + Number(i.count), 0)
}

// bot.inventory (what snapshots read) catches up with an open window only when it closes: mirror
// the window's lower part after each take, so outputs show up as they come. Copies, because
// the window's own items keep their window slot numbers.
function mirrorInventory (bot, win) {
  if (bot.currentWindow !== win) return // closed meanwhile (a take in flight): its view is stale
  const off = win.inventoryStart - bot.inventory.inventoryStart
  for (let i = win.inventoryStart; i < win.inventoryEnd; i++) {
    const it = win.slots[i]
    const copy = it ? Object.assign(Object.create(Object.getPrototypeOf(it)), it, { slot: i - off }) : null
    const cur = bot.inventory.slots[i - off]
    if ((cur ? `${cur.type}x${cur.count}` : '') !== (copy ? `${copy.type}x${copy.count}` : '')) bot.inventory.updateSlot(i - off, copy)
  }
}

async function run (bot, args, rec) {
  const pos = new Vec3(args.x, args.y, args.z)
  const block = bot.blockAt(pos)
  if (!block || !/furnace$/.test(block.name) || /blast|smoker/.test(block.name)) {
    throw new Error(`no furnace at ${pos.x},${pos.y},${pos.z} (found ${block ? block.name : 'an unloaded block'})`)
  }
  const reg = bot.registry
  const output = itemName(reg, args.output) || args.output
  const inputs = new Set((args.inputs || []).map((n) => itemName(reg, n) || n))
  const isOurs = (name) => inputs.has(name) || (args.anyLog && /(_log|_wood)$/.test(name) && !/crimson|warped/.test(name))
  const want = Math.max(1, args.want || 1)
  const cookTicks = args.cookTicks || 200
  const stallMs = args.stallMs || 20000
  const idOf = (name) => reg.itemsByName[name].id

  if (bot.currentWindow) bot.closeWindow(bot.currentWindow)
  // The window properties (burn time left, cook progress) as the server sends them; mineflayer's
  // furnace.fuel is a ratio that misses a burn time sent before its total.
  const early = {} // by window id, before openFurnace resolves
  let props = {}
  let windowId = null
  const onProp = (packet) => {
    if (windowId === null) (early[packet.windowId] = early[packet.windowId] || {})[packet.property] = packet.value
    else if (packet.windowId === windowId) props[packet.property] = packet.value
  }
  bot._client.on('craft_progress_bar', onProp)
  let furnace = null
  try {
    furnace = await withTimeout(bot.openFurnace(block), 5000, 'opening the furnace')
    rec.furnace = furnace
    props = early[furnace.id] || {}
    windowId = furnace.id
    if (rec.cancelled) return null
    const t0 = Date.now()
    while (props[3] === undefined && Date.now() - t0 < PROPS_WAIT_MS) await sleep(50)

    let gained = 0
    const cleared = []
    // Empties the output slot; returns how many of the wanted output it took (others are cleared).
    const takeOutput = async () => {
      const out = furnace.outputItem()
      if (!out) return 0
      const n = Number(out.count)
      await furnace.takeOutput()
      if (out.name !== output) cleared.push({ name: out.name, count: n })
      mirrorInventory(bot, furnace)
      return out.name === output ? n : 0
    }
    gained += await takeOutput() // done while nobody looked (a stopped call's work), or something else
    let slotIn = furnace.inputItem()
    if (slotIn && !isOurs(slotIn.name)) {
      cleared.push({ name: slotIn.name, count: Number(slotIn.count) })
      await furnace.takeInput()
      slotIn = null
    }
    const remaining = want - gained
    let kind = slotIn ? slotIn.name : null
    let loaded = slotIn ? Number(slotIn.count) : 0
    let extra = Math.max(0, remaining - loaded)
    if (extra > 0 && kind && count(furnace, kind) < extra) { // another kind held: start that one afresh
      await furnace.takeInput()
      kind = null
      loaded = 0
      extra = remaining
    }
    if (extra > 0 && !kind) {
      const held = new Map()
      for (const it of furnace.items()) if (isOurs(it.name)) held.set(it.name, (held.get(it.name) || 0) + Number(it.count))
      const best = [...held.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]
      if (!best && gained === 0) return finish(bot, furnace, { status: 'nothing_to_smelt', output, want })
      if (!best || best[1] < extra) {
        return finish(bot, furnace, { status: 'short_input', output, want, gained, have: best ? best[1] : 0, input: best ? best[0] : null })
      }
      kind = best[0]
    }

    // Fuel: what the cooking still needs, less the burn time left and the fuel slot.
    const toCook = Math.max(0, remaining)
    const slotFuel = furnace.fuelItem()
    let needTicks = toCook * cookTicks - (props[0] || 0) - (slotFuel ? slotFuelTicks(slotFuel.name) * Number(slotFuel.count) : 0)
    const queue = []
    for (const f of args.fuels || []) {
      if (needTicks <= 0) break
      const name = itemName(reg, f.name) || f.name
      const use = Math.min(f.count, count(furnace, name) - (name === kind ? extra : 0), Math.ceil(needTicks / f.ticks))
      if (use <= 0) continue
      queue.push({ name, count: use })
      needTicks -= use * f.ticks
    }
    if (needTicks > 0) {
      return finish(bot, furnace, { status: 'short_fuel', output, want, gained, missingTicks: needTicks })
    }

    if (extra > 0) await furnace.putInput(idOf(kind), null, extra)
    const burnt = []
    const feed = async () => {
      if (!queue.length) return
      const slot = furnace.fuelItem()
      if (slot && slot.name !== queue[0].name) return // another fuel burns first
      const f = queue.shift()
      await furnace.putFuel(idOf(f.name), null, f.count)
      burnt.push(f)
    }
    await feed()
    mirrorInventory(bot, furnace)

    // Best effort, each take bounded: what stays in the furnace smelts on for the next call.
    // The stop is reported at once, so whoever took the body may close the window meanwhile (a
    // reflex's equip does): then the slot numbers are the inventory's and nothing is taken or
    // mirrored, or the clicks would move the bot's own items and the stale view overwrite them.
    const open = () => bot.currentWindow === furnace
    const takeBack = async () => {
      const takes = [
        [() => furnace.outputItem(), () => furnace.takeOutput()],
        [() => { const i = furnace.inputItem(); return i && isOurs(i.name) }, () => furnace.takeInput()],
        [() => furnace.fuelItem(), () => furnace.takeFuel()]
      ]
      for (const [has, take] of takes) {
        if (!open()) return
        try { if (has()) await withTimeout(take(), TAKE_BACK_MS, 'taking back from the furnace') } catch (e) { /* stays in */ }
      }
      mirrorInventory(bot, furnace)
    }
    let lastMove = Date.now()
    let lastProgress = props[2]
    rec.cooking = true // a stop now leaves the window to this loop: it takes back, then closes
    // until then another's equip or toss waits for it (lib/hands.js handedBack)
    rec.handedBack = new Promise((resolve) => { rec.handBack = resolve })
    while (gained < want) {
      await sleep(POLL_MS)
      if (rec.cancelled) { await takeBack(); return null }
      if (!open()) throw new Error(`the furnace window closed while it cooked: ${gained} of ${want} ${output} taken`)
      const before = gained
      gained += await takeOutput()
      if (queue.length) { await feed(); mirrorInventory(bot, furnace) }
      if (gained > before || props[2] !== lastProgress) lastMove = Date.now()
      lastProgress = props[2]
      if (Date.now() - lastMove > stallMs) {
        const inp = furnace.inputItem()
        const fuel = furnace.fuelItem()
        throw new Error(`the furnace made no progress for ${stallMs / 1000} s: ${gained} of ${want} ${output} taken ` +
          `(input ${inp ? `${inp.count} ${inp.name}` : 'empty'}, fuel ${fuel ? `${fuel.count} ${fuel.name}` : 'empty'}, ` +
          `burning ${(props[0] || 0) > 0})`)
      }
    }
    return finish(bot, furnace, {
      status: 'done', output, want, gained, input: kind, loaded, put: extra, fuel: burnt, cleared, furnace: { x: pos.x, y: pos.y, z: pos.z }
    })
  } finally {
    bot._client.removeListener('craft_progress_bar', onProp)
    if (rec.cancelled && furnace && bot.currentWindow === furnace) bot.closeWindow(furnace)
    rec.cooking = false
    if (rec.handBack) rec.handBack()
    if (bot.mcbotHandBack === rec.handedBack) bot.mcbotHandBack = null
  }
}

function finish (bot, furnace, result) {
  if (bot.currentWindow === furnace) bot.closeWindow(furnace)
  return result
}

// Before the cooking, closing the window ends the wait; while it cooks, the loop sees the stop
// within POLL_MS, takes back and closes (run's finally), and the hands wait for that.
function stop (bot, rec) {
  if (rec && rec.cooking) {
    bot.mcbotHandBack = rec.handedBack
    return
  }
  if (rec && rec.furnace && bot.currentWindow === rec.furnace) bot.closeWindow(rec.furnace)
}

module.exports = { run, stop, defaultTimeoutMs: 60000 }
