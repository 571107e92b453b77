// A world folder holding a real vanilla save (prismarine-provider-anvil's 1.21.1 fixture, copied
// into a temporary folder): its real chunks are played and ours are generated around them; the
// bot, put in them, mines a real ore there. An older version refuses the save.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const crypto = require('crypto')
const fs = require('fs')
const os = require('os')
const path = require('path')
const { spawn } = require('child_process')
const { Vec3 } = require('vec3')
const { startServer, connectBot, waitFor, command, VERSION } = require('./helpers')

const FIXTURE = path.join(path.dirname(require.resolve('prismarine-provider-anvil/package.json')), 'test', 'fixtures', '1.21.1', 'r.0.0.mca')
const digest = () => crypto.createHash('sha256').update(fs.readFileSync(FIXTURE)).digest('hex')
const newEnough = require('prismarine-registry')(VERSION).version['>=']('1.21.1')

function saveCopy () {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbot-vanilla-'))
  fs.mkdirSync(path.join(dir, 'region'))
  fs.copyFileSync(FIXTURE, path.join(dir, 'region', 'r.0.0.mca'))
  return dir
}

// A world started on `dir` that must refuse it: exits 2; resolves with what it said on stderr.
async function refusedAtStart (dir) {
  const proc = spawn(process.execPath, [path.join(__dirname, '..', 'server.js'), '--port', '0', '--version', VERSION,
    '--config', JSON.stringify({ worldFolder: dir })], { stdio: ['pipe', 'pipe', 'pipe'] })
  let err = ''
  proc.stderr.on('data', (d) => { err += d })
  assert.strictEqual(await new Promise((resolve) => proc.on('exit', resolve)), 2, `exit code (stderr: ${err})`)
  return err
}

// An ore block with open air beside it where the bot can stand (air at feet and head, solid below).
function exposedOre (bot) {
  const ores = bot.registry.blocksArray.filter((b) => /_ore$/.test(b.name)).map((b) => b.id)
  for (const p of bot.findBlocks({ matching: ores, maxDistance: 64, count: 2000 })) {
    if (p.x < 0 || p.x > 63 || p.z < 0 || p.z > 63) continue // the real chunks only
    for (const [dx, dz] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
      const feet = p.offset(dx, 0, dz)
      const names = [feet, feet.offset(0, 1, 0), feet.offset(0, -1, 0)].map((q) => bot.blockAt(q)?.name)
      if (/air$/.test(names[0]) && /air$/.test(names[1]) && bot.blockAt(feet.offset(0, -1, 0))?.boundingBox === 'block') {
        return { ore: p, feet }
      }
    }
  }
  return null
}

test('the real chunks of a vanilla 1.21.1 save are played: the bot, put there, mines a real ore', { timeout: 240000, skip: newEnough ? false : `a 1.21.1 save is newer than ${VERSION}` }, async () => {
  const before = digest()
  const dir = saveCopy()
  // a level.dat as vanilla writes it: the seed in WorldGenSettings (flying-squid wrote its own over it)
  const nbt = require('prismarine-nbt')
  const level = require('zlib').gzipSync(nbt.writeUncompressed(nbt.comp({
    Data: nbt.comp({ DataVersion: nbt.int(3955), LevelName: nbt.string('a vanilla world'), WorldGenSettings: nbt.comp({ seed: nbt.long([0, 424242]) }) })
  })))
  fs.writeFileSync(path.join(dir, 'level.dat'), level)
  const s = await startServer({ worldFolder: dir, hostiles: false, animals: false, viewDistance: 8 })
  try {
    assert.ok(s.log.some((l) => /1 region files \(newest data version 3955\)/.test(l)), 'the save was seen')
    const bot = await connectBot(s.port, 'miner')
    await waitFor(() => bot.entity.onGround, 20000, 'standing')
    const feet = bot.entity.position.floored()
    assert.notStrictEqual(bot.blockAt(feet).boundingBox, 'block', `spawned on the ground, not inside it (${feet})`)
    await bot.waitForChunksToLoad()
    // the save's chunks 5,0 and 6,0 are unfinished (carved terrain without its ores, biomes
    // only): ours, bedrock at y 0; chunk 4,0 has its features (it waits for light): vanilla's
    await waitFor(() => bot.blockAt(new Vec3(104, 0, 8)) && bot.blockAt(new Vec3(88, 0, 8)), 30000, 'chunks 5,0 and 6,0')
    assert.strictEqual(bot.blockAt(new Vec3(88, 0, 8)).name, 'bedrock', 'carvers: generated anew')
    assert.strictEqual(bot.blockAt(new Vec3(104, 0, 8)).name, 'bedrock', 'biomes: generated anew')
    assert.notStrictEqual(bot.blockAt(new Vec3(72, 0, 8)).name, 'bedrock', 'initialize_light: vanilla\'s')
    const found = exposedOre(bot)
    assert.ok(found, 'a real ore with room beside it')
    const name = bot.blockAt(found.ore).name
    await command(bot, `/mcbot tp miner ${found.feet.x + 0.5} ${found.feet.y} ${found.feet.z + 0.5}`, { match: /teleported miner/ })
    await waitFor(() => bot.entity.position.distanceTo(found.feet.offset(0.5, 0, 0.5)) < 0.5 && bot.entity.onGround, 10000, 'beside the ore')
    await command(bot, '/give miner diamond_pickaxe 1', { match: /gave 1 diamond_pickaxe/ })
    await waitFor(() => bot.inventory.items().some((i) => i.name === 'diamond_pickaxe'), 5000, 'pickaxe')
    await bot.equip(bot.registry.itemsByName.diamond_pickaxe.id, 'hand')
    const held = bot.inventory.items().length
    await bot.dig(bot.blockAt(found.ore))
    assert.strictEqual(bot.blockAt(found.ore).name, 'air', `${name} mined`)
    await waitFor(() => bot.inventory.items().length > held, 10000, `what ${name} drops, picked up`)
    bot.quit()
    assert.ok(s.log.some((l) => /World seed: 424242/.test(l)), 'the seed read from vanilla\'s level.dat')
  } finally {
    await s.stop()
    assert.ok(fs.readFileSync(path.join(dir, 'level.dat')).equals(level), 'vanilla\'s level.dat is not written over')
    fs.rmSync(dir, { recursive: true, force: true })
  }
  assert.strictEqual(digest(), before, 'the fixture itself is never written')
})

test('a save newer than the running version is refused at start, naming its file', { timeout: 60000, skip: newEnough ? `${VERSION} reads a 1.21.1 save` : false }, async () => {
  const dir = saveCopy()
  try {
    assert.match(await refusedAtStart(dir), /MCBOT_SERVER_FAILED .*r\.0\.0\.mca holds chunks of data version 3955, newer than this world's 1\.18\.2/)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('a region file that cannot be read is logged and its chunks made anew: the world still starts', { timeout: 60000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbot-badsave-'))
  fs.mkdirSync(path.join(dir, 'region'))
  fs.writeFileSync(path.join(dir, 'region', 'r.0.0.mca'), 'not a region')
  const s = await startServer({ worldFolder: dir, hostiles: false })
  try {
    assert.ok(s.log.some((l) => /world folder: .*r\.0\.0\.mca cannot be read \(not a region file \(12 bytes\)\): its chunks will be generated anew/.test(l)), s.log.join('\n'))
  } finally {
    await s.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('a save from before 1.18 is refused at start, naming its file', { timeout: 60000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbot-oldsave-'))
  fs.mkdirSync(path.join(dir, 'region'))
  fs.copyFileSync(FIXTURE.replace(`${path.sep}1.21.1${path.sep}`, `${path.sep}1.17.1${path.sep}`), path.join(dir, 'region', 'r.0.0.mca'))
  try {
    assert.match(await refusedAtStart(dir), /MCBOT_SERVER_FAILED .*r\.0\.0\.mca holds chunks of data version 2730, from before 1\.18/)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
