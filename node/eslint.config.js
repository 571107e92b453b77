'use strict'

// The node side's lint: neostandard, the maintained successor of `standard` (whose last
// release pins ESLint 8). Run by `make lint` from the repository root.
module.exports = require('neostandard')({})
