'use strict'
// One world process per world folder, as vanilla's session.lock: two servers saving the same
// region files (`make server` beside `make run`) would overwrite each other's chunks. The lock
// names the process holding it; one whose process is gone (killed) is taken over.
const fs = require('fs')
const path = require('path')

const NAME = 'mcbot.lock'

function alive (pid) {
  try { process.kill(pid, 0) } catch (err) { return err.code === 'EPERM' }
  try { return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')) } catch (err) { return true } // a zombie has exited
}

const holderOf = (file) => {
  try { return parseInt(fs.readFileSync(file, 'utf8'), 10) } catch (err) { if (err.code === 'ENOENT') return null; throw err }
}
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

// Throws when another live process holds the folder after `waitMs` (a world whose parent died
// saves and exits within a few seconds: its successor waits for it); else holds the folder
// until this process exits.
function lockWorldFolder (folder, { waitMs = 10000 } = {}) {
  fs.mkdirSync(folder, { recursive: true })
  const file = path.join(folder, NAME)
  const held = () => { const h = holderOf(file); return Number.isInteger(h) && h !== process.pid && alive(h) ? h : null }
  for (let waited = 0; held() && waited < waitMs; waited += 100) sleep(100)
  const holder = held()
  if (holder) throw new Error(`the world folder ${folder} is in use by process ${holder} (another mcbot world)`)
  // take it by an atomic rename, so two worlds starting together cannot both write it unseen
  const mine = `${file}.${process.pid}`
  fs.writeFileSync(mine, String(process.pid))
  fs.renameSync(mine, file)
  if (holderOf(file) !== process.pid) throw new Error(`the world folder ${folder} is in use by process ${holderOf(file)} (another mcbot world)`)
  process.on('exit', () => {
    try { if (parseInt(fs.readFileSync(file, 'utf8'), 10) === process.pid) fs.unlinkSync(file) } catch (err) {}
  })
}

module.exports = { lockWorldFolder, NAME }
