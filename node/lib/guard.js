'use strict'
// docs/contracts.md BRIDGE-2 and BRIDGE-3: an uncaught JS error would kill node and every
// bot with it, and node must never outlive the Python process that started it.

function installCrashGuard (label) {
  process.on('uncaughtException', (err) => {
    console.error(`[${label}] uncaughtException (kept alive):`, err && err.stack ? err.stack : err)
  })
  process.on('unhandledRejection', (err) => {
    console.error(`[${label}] unhandledRejection (kept alive):`, err && err.stack ? err.stack : err)
  })
}

function exitWithParent () {
  // stdin is the parent's pipe: when the parent dies (even SIGKILL), it closes.
  process.stdin.on('end', () => process.exit(0))
  process.stdin.on('close', () => process.exit(0))
  process.stdin.resume()
}

// Every JS-side wait carries its own timeout (BRIDGE-1: a Python timeout firing first kills
// the bridge). Rejects with an error naming what timed out.
function withTimeout (promise, ms, what) {
  let timer
  const timeout = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

module.exports = { installCrashGuard, exitWithParent, withTimeout }
