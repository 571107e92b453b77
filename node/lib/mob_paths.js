// A walking mob's way around what stands between it and its target (plugins/mobs.js): an A*
// over the block grid, as vanilla's ground navigation plans, bounded in nodes so a mob boxed in
// costs a few hundred block reads and gives up. A cell can be stood in when the body's cells
// (feet up to its height) are free and the cell under them holds it; from a cell a mob walks to
// its four sides, steps up one block, or drops up to three (vanilla's safe fall for a walker).
// Closed doors are solid to `solid`, so a shut house stays shut.
'use strict'

const MAX_NODES = 400
const MAX_DROP = 3
const SIDES = [[1, 0], [-1, 0], [0, 1], [0, -1]]

// solid(x, y, z): does that cell block a body. from, to: {x, y, z} cells (the feet).
// Returns the cells to walk through after `from`, ending at `to` or the cell nearest to it that
// was reached (null when no cell is nearer than `from`, or `from` cannot be stood in).
function findPath (solid, from, to, { height = 2, maxNodes = MAX_NODES } = {}) {
  const free = (x, y, z) => {
    for (let k = 0; k < height; k++) if (solid(x, y + k, z)) return false
    return true
  }
  const standable = (x, y, z) => free(x, y, z) && solid(x, y - 1, z)
  const key = (c) => `${c.x},${c.y},${c.z}`
  const guess = (c) => Math.abs(c.x - to.x) + Math.abs(c.z - to.z) + Math.abs(c.y - to.y)
  const start = { x: from.x, y: from.y, z: from.z, g: 0, parent: null }
  start.f = guess(start)
  const open = [start]
  const seen = new Map([[key(start), start]])
  let best = start
  let expanded = 0
  while (open.length && expanded < maxNodes) {
    let i = 0
    for (let j = 1; j < open.length; j++) if (open[j].f < open[i].f) i = j
    const c = open[i]
    open[i] = open[open.length - 1]
    open.pop()
    expanded++
    if (c.x === to.x && c.y === to.y && c.z === to.z) { best = c; break }
    if (guess(c) < guess(best)) best = c
    for (const [dx, dz] of SIDES) {
      const n = next(c, c.x + dx, c.z + dz)
      if (!n) continue
      const g = c.g + 1 + Math.abs(n.y - c.y) * 0.5
      const k = key(n)
      const old = seen.get(k)
      if (old && old.g <= g) continue
      const node = { ...n, g, f: g + guess(n), parent: c }
      seen.set(k, node)
      open.push(node)
    }
  }
  if (best === start) return null
  const path = []
  for (let c = best; c !== start; c = c.parent) path.push({ x: c.x, y: c.y, z: c.z })
  return path.reverse()

  // The cell a walker in cell c ends in when it moves to column (x, z): level, one up (a jump,
  // with room over its head), or down the drop; null when none.
  function next (c, x, z) {
    const y = c.y
    if (standable(x, y, z)) return { x, y, z }
    if (standable(x, y + 1, z) && !solid(c.x, y + height, c.z)) return { x, y: y + 1, z }
    if (!free(x, y, z)) return null
    for (let d = 1; d <= MAX_DROP; d++) {
      if (!free(x, y - d, z)) return null
      if (standable(x, y - d, z)) return { x, y: y - d, z }
    }
    return null
  }
}

module.exports = { findPath, MAX_NODES }
