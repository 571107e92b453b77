'use strict'
// Put on the best armour held (../wear.js): after a death's items are picked up, the armour the
// bot wore lies in its inventory. Returns { worn: [names put on] }.
const { wearBest } = require('../wear')

async function run (bot) {
  return { worn: await wearBest(bot) }
}

module.exports = { run, defaultTimeoutMs: 10000 }
