// The 3D view: a browser's socket gets the bot's version, chunks and positions; a bot
// reconnect re-attaches the running server, and the page's client reconnects by itself to
// the new bot's world; a busy port is reported, not thrown; stop() frees the port.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const net = require('net')
const { io } = require('socket.io-client')
const viewer = require('../lib/viewer')
const { drawnAs } = require('../lib/viewer_versions')
const { startServer, connectBot, waitFor, command, withTimeout } = require('./helpers')

const OPTIONS = { host: '127.0.0.1', port: 0, viewDistance: 2 }

// Every 'version', 'loadChunk' and 'position' a socket receives, in order.
function record (socket) {
  const seen = []
  for (const event of ['version', 'loadChunk', 'position']) socket.on(event, (data) => seen.push({ event, data }))
  return seen
}

const portIsFree = (port) => new Promise((resolve) => {
  const probe = net.createServer()
  probe.once('error', () => resolve(false))
  probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)))
})

const ended = (bot) => withTimeout(new Promise((resolve) => bot.once('end', resolve)), 30000, 'bot end')

test('the 3D view follows the bot across a reconnect', { timeout: 360000 }, async (t) => {
  const server = await startServer({ seed: 5, hostiles: false })
  let bot = await connectBot(server.port, 'viewbot')
  let socket = null
  t.after(async () => { if (socket) socket.close(); await viewer.stop(); bot.quit(); await server.stop() })

  const first = await viewer.start(bot, OPTIONS)
  assert.strictEqual(first.running, true, JSON.stringify(first))
  assert.strictEqual(first.started, true)
  assert.strictEqual(first.botAttached, true)
  assert.strictEqual(first.error, null)
  assert.strictEqual(first.url, `http://127.0.0.1:${first.port}/`)
  const url = `http://127.0.0.1:${first.port}`

  await t.test('GET / serves the viewer page', async () => {
    const res = await fetch(url + '/')
    assert.strictEqual(res.status, 200)
    const html = await res.text()
    assert.match(html, /<script[^>]*src="index\.js"/)
  })

  const chunkBefore = bot.listenerCount('chunkColumnLoad')
  socket = io(url, { transports: ['websocket'], reconnectionDelay: 100, reconnectionDelayMax: 500 })
  let seen = record(socket)

  await t.test('a socket gets the version, the chunk under the bot and positions as it moves', async () => {
    await waitFor(() => seen.find(s => s.event === 'version'), 30000, 'version event')
    assert.strictEqual(seen[0].event, 'version')
    assert.strictEqual(seen[0].data, drawnAs(bot.registry) || bot.version, 'the version the page draws')
    const here = bot.entity.position
    const cx = Math.floor(here.x / 16) * 16
    const cz = Math.floor(here.z / 16) * 16
    const own = await waitFor(() => seen.find(s => s.event === 'loadChunk' && s.data.x === cx && s.data.z === cz),
      30000, 'the loadChunk of the bot\'s own column')
    assert.ok(own.data.chunk && own.data.chunk.length > 0, 'the column is sent whole')
    assert.strictEqual(viewer.status().clients, 1)

    const to = here.floored().offset(3, 0, 0)
    await command(bot, `/mcbot tp viewbot ${to.x} ${to.y} ${to.z}`)
    const moved = await waitFor(() => seen.find(s => s.event === 'position' && Math.abs(s.data.pos.x - to.x) < 1.5),
      30000, 'a position packet at the teleport target')
    assert.strictEqual(moved.data.addMesh, true)
    assert.strictEqual(typeof moved.data.yaw, 'number')
    assert.strictEqual(moved.data.pitch, undefined, 'pitch is sent in first-person mode only')
    assert.strictEqual(bot.listenerCount('chunkColumnLoad'), chunkBefore + 1, 'the socket listens to the bot')
  })

  await t.test('a new bot object: same server and port, the socket reconnects to the new world', async () => {
    const oldBot = bot
    const oldMoves = oldBot.listenerCount('move')
    const reasons = []
    socket.on('disconnect', (reason) => reasons.push(reason))
    const end = ended(oldBot)
    oldBot.quit()
    await end
    bot = await connectBot(server.port, 'viewbot')
    seen = record(socket)

    const again = await viewer.start(bot, OPTIONS)
    assert.strictEqual(again.running, true, JSON.stringify(again))
    assert.strictEqual(again.started, false, 're-attached, not started anew')
    assert.strictEqual(again.port, first.port)
    await waitFor(() => seen.find(s => s.event === 'version'), 30000, 'version from the new bot')
    assert.deepStrictEqual(reasons, ['transport close'], 'dropped by transport, so the client reconnected')
    assert.strictEqual(seen.find(s => s.event === 'version').data, drawnAs(bot.registry) || bot.version)
    await waitFor(() => seen.find(s => s.event === 'loadChunk'), 30000, 'a chunk of the new bot\'s world')
    assert.strictEqual(oldBot.listenerCount('chunkColumnLoad'), chunkBefore, 'the old bot\'s listeners are removed')
    assert.strictEqual(oldBot.listenerCount('move'), oldMoves - 1)
    assert.strictEqual(bot.listenerCount('chunkColumnLoad'), chunkBefore + 1)
    assert.strictEqual(viewer.status().clients, 1)
  })

  await t.test('stop() disconnects the socket and frees the port', async () => {
    const after = await viewer.stop()
    assert.strictEqual(after.running, false)
    assert.strictEqual(after.botAttached, false)
    assert.strictEqual(bot.listenerCount('chunkColumnLoad'), chunkBefore)
    assert.ok(await portIsFree(first.port), `port ${first.port} is free again`)
    socket.close()
    socket = null
  })

  await t.test('a busy port is reported in status(), never thrown; the next start tries again', async () => {
    const blocker = net.createServer()
    await new Promise((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const busy = blocker.address().port
    const logged = []
    const consoleError = console.error
    console.error = (...a) => logged.push(a.join(' '))
    let st
    try {
      st = await viewer.start(bot, { ...OPTIONS, port: busy })
    } finally {
      console.error = consoleError
    }
    assert.strictEqual(st.running, false)
    assert.strictEqual(st.port, busy)
    assert.match(st.error, /EADDRINUSE/)
    assert.strictEqual(viewer.status().error, st.error)
    assert.ok(logged.some(l => l.includes('[viewer]') && l.includes(String(busy))), logged.join('\n'))
    await new Promise((resolve) => blocker.close(resolve))
    const retried = await viewer.start(bot, { ...OPTIONS, port: busy })
    assert.strictEqual(retried.running, true, JSON.stringify(retried))
    assert.strictEqual(retried.started, true)
    assert.strictEqual(retried.error, null)
    await viewer.stop()
    assert.ok(await portIsFree(busy))
  })
})

test('a world newer than the viewer\'s assets is drawn as its newest version, block by block by name', () => {
  const { translatingEmitter, DRAWN } = require('../lib/viewer_versions')
  const { Vec3 } = require('vec3')
  const newest = require('prismarine-registry')('26.1')
  const drawn = require('prismarine-registry')(DRAWN)
  assert.strictEqual(drawnAs(newest), DRAWN)
  assert.strictEqual(drawnAs(drawn), null, 'a version with its own assets is sent as it is')
  const Column = require('prismarine-chunk')(newest)
  const column = new Column({ minY: -64, worldHeight: 384 })
  const Block = require('prismarine-block')(newest)
  column.setBlockStateId(new Vec3(1, 64, 1), Block.fromProperties('oak_log', { axis: 'x' }, 0).stateId)
  column.setBlockStateId(new Vec3(2, 64, 1), newest.blocksByName.iron_chain.defaultState) // 'chain' until 1.21.9
  column.setBlockStateId(new Vec3(3, 64, 1), newest.blocksByName.copper_chest.defaultState) // none at 1.21.4
  const sent = []
  const emitter = translatingEmitter({ emit: (name, payload) => sent.push({ name, payload }), on () {} }, newest)
  emitter.emit('loadChunk', { x: 0, z: 0, chunk: column.toJson() })
  emitter.emit('blockUpdate', { pos: new Vec3(1, 64, 1), stateId: newest.blocksByName.grass_block.defaultState })
  const got = require('prismarine-chunk')(drawn).fromJson(sent[0].payload.chunk)
  const at = (x) => require('prismarine-block')(drawn).fromStateId(got.getBlockStateId(new Vec3(x, 64, 1)), 0)
  assert.deepStrictEqual([at(1).name, at(1).getProperties().axis], ['oak_log', 'x'])
  assert.strictEqual(at(2).name, 'chain')
  assert.strictEqual(at(3).name, 'stone')
  assert.strictEqual(at(4).name, 'air')
  assert.strictEqual(drawn.blocksByStateId[sent[1].payload.stateId].name, 'grass_block')
})
