'use strict'
// Fill an empty bucket: { fluid: 'water' | 'lava' } from the nearest source block (level 0)
// within reach of the eyes that the look meets first, or { fluid: 'milk' } from the nearest cow
// or mooshroom within reach. The bot equips the bucket, looks, uses it and waits for the filled
// bucket. The walk there is the caller's (agency/tools/buckets.py).
const { tickCounter, ticksFor } = require('../ticks')

const REACH = 4.5
const WAIT_TICKS = ticksFor(2000)
const FILLED = { water: 'water_bucket', lava: 'lava_bucket', milk: 'milk_bucket' }
const MILKED = new Set(['cow', 'mooshroom'])

const count = (bot, name) => bot.inventory.items().filter((i) => i.name === name).reduce((n, i) => n + i.count, 0)

function sources (bot, fluid) {
  const def = bot.registry.blocksByName[fluid]
  const eyes = bot.entity.position.offset(0, bot.entity.height * 0.9, 0)
  return bot.findBlocks({ matching: def.id, maxDistance: 6, count: 64 })
    .map((p) => bot.blockAt(p))
    .filter((b) => b && Number((b.getProperties().level ?? 0)) === 0 && b.position.offset(0.5, 0.5, 0.5).distanceTo(eyes) <= REACH)
    .sort((a, b) => a.position.distanceTo(eyes) - b.position.distanceTo(eyes))
}

// The first cell a look at `target` meets is `target` itself (nothing solid in the way).
function inView (bot, target) {
  const eyes = bot.entity.position.offset(0, bot.entity.height * 0.9, 0)
  const to = target.offset(0.5, 0.5, 0.5)
  const d = to.minus(eyes)
  const len = d.norm()
  for (let t = 0; t < len; t += 0.05) {
    const p = eyes.plus(d.scaled(t / len)).floored()
    if (p.equals(target)) return true
    const b = bot.blockAt(p)
    if (b && b.boundingBox === 'block') return false
  }
  return true
}

function waitFor (bot, pred, rec, what) {
  return new Promise((resolve, reject) => {
    const clock = tickCounter(bot)
    const timer = setInterval(() => {
      if (rec.cancelled || pred()) { clearInterval(timer); clock.stop(); return resolve() }
      if (clock.ticks > WAIT_TICKS) { clearInterval(timer); clock.stop(); reject(new Error(`${what} not filled within ${WAIT_TICKS} ticks`)) }
    }, 50)
  })
}

async function run (bot, args, rec) {
  const fluid = args.fluid
  if (!FILLED[fluid]) throw new Error(`fill_bucket needs fluid water, lava or milk (got ${JSON.stringify(fluid)})`)
  const bucket = bot.inventory.items().find((i) => i.name === 'bucket')
  if (!bucket) throw new Error('no empty bucket held')
  const filled = FILLED[fluid]
  const before = count(bot, filled)
  await bot.equip(bucket, 'hand')
  if (fluid === 'milk') {
    const cow = bot.nearestEntity((e) => MILKED.has(e.name) && e.position.distanceTo(bot.entity.position) <= REACH)
    if (!cow) throw new Error(`no cow within ${REACH} blocks to milk`)
    await bot.lookAt(cow.position.offset(0, cow.height * 0.6, 0), true)
    await bot.waitForTicks(2) // the look reaches the server before the use
    bot.activateEntity(cow)
  } else {
    const source = sources(bot, fluid).find((b) => inView(bot, b.position))
    if (!source) throw new Error(`no ${fluid} source within ${REACH} blocks in view`)
    await bot.lookAt(source.position.offset(0.5, 0.5, 0.5), true)
    await bot.waitForTicks(2) // the look reaches the server before the use
    bot.activateItem()
    bot.deactivateItem()
  }
  await waitFor(bot, () => count(bot, filled) > before, rec, filled)
  return { fluid, filled, have: count(bot, filled) }
}

module.exports = { run, defaultTimeoutMs: 10000 }
