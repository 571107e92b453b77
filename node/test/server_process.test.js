// server.js as a process: it exits when its stdin closes, fails clearly on a busy port, stops
// when its parent dies even with its stdin held open, and holds its world folder alone.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { spawn } = require('child_process')
const path = require('path')
const fs = require('fs')
const os = require('os')
const { startServer, waitFor, VERSION, oneVersion } = require('./helpers')

test('server exits when stdin closes and fails clearly on a busy port', { timeout: 90000, ...oneVersion('the life of the server process, not the protocol') }, async () => {
  const a = await startServer({})
  const code = await new Promise((resolve) => {
    const proc = spawn(process.execPath, [path.join(__dirname, '..', 'server.js'), '--port', String(a.port)], { stdio: ['pipe', 'pipe', 'pipe'] })
    let err = ''
    proc.stderr.on('data', d => { err += d })
    proc.on('exit', (c) => resolve({ c, err }))
  })
  assert.notStrictEqual(code.c, 0)
  assert.match(code.err, /MCBOT_SERVER_FAILED EADDRINUSE/)
  assert.strictEqual(await a.stop(), 0)
})

test('the server stops when its parent dies even while another process holds its stdin open', { timeout: 180000, ...oneVersion('the life of the server process, not the protocol') }, async () => {
  // A daemon killed with SIGKILL closes our stdin, and we exit on that; but a copy of the
  // pipe's write end elsewhere (here `sleep`, on a FIFO) keeps stdin open: the parent check
  // must stop us anyway.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbot-orphan-'))
  const fifo = path.join(dir, 'stdin')
  require('child_process').execFileSync('mkfifo', [fifo])
  const server = path.join(__dirname, '..', 'server.js')
  const script = `sleep 60 > '${fifo}' & echo "SLEEP_PID $!"; "${process.execPath}" '${server}' --port 0 --version ${VERSION} --config '{"hostiles":false}' < '${fifo}' & echo "SERVER_PID $!"; wait`
  const sh = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  sh.stdout.on('data', (d) => { out += d })
  let serverPid = null
  try {
    await waitFor(() => /MCBOT_SERVER_READY/.test(out), 20000, 'server ready')
    serverPid = parseInt(/SERVER_PID (\d+)/.exec(out)[1], 10)
    sh.kill('SIGKILL')
    const alive = () => { try { process.kill(serverPid, 0); return true } catch (e) { return false } }
    // the server's own parent check runs every second of wall-clock time: that timer is what is
    // under test, and the bound leaves room for a loaded machine
    await waitFor(() => !alive(), 20000, 'the orphaned server to exit')
  } finally {
    if (serverPid) { try { process.kill(serverPid, 'SIGKILL') } catch (e) { /* gone */ } }
    const sleeper = /SLEEP_PID (\d+)/.exec(out)
    if (sleeper) { try { process.kill(parseInt(sleeper[1], 10), 'SIGKILL') } catch (e) { /* gone */ } }
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('one world process per world folder: a second is refused while the first runs, then takes it over', { timeout: 120000, ...oneVersion('the life of the server process, not the protocol') }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbot-lock-'))
  const first = await startServer({ worldFolder: dir, hostiles: false })
  try {
    const second = spawn(process.execPath, [path.join(__dirname, '..', 'server.js'), '--port', '0', '--version', VERSION,
      '--config', JSON.stringify({ worldFolder: dir })], { stdio: ['pipe', 'pipe', 'pipe'] })
    let err = ''
    second.stderr.on('data', (d) => { err += d })
    const code = await new Promise((resolve) => second.on('exit', resolve))
    assert.strictEqual(code, 2)
    assert.match(err, new RegExp(`MCBOT_SERVER_FAILED the world folder .* is in use by process ${first.proc.pid}`))
  } finally {
    first.proc.kill('SIGKILL') // its lock stays behind, naming a process that is gone
    await new Promise((resolve) => first.proc.on('exit', resolve))
  }
  const third = await startServer({ worldFolder: dir, hostiles: false })
  await third.stop()
  fs.rmSync(dir, { recursive: true, force: true })
})
