'use strict'
// A box of blocks in one call: palette of names + one palette index per block, ordered
// y, then z, then x (agency.world.BlockRegion). Reads chunk sections directly by state id:
// no Vec3 or Block objects per block, which is what makes a 32x32x16 box cheap.
const MAX_BLOCKS = 64 * 64 * 64

function region (bot, box) {
  const [ox, oy, oz] = box.origin.map(Math.floor)
  const [sx, sy, sz] = box.size.map(Math.floor)
  if (sx < 0 || sy < 0 || sz < 0) throw new Error(`bad region size ${box.size}`)
  if (sx * sy * sz > MAX_BLOCKS) throw new Error(`region too large: ${sx * sy * sz} blocks (max ${MAX_BLOCKS})`)
  const byState = bot.registry.blocksByStateId
  const palette = []
  const paletteIndex = new Map() // stateId (or -1 = unloaded) -> palette index
  const data = new Array(sx * sy * sz)
  const p = { x: 0, y: 0, z: 0 }
  for (let z = 0; z < sz; z++) {
    for (let x = 0; x < sx; x++) {
      const wx = ox + x
      const wz = oz + z
      const column = bot.world.getColumn(wx >> 4, wz >> 4)
      p.x = wx & 15
      p.z = wz & 15
      for (let y = 0; y < sy; y++) {
        let key = -1
        if (column) {
          p.y = oy + y
          key = column.getBlockStateId(p)
        }
        let idx = paletteIndex.get(key)
        if (idx === undefined) {
          idx = palette.length
          paletteIndex.set(key, idx)
          palette.push(key === -1 ? null : (byState[key] ? byState[key].name : `unknown_state_${key}`))
        }
        data[(y * sz + z) * sx + x] = idx
      }
    }
  }
  return { origin: [ox, oy, oz], size: [sx, sy, sz], palette, data }
}

module.exports = { region }
