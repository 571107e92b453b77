// A move that puts the player's box into a block's side is refused, as 1.21.11 does.
'use strict'

// Vanilla 1.21.11 checks every move against the player's box in single precision (0.6f wide,
// 1.8f tall) and silently sends a player back whose box overlaps a block, however little.
// A client simulating in double precision stops flush against a block face, which the float
// box overlaps by about 1e-8: mineflayer bots on 1.21.11 could not step up a block, climb out
// of water or walk along a wall. The embedded world refuses those moves the same way (on full
// blocks; the overlap the float box adds is what is checked), so the bot's fix for it
// (lib/client_fixes.js) is tested here.
const { Vec3 } = require('vec3')

const HALF_WIDTH = Math.fround(0.6) / 2
const HEIGHT = Math.fround(1.8)
const FLOAT_SLACK = 1e-6 // an overlap below this comes from the float box alone

module.exports.player = function (player, serv) {
  const { registry } = serv
  if (!registry.version['>=']('1.21.11')) return
  const client = player._client
  const Block = require('prismarine-block')(registry)
  const cubes = new Map() // state id -> whether its collision shape is the whole block
  const full = (x, y, z) => {
    const state = player.world.sync.getBlockStateId(new Vec3(x, y, z)) || 0
    if (!cubes.has(state)) {
      const shapes = Block.fromStateId(state, 0).shapes || []
      cubes.set(state, shapes.length === 1 && isCube(shapes[0]))
    }
    return cubes.get(state)
  }

  // Whether a box at p overlaps the side of a full block by no more than the float slack.
  function clipped (p) {
    const box = { minX: p.x - HALF_WIDTH, maxX: p.x + HALF_WIDTH, minY: p.y, maxY: p.y + HEIGHT, minZ: p.z - HALF_WIDTH, maxZ: p.z + HALF_WIDTH }
    for (let x = Math.floor(box.minX); x <= Math.floor(box.maxX); x++) {
      for (let y = Math.floor(box.minY + FLOAT_SLACK); y <= Math.floor(box.maxY - FLOAT_SLACK); y++) {
        for (let z = Math.floor(box.minZ); z <= Math.floor(box.maxZ); z++) {
          const ox = Math.min(box.maxX, x + 1) - Math.max(box.minX, x)
          const oz = Math.min(box.maxZ, z + 1) - Math.max(box.minZ, z)
          if (ox <= 0 || oz <= 0 || (ox > FLOAT_SLACK && oz > FLOAT_SLACK)) continue
          if (full(x, y, z)) return true
        }
      }
    }
    return false
  }

  const MOVES = new Set(['position', 'position_look'])
  const emit = client.emit
  client.emit = function (name, packet, ...rest) {
    if (MOVES.has(name) && !player.mcbotTeleport && packet && Number.isFinite(packet.x) && clipped(packet)) {
      player.sendSelfPosition() // back where the server has it, as vanilla's silent correction
      return false
    }
    return emit.call(this, name, packet, ...rest)
  }
}

function isCube (s) {
  return s[0] === 0 && s[1] === 0 && s[2] === 0 && s[3] === 1 && s[4] === 1 && s[5] === 1
}
