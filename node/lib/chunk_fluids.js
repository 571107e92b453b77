'use strict'
// prismarine-chunk 1.41 counts each section's fluids from 26.1 on (the count is in its wire
// format), and it does so by building a prismarine-block for the old and the new state of
// every block set: generating a chunk at 26.1 took several times as long as at 1.21.11, and
// a world just started kept its event loop busy long enough under load that a status ping
// timed out (tests/integration/test_world_identity.py). The answer depends on the state id
// only, so it is worked out once per state. Install before any chunk class is made.
const SECTION = require.resolve('prismarine-chunk/src/pc/common/PaletteChunkSection')

function installFluidMemo () {
  const original = require(SECTION)
  if (original.mcbotFluidMemo) return
  const memoized = (Block) => original(fluidLookup(Block))
  memoized.mcbotFluidMemo = true
  require.cache[SECTION].exports = memoized
}

// What the section asks of a block (its name, whether it is waterlogged), once per state.
function fluidLookup (Block) {
  const seen = new Map()
  return {
    fromStateId (stateId) {
      let block = seen.get(stateId)
      if (!block) {
        const real = Block.fromStateId(stateId)
        block = { name: real.name, isWaterlogged: real.isWaterlogged }
        seen.set(stateId, block)
      }
      return block
    }
  }
}

module.exports = { installFluidMemo }
