'use strict'
// A world folder may hold a vanilla save (server.world_folder pointing at a copy of one): its
// generated chunks are played as they are, through prismarine-provider-anvil. A chunk whose
// blocks vanilla had not finished (a status before `features`: only structure starts, biomes or
// carved terrain without its ores and trees) or that cannot be read is made by our generator instead, and the log says so; a save newer than the
// running version is refused at start, naming its file (its blocks and items would not load).
const fs = require('fs')
const path = require('path')
const zlib = require('zlib')

const SECTOR = 4096
// A chunk's generation steps after which its blocks are final (features placed; light and mob
// spawning follow), from an unfinished save's border ring inwards.
const FINAL = new Set(['features', 'initialize_light', 'light', 'spawn', 'heightmaps', 'full'])
const OLDEST = 2860 // 1.18's data version: the first of the -64..320 world

// The data version of the first chunk stored in a region file, or null for an empty one.
// Throws on a file that is not a region file.
function regionDataVersion (file) {
  const fd = fs.openSync(file, 'r')
  try {
    const size = fs.fstatSync(fd).size
    if (size < 2 * SECTOR || size % SECTOR !== 0) throw new Error(`not a region file (${size} bytes)`)
    const header = Buffer.alloc(SECTOR)
    fs.readSync(fd, header, 0, SECTOR, 0)
    for (let i = 0; i < 1024; i++) {
      const sector = header.readUIntBE(i * 4, 3)
      if (sector === 0) continue
      const head = Buffer.alloc(5)
      fs.readSync(fd, head, 0, 5, sector * SECTOR)
      const length = head.readUInt32BE(0)
      if (length < 2 || sector * SECTOR + 4 + length > size) throw new Error(`chunk ${i} lies outside the file`)
      const body = Buffer.alloc(length - 1)
      fs.readSync(fd, body, 0, length - 1, sector * SECTOR + 5)
      const raw = head[4] === 1 ? zlib.gunzipSync(body) : head[4] === 2 ? zlib.inflateSync(body) : body
      const parsed = require('prismarine-nbt').parseUncompressed(raw)
      const dataVersion = parsed.value.DataVersion
      return dataVersion ? dataVersion.value : null
    }
    return null
  } finally {
    fs.closeSync(fd)
  }
}

// Refuses (throws) a save this version cannot play: chunks of a newer version, or of one before
// 1.18 (another world height and chunk format). A region file that cannot be read is logged and
// its chunks are made anew, chunk by chunk (installSaveGuard): a world killed while the provider
// made a region file leaves a short one, which must not keep the world from starting again.
function checkSave (worldFolder, registry, log = () => {}) {
  const folder = path.join(worldFolder, 'region')
  if (!fs.existsSync(folder)) return { files: 0, newest: null }
  const own = registry.version.dataVersion
  let newest = null
  let files = 0
  for (const name of fs.readdirSync(folder).filter((n) => /^r\.-?\d+\.-?\d+\.mca$/.test(n))) {
    const file = path.join(folder, name)
    let version
    try {
      version = regionDataVersion(file)
    } catch (err) {
      log(`${file} cannot be read (${err.message}): its chunks will be generated anew`)
      continue
    }
    files++
    if (version !== null && version > own) {
      throw new Error(`${file} holds chunks of data version ${version}, newer than this world's ` +
        `${registry.version.minecraftVersion} (${own}): run a newer server.embedded_version`)
    }
    if (version !== null && version < OLDEST) {
      throw new Error(`${file} holds chunks of data version ${version}, from before 1.18 (${OLDEST}): ` +
        'open the save in a 1.18 or newer vanilla game once, so it is upgraded')
    }
    if (version !== null && (newest === null || version > newest)) newest = version
  }
  return { files, newest }
}

// Every chunk flying-squid loads from a save goes through here (call before the world plugin
// makes its provider).
function installSaveGuard (log) {
  const anvil = require('prismarine-provider-anvil')
  // flying-squid reads the seed from level.dat's RandomSeed, which vanilla keeps in
  // WorldGenSettings since 1.16; finding none, it wrote a level.dat of its own over vanilla's.
  const readLevel = anvil.level.readLevel
  anvil.level.readLevel = async (file) => {
    const data = await readLevel(file)
    const seed = data && !data.RandomSeed && data.WorldGenSettings ? data.WorldGenSettings.seed : undefined
    if (seed !== undefined) data.RandomSeed = [Array.isArray(seed) ? seed[1] : Number(seed), 0]
    return data
  }
  const original = anvil.Anvil
  anvil.Anvil = (registry) => {
    const Base = original(registry)
    return class GuardedAnvil extends Base {
      async load (x, z) {
        let raw
        try {
          raw = await this.loadRaw(x, z)
        } catch (err) {
          log(`chunk ${x},${z} cannot be read (${err.message}): generated anew`)
          return null
        }
        if (!raw) return null
        const status = raw.value.Status ? String(raw.value.Status.value).replace('minecraft:', '') : 'full'
        if (!FINAL.has(status)) return null // vanilla had not placed its blocks yet: ours instead
        try {
          return await super.load(x, z)
        } catch (err) {
          log(`chunk ${x},${z} cannot be read (${err.message}): generated anew`)
          return null
        }
      }
    }
  }
}

module.exports = { checkSave, installSaveGuard, regionDataVersion }
