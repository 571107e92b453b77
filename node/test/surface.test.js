// plugins/surface.js: the caves terrain's vanilla surface. Its layout (biomes, oceans, rivers)
// is a pure function of the seed; its chunks carry each biome's ground, water, plants and trees.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { Vec3 } = require('vec3')
const { makeSurface, WATER_TOP } = require('../plugins/surface')
const generation = require('../plugins/terrain')
const { VERSION, oneVersion } = require('./helpers')

const ISSUE_BIOMES = ['plains', 'forest', 'birch_forest', 'taiga', 'desert', 'savanna', 'swamp', 'snowy_plains', 'river', 'beach', 'ocean', 'windswept_hills']

test('every seed has plains, forests, taiga, desert, savanna, swamp, snow, rivers, beaches, oceans and mountains', oneVersion('a pure function of the seed'), () => {
  for (const seed of [101, 202, 303]) {
    const surface = makeSurface(seed, 0.015)
    const share = {}
    let n = 0
    for (let x = -2048; x < 2048; x += 32) {
      for (let z = -2048; z < 2048; z += 32) {
        const c = surface.column(x, z)
        share[c.biome] = (share[c.biome] || 0) + 1
        n++
        if (c.biome === 'ocean' || c.biome === 'river') assert.ok(c.water, `${c.biome} at ${x} ${z} is under water`)
        if (c.biome === 'windswept_hills') assert.ok(c.h >= 96, 'a mountain is high')
      }
    }
    assert.deepStrictEqual(ISSUE_BIOMES.filter((b) => !share[b]), [], `seed ${seed}: biomes missing`)
    const sea = ((share.ocean || 0) + (share.deep_ocean || 0)) / n
    assert.ok(sea > 0.05 && sea < 0.6, `seed ${seed}: ${sea} of the land is sea`)
  }
})

// The chunk at the middle of the first 3x3 chunks of one biome found spiralling out from 0, 0.
function chunkOf (surface, biome) {
  for (let r = 0; r < 200; r++) {
    for (let cx = -r; cx <= r; cx++) {
      for (const cz of [-r, r]) {
        const all = [0, 15, 31, 47].every((dx) => [0, 15, 31, 47].every((dz) =>
          surface.column((cx - 1) * 16 + dx, (cz - 1) * 16 + dz).biome === biome))
        if (all) return { cx, cz }
      }
    }
  }
  throw new Error(`no ${biome} found`)
}

test(`each biome's chunks at ${VERSION}: its ground, its water, its plants and its trees`, { timeout: 120000 }, () => {
  const registry = require('prismarine-registry')(VERSION)
  const seed = 11
  const make = generation({ registry, seed, mcbot: { terrain: 'caves', treeDensity: 0.015 } })
  const surface = makeSurface(seed, 0.015)
  const look = (biome) => {
    const { cx, cz } = chunkOf(surface, biome)
    const chunk = make(cx, cz)
    const names = new Set()
    const tops = []
    const p = new Vec3(0, 0, 0)
    for (p.x = 0; p.x < 16; p.x++) {
      for (p.z = 0; p.z < 16; p.z++) {
        for (p.y = WATER_TOP - 20; p.y < 200; p.y++) names.add(chunk.getBlock(p).name)
        const h = surface.column(cx * 16 + p.x, cz * 16 + p.z).h
        p.y = h; tops.push(chunk.getBlock(p).name)
        p.y = h + 1; tops.push(`above:${chunk.getBlock(p).name}`)
      }
    }
    p.x = 8; p.y = 64; p.z = 8
    assert.strictEqual(registry.biomes[chunk.getBiome(p)].name, biome, `the chunk says it is ${biome}`)
    return { names, tops }
  }
  const desert = look('desert')
  assert.ok(desert.tops.includes('sand') && !desert.tops.includes('grass_block'), 'a desert is sand')
  assert.ok(![...desert.names].some((n) => n.endsWith('_log')), 'no tree in a desert')
  const ocean = look('ocean')
  assert.ok(ocean.tops.includes('above:water') && ocean.names.has('water'), 'the sea is water')
  assert.ok(ocean.tops.some((n) => ['sand', 'gravel', 'clay'].includes(n)), 'on sand, gravel or clay')
  const logs = { forest: 'oak_log', birch_forest: 'birch_log', taiga: 'spruce_log', savanna: 'acacia_log', dark_forest: 'dark_oak_log' }
  for (const [biome, log] of Object.entries(logs)) assert.ok(look(biome).names.has(log), `${log} in a ${biome}`)
  assert.ok(look('snowy_plains').tops.includes('above:snow'), 'snow lies on the snowy plains')
  const plains = look('plains')
  assert.ok(plains.tops.includes('grass_block') && plains.names.has(registry.blocksByName.short_grass ? 'short_grass' : 'grass'))
})

test('sugar cane grows beside the water, on ground at the water\'s level', oneVersion('where plants go is the generator\'s rule'), () => {
  const registry = require('prismarine-registry')(VERSION)
  const make = generation({ registry, seed: 11, mcbot: { terrain: 'caves', treeDensity: 0.015 } })
  const { cx, cz } = chunkOf(makeSurface(11, 0.015), 'swamp')
  let canes = 0
  const p = new Vec3(0, 0, 0)
  for (const [dx, dz] of [[0, 0], [1, 0], [0, 1], [1, 1]]) {
    const chunk = make(cx + dx, cz + dz)
    for (p.x = 1; p.x < 15; p.x++) {
      for (p.z = 1; p.z < 15; p.z++) {
        p.y = WATER_TOP + 1
        if (chunk.getBlock(p).name !== 'sugar_cane') continue
        canes++
        const beside = [[1, 0], [-1, 0], [0, 1], [0, -1]].some(([ex, ez]) =>
          chunk.getBlock(new Vec3(p.x + ex, WATER_TOP, p.z + ez)).name === 'water')
        assert.ok(beside, `the cane at ${p} has water beside its ground`)
      }
    }
  }
  assert.ok(canes > 0, 'a swamp has sugar cane')
})
