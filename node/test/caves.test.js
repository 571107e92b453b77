// The "caves" terrain (plugins/underground.js) in a running world: the bot stands on the ground,
// and under it lie vanilla's layers, caves, lava and ores, which it can dig. Then its carvers, on
// chunks made straight from the generator: cave mouths, a ravine, and chunks made in any order.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { Vec3 } = require('vec3')
const { startServer, connectBot, waitFor, command, sprintTicks, oneVersion, VERSION } = require('./helpers')
const generation = require('../plugins/terrain')
const { makeSurface } = require('../plugins/surface')

test('a caves world: the bot spawns on grass over stone, deepslate, caves, lava, ores and bedrock, and digs deepslate', { timeout: 180000 }, async () => {
  const s = await startServer({ terrain: 'caves', seed: 5, hostiles: false, animals: false })
  const bot = await connectBot(s.port, 'caver')
  try {
    await waitFor(() => bot.entity.onGround, 10000, 'standing')
    const feet = bot.entity.position.floored()
    assert.strictEqual(bot.blockAt(feet.offset(0, -1, 0)).name, 'grass_block', 'spawned on the ground, not in a hole')
    await bot.waitForChunksToLoad()
    const seen = {}
    const c = bot.entity.position.floored()
    for (let x = c.x - 24; x <= c.x + 24; x += 2) {
      for (let z = c.z - 24; z <= c.z + 24; z += 2) {
        for (let y = -64; y < 40; y++) {
          const b = bot.blockAt(new Vec3(x, y, z))
          if (b) seen[b.name] = (seen[b.name] || 0) + 1
        }
      }
    }
    for (const name of ['bedrock', 'deepslate', 'stone', 'cave_air', 'lava']) assert.ok(seen[name] > 0, `${name} under the ground (${JSON.stringify(seen)})`)
    const ores = Object.keys(seen).filter((n) => n.endsWith('_ore'))
    assert.ok(ores.some((n) => n.startsWith('deepslate_')) && ores.length >= 5, `ores: ${ores.join(', ')}`)
    assert.strictEqual(bot.blockAt(new Vec3(c.x, -64, c.z)).name, 'bedrock')

    // dig a deepslate block from a pit in the rock at y -20 (with an iron pickaxe: cobbled deepslate drops)
    await command(bot, `/mcbot fill ${c.x - 1} -21 ${c.z - 1} ${c.x + 1} -18 ${c.z + 1} deepslate`)
    await command(bot, `/mcbot fill ${c.x} -20 ${c.z} ${c.x} -19 ${c.z} air`)
    await command(bot, `/mcbot tp caver ${c.x + 0.5} -20 ${c.z + 0.5}`, { match: /teleported caver/ })
    await waitFor(() => bot.entity.position.y < -19 && bot.entity.onGround, 10000, 'in the pit')
    await command(bot, '/give caver iron_pickaxe 1', { match: /gave 1 iron_pickaxe/ })
    await waitFor(() => bot.inventory.items().some((i) => i.name === 'iron_pickaxe'), 5000, 'pickaxe')
    await bot.equip(bot.registry.itemsByName.iron_pickaxe.id, 'hand')
    const below = bot.blockAt(new Vec3(c.x, -21, c.z))
    assert.strictEqual(below.name, 'deepslate')
    await bot.dig(below)
    await waitFor(() => bot.inventory.items().some((i) => i.name === 'cobbled_deepslate'), 10000, 'cobbled deepslate picked up')
  } finally {
    bot.quit()
    await s.stop()
  }
})

test('in a caves world monsters spawn under the ground by day, in the dark with no sky above', { timeout: 240000, ...oneVersion('where monsters spawn is the server\'s rule, not the protocol') }, async () => {
  const s = await startServer({ terrain: 'caves', seed: 6, hostiles: ['zombie'], animals: false })
  const bot = await connectBot(s.port, 'delver')
  try {
    await waitFor(() => bot.entity.onGround, 10000, 'standing')
    const c = bot.entity.position.floored()
    // a stone pocket at y -20 to stand in, among the caves
    await command(bot, `/mcbot fill ${c.x - 1} -22 ${c.z - 1} ${c.x + 1} -18 ${c.z + 1} stone`)
    await command(bot, `/mcbot fill ${c.x} -21 ${c.z} ${c.x} -20 ${c.z} air`)
    await command(bot, `/mcbot tp delver ${c.x + 0.5} -21 ${c.z + 0.5}`, { match: /teleported delver/ })
    await waitFor(() => bot.entity.position.y < -20 && bot.entity.onGround, 10000, 'in the pocket')
    await command(bot, '/mcbot time 1000')
    await command(bot, '/mcbot tick freeze')
    let zombies = []
    for (let round = 0; round < 20 && !zombies.length; round++) {
      await sprintTicks(bot, 200) // at most 4000 ticks: still day (sunset is 12000)
      const info = JSON.parse((await command(bot, '/mcbot info')).slice('mcbot: '.length))
      assert.ok(info.time % 24000 < 12000, `still day (${info.time})`)
      zombies = info.mobList.filter((m) => m.name === 'zombie')
    }
    await command(bot, '/mcbot tick unfreeze')
    assert.ok(zombies.length > 0, 'a zombie spawned under the ground by day')
    for (const z of zombies) assert.ok(z.pos[1] < 50, `underground, not on the surface (y ${z.pos[1]})`)
  } finally {
    bot.quit()
    await s.stop()
  }
})

// --- the carvers (plugins/_carvers.js makeCarvers, exported by underground.js), on chunks made by the generator ---------

const CAVES = { terrain: 'caves', treeDensity: 0.015 }
const generator = (seed) => generation({ registry: require('prismarine-registry')(VERSION), seed, mcbot: CAVES })
const AIR = new Set(['air', 'cave_air'])

test('carved caves open to the sky near the spawn', { timeout: 120000 }, () => {
  const seed = 5
  const make = generator(seed)
  const surface = makeSurface(seed, CAVES.treeDensity)
  const spawn = generation.spawnColumn(seed, CAVES)
  const p = new Vec3(0, 0, 0)
  let mouths = 0
  let land = 0
  for (let cx = (spawn.x >> 4) - 2; cx <= (spawn.x >> 4) + 2; cx++) {
    for (let cz = (spawn.z >> 4) - 2; cz <= (spawn.z >> 4) + 2; cz++) {
      const chunk = make(cx, cz)
      for (p.x = 0; p.x < 16; p.x++) {
        for (p.z = 0; p.z < 16; p.z++) {
          const c = surface.column(cx * 16 + p.x, cz * 16 + p.z)
          if (c.water) continue
          land++
          // the noise caves stay 6 blocks under the ground: air at the ground's own height, over
          // a hole at least 3 deep, is a carver's mouth
          let hole = 0
          for (p.y = c.h; p.y > c.h - 3 && AIR.has(chunk.getBlock(p).name); p.y--) hole++
          if (hole === 3) mouths++
        }
      }
    }
  }
  assert.ok(land > 1000, `land around the spawn (${land} columns)`)
  assert.ok(mouths > 0, `a carved cave opens at the surface within 2 chunks of the spawn at ${spawn.x} ${spawn.z}`)
})

// Seed 3: carvers pass under the sea's edge in chunks -4..-3, -2..-1 (without the water rule,
// carved air touches the water there some 200 times).
test('no sea, lake or river drains into a carved hole: nothing is carved beside or under the water', { timeout: 120000 }, () => {
  const seed = 3
  const make = generator(seed)
  const surface = makeSurface(seed, CAVES.treeDensity)
  const p = new Vec3(0, 0, 0)
  let water = 0
  const touching = []
  for (let cx = -4; cx <= -3; cx++) {
    for (let cz = -2; cz <= -1; cz++) {
      const chunk = make(cx, cz)
      for (let x = 0; x < 16; x++) {
        for (let z = 0; z < 16; z++) {
          const c = surface.column(cx * 16 + x, cz * 16 + z)
          if (!c.water) continue
          for (let y = c.h + 1; y <= 62; y++) {
            water++
            for (const [dx, dy, dz] of [[1, 0, 0], [-1, 0, 0], [0, 0, 1], [0, 0, -1], [0, -1, 0]]) {
              p.x = x + dx; p.y = y + dy; p.z = z + dz
              if (p.x < 0 || p.x > 15 || p.z < 0 || p.z > 15) continue
              if (AIR.has(chunk.getBlock(p).name)) touching.push(`${cx * 16 + p.x} ${p.y} ${cz * 16 + p.z}`)
            }
          }
        }
      }
    }
  }
  assert.ok(water > 1000, `water in these chunks (${water} cells)`)
  assert.deepStrictEqual(touching.slice(0, 10), [], 'air beside or under the water')
})

// Seed 17: its one ravine near 0, 0 starts in chunk 3, 3 and runs about 80 blocks, to x 32, z 125
// (found by tracing the canyon starts of seeds 1 to 60 within 4 chunks of 0, 0 and taking one on
// land that reaches the surface). The area below holds it whole; nothing else in it is a long
// line of tall air.
test('a ravine: about 80 blocks long, a few wide, 20 and more deep, open to the sky', { timeout: 120000 }, () => {
  const seed = 17
  const make = generator(seed)
  const surface = makeSurface(seed, CAVES.treeDensity)
  const p = new Vec3(0, 0, 0)
  const tall = new Map() // column -> its longest run of air from y 0 up to the ground, when 16+
  for (let cx = 0; cx <= 4; cx++) {
    for (let cz = 2; cz <= 8; cz++) {
      const chunk = make(cx, cz)
      for (p.x = 0; p.x < 16; p.x++) {
        for (p.z = 0; p.z < 16; p.z++) {
          const h = surface.column(cx * 16 + p.x, cz * 16 + p.z).h
          let run = 0
          let best = { run: 0, sky: false }
          for (p.y = 0; p.y <= h; p.y++) {
            run = AIR.has(chunk.getBlock(p).name) ? run + 1 : 0
            if (run > best.run) best = { run, sky: p.y === h }
          }
          if (best.run >= 16) tall.set(`${cx * 16 + p.x},${cz * 16 + p.z}`, best)
        }
      }
    }
  }
  // the tall columns' largest 4-connected group: its length (the farthest two apart), width
  // (columns per block of length) and depth
  const seen = new Set()
  let ravine = []
  for (const start of tall.keys()) {
    if (seen.has(start)) continue
    const group = []
    const todo = [start]
    seen.add(start)
    while (todo.length) {
      const k = todo.pop()
      group.push(k)
      const [x, z] = k.split(',').map(Number)
      for (const n of [`${x + 1},${z}`, `${x - 1},${z}`, `${x},${z + 1}`, `${x},${z - 1}`]) {
        if (tall.has(n) && !seen.has(n)) { seen.add(n); todo.push(n) }
      }
    }
    if (group.length > ravine.length) ravine = group
  }
  const at = ravine.map((k) => k.split(',').map(Number))
  let length = 0
  for (const a of at) for (const b of at) length = Math.max(length, Math.hypot(a[0] - b[0], a[1] - b[1]))
  const width = ravine.length / Math.max(1, length)
  const deepest = Math.max(0, ...ravine.map((k) => tall.get(k).run))
  const open = ravine.filter((k) => tall.get(k).sky).length
  const seenAs = `${ravine.length} columns, ${length.toFixed(0)} long, ${width.toFixed(1)} wide, ${deepest} deep, ${open} open`
  assert.ok(length >= 50 && length <= 120, `a ravine 50 to 120 blocks long (${seenAs})`)
  assert.ok(width >= 2 && width <= 10, `a few blocks wide (${seenAs})`)
  assert.ok(deepest >= 20 && deepest >= 2 * width, `deep: 20 blocks and more, at least twice its width (${seenAs})`)
  assert.ok(open > 0, `it opens at the surface (${seenAs})`)
})

test('a chunk crossed by a carver from another chunk is the same whether its neighbours are made first or not', { timeout: 120000 }, () => {
  // seed 17's ravine (above) starts in chunk 3, 3 and crosses chunk 3, 6
  const seed = 17
  const target = [3, 6]
  const neighbours = []
  for (let cx = 2; cx <= 4; cx++) for (let cz = 3; cz <= 7; cz++) if (cx !== target[0] || cz !== target[1]) neighbours.push([cx, cz])
  const first = generator(seed)
  const alone = first(...target) // made first, in a fresh world
  const afterTarget = first(3, 5)
  const second = generator(seed)
  const beforeTarget = second(3, 5)
  for (const [cx, cz] of neighbours) if (cx !== 3 || cz !== 5) second(cx, cz)
  const last = second(...target) // made after its neighbours and the ravine's start chunk

  const surface = makeSurface(seed, CAVES.treeDensity)
  const differ = (a, b) => {
    const p = new Vec3(0, 0, 0)
    let n = 0
    for (p.x = 0; p.x < 16; p.x++) for (p.z = 0; p.z < 16; p.z++) for (p.y = -64; p.y < 320; p.y++) if (a.getBlockStateId(p) !== b.getBlockStateId(p)) n++
    return n
  }
  let mouth = 0
  const p = new Vec3(0, 0, 0)
  for (p.x = 0; p.x < 16; p.x++) {
    for (p.z = 0; p.z < 16; p.z++) {
      p.y = surface.column(target[0] * 16 + p.x, target[1] * 16 + p.z).h
      if (AIR.has(last.getBlock(p).name)) mouth++
    }
  }
  assert.ok(mouth > 0, 'the ravine carves the chunk down from its ground')
  assert.strictEqual(differ(alone, last), 0, 'chunk 3, 6 made first and made last: blocks that differ')
  assert.strictEqual(differ(afterTarget, beforeTarget), 0, 'chunk 3, 5 made before and after 3, 6: blocks that differ')
})
