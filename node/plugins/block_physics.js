// Blocks that move on their own, as vanilla's do, counted in game ticks:
// - sand, gravel and the other falling blocks with nothing under them (air, a plant, a fluid)
//   fall 2 ticks after they lose their support (vanilla's delay), to the first block that holds
//   them. They land at once instead of falling as an entity; a column falls block by block.
// - water and lava run into a cell a neighbour opens: down without end, sideways from where
//   they rest on something, 7 cells from a source for water and 3 for lava (vanilla's overworld
//   spread; 7 and every 10 ticks for lava in the nether), one cell every 5 ticks for water and 30
//   for lava. Where they meet, the lava sets:
//   a lava source to obsidian, flowing lava to cobblestone.
// - a flowing cell next to a change is worked out again from its neighbours after its fluid's
//   delay, as vanilla works out a flowing cell: falling under the same fluid, else a step weaker
//   than its strongest side, else air. So a flow whose source is taken (a bucket of
//   plugins/buckets.js, a block put there) recedes a level a delay from the source out, and is
//   gone once nothing feeds it; it only ever touches cells the flow is in.
// - water between two water sources, over something solid or a source, is a source (vanilla's
//   infinite water; never lava, as vanilla's rules by default).
// Nothing flows or drains until a block next to a fluid changes: the world's chunks keep the
// fluids where they were made.
'use strict'

const { Vec3 } = require('vec3')
const { stateId, stateProps } = require('./_common')

const FALL_DELAY = 2
const FLUIDS = {
  water: { delay: 5, step: 1, reach: 7, infinite: true },
  lava: { delay: 30, step: 2, reach: 6 } // lava's levels go 2, 4, 6 in the overworld: 3 cells
}
const NETHER_LAVA = { delay: 10, step: 1, reach: 7 }
const FALLING_LEVEL = 8 // a fluid that fell into a cell, as vanilla marks it
const SIDES = [new Vec3(1, 0, 0), new Vec3(-1, 0, 0), new Vec3(0, 0, 1), new Vec3(0, 0, -1)]
const DOWN = new Vec3(0, -1, 0)
const UP = new Vec3(0, 1, 0)
const ZERO = new Vec3(0, 0, 0)
// What a fluid or a falling block takes the place of: air and the plants of the ground.
const GIVES_WAY = ['air', 'cave_air', 'void_air', 'short_grass', 'grass', 'tall_grass', 'fern', 'dead_bush', 'dandelion',
  'poppy', 'oxeye_daisy', 'azure_bluet', 'cornflower', 'blue_orchid', 'snow']
const FALLS = ['sand', 'red_sand', 'gravel', 'suspicious_sand', 'suspicious_gravel', 'anvil', 'chipped_anvil', 'damaged_anvil']

module.exports.server = function (serv) {
  const { registry } = serv
  const byName = (names) => new Set(names.map((n) => registry.blocksByName[n]?.id).filter((id) => id !== undefined))
  const givesWay = byName(GIVES_WAY)
  const falls = byName([...FALLS, ...Object.keys(registry.blocksByName).filter((n) => n.endsWith('_concrete_powder'))])
  const fluidOf = {} // block id -> fluid name
  for (const name of Object.keys(FLUIDS)) if (registry.blocksByName[name]) fluidOf[registry.blocksByName[name].id] = name
  const obsidian = stateId(registry, 'obsidian')
  const cobblestone = stateId(registry, 'cobblestone')

  // Jobs by the tick they run at, one per kind and cell: two neighbours that open the same cell
  // in one tick schedule it once (serv.setBlock lands a few promise turns later, so every job of
  // a tick reads the world as the tick found it).
  const due = new Map() // tick -> Map(key -> job)
  let now = 0
  function later (ticks, kind, p, job) {
    const at = now + ticks
    if (!due.has(at)) due.set(at, new Map())
    const key = `${kind} ${p.x} ${p.y} ${p.z}`
    if (!due.get(at).has(key)) due.get(at).set(key, job)
  }
  const put = (world, p, id) => serv.setBlock(world, p, id).catch((err) => serv.err(`block physics at ${p}: ${err.message}`))
  serv.on('tick', (delta, count) => {
    now = count
    const jobs = due.get(count)
    if (!jobs) return
    due.delete(count)
    for (const job of jobs.values()) {
      try { job() } catch (err) { serv.err(`block physics: ${err.stack}`) }
    }
  })

  // A cell of a chunk not in memory reads as air: nothing moves into or out of one (a flow at
  // the edge of the loaded land would otherwise load chunks and write over their blocks).
  const loaded = (world, p) => !!world.getLoadedColumnAt(p)
  const blockId = (world, p) => loaded(world, p) ? registry.blocksByStateId[world.sync.getBlockStateId(p) || 0]?.id : undefined
  const opens = (world, p) => givesWay.has(blockId(world, p))
  // { fluid, level } of a cell, or null
  function fluidAt (world, p) {
    if (!loaded(world, p)) return null
    const id = world.sync.getBlockStateId(p) || 0
    const fluid = fluidOf[registry.blocksByStateId[id]?.id]
    return fluid ? { fluid, level: Number(stateProps(registry, id).level || 0) } : null
  }
  const inWorld = (p) => p.y >= -64 && p.y < 320
  const solid = (world, p) => loaded(world, p) && registry.blocksByStateId[world.sync.getBlockStateId(p) || 0]?.boundingBox === 'block'
  const rules = (world, fluid) => fluid === 'lava' && world === serv.netherworld ? NETHER_LAVA : FLUIDS[fluid]

  // A falling block at p, if it has nothing under it, lands on the first thing that holds it.
  function fall (world, p) {
    const id = world.sync.getBlockStateId(p) || 0
    if (!falls.has(registry.blocksByStateId[id]?.id)) return
    const to = p.clone()
    while (inWorld(to.plus(DOWN)) && (opens(world, to.plus(DOWN)) || fluidAt(world, to.plus(DOWN)))) to.y--
    if (to.y === p.y) return
    put(world, p, 0)
    put(world, to, id)
  }

  // What fluid comes into the open cell p: a water source between two, one falling from above,
  // or one spreading from a side where it rests on something, a level further than the nearest.
  function inflow (world, p) {
    if (becomesSource(world, p, 'water')) return { fluid: 'water', level: 0 }
    const above = fluidAt(world, p.plus(UP))
    if (above) return { fluid: above.fluid, level: FALLING_LEVEL }
    let best = null
    for (const s of SIDES) {
      const n = p.plus(s)
      const f = fluidAt(world, n)
      if (!f || !restsOnSomething(world, n)) continue
      const spread = rules(world, f.fluid)
      const from = f.level >= FALLING_LEVEL ? 0 : f.level
      const level = from + spread.step
      if (level > spread.reach) continue
      if (!best || level < best.level || (level === best.level && f.fluid === 'water')) best = { fluid: f.fluid, level }
    }
    return best
  }
  // Vanilla's infinite water: two source sides and a solid block or a source under the cell.
  function becomesSource (world, p, fluid) {
    if (!rules(world, fluid).infinite) return false
    if (SIDES.filter((s) => { const f = fluidAt(world, p.plus(s)); return f?.fluid === fluid && f.level === 0 }).length < 2) return false
    const below = fluidAt(world, p.plus(DOWN))
    return below ? below.fluid === fluid && below.level === 0 : solid(world, p.plus(DOWN))
  }

  // The level a cell of a fluid has from its neighbours, as vanilla works it out: a source by the
  // rule above, falling under the same fluid, else a step weaker than its strongest side of that
  // fluid (resting or not: a flow past a hole keeps its far side), else null: nothing feeds it.
  function fedLevel (world, p, fluid) {
    if (becomesSource(world, p, fluid)) return 0
    if (fluidAt(world, p.plus(UP))?.fluid === fluid) return FALLING_LEVEL
    const spread = rules(world, fluid)
    let from = Infinity
    for (const s of SIDES) {
      const f = fluidAt(world, p.plus(s))
      if (f?.fluid === fluid) from = Math.min(from, f.level >= FALLING_LEVEL ? 0 : f.level)
    }
    return from + spread.step <= spread.reach ? from + spread.step : null
  }

  // A flowing cell takes the level its neighbours give it, or turns to air. Its change reaches
  // its neighbours through onChange, a fluid's delay later: that is a drain's pace, and it goes
  // no further than the cells the fluid is in.
  function settle (world, p) {
    const f = fluidAt(world, p)
    if (!f || f.level === 0) return // a source stays till something takes it
    const level = fedLevel(world, p, f.fluid)
    if (level !== f.level) put(world, p, level === null ? 0 : stateId(registry, f.fluid, { level: String(level) }))
  }

  // A fluid spreads sideways where it cannot go down.
  function restsOnSomething (world, p) {
    const below = p.plus(DOWN)
    if (!inWorld(below)) return true
    return !opens(world, below) && !(fluidAt(world, below)?.level > 0)
  }

  function flow (world, p) {
    if (!opens(world, p)) return
    const next = inflow(world, p)
    if (!next) return
    if (next.fluid === 'lava' && SIDES.concat([UP, DOWN]).some((s) => fluidAt(world, p.plus(s))?.fluid === 'water')) {
      put(world, p, cobblestone) // lava running into water sets
      return
    }
    put(world, p, stateId(registry, next.fluid, { level: String(next.level) }))
    if (next.fluid === 'water') {
      for (const s of SIDES.concat([UP, DOWN])) {
        const lava = fluidAt(world, p.plus(s))
        if (lava?.fluid === 'lava') put(world, p.plus(s), lava.level === 0 ? obsidian : cobblestone)
      }
    }
  }

  // Whatever a change at p lets move: the block above may fall, a fluid beside may run in, and
  // a fluid placed at p runs on into the open cells around it.
  function onChange (world, p) {
    if (opens(world, p) || fluidAt(world, p)) {
      const up = p.plus(UP)
      if (inWorld(up) && falls.has(blockId(world, up))) later(FALL_DELAY, 'fall', up, () => fall(world, up))
    }
    if (falls.has(blockId(world, p))) later(FALL_DELAY, 'fall', p, () => fall(world, p))
    if (opens(world, p)) {
      const near = [UP, ...SIDES].map((s) => fluidAt(world, p.plus(s))).filter(Boolean)
      if (near.length) later(Math.min(...near.map((f) => rules(world, f.fluid).delay)), 'flow', p, () => flow(world, p))
    }
    const f = fluidAt(world, p)
    if (f) {
      for (const s of [DOWN, ...SIDES]) {
        const n = p.plus(s)
        if (inWorld(n) && opens(world, n)) later(rules(world, f.fluid).delay, 'flow', n, () => flow(world, n))
      }
    }
    // Every flowing cell p's change can feed or starve (below and beside it, p itself) or make a
    // source (above it) is worked out again, as vanilla's neighbour updates do.
    for (const s of [ZERO, UP, DOWN, ...SIDES]) {
      const n = p.plus(s)
      const g = inWorld(n) && fluidAt(world, n)
      if (g && g.level > 0) later(rules(world, g.fluid).delay, 'settle', n, () => settle(world, n))
    }
  }

  serv.on('ready', () => {
    for (const world of [serv.overworld, serv.netherworld]) {
      world?.on('blockUpdate', (oldBlock, newBlock) => {
        if (!newBlock?.position || oldBlock?.stateId === newBlock.stateId) return // nothing changed
        try { onChange(world, newBlock.position.floored()) } catch (err) { serv.err(`block physics: ${err.stack}`) }
      })
    }
  })
}
