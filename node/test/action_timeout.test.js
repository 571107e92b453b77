// An action that runs past its time limit is stopped for good: its record is marked cancelled
// (the flag every action's loop checks) before its stop() is called. Before, only stop() ran,
// and an attack whose target stayed out of reach went on setting pathfinder goals and swinging
// after its timeout: every walk, collect and staircase after it failed ("The goal was changed
// before it could be completed!", "Digging aborted").
'use strict'

const MAX_LOOPS = 200000 // a bound of the test's own: a loop that never sees the cancel ends here

const test = require('node:test')
const assert = require('node:assert')
const { EventEmitter } = require('node:events')
const actions = require('../lib/actions')
const { withTimeout } = require('./helpers')

test('a timed-out action sees rec.cancelled and its loop ends', async () => {
  let loops = 0
  let stopped = 0
  let ended
  const loopEnded = new Promise((resolve) => { ended = resolve })
  actions.register('test_endless', {
    async run (bot, args, rec) {
      while (!rec.cancelled && loops < MAX_LOOPS) {
        loops++
        await new Promise((resolve) => setImmediate(resolve))
      }
      ended({ loops, sawCancel: rec.cancelled })
      return { loops }
    },
    stop () { stopped++ }
  })
  const bot = new EventEmitter()
  const done = new Promise((resolve) => bot.on('mcbot_action_done', resolve))
  const started = actions.start(bot, 'test_endless', {}, 20)
  const status = await withTimeout(done, 10000, 'the action to end')
  assert.strictEqual(status.id, started.id)
  assert.strictEqual(status.state, 'timeout')
  assert.match(status.error, /test_endless timed out after 20 ms/)
  assert.strictEqual(stopped, 1, 'its stop() ran once')
  const final = await withTimeout(loopEnded, 60000, 'the loop to end')
  assert.ok(final.sawCancel, `the loop ran on after the timeout (${final.loops} loops)`)
  assert.ok(final.loops > 0 && final.loops < MAX_LOOPS, 'it looped before the timeout')
  assert.strictEqual(actions.poll(started.id).state, 'timeout', 'the record still says why it ended')
})
