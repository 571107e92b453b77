// The bridge's speed-ups must not change what the libraries answer: the quiet splitter cuts
// the same packets as minecraft-protocol's, the block cache never serves a block across a
// change, and the memoized minecraft-data gives the same objects. No server needed.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const path = require('path')
const EventEmitter = require('events')
const { installQuietSplitter, peekVarInt } = require('../lib/framing')
const { installBlockCache, memoizeMinecraftData } = require('../lib/simulation_cache')

const framingFile = require.resolve('minecraft-protocol/src/transforms/framing',
  { paths: [path.dirname(require.resolve('mineflayer'))] })

function varint (n) {
  const out = []
  do {
    let byte = n & 0x7F
    n >>>= 7
    if (n) byte |= 0x80
    out.push(byte)
  } while (n)
  return Buffer.from(out)
}

// Packets of many sizes (1- to 3-byte length prefixes), framed, cut at random places.
function stream (seed) {
  let s = seed
  const rand = (n) => { s = (s * 1103515245 + 12345) % 2147483648; return s % n }
  const packets = []
  for (let i = 0; i < 300; i++) {
    const size = [1, 5, 127, 128, 300, 16384, 20000][rand(7)]
    packets.push(Buffer.alloc(size, i % 256))
  }
  const whole = Buffer.concat(packets.flatMap(p => [varint(p.length), p]))
  const chunks = []
  for (let at = 0; at < whole.length;) {
    const len = 1 + rand(rand(4) === 0 ? 3 : 9000)
    chunks.push(whole.subarray(at, at + len))
    at += len
  }
  return { packets, chunks }
}

async function split (splitter, chunks) {
  const got = []
  splitter.on('data', (d) => got.push(Buffer.from(d)))
  for (const c of chunks) await new Promise((resolve, reject) => splitter.write(c, (err) => err ? reject(err) : resolve()))
  await new Promise((resolve) => setImmediate(resolve))
  return got
}

test('peekVarInt reads whole varints and says null when one is cut', () => {
  for (const n of [0, 1, 127, 128, 300, 16384, 2097151, 2097152]) {
    assert.deepStrictEqual(peekVarInt(Buffer.concat([Buffer.from([9]), varint(n)]), 1), { value: n, size: varint(n).length })
  }
  assert.strictEqual(peekVarInt(Buffer.from([0x80, 0x80]), 0), null)
  assert.strictEqual(peekVarInt(Buffer.from([5]), 1), null)
})

test('the quiet splitter cuts the same packets as minecraft-protocol', async () => {
  delete require.cache[framingFile]
  const original = require(framingFile).createSplitter
  installQuietSplitter()
  const framing = require(framingFile)
  assert.ok(framing.createSplitter.mcbotQuiet, 'installed')
  for (const seed of [1, 2, 3]) {
    const { packets, chunks } = stream(seed)
    const theirs = await split(original(), chunks)
    const ours = await split(framing.createSplitter(), chunks)
    assert.strictEqual(theirs.length, packets.length)
    assert.strictEqual(ours.length, packets.length)
    ours.forEach((p, i) => assert.ok(p.equals(packets[i]), `packet ${i} of seed ${seed}`))
  }
})

function fakeBot () {
  const bot = new EventEmitter()
  bot.world = {}
  bot.reads = 0
  bot.blockAt = (point, extraInfos = true) => { bot.reads++; return { name: 'stone', at: `${point.x},${point.y},${point.z}`, extraInfos } }
  return bot
}

test('the block cache answers within one stretch of JS only, and never across a change', async () => {
  const bot = fakeBot()
  installBlockCache(bot)
  const p = { x: 1.5, y: 64, z: -2.2 }
  const first = bot.blockAt(p, false)
  assert.strictEqual(bot.blockAt({ x: 1, y: 64, z: -3 }, false), first, 'same block, same stretch')
  assert.strictEqual(bot.reads, 1)
  assert.notStrictEqual(bot.blockAt(p), bot.blockAt(p), 'a read with extra infos is never cached')
  bot.emit('blockUpdate', null, null)
  assert.notStrictEqual(bot.blockAt(p, false), first, 'a block update clears it')
  const before = bot.blockAt(p, false)
  bot.world = {}
  assert.notStrictEqual(bot.blockAt(p, false), before, 'a new world clears it')
  const last = bot.blockAt(p, false)
  await null
  assert.notStrictEqual(bot.blockAt(p, false), last, 'the next stretch reads again')
})

test('memoized minecraft-data gives the same data and keeps its properties', () => {
  memoizeMinecraftData()
  const file = require.resolve('minecraft-data', { paths: [path.dirname(require.resolve('prismarine-physics'))] })
  const mcData = require(file)
  const a = mcData('1.21.4')
  assert.strictEqual(mcData('1.21.4'), a)
  assert.strictEqual(a.blocksByName.stone.name, 'stone')
  assert.notStrictEqual(mcData('1.18.2'), a)
  assert.ok(Array.isArray(mcData.versions.pc) || typeof mcData.versions === 'object')
  assert.strictEqual(typeof mcData.Version, 'function')
})
