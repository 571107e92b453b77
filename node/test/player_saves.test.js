// lib/player_saves.js: a player's file is never seen half-written, and one player's saves do
// not overlap. flying-squid's own writer is held in the middle of its write to look at the file.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const fs = require('fs')
const os = require('os')
const path = require('path')
const { promisify } = require('util')
const { EventEmitter } = require('events')
const nbt = require('prismarine-nbt')
const { oneVersion } = require('./helpers')
const { makePlayerSavesAtomic } = require('../lib/player_saves')

const UUID = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0'

function fakePlayer (breads) {
  return Object.assign(new EventEmitter(), {
    uuid: UUID,
    health: 20,
    food: 20,
    gameMode: 0,
    xp: 0,
    heldItemSlot: 0,
    position: { x: 0.5, y: 70, z: 0.5 },
    yaw: 0,
    pitch: 0,
    onGround: true,
    inventory: { slots: [{ slot: 36, name: 'bread', count: breads }] },
    save: async () => { throw new Error('flying-squid in-place save called') }
  })
}

async function breadsIn (file) {
  const parsed = await promisify(nbt.parse)(fs.readFileSync(file))
  return nbt.simplify(parsed).Inventory.find((i) => i.id === 'minecraft:bread').Count
}

// Every write into the world folder stops half-way until `release` is called.
function holdWrites () {
  const real = fs.promises.writeFile
  const state = { held: null, writing: 0, mostAtOnce: 0 }
  fs.promises.writeFile = async (file, data) => {
    state.writing++
    state.mostAtOnce = Math.max(state.mostAtOnce, state.writing)
    await real(file, data.subarray(0, data.length >> 1))
    await new Promise((resolve) => { state.held = { file, release: resolve } })
    await real(file, data)
    state.writing--
  }
  state.restore = () => { fs.promises.writeFile = real }
  return state
}

async function untilHeld (state) {
  while (!state.held) await new Promise((resolve) => setImmediate(resolve))
  const held = state.held
  state.held = null
  return held
}

test('a save caught half-way leaves the last whole file in place, and one player\'s saves run one at a time', oneVersion('file writes only'), async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbot-saves-'))
  const file = path.join(dir, 'playerdata', `${UUID}.dat`)
  const player = fakePlayer(3)
  makePlayerSavesAtomic(player, { supportFeature: () => true }, dir)
  try {
    await player.save()
    assert.ok(!fs.existsSync(file), 'no save before the login loaded the inventory')
    player.emit('spawned')
    await player.save()
    assert.strictEqual(await breadsIn(file), 3)

    const writes = holdWrites()
    try {
      player.inventory.slots[0].count = 5
      const first = player.save()
      const second = player.save()
      const held = await untilHeld(writes)
      assert.notStrictEqual(held.file, file, 'the write goes beside the file, not into it')
      assert.strictEqual(await breadsIn(file), 3, 'mid-write, the file is the last whole save')
      held.release()
      ;(await untilHeld(writes)).release()
      await Promise.all([first, second])
      assert.strictEqual(writes.mostAtOnce, 1, 'two saves of one player overlapped')
    } finally {
      writes.restore()
    }
    assert.strictEqual(await breadsIn(file), 5)
    assert.deepStrictEqual(fs.readdirSync(path.join(dir, '.mcbot-staging')), [], 'no staged file left')
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
