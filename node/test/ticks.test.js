// lib/ticks.js: stalls counted in the bot's physics ticks, not wall time.
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const { EventEmitter } = require('events')
const { tickCounter, ticksFor } = require('../lib/ticks')

test('a tick counter counts physics ticks from its start until stopped, whatever the wall time', () => {
  const bot = new EventEmitter()
  bot.emit('physicsTick') // before the counter: not counted
  const clock = tickCounter(bot)
  for (let i = 0; i < 3; i++) bot.emit('physicsTick')
  assert.strictEqual(clock.ticks, 3)
  clock.stop()
  bot.emit('physicsTick')
  assert.strictEqual(clock.ticks, 3)
  assert.strictEqual(bot.listenerCount('physicsTick'), 0)
})

test('a stall in milliseconds of game time is whole ticks of 50 ms, at least one', () => {
  assert.strictEqual(ticksFor(8000), 160)
  assert.strictEqual(ticksFor(1500), 30)
  assert.strictEqual(ticksFor(10), 1)
})
