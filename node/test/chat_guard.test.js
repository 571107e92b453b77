// The secure-chat refusal guard (lib/chat_guard.js): recorded refusal texts and kick reasons
// are recognised (and ordinary messages are not), and a real mineflayer bot created through
// lib/bots.js, on a small minecraft-protocol server that answers chat the way Paper does with
// enforce-secure-profile=true, queues ONE chat_refused event, keeps living, and fails every
// later chat at once with the reason and the fix.
'use strict'

const { test } = require('node:test')
const assert = require('node:assert')
const mc = require('minecraft-protocol')
const nbt = require('prismarine-nbt')
const bots = require('../lib/bots')
const guard = require('../lib/chat_guard')
const { VERSION, withTimeout, sleep } = require('./helpers')

// The message texts are minecraft-data's en_us strings for these keys (1.19.4 - 1.21.4).
const MISSING_KEY = 'Chat disabled due to missing profile public key. Please try reconnecting.'

test('refusal texts and keys are recognised; player chat and other system messages are not', () => {
  const refusals = [
    MISSING_KEY, // a plugin's plain text
    JSON.stringify({ translate: 'chat.disabled.missingProfileKey', color: 'red' }), // vanilla 1.19.3-1.20.2 system_chat
    { type: 'compound', value: { translate: { type: 'string', value: 'chat.disabled.missingProfileKey' } } }, // 1.20.3+ NBT
    JSON.stringify({ translate: 'multiplayer.disconnect.unsigned_chat' }), // kick, 1.19.1+
    JSON.stringify({ translate: 'multiplayer.disconnect.missing_public_key' }), // kick at login, 1.19-1.19.2 (no text in 1.21 data)
    { type: 'compound', value: { translate: { type: 'string', value: 'multiplayer.disconnect.missing_public_key' } } },
    'Missing profile public key.\nThis server requires secure profiles.',
    JSON.stringify({ text: '', extra: [{ text: 'Chat message validation failure', color: 'red' }] }),
    { json: { translate: 'chat.disabled.expiredProfileKey' }, toString: () => 'Chat disabled due to expired profile public key. Please try reconnecting.' }
  ]
  for (const r of refusals) assert.ok(guard.refusalIn(r), `not recognised: ${JSON.stringify(r)}`)
  assert.strictEqual(guard.refusalIn(MISSING_KEY), MISSING_KEY)

  const ordinary = [
    '<Steve> Chat disabled due to missing profile public key lol', // a player quoting it
    JSON.stringify({ text: '<Steve> chat.disabled.missingProfileKey' }), // or its key
    JSON.stringify({ translate: 'chat.disabled.options' }), // the client's own option, not the server
    JSON.stringify({ translate: 'multiplayer.disconnect.not_whitelisted' }),
    'mcbot: time set to 6000',
    '',
    null
  ]
  for (const o of ordinary) assert.strictEqual(guard.refusalIn(o), null, `misread as a refusal: ${JSON.stringify(o)}`)
})

// A server that behaves like Paper with enforce-secure-profile=true towards an unsigned
// (offline) client: it says it enforces secure chat, and refuses each chat line with a red
// system message, or (kick = true) kicks like vanilla 1.19.1-1.19.2 did.
function fakePaper ({ kick = false } = {}) {
  const server = mc.createServer({ 'online-mode': false, version: VERSION, port: 0, host: '127.0.0.1', motd: 'fake paper' })
  const data = require('minecraft-data')(VERSION)
  const nbtChat = data.supportFeature('chatPacketsUseNbtComponents')
  const component = (obj) => nbtChat
    ? nbt.comp(Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, nbt.string(v)])))
    : JSON.stringify(obj)
  const seen = []
  server.on('playerJoin', (client) => {
    client.write('login', {
      ...data.loginPacket,
      enforcesSecureChat: true,
      entityId: client.id,
      gameMode: 0,
      previousGameMode: 0,
      isHardcore: false,
      viewDistance: 4,
      maxPlayers: 10
    })
    // 1.19.1 - 1.20.4 carry the flag in server_data (1.20.5+ in login, above).
    if (JSON.stringify(data.protocol.play.toClient.types.packet_server_data || '').includes('enforcesSecureChat')) {
      client.write('server_data', { motd: component({ text: 'fake paper' }), previewsChat: false, enforcesSecureChat: true })
    }
    const onChat = (packet) => {
      seen.push(packet.message)
      if (kick) return client.end('multiplayer.disconnect.unsigned_chat', component({ translate: 'multiplayer.disconnect.unsigned_chat' }))
      const refusal = component({ translate: 'chat.disabled.missingProfileKey', color: 'red' })
      if (data.supportFeature('signedChat')) client.write('system_chat', { content: refusal, isActionBar: false })
      else client.write('chat', { message: refusal, position: 1, sender: '00000000-0000-0000-0000-000000000000' })
    }
    client.on('chat_message', onChat) // 1.19+
    client.on('chat', onChat) // before 1.19 (commands too, as '/...')
    client.on('chat_command', (p) => seen.push('/' + p.command)) // 1.19+ unsigned commands
  })
  return new Promise((resolve) => server.on('listening', () => resolve({ server, seen, port: server.socketServer.address().port })))
}

async function joined (id) {
  const bot = bots.get(id)
  // (the bounds here only guard against a hang: a loaded machine is slow to log in)
  if (!bot.entity) await withTimeout(new Promise((resolve) => bot.once('login', resolve)), 60000, 'login')
  return bot
}

async function until (pred, ms, what) {
  const deadline = Date.now() + ms
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(25)
  }
}

test('a refused chat is detected once, later chats fail with the reason, the bot lives on', async () => {
  guard.forget()
  const { server, seen, port } = await fakePaper()
  const id = bots.createBot({ host: '127.0.0.1', port, username: 'guard_bot', version: VERSION, auth: 'offline' })
  try {
    const bot = await joined(id)
    bot.chat('hello')
    await until(() => guard.facts(bot).refused, 30000, 'the refusal to be seen')
    const facts = guard.facts(bot)
    assert.strictEqual(facts.reason, MISSING_KEY)
    assert.strictEqual(facts.source, 'system_message')
    assert.strictEqual(facts.enforcesSecureChat, !['1.18.2', '1.19'].includes(VERSION)) // the flag exists from 1.19.1
    assert.ok(facts.system.some((m) => m.text === MISSING_KEY), 'the refusal is in the system log')
    assert.ok(facts.system.some((m) => m.key === 'chat.disabled.missingProfileKey'), 'with its translation key')

    assert.throws(() => bot.chat('again'), (e) => e.message.includes(MISSING_KEY) && e.message.includes('enforce-secure-profile=false'))
    assert.throws(() => bot.chat('/msg Steve hi'), /chat refused/) // signed-argument commands too
    assert.throws(() => bot.whisper('Steve', 'hi'), /chat refused/)
    bot.chat('/time query daytime') // other commands still go through
    await until(() => seen.includes('/time query daytime'), 30000, 'the command to reach the server')
    assert.deepStrictEqual(seen.filter((m) => !m.startsWith('/')), ['hello'], 'refused lines never reached the server')

    const errors = bots.drainEvents(id, 100).filter((e) => e.type === 'error')
    assert.strictEqual(errors.length, 1)
    assert.strictEqual(errors[0].data.code, 'chat_refused')
    assert.match(errors[0].data.fix, /enforce-secure-profile=false/)
    assert.strictEqual(bots.status(id).state !== 'ended', true, 'the bot is still connected')
  } finally {
    bots.quit(id)
    server.close()
  }
})

test('a kick for unsigned chat is remembered: the rejoining bot never chats into it again', async () => {
  guard.forget()
  const { server, seen, port } = await fakePaper({ kick: true })
  const first = bots.createBot({ host: '127.0.0.1', port, username: 'guard_kick', version: VERSION, auth: 'offline' })
  let second
  try {
    const bot = await joined(first)
    bot.chat('hello')
    await until(() => bots.status(first).state === 'ended', 30000, 'the kick')
    assert.throws(() => bots.get(first), /has disconnected/)
    assert.strictEqual(guard.facts(bots.getEvenEnded(first)).refused, true, 'an ended bot\'s chat facts stay readable')
    const events = bots.drainEvents(first, 100)
    const refused = events.filter((e) => e.type === 'error' && e.data.code === 'chat_refused')
    assert.strictEqual(refused.length, 1)
    assert.strictEqual(refused[0].data.source, 'kick')

    second = bots.createBot({ host: '127.0.0.1', port, username: 'guard_kick', version: VERSION, auth: 'offline' })
    const again = await joined(second)
    assert.throws(() => again.chat('hello again'), /chat refused/)
    await sleep(200)
    assert.deepStrictEqual(seen, ['hello'])
    assert.strictEqual(bots.status(second).state !== 'ended', true)
    assert.strictEqual(bots.drainEvents(second, 100).filter((e) => e.data.code === 'chat_refused')[0].data.source, 'remembered')
  } finally {
    bots.quit(first)
    if (second) bots.quit(second)
    server.close()
    guard.forget()
  }
})
