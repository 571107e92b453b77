'use strict'
// The bridge's heartbeat, read by Python without JSPyBridge (bot/runtime/heartbeat.py):
// every JSPyBridge call waits on one Python thread, so a slow answer there cannot tell a
// busy bridge from a wedged node; this file can. It is rewritten from a timer on node's
// event loop, so a loop that never yields stops it, and each beat carries how late the loop
// ran since the last one, the heap and the RSS.
const fs = require('fs')
const v8 = require('v8')
const { monitorEventLoopDelay, performance } = require('perf_hooks')

function startHeartbeat (path, intervalMs) {
  if (!path) return null // not started by the Python bridge (node's own tests)
  const delay = monitorEventLoopDelay({ resolution: 20 })
  delay.enable()
  const heapLimitMb = Math.round(v8.getHeapStatistics().heap_size_limit / 2 ** 20)
  const tmp = `${path}.${process.pid}.tmp`
  let seq = 0
  let last = performance.now()
  const beat = () => {
    const now = performance.now()
    // A loop blocked for a while fires this timer late: the drift, or the delay histogram's
    // worst since the last beat, whichever says more.
    const lagMs = Math.max(0, now - last - intervalMs, delay.max / 1e6)
    last = now
    delay.reset()
    const mem = process.memoryUsage()
    const body = JSON.stringify({
      pid: process.pid,
      seq: ++seq,
      ts: Date.now(),
      lagMs: Math.round(lagMs),
      heapUsedMb: Math.round(mem.heapUsed / 2 ** 20),
      rssMb: Math.round(mem.rss / 2 ** 20),
      heapLimitMb
    })
    try {
      fs.writeFileSync(tmp, body) // then renamed: Python never reads half a beat
      fs.renameSync(tmp, path)
    } catch (e) {} // a file that can't be written: Python sees the beats stop and says so
  }
  beat()
  const timer = setInterval(beat, intervalMs)
  timer.unref() // never what keeps node alive
  // Python removes the file's folder when it stops the bridge; a Python that was killed
  // cannot, and we exit after it (stdin closed): the last one out tidies up.
  process.on('exit', () => {
    try {
      if (JSON.parse(fs.readFileSync(path, 'utf8')).pid === process.pid) {
        fs.rmSync(path, { force: true })
        fs.rmdirSync(require('path').dirname(path)) // only if nothing else is in it
      }
    } catch (e) {}
  })
  return timer
}

module.exports = { startHeartbeat }
