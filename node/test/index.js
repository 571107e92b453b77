// Makes `node --test test/` work on Node 22+ too: Node 20 expands the directory into its test
// files, Node 22 runs the directory as one module, i.e. this file, which then loads every
// *.test.js. Run any other way (Node 20 runs it as a file of its own) it does nothing.
'use strict'

const fs = require('fs')
const path = require('path')

if (require.main === module && path.resolve(process.argv[1]) === __dirname) {
  for (const f of fs.readdirSync(__dirname).filter(n => n.endsWith('.test.js')).sort()) require(path.join(__dirname, f))
}
