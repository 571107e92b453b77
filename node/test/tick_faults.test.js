// plugins/ticks.js: the world's tick runs every plugin's listener on its own, so one that throws
// every tick is logged (at its 1st, 10th, 100th... time) and the plugins after it still tick.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { EventEmitter } = require('events')
const ticks = require('../plugins/ticks')

test('a tick listener that throws every tick is logged sparingly and the others still tick', async (t) => {
  const serv = new EventEmitter()
  serv.tickCount = 0
  serv.stopTickInterval = () => { clearInterval(serv.tickInterval); serv.tickInterval = null }
  ticks.server(serv)
  serv.mcbotFreezeTicks()
  const logged = []
  t.mock.method(console, 'error', (line) => logged.push(line))
  let before = 0
  let after = 0
  let once = 0
  serv.on('tick', () => before++)
  let cell = 0 // the message changes every tick (a block's coordinates): still one kind of error
  serv.on('tick', function broken () { throw new Error(`no block at ${cell++},64,0`) })
  serv.once('tick', function brokenOnce () { throw new Error('once') })
  serv.on('tick', async function rejecting () { throw new Error('a late read failed') })
  serv.once('tick', () => once++)
  serv.on('tick', (delta, count) => { after++; assert.strictEqual(count, serv.tickCount) })
  await serv.mcbotStepTicks(12, { sprint: true })
  await new Promise((resolve) => setImmediate(resolve)) // the rejections are handled
  assert.deepStrictEqual([before, after, once], [12, 12, 1], 'every other listener ran every tick (a once listener once)')
  const broken = logged.filter((l) => l.includes('tick listener broken failed'))
  assert.strictEqual(broken.length, 2, `logged at its 1st and 10th time: ${JSON.stringify(broken)}`)
  assert.match(broken[0], /kept alive, 1 time\): Error: no block at 0,64,0 \| at /, 'one line, the stack joined')
  assert.match(broken[1], /kept alive, 10 times\)/)
  assert.strictEqual(logged.filter((l) => l.includes('tick listener rejecting failed')).length, 2, 'a rejection too')
  assert.strictEqual(logged.filter((l) => l.includes('tick listener brokenOnce failed (kept alive, 1 time)')).length, 1, 'a once listener by its own name')
})
