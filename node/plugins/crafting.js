// Crafting: recipe matching from minecraft-data (shaped, mirrored shaped, shapeless) and the
// 3x3 crafting-table menu opened by using a placed crafting_table. A shaped recipe's cell takes
// any item that cell holds in another variant of the same recipe (minecraft-data lists a
// bookshelf once per wood; vanilla's tag takes any planks in each cell, mixed). The click engine that
// moves items and takes results lives in _clicks.js (used by windows.js); this file answers "what does this grid
// make" and "what is left in the grid after taking it".
'use strict'

module.exports.server = function (serv) {
  const { registry } = serv
  const Item = require('prismarine-item')(registry)

  // Recipes grouped by ingredient count, built once; per shaped recipe, the ids each cell takes.
  let byCount = null
  const cellChoices = new Map() // recipe -> rows of Sets of ids
  function index () {
    byCount = new Map()
    for (const list of Object.values(registry.recipes)) {
      const families = new Map() // shape signature -> rows of Sets, shared by the variants
      for (const rec of list) {
        const cells = rec.inShape ? rec.inShape.flat().filter(c => c !== null) : rec.ingredients
        const n = cells.length
        if (!byCount.has(n)) byCount.set(n, [])
        byCount.get(n).push(rec)
        if (!rec.inShape) continue
        const sig = rec.result.count + ':' + rec.inShape.map(row => row.map(c => (c === null ? '_' : 'x')).join('')).join('/')
        if (!families.has(sig)) families.set(sig, rec.inShape.map(row => row.map(() => new Set())))
        const sets = families.get(sig)
        rec.inShape.forEach((row, y) => row.forEach((id, x) => { if (id !== null) sets[y][x].add(id) }))
        cellChoices.set(rec, sets)
      }
    }
  }

  // grid: array of w*w Items (or null), row-major. Returns { recipe, result: Item, mirrored } or null.
  serv.mcbotMatchRecipe = (grid, w) => {
    if (!byCount) index()
    let minX = w; let minY = w; let maxX = -1; let maxY = -1
    const ids = []
    grid.forEach((it, i) => {
      if (!it) return
      const x = i % w; const y = Math.floor(i / w)
      minX = Math.min(minX, x); maxX = Math.max(maxX, x)
      minY = Math.min(minY, y); maxY = Math.max(maxY, y)
      ids.push(it.type)
    })
    if (ids.length === 0) return null
    const bw = maxX - minX + 1
    const bh = maxY - minY + 1
    const cell = (x, y) => { const it = grid[(minY + y) * w + minX + x]; return it ? it.type : null }
    const sortedIds = ids.slice().sort((a, b) => a - b).join(',')
    for (const rec of byCount.get(ids.length) || []) {
      if (rec.inShape) {
        const shape = rec.inShape
        if (shape.length !== bh || shape.some(row => row.length !== bw)) continue
        const sets = cellChoices.get(rec)
        for (const mirrored of [false, true]) {
          let ok = true
          for (let y = 0; y < bh && ok; y++) {
            for (let x = 0; x < bw && ok; x++) {
              const sx = mirrored ? bw - 1 - x : x
              const want = shape[y][sx] ?? null
              const got = cell(x, y)
              if (want === null ? got !== null : got === null || !sets[y][sx].has(got)) ok = false
            }
          }
          if (ok) return { recipe: rec, result: new Item(rec.result.id, rec.result.count), mirrored, minX, minY }
        }
      } else if (rec.ingredients.slice().sort((a, b) => a - b).join(',') === sortedIds) {
        return { recipe: rec, result: new Item(rec.result.id, rec.result.count), mirrored: false, minX, minY }
      }
    }
    return null
  }

  // Consume one of each ingredient from the grid (in place); outShape leftovers (cake's
  // buckets) stay in their grid cell, like vanilla's remaining items.
  serv.mcbotConsumeRecipe = (grid, w, match) => {
    grid.forEach((it, i) => {
      if (!it) return
      it.count -= 1
      if (it.count <= 0) grid[i] = null
    })
    const out = match.recipe.outShape
    if (!out) return
    out.forEach((row, y) => row.forEach((id, x) => {
      if (id === null || id === undefined) return
      const gx = match.minX + (match.mirrored ? row.length - 1 - x : x)
      const i = (match.minY + y) * w + gx
      if (!grid[i]) grid[i] = new Item(id, 1)
    }))
  }

  // Using a placed crafting table opens the 3x3 menu (sneaking players place blocks instead).
  serv.onBlockInteraction('crafting_table', ({ player, block }) => {
    if (player.crouching) return false
    player.mcbotOpenCraftingTable(block.position)
    return true
  })
}
