'use strict'
// Blocks as the game has them, from minecraft-data. Its 1.18 data gives the snow layer a
// 'block' bounding box where every later version's data says 'empty' (a layer of one has no
// collision in the game, deeper snow its height in its shapes, as the pathfinder reads them):
// at 1.18.2 the
// pathfinder took a snowy plain for a wall of blocks (a shelter's builder could not step onto
// a snowy cell next to it), a surface search found no open cell in it, and the server's
// suffocation check counted it. Corrected in place, once per registry, on the bots and on the
// embedded server alike.
function fixBlocks (registry) {
  if (!registry || !registry.blocksByName || registry.mcbotBlocksFixed) return registry
  registry.mcbotBlocksFixed = true
  const snow = registry.blocksByName.snow
  if (snow && snow.boundingBox === 'block') snow.boundingBox = 'empty'
  return registry
}

module.exports = { fixBlocks }
