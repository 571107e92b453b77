'use strict'
// Chat on a server that enforces secure profiles (Paper/vanilla 1.19+, server.properties
// enforce-secure-profile=true): a bot without a Mojang profile key (auth 'offline') cannot
// sign its chat, and the server refuses every line, either with a red system message
// ("Chat disabled due to missing profile public key. Please try reconnecting.",
// chat.disabled.missingProfileKey) or by kicking (multiplayer.disconnect.unsigned_chat,
// chat_validation_failed, missing_public_key on 1.19-1.19.2).
//
// Detected here from what the server sends. The first refusal queues ONE 'error' event
// {code: 'chat_refused', reason, fix} and from then on bot.chat/bot.whisper throw that reason
// at once, so chat tool calls fail cleanly while the bot keeps living. A refusal is remembered
// per server: a bot that rejoins after a kick for it never chats into that kick again.
// Commands go through (only those whose arguments are signed chat are refused).
//
// Also kept for `mcbot doctor`: the server's secure-chat flag and the last messages (command
// replies), read with facts(bot).

const FIX = 'set enforce-secure-profile=false in the server\'s server.properties and restart it, ' +
  'or join with bot.auth = "microsoft" (a signed-in account signs its chat)'

// What a refusal looks like: translation keys (in the JSON of a message or kick reason) and
// the English text they render to (plugins often send plain text). Anchored, so a player
// quoting the words in chat is not a refusal.
const REFUSAL_KEYS = /"translate":(?:\{"type":"string","value":)?"((chat\.disabled\.(missingProfileKey|expiredProfileKey|chain_broken|invalid_signature|invalid_command_signature))|(multiplayer\.disconnect\.(missing_public_key|unsigned_chat|chat_validation_failed|expired_public_key|invalid_public_key_signature)))"/
const REFUSAL_TEXTS = [
  /^chat disabled due to (missing|expired) profile public key/i,
  /^chat disabled due to broken chain/i,
  /^chat had an invalid signature/i,
  /^command had unexpected or missing command argument signatures/i,
  /^missing profile public key/i,
  /requires secure profiles/i,
  /^received chat packet with missing or invalid signature/i,
  /^chat message validation failure/i
]
// Commands whose arguments are signed chat messages: refused like chat.
const SIGNED_COMMANDS = /^\/(msg|tell|w|say|me|teammsg|tm)(\s|$)/i
const SYSTEM_LOG_MAX = 50
// A bare translation key the bot's version has no text for (1.19.3+ keys on older data; the
// 1.19.2-only missing_public_key on newer data) reads as its English text.
const ENGLISH = Object.assign({}, ...['1.19.2', '1.21.4'].map((v) => require('minecraft-data')(v).language || {}))
const english = (text) => ENGLISH[text] || text

const refusedServers = new Map() // 'host:port' -> reason (this node process's memory)

// Is this server text (a system message or a kick reason) a secure-chat refusal? Returns the
// refusal's human text, or null. `raw` may be a ChatMessage-like {json, toString()}, a JSON
// string, a plain string or a parsed component.
function refusalIn (raw) {
  if (raw === null || raw === undefined) return null
  let json
  let text
  if (typeof raw === 'string') {
    json = raw
    try { text = plain(JSON.parse(raw)) } catch (e) { text = raw }
  } else if (raw.json !== undefined && typeof raw.toString === 'function' && raw.toString !== Object.prototype.toString) {
    json = JSON.stringify(raw.json)
    text = raw.toString()
  } else {
    json = JSON.stringify(raw)
    text = plain(raw)
  }
  text = english(String(text || '').trim())
  if (REFUSAL_TEXTS.some((re) => re.test(text))) return text
  const key = REFUSAL_KEYS.exec(json || '')
  if (key) return text || key[1]
  return null
}

// The plain text of a chat component (enough for matching: text, extra, translate keys).
function plain (c) {
  if (c === null || c === undefined) return ''
  if (typeof c === 'string') return c
  if (Array.isArray(c)) return c.map(plain).join('')
  if (c.type === 'compound' && c.value) return plain(unNbt(c))
  let out = typeof c.text === 'string' ? c.text : (c.text && c.text.value) || ''
  if (!out && typeof c.translate === 'string') out = c.translate
  if (Array.isArray(c.extra)) out += c.extra.map(plain).join('')
  return out
}

// Simplified NBT (prismarine-nbt) to plain JSON, for kick reasons sent as NBT (1.20.3+).
function unNbt (n) {
  if (n === null || typeof n !== 'object') return n
  if (n.type === 'compound') return Object.fromEntries(Object.entries(n.value).map(([k, v]) => [k, unNbt(v)]))
  if (n.type === 'list') return (n.value.value || []).map((v) => unNbt({ type: n.value.type, value: v }))
  return n.value
}

function refusedError (state) {
  return new Error(`chat refused by the server: "${state.reason}" (an offline-mode bot on a server ` +
    `that enforces secure profiles). Fix: ${FIX}`)
}

// Hook one bot: `opts` are createBot's options (host, port, auth), `push(type, data)` queues
// an event for Python.
function install (bot, opts, push) {
  const server = `${opts.host}:${opts.port}`
  const state = { refused: false, reason: null, source: null, signing: opts.auth === 'microsoft', system: [], seq: 0 }
  bot.mcbotChatGuard = state

  const refuse = (reason, source) => {
    if (state.refused) return
    Object.assign(state, { refused: true, reason, source })
    refusedServers.set(server, reason)
    push('error', { code: 'chat_refused', message: `chat refused by the server: ${reason}`, reason, source, server, fix: FIX })
  }
  if (refusedServers.has(server)) refuse(refusedServers.get(server), 'remembered')

  bot.on('message', (msg, position) => {
    if (position === 'game_info') return // the action bar
    const text = english(msg.toString())
    // Before 1.19 some servers (flying-squid) send command replies in the 'chat' position.
    // `key`: the translation key (multiplayer.player.joined, death.*), so the doctor can tell
    // a command's reply from a join, leave or death line.
    state.system.push({ seq: ++state.seq, text, key: msg.translate || null, position, ts: Date.now() })
    if (state.system.length > SYSTEM_LOG_MAX) state.system.shift()
    if (position !== 'system') return // 'chat' is players talking: never a refusal
    const reason = refusalIn(msg)
    if (reason) refuse(reason, 'system_message')
  })
  bot.on('kicked', (reason) => {
    const why = refusalIn(typeof reason === 'string' ? reason : unNbt(reason))
    if (why) refuse(why, 'kick')
  })

  // mineflayer defines bot.chat when its plugins are injected (after createBot returns).
  const wrap = () => {
    for (const name of ['chat', 'whisper']) {
      const original = bot[name]
      bot[name] = (...args) => {
        const line = name === 'chat' ? String(args[0]) : '/tell'
        if (state.refused && (!line.startsWith('/') || SIGNED_COMMANDS.test(line))) throw refusedError(state)
        return original.apply(bot, args)
      }
    }
  }
  if (typeof bot.chat === 'function') wrap()
  else bot.once('inject_allowed', wrap)
}

// What the doctor reads: the refusal (if any), the server's secure-chat flag, and the messages
// (system and chat positions) after `sinceSeq`.
function facts (bot, sinceSeq) {
  const state = bot.mcbotChatGuard
  const features = (bot._client && bot._client.serverFeatures) || {}
  return {
    refused: state.refused,
    reason: state.reason,
    source: state.source,
    fix: state.refused ? FIX : null,
    enforcesSecureChat: Boolean(features.enforcesSecureChat),
    signing: state.signing,
    seq: state.seq,
    system: state.system.filter((m) => m.seq > (sinceSeq || 0))
  }
}

function forget () { refusedServers.clear() }

module.exports = { install, facts, refusalIn, forget, FIX }
