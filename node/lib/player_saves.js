// flying-squid writes a player's file in place (fs.writeFile truncates it first) and lets the
// login, autosave, logout and shutdown saves of one player run over each other. A world killed
// between the truncation and the last byte (a crash, a supervised restart) left a torn file, and
// the player came back with an empty inventory. Here the saves of one player (one uuid, across
// its reconnections) run one at a time, each written to a file of its own in a staging folder
// beside the world and renamed over the old one: a reader sees the old file or the new one,
// never part of one. A player is not saved before its login has loaded its inventory (it joins
// the player list earlier): such a save wrote an empty inventory over the real one.
'use strict'

const fs = require('fs')
const path = require('path')
const playerDat = require('flying-squid/src/lib/playerDat')

const STAGING = '.mcbot-staging'
const queues = new Map() // world folder + uuid -> the last save's promise
let written = 0

function makePlayerSavesAtomic (player, serv, worldFolder) {
  if (!worldFolder || !player.save) return
  const staging = path.join(worldFolder, STAGING)
  let loaded = false
  player.once('spawned', () => { loaded = true })
  player.save = () => {
    if (!loaded) return Promise.resolve()
    const key = `${worldFolder}\0${player.uuid}`
    const run = (queues.get(key) || Promise.resolve()).then(() => saveAtomically(player, serv, worldFolder, staging))
    const settled = run.catch(() => {}) // one failed save does not stop the next
    queues.set(key, settled)
    settled.then(() => { if (queues.get(key) === settled) queues.delete(key) })
    return run
  }
}

async function saveAtomically (player, serv, worldFolder, staging) {
  const final = path.join(worldFolder, 'playerdata', `${player.uuid}.dat`)
  // flying-squid writes `${root}/playerdata/<uuid>.dat`: each save gets a root of its own
  const root = path.join(staging, `${process.pid}-${++written}`)
  const staged = path.join(root, 'playerdata', `${player.uuid}.dat`)
  await fs.promises.mkdir(path.dirname(staged), { recursive: true })
  await fs.promises.mkdir(path.dirname(final), { recursive: true })
  try {
    // flying-squid updates the fields it knows in the file it finds and keeps the rest.
    await fs.promises.copyFile(final, staged).catch((err) => { if (err.code !== 'ENOENT') throw err })
    await playerDat.save(player, root, serv.supportFeature('attributeSnakeCase'), serv.supportFeature('theFlattening'))
    await fs.promises.rename(staged, final)
  } finally {
    await fs.promises.rm(root, { recursive: true, force: true })
  }
}

module.exports = { makePlayerSavesAtomic, STAGING }
