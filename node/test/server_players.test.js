// server.js with two players: they see each other, follow a long teleport, a punch hurts and
// leaving is seen; a move sent before a client saw its teleport does not undo it.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { startServer, connectBot, waitFor, command, withTimeout, roundTrip } = require('./helpers')

test('two players see each other, follow a long teleport, a punch hurts, leaving is seen', { timeout: 180000 }, async () => {
  const s = await startServer({ seed: 5, hostiles: false })
  const a = await connectBot(s.port, 'alice')
  const b = await connectBot(s.port, 'bob')
  try {
    // from 1.20.2 players spawn through spawn_entity, which needs the player type
    await waitFor(() => a.players.bob?.entity?.name === 'player', 5000, 'alice sees bob as a player')
    await waitFor(() => b.players.alice?.entity?.name === 'player', 5000, 'bob sees alice as a player')
    // a 20-block jump goes out as entity_teleport (1.21.2+ changed its fields: it kicked alice)
    const start = b.entity.position.clone()
    await command(b, '/mcbot tp bob ~20 ~ ~')
    await waitFor(() => b.entity.position.distanceTo(start) > 15, 5000, 'bob moved')
    await waitFor(() => a.players.bob.entity.position.distanceTo(b.entity.position) < 0.5, 5000, 'alice saw the teleport')
    const p = a.entity.position.floored()
    await command(b, `/mcbot tp bob ${p.x + 1} ${p.y} ${p.z}`)
    await waitFor(() => a.players.bob.entity.position.distanceTo(a.entity.position) < 2, 5000, 'bob next to alice')
    const hurtBy = []
    b.on('entityHurt', (e, source) => { if (e === b.entity) hurtBy.push(source ? source.username : null) })
    a.attack(a.players.bob.entity)
    await waitFor(() => b.health === 19, 3000, 'bare hand: 1 damage')
    await waitFor(() => hurtBy.length > 0, 2000, 'bob saw himself hurt')
    if (b.registry.protocol.play.toClient.types.packet_damage_event) assert.strictEqual(hurtBy[0], 'alice')
    const left = new Promise(resolve => a.on('playerLeft', (p) => { if (p.username === 'bob') resolve() }))
    b.quit()
    await withTimeout(left, 5000, 'alice sees bob leave')
    assert.strictEqual(a.players.bob, undefined)
  } finally {
    a.quit()
    b.quit()
    await s.stop()
  }
})

test('a move sent before the client saw its teleport does not undo it: the players at the destination see each other', { timeout: 180000 }, async () => {
  const s = await startServer({ seed: 5, hostiles: false, animals: false })
  const a = await connectBot(s.port, 'ann')
  const b = await connectBot(s.port, 'ben')
  try {
    // a flat floor around ann, so that ben lands still beside her and sends no more moves
    const p = a.entity.position.floored()
    await command(a, `/mcbot fill ${p.x - 3} ${p.y - 1} ${p.z - 3} ${p.x + 3} ${p.y - 1} ${p.z + 3} stone`)
    await command(a, `/mcbot fill ${p.x - 3} ${p.y} ${p.z - 3} ${p.x + 3} ${p.y + 2} ${p.z + 3} air`)
    await command(b, '/mcbot tp ben ~300 ~ ~') // out of sight (entities are seen within 150 blocks)
    await waitFor(() => !a.players.ben?.entity && !b.players.ann?.entity, 10000, 'out of each other\'s sight')
    const far = b.entity.position.clone()
    // Ben's client sends one more move from far away after the server has moved him, as a
    // client that had not yet read the teleport does.
    b._client.prependOnceListener('position', () => {
      b._client.write('position', { x: far.x, y: far.y, z: far.z, onGround: true, flags: { onGround: true, hasHorizontalCollision: false } })
    })
    await command(a, `/mcbot tp ben ${p.x + 2} ${p.y} ${p.z}`)
    await waitFor(() => b.entity.position.distanceTo(p) < 3 && b.entity.onGround, 10000, 'ben standing beside ann')
    // the server has read every move ben sent before this command, and each has sent what
    // the server wrote to it before the reply
    await roundTrip(b)
    await roundTrip(a)
    assert.ok(b.players.ann?.entity, 'ben sees ann')
    assert.ok(a.players.ben?.entity && a.players.ben.entity.position.distanceTo(b.entity.position) < 0.5, 'ann sees ben where he is')
  } finally {
    a.quit()
    b.quit()
    await s.stop()
  }
})
