// lib/snapshot.js: what the snapshot says of the rock over the bot's head (`cover`) and of the
// hostiles near it.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { startServer, connectBot, waitFor, command, withTimeout } = require('./helpers')
const { snapshot, trackRespawn } = require('../lib/snapshot')
const { eyeCells } = require('../lib/in_wall')

test('cover counts the solid blocks over the head, leaves left out', { timeout: 120000 }, async () => {
  const s = await startServer({ hostiles: false, animals: false })
  const bot = await connectBot(s.port, 'miner')
  try {
    await waitFor(() => bot.entity.onGround, 10000, 'standing')
    const p = bot.entity.position.floored()
    const above = (dy) => bot.blockAt(p.offset(0, dy, 0))
    await command(bot, `/mcbot fill ${p.x} ${p.y + 2} ${p.z} ${p.x} ${p.y + 20} ${p.z} air`)
    await waitFor(() => above(2).name === 'air' && above(12).name === 'air', 5000, 'open sky')
    assert.strictEqual(snapshot(bot).cover, 0)

    // five blocks of stone a block over the head, then two of them turned to leaves
    await command(bot, `/mcbot fill ${p.x} ${p.y + 3} ${p.z} ${p.x} ${p.y + 7} ${p.z} stone`)
    await waitFor(() => above(3).name === 'stone' && above(7).name === 'stone', 5000, 'the stone')
    assert.strictEqual(snapshot(bot).cover, 5)
    await command(bot, `/mcbot fill ${p.x} ${p.y + 4} ${p.z} ${p.x} ${p.y + 5} ${p.z} oak_leaves`)
    await waitFor(() => above(4).name === 'oak_leaves' && above(5).name === 'oak_leaves', 5000, 'the leaves')
    assert.strictEqual(snapshot(bot).cover, 3)
  } finally {
    bot.quit()
    await s.stop()
  }
})

test('inWall: the eyes in a full block (stone, gravel) say so; in glass or air they do not', { timeout: 120000 }, async () => {
  const s = await startServer({ hostiles: false, animals: false })
  const bot = await connectBot(s.port, 'miner')
  try {
    await waitFor(() => bot.entity.onGround, 10000, 'standing')
    const p = bot.entity.position.floored()
    const eyes = p.offset(0, 1, 0)
    assert.strictEqual(snapshot(bot).inWall, false, 'standing in the open')
    await command(bot, '/mcbot tick freeze') // gravel with air under it falls 2 ticks after it is put
    for (const [block, inWall] of [['stone', true], ['glass', false], ['gravel', true], ['air', false]]) {
      await command(bot, `/mcbot fill ${eyes.x} ${eyes.y} ${eyes.z} ${eyes.x} ${eyes.y} ${eyes.z} ${block}`)
      await waitFor(() => bot.blockAt(eyes)?.name === block, 5000, `${block} at the eyes`)
      assert.strictEqual(snapshot(bot).inWall, inWall, `the eyes in ${block}`)
    }
  } finally {
    bot.quit()
    await s.stop()
  }
})

test('the eye cells are those of a box 0.48 wide around the eyes: one in a cell\'s middle, four by its corner', () => {
  const key = (cells) => cells.map((c) => `${c.x},${c.y},${c.z}`).sort()
  assert.deepStrictEqual(key(eyeCells({ x: 10.5, y: 64, z: -3.5 })), ['10,65,-4'])
  assert.deepStrictEqual(key(eyeCells({ x: 10.8, y: 64.5, z: -3.5 })), ['10,66,-4', '11,66,-4'])
  assert.deepStrictEqual(key(eyeCells({ x: 10.9, y: 64, z: -3.9 })), ['10,65,-4', '10,65,-5', '11,65,-4', '11,65,-5'])
})

test('with ground over its head, a hostile counts only near the bot\'s level', { timeout: 120000 }, async () => {
  const s = await startServer({ hostiles: false, animals: false })
  const bot = await connectBot(s.port, 'miner')
  try {
    await waitFor(() => bot.entity.onGround, 10000, 'standing')
    const p = bot.entity.position.floored()
    // a pocket 8 blocks down in stone, a zombie on the ground over it and one beside the bot
    await command(bot, `/mcbot fill ${p.x - 6} ${p.y - 12} ${p.z - 6} ${p.x + 6} ${p.y - 1} ${p.z + 6} stone`)
    await command(bot, `/mcbot fill ${p.x - 6} ${p.y} ${p.z - 6} ${p.x + 6} ${p.y + 4} ${p.z + 6} air`)
    await command(bot, `/mcbot fill ${p.x} ${p.y - 9} ${p.z} ${p.x + 3} ${p.y - 8} ${p.z} air`)
    await command(bot, '/mcbot tick freeze')
    await command(bot, `/mcbot tp miner ${p.x + 0.5} ${p.y - 9} ${p.z + 0.5}`, { match: /teleported miner/ })
    await waitFor(() => Math.floor(bot.entity.position.y) === p.y - 9, 5000, 'in the pocket')
    await command(bot, `/mcbot summon zombie ${p.x + 1.5} ${p.y} ${p.z + 0.5}`)
    await waitFor(() => Object.values(bot.entities).some((e) => e.name === 'zombie'), 5000, 'the zombie over it')
    let snap = snapshot(bot)
    assert.ok(snap.cover >= 4, `under the rock (${snap.cover})`)
    assert.strictEqual(snap.entities.filter((e) => e.hostile).length, 1, 'seen')
    assert.strictEqual(snap.hostiles, 0, 'nine blocks up, through the rock: not near')
    await command(bot, `/mcbot summon zombie ${p.x + 3.5} ${p.y - 9} ${p.z + 0.5}`)
    await waitFor(() => Object.values(bot.entities).filter((e) => e.name === 'zombie').length === 2, 5000, 'one beside it')
    snap = snapshot(bot)
    assert.strictEqual(snap.hostiles, 1, 'the one in the pocket counts')
  } finally {
    await command(bot, '/mcbot tick unfreeze').catch(() => {})
    bot.quit()
    await s.stop()
  }
})

test('under the open sky, a hostile in a cave under the bot is not near; in an open pit it is', { timeout: 120000 }, async () => {
  const s = await startServer({ hostiles: false, animals: false })
  const bot = await connectBot(s.port, 'walker')
  try {
    await waitFor(() => bot.entity.onGround, 10000, 'standing')
    const p = bot.entity.position.floored()
    const y = p.y - 8
    // stone under the bot, the sky open over it, a cave 8 blocks down 3 blocks east
    await command(bot, `/mcbot fill ${p.x - 6} ${p.y - 12} ${p.z - 6} ${p.x + 6} ${p.y - 1} ${p.z + 6} stone`)
    await command(bot, `/mcbot fill ${p.x - 6} ${p.y} ${p.z - 6} ${p.x + 6} ${p.y + 20} ${p.z + 6} air`)
    await command(bot, `/mcbot fill ${p.x + 2} ${y} ${p.z - 1} ${p.x + 4} ${y + 2} ${p.z + 1} air`)
    await command(bot, '/mcbot tick freeze')
    await command(bot, `/mcbot tp walker ${p.x + 0.5} ${p.y} ${p.z + 0.5}`, { match: /teleported walker/ })
    await waitFor(() => Math.floor(bot.entity.position.y) === p.y, 5000, 'on the stone')
    await command(bot, `/mcbot summon zombie ${p.x + 3.5} ${y} ${p.z + 0.5}`)
    await waitFor(() => Object.values(bot.entities).some((e) => e.name === 'zombie'), 5000, 'the zombie in the cave')
    let snap = snapshot(bot)
    assert.strictEqual(snap.cover, 0, 'under the open sky')
    assert.strictEqual(snap.entities.filter((e) => e.hostile).length, 1, 'seen')
    assert.strictEqual(snap.hostiles, 0, 'eight blocks down, under five of stone: not near')
    assert.strictEqual(snap.entities.find((e) => e.hostile).caveBelow, true, 'marked in a cave under the bot')
    // the cave's roof dug away over it but for one block (an overhang): it counts
    await command(bot, `/mcbot fill ${p.x + 3} ${y + 3} ${p.z} ${p.x + 3} ${p.y - 2} ${p.z} air`)
    await waitFor(() => bot.blockAt(p.offset(3, -2, 0))?.name === 'air', 5000, 'the shaft')
    snap = snapshot(bot)
    assert.strictEqual(snap.hostiles, 1, 'one block over its head: it counts')
    assert.strictEqual(snap.entities.find((e) => e.hostile).caveBelow, undefined, 'and is no longer in a cave')
    // and the last block gone: an open pit, from which it is near too
    await command(bot, `/mcbot setblock ${p.x + 3} ${p.y - 1} ${p.z} air`)
    await waitFor(() => bot.blockAt(p.offset(3, -1, 0))?.name === 'air', 5000, 'the pit open')
    assert.strictEqual(snapshot(bot).hostiles, 1, 'nothing over its head: it counts')
  } finally {
    await command(bot, '/mcbot tick unfreeze').catch(() => {})
    bot.quit()
    await s.stop()
  }
})

test('a skeleton under an overhang that sees the bot is not near, nor marked in a cave under it', { timeout: 120000 }, async () => {
  const s = await startServer({ hostiles: false, animals: false })
  const bot = await connectBot(s.port, 'walker')
  try {
    await waitFor(() => bot.entity.onGround, 10000, 'standing')
    const p = bot.entity.position.floored()
    // the bot on the rim of a pit 4 deep and 16 long; at its far end two blocks of stone over a
    // skeleton's head, nothing between its eyes and the bot's
    await command(bot, `/mcbot fill ${p.x - 2} ${p.y - 8} ${p.z - 3} ${p.x + 18} ${p.y - 1} ${p.z + 3} stone`)
    await command(bot, `/mcbot fill ${p.x - 2} ${p.y} ${p.z - 3} ${p.x + 18} ${p.y + 12} ${p.z + 3} air`)
    await command(bot, `/mcbot fill ${p.x + 1} ${p.y - 4} ${p.z - 2} ${p.x + 17} ${p.y - 1} ${p.z + 2} air`)
    await command(bot, `/mcbot fill ${p.x + 15} ${p.y - 2} ${p.z} ${p.x + 15} ${p.y - 1} ${p.z} stone`)
    await command(bot, '/mcbot tick freeze')
    await command(bot, `/mcbot tp walker ${p.x + 0.5} ${p.y} ${p.z + 0.5}`, { match: /teleported walker/ })
    await waitFor(() => Math.floor(bot.entity.position.y) === p.y, 5000, 'on the rim')
    await command(bot, `/mcbot summon skeleton ${p.x + 15.5} ${p.y - 4} ${p.z + 0.5}`)
    await waitFor(() => Object.values(bot.entities).some((e) => e.name === 'skeleton'), 5000, 'the skeleton')
    await waitFor(() => bot.blockAt(p.offset(15, -1, 0))?.name === 'stone', 5000, 'the overhang')
    let snap = snapshot(bot)
    const skeleton = () => snap.entities.find((e) => e.name === 'skeleton')
    assert.strictEqual(snap.hostiles, 0, 'under two blocks of stone, four down: not near')
    assert.strictEqual(skeleton().caveBelow, undefined, 'it sees the bot: a threat all the same')
    // the pit roofed over between them: out of its sight, in a cave under the bot
    await command(bot, `/mcbot fill ${p.x + 1} ${p.y - 1} ${p.z - 2} ${p.x + 14} ${p.y - 1} ${p.z + 2} stone`)
    await waitFor(() => bot.blockAt(p.offset(8, -1, 0))?.name === 'stone', 5000, 'the roof')
    snap = snapshot(bot)
    assert.strictEqual(skeleton().caveBelow, true, 'out of sight')
  } finally {
    await command(bot, '/mcbot tick unfreeze').catch(() => {})
    bot.quit()
    await s.stop()
  }
})

test('a hostile behind the wall of the bot\'s pocket is sealed off: seen, not near; a stack under 1 is empty', { timeout: 120000 }, async () => {
  const s = await startServer({ hostiles: false, animals: false })
  const bot = await connectBot(s.port, 'miner')
  try {
    await waitFor(() => bot.entity.onGround, 10000, 'standing')
    const p = bot.entity.position.floored()
    const y = p.y - 9
    // stone all round; the bot's pocket (1 wide, 2 high) and a cave 5 blocks east of it, apart
    await command(bot, `/mcbot fill ${p.x - 6} ${p.y - 12} ${p.z - 6} ${p.x + 10} ${p.y - 1} ${p.z + 6} stone`)
    await command(bot, `/mcbot fill ${p.x} ${y} ${p.z} ${p.x} ${y + 1} ${p.z} air`)
    await command(bot, `/mcbot fill ${p.x + 4} ${y} ${p.z - 1} ${p.x + 7} ${y + 2} ${p.z + 1} air`)
    await command(bot, '/mcbot tick freeze')
    await command(bot, `/mcbot tp miner ${p.x + 0.5} ${y} ${p.z + 0.5}`, { match: /teleported miner/ })
    await waitFor(() => Math.floor(bot.entity.position.y) === y, 5000, 'in the pocket')
    await command(bot, `/mcbot summon zombie ${p.x + 5.5} ${y} ${p.z + 0.5}`)
    await waitFor(() => Object.values(bot.entities).some((e) => e.name === 'zombie'), 5000, 'the zombie in the cave')
    let snap = snapshot(bot)
    let zombie = snap.entities.find((e) => e.name === 'zombie')
    assert.ok(zombie.hostile && zombie.distance < 6, `seen, ${zombie.distance} blocks off`)
    assert.strictEqual(zombie.sealedOff, true, 'behind four blocks of stone')
    assert.strictEqual(snap.hostiles, 0, 'not near: it cannot get at the bot')

    // a tunnel between them half filled with slabs: not whole blocks, so the way is open
    await command(bot, `/mcbot fill ${p.x + 1} ${y} ${p.z} ${p.x + 3} ${y + 1} ${p.z} oak_slab`)
    await waitFor(() => bot.blockAt(p.offset(2, -9, 0))?.name === 'oak_slab', 5000, 'the slabs')
    snap = snapshot(bot)
    assert.strictEqual(snap.entities.find((e) => e.name === 'zombie').sealedOff, undefined, 'slabs are no wall')
    await command(bot, `/mcbot fill ${p.x + 1} ${y} ${p.z} ${p.x + 3} ${y + 1} ${p.z} air`) // the tunnel clear
    await waitFor(() => bot.blockAt(p.offset(2, -9, 0))?.name === 'air', 5000, 'the tunnel')
    snap = snapshot(bot)
    zombie = snap.entities.find((e) => e.name === 'zombie')
    assert.strictEqual(zombie.sealedOff, undefined, 'through the tunnel it can')
    assert.strictEqual(snap.hostiles, 1)
    assert.strictEqual(zombie.near, true, 'and it is the one counted')

    // a stack of 0 or fewer in the inventory is read as empty (as a 1.18.2 bench bot's once was)
    await command(bot, '/give miner dirt 3', { match: /./ })
    await command(bot, '/give miner cobblestone 5', { match: /./ })
    await waitFor(() => bot.inventory.items().length === 2, 5000, 'two stacks')
    bot.inventory.items().find((i) => i.name === 'dirt').count = -2
    assert.deepStrictEqual(snapshot(bot).inventory, [{ name: 'cobblestone', count: 5 }])
  } finally {
    await command(bot, '/mcbot tick unfreeze').catch(() => {})
    bot.quit()
    await s.stop()
  }
})

test('from a death until the bot stands where it respawned, the snapshot says it is dead', { timeout: 120000 }, async () => {
  const s = await startServer({ hostiles: false, animals: false })
  const bot = await connectBot(s.port, 'fallen')
  trackRespawn(bot)
  try {
    await waitFor(() => bot.entity.onGround, 10000, 'standing')
    const spawn = bot.entity.position.clone()
    await command(bot, `/mcbot tp fallen ${spawn.x + 20} ${spawn.y} ${spawn.z}`)
    await waitFor(() => bot.entity.position.distanceTo(spawn) > 15, 10000, 'away from the spawn')
    const deathSpot = bot.entity.position.clone()
    // read at the moment mineflayer takes the respawn's health, and at the position that follows
    const alive = new Promise((resolve) => bot.once('death', () => bot.once('spawn', () => resolve(snapshot(bot)))))
    const moved = new Promise((resolve) => bot.once('death', () => bot.once('forcedMove', () => resolve(snapshot(bot)))))
    await command(bot, '/mcbot damage fallen 100')
    const early = await withTimeout(alive, 30000, 'the respawn\'s health')
    assert.ok(bot.health > 0, 'mineflayer has the new health')
    assert.strictEqual(early.health, 0, `health ${early.health} read at ${JSON.stringify(early.position)} before the respawn's position`)
    const back = await withTimeout(moved, 30000, 'the respawn\'s position')
    assert.ok(back.health > 0, 'alive once it stands where it respawned')
    const at = bot.entity.position
    assert.ok(at.distanceTo(deathSpot) > 15, `respawned at ${at}, away from where it died (${deathSpot})`)
  } finally {
    bot.quit()
    await s.stop()
  }
})
