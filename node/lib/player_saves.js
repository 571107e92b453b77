// flying-squid writes a player's file in place (fs.writeFile truncates it first) and lets the
// login, autosave, logout and shutdown saves of one player run over each other. A world killed
// between the truncation and the last byte (a crash, a supervised restart) left a torn file, and
// the player came back with an empty inventory. Here one player's saves run one at a time, each
// written to a staging folder beside the world and renamed over the old file: a reader sees the
// old file or the new one, never part of one.
'use strict'

const fs = require('fs')
const path = require('path')
const playerDat = require('flying-squid/src/lib/playerDat')

const STAGING = '.mcbot-staging'

function makePlayerSavesAtomic (player, serv, worldFolder) {
  if (!worldFolder || !player.save) return
  const staging = path.join(worldFolder, STAGING)
  let last = Promise.resolve()
  player.save = () => {
    const run = last.then(() => saveAtomically(player, serv, worldFolder, staging))
    last = run.catch(() => {}) // one failed save does not stop the next
    return run
  }
}

async function saveAtomically (player, serv, worldFolder, staging) {
  const name = `${player.uuid}.dat`
  const final = path.join(worldFolder, 'playerdata', name)
  const staged = path.join(staging, 'playerdata', name)
  await fs.promises.mkdir(path.dirname(staged), { recursive: true })
  await fs.promises.mkdir(path.dirname(final), { recursive: true })
  // flying-squid updates the fields it knows in the file it finds and keeps the rest.
  await fs.promises.copyFile(final, staged).catch((err) => { if (err.code !== 'ENOENT') throw err })
  await playerDat.save(player, staging, serv.supportFeature('attributeSnakeCase'), serv.supportFeature('theFlattening'))
  await fs.promises.rename(staged, final)
}

module.exports = { makePlayerSavesAtomic, STAGING }
