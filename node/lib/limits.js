'use strict'
// Bounds on every search an action starts, so a target that cannot be reached ends the action
// with a reason instead of growing the node process. Measured here: pathfinder's A* holds about
// 2 KB per node it generated and generates 1,500-3,000 nodes a second of thinking.

module.exports = {
  // Nodes one path search may generate (open + closed): about 40 MB, and about 10 s of thinking
  // at 40 ms a tick. Paths the bot walks or digs within a collect radius need a few thousand.
  PATH_MAX_NODES: 20000,
  // Wall-clock time one path search may take in all, thinking a slice of each tick: long enough
  // for a dig path on a loaded machine, short enough that a hopeless one ends the step soon.
  PATH_THINK_MS: 10000,
  // Thinking per physics tick (of 50 ms) for all the bridge's bots together, leaving the rest of
  // the tick to everything else: lib/bots.js shares it among them (at least 4 ms each).
  PATH_TICK_MS: 40,
  // How much dearer than the straight-line estimate a path may be (pathfinder's searchRadius, in
  // its cost units: 1 a block walked). A walk may go this far round an obstacle.
  WALK_SEARCH_RADIUS: 64,
  // A path that digs pays 3-10 per block of rock or earth broken, so the same room to manoeuvre
  // costs about twice as much.
  DIG_SEARCH_RADIUS: 128,
  // Block scans (lib/find_blocks.js): no sphere wider than this is searched, and no more
  // positions than this are returned (a collect wants its count plus a few spares).
  SCAN_MAX_DISTANCE: 64,
  SCAN_MAX_COUNT: 64
}
