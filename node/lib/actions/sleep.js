'use strict'
// Lie down in a bed (mineflayer bot.sleep) or get up (bot.wake).
// args: { x, y, z } of either half of the bed, or { wake: true }.
// Sleeping resolves once the bot is in bed (mineflayer's 'sleep' event): the night passes
// without this action, the server wakes the bot in the morning ('wake') and Python reads
// isSleeping in the snapshot. A refusal carries mineflayer's reason (by day, monsters near,
// too far) and, when the server answered, its own words ("You can sleep only at night").
const { Vec3 } = require('vec3')

const WAKE_WAIT_MS = 3000

async function run (bot, args, rec) {
  if (args.wake) return wake(bot)
  const at = new Vec3(args.x, args.y, args.z)
  const bed = bot.blockAt(at)
  if (!bed) throw new Error(`block at ${at} is not loaded`)
  if (!bot.isABed(bed)) throw new Error(`no bed at ${at} (found ${bed.name})`)
  if (bot.isSleeping) return { sleeping: true, already: true, bed: { x: at.x, y: at.y, z: at.z } }
  const heard = []
  const onMessage = (msg) => { const text = msg.toString().trim(); if (text) heard.push(text) }
  bot.on('message', onMessage)
  try {
    await bot.sleep(bed)
  } catch (err) {
    const said = heard.length ? `; the server says: ${heard[heard.length - 1]}` : ''
    throw new Error(`cannot sleep in the bed at ${at}: ${err.message}${said}`)
  } finally {
    bot.removeListener('message', onMessage)
  }
  if (rec.cancelled) return null
  return { sleeping: bot.isSleeping, bed: { x: at.x, y: at.y, z: at.z }, timeOfDay: bot.time.timeOfDay }
}

async function wake (bot) {
  if (!bot.isSleeping) return { sleeping: false, woke: false }
  let onWake = null
  const woke = new Promise((resolve, reject) => {
    const timer = setTimeout(() => { bot.removeListener('wake', onWake); reject(new Error(`no 'wake' event within ${WAKE_WAIT_MS} ms of leaving the bed`)) }, WAKE_WAIT_MS)
    onWake = () => { clearTimeout(timer); resolve() }
    bot.once('wake', onWake)
  })
  await bot.wake()
  await woke
  return { sleeping: bot.isSleeping, woke: true }
}

// A cancelled attempt must not leave the bot lying in bed.
function stop (bot) { if (bot.isSleeping) bot.wake().catch(() => {}) }

module.exports = { run, stop, defaultTimeoutMs: 10000 }
