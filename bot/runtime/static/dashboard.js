// The mcbot dashboard: one live stream (GET /api/live, server-sent events read through
// fetch so the API token can ride in a header), and the daemon's validated endpoints for
// every control. No polling loop: the page only asks when a person clicks.
'use strict'

const $ = (id) => document.getElementById(id)
const TOKEN_KEY = 'mcbot.token'
const chart = { t: [], series: {} } // counters over time, for the chart
const HISTORY_MAX = 300
const CHART_KEYS = ['driveTicks', 'goalTags', 'llmCalls', 'signatureSuppressions', 'contentSuppressions']
const COLORS = ['#58a6ff', '#4caf50', '#d4a72c', '#e5534b', '#b36cf0']
let logAfter = 0

// ---- the token (only needed off loopback): /#token=... once, then kept for the tab ----
function token () {
  const m = location.hash.match(/token=([^&]+)/)
  if (m) { sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1])); window.history.replaceState(null, '', location.pathname) }
  return sessionStorage.getItem(TOKEN_KEY)
}
function headers (json) {
  const h = {}
  const t = token()
  if (t) h.authorization = `Bearer ${t}`
  if (json) h['content-type'] = 'application/json'
  return h
}
function askToken () {
  $('token-form').hidden = false
  setConn('token needed', 'warn')
}
$('token-form').addEventListener('submit', (e) => {
  e.preventDefault()
  sessionStorage.setItem(TOKEN_KEY, $('token').value)
  $('token-form').hidden = true
  connect()
})

async function api (method, path, body) {
  const r = await fetch(path, { method, headers: headers(body !== undefined), body: body === undefined ? undefined : JSON.stringify(body) })
  if (r.status === 401) askToken()
  let data = null
  try { data = await r.json() } catch (e) { data = null }
  return { ok: r.ok, status: r.status, data }
}
function reason (res) {
  const d = res.data || {}
  const detail = Array.isArray(d.detail) ? d.detail.map((x) => `${x.loc}: ${x.msg}`).join('; ') : d.detail
  return `${res.status} ${d.error || ''}${detail ? ': ' + detail : ''}`
}

// ---- the live stream -----------------------------------------------------------------
function setConn (text, cls) { const el = $('conn'); el.textContent = text; el.className = `pill ${cls}` }

async function connect () {
  setConn('connecting', 'warn')
  try {
    const r = await fetch(`/api/live?logAfter=${logAfter}`, { headers: headers(false) })
    if (r.status === 401) return askToken()
    if (!r.ok || !r.body) throw new Error(`live: ${r.status}`)
    setConn('live', 'on')
    const reader = r.body.pipeThrough(new TextDecoderStream()).getReader()
    let buf = ''
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      buf += value
      let cut
      while ((cut = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, cut)
        buf = buf.slice(cut + 2)
        dispatch(block)
      }
    }
  } catch (e) {
    console.warn(e)
  }
  setConn('reconnecting', 'off')
  setTimeout(connect, 2000) // the daemon restarted or the network blinked: pick up where we were
}

function dispatch (block) {
  let event = 'message'
  const data = []
  for (const line of block.split('\n')) {
    if (line.startsWith('event: ')) event = line.slice(7)
    else if (line.startsWith('data: ')) data.push(line.slice(6))
  }
  if (!data.length) return
  const payload = JSON.parse(data.join('\n'))
  const handler = { state: renderState, tasks: renderTasks, thought: addThought, log: addLog, chat: addChat, end: () => setConn('daemon stopping', 'off') }[event]
  if (handler) handler(payload)
}

// ---- rendering -------------------------------------------------------------------------
const fmt = (n, d = 1) => (typeof n === 'number' ? n.toFixed(d) : '–')
function chip (text, cls) { const li = document.createElement('li'); li.textContent = text; if (cls) li.className = cls; return li }
function clock (ticks) {
  const h = Math.floor(((ticks / 1000) + 6) % 24); const m = Math.floor((ticks % 1000) * 0.06)
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`
}

let botWasConnected = null
function renderState (s) {
  const snap = s.snapshot
  const h = s.health || {}
  // A new bot after a reconnect: load the 3D view afresh (its page keeps the old bot's handlers).
  if (botWasConnected === false && h.botConnected) reloadViewer()
  botWasConnected = Boolean(h.botConnected)
  $('health').textContent = h.ok ? 'healthy' : `down: ${(h.down || []).join(', ') || '?'}`
  $('health').className = `pill ${h.ok ? 'on' : 'off'}`
  if (snap) {
    $('hp').value = snap.health; $('hp-v').textContent = fmt(snap.health)
    $('food').value = snap.food; $('food-v').textContent = snap.food
    $('pos').textContent = `${fmt(snap.position.x)} ${fmt(snap.position.y)} ${fmt(snap.position.z)}`
    $('dim').textContent = snap.dimension
    $('time').textContent = `${snap.timeOfDay} (${clock(snap.timeOfDay)}, ${snap.isDay ? 'day' : 'night'})${snap.isSleeping ? ' · asleep' : ''}`
    $('mode').textContent = snap.gameMode
    $('inventory').replaceChildren(...(snap.inventory.length ? snap.inventory.map((i) => chip(`${i.name} ×${i.count}`)) : [chip('empty')]))
    const near = [...snap.entities].sort((a, b) => a.distance - b.distance).slice(0, 16)
    $('entities').replaceChildren(...(near.length ? near.map((e) => chip(`${e.name} ${fmt(e.distance)} m`, e.hostile ? 'hostile' : '')) : [chip('nobody')]))
  }
  $('reflex').textContent = s.reflex ? (s.reflex.holding ? `holding (${s.reflex.why})` : 'watching') : '–'
  renderActive(s.activeTask)
  renderDirect(s.direct)
  renderCounters(s.counters || {})
  renderJobs(s.jobs || {})
  renderShelters(s.shelters || [])
  renderBots(s.bots || [])
  if (s.taskCounts) $('task-counts').textContent = Object.entries(s.taskCounts).filter(([, n]) => n).map(([k, n]) => `${k} ${n}`).join(' · ')
}

// A fleet's bots, one row each; a daemon of one bot hides the panel (its vitals say it all).
function renderBots (bots) {
  $('bots-panel').hidden = bots.length < 2
  $('bots').replaceChildren(...bots.map((b) => {
    const tr = document.createElement('tr')
    const pos = b.position ? `${fmt(b.position.x)} ${fmt(b.position.y)} ${fmt(b.position.z)}` : '–'
    const cells = [b.name, b.connected ? 'yes' : 'no', b.health ?? '–', b.food ?? '–', pos,
      (b.reflexHold ? `held: ${b.reflexHold}` : (b.runningTaskId || '').slice(0, 13)) || 'idle', (b.agents || []).join(', ')]
    cells.forEach((c, i) => {
      const td = document.createElement('td')
      td.textContent = c
      if (i === 1) td.className = b.connected ? 'status-completed' : 'status-failed'
      tr.append(td)
    })
    tr.dataset.bot = b.name
    return tr
  }))
}

function renderActive (a) {
  const box = $('active')
  if (!a) { box.innerHTML = '<p class="muted">none</p>'; return }
  const t = a.task
  box.replaceChildren()
  const title = document.createElement('p')
  title.innerHTML = '<b></b> <span class="muted"></span>'
  title.firstChild.textContent = t.metadata.goalKey || t.title
  title.lastChild.textContent = t.id
  const bar = document.createElement('progress')
  bar.max = 1; bar.value = t.progress || 0
  const step = document.createElement('p')
  step.className = 'muted'
  const st = a.step
  step.textContent = st ? `step ${(st.index ?? 0) + 1}/${st.total ?? '?'} ${st.stepId || ''} ${st.event.replace('step_', '')}${st.error ? ': ' + st.error.message : ''}` : 'starting'
  box.append(title, bar, document.createTextNode(` ${Math.round((t.progress || 0) * 100)}%`), step)
}

function renderDirect (d) {
  const box = $('direct')
  box.replaceChildren()
  if (!d) return
  const p = document.createElement('p')
  p.textContent = `direct action ${d.tool} ${d.status} ${Math.round(d.elapsedMs / 1000)} s`
  const stop = document.createElement('button')
  stop.textContent = 'stop'
  stop.onclick = () => api('POST', `/api/actions/${d.actionId}/cancel`)
  p.append(' ', stop)
  box.append(p)
}

function taskButton (label, id, command) {
  const b = document.createElement('button')
  b.textContent = label
  b.dataset.testid = `${command}-${id}`
  b.onclick = async () => {
    const res = await api('POST', `/api/tasks/${encodeURIComponent(id)}/${command}`)
    b.title = res.ok ? `${command} ok` : reason(res)
    if (!res.ok) alert(`${command} refused: ${reason(res)}`)
  }
  return b
}

// Rows are kept by task id and only what changed is rewritten: the stream sends the table
// whenever a running task checkpoints, and a row or button rebuilt under the pointer loses the click.
const taskRows = new Map()
function taskRow (id) {
  let row = taskRows.get(id)
  if (!row) {
    const tr = document.createElement('tr')
    tr.dataset.taskId = id
    const cells = Array.from({ length: 6 }, () => tr.appendChild(document.createElement('td')))
    cells[3].dataset.testid = `status-${id}`
    cells[5].className = 'reason'
    row = { tr, cells, controls: tr.appendChild(document.createElement('td')), commands: null }
    taskRows.set(id, row)
  }
  return row
}

function taskCommands (status) {
  const commands = []
  if (status === 'active' || status === 'pending') commands.push('pause')
  if (status === 'paused') commands.push('resume')
  if (!['completed', 'failed', 'cancelled'].includes(status)) commands.push('cancel')
  return commands
}

function renderTasks (payload) {
  const shown = payload.tasks.map((t) => {
    const row = taskRow(t.id)
    const meta = t.metadata || {}
    const why = t.waiting || meta.blockedReason || (meta.solver || {}).failureReason || ''
    const bot = meta.heldBy || meta.bot || ''
    const texts = [t.id.slice(0, 13), meta.goalKey || t.title || '', bot, t.status, `${Math.round((t.progress || 0) * 100)}%`, why]
    texts.forEach((text, i) => { if (row.cells[i].textContent !== text) row.cells[i].textContent = text })
    row.cells[3].className = `status-${t.status}`
    const commands = taskCommands(t.status)
    if (commands.join() !== row.commands) { // pending -> active keeps its pause button
      row.commands = commands.join()
      row.controls.replaceChildren(...commands.flatMap((c, i) => [...(i ? [' '] : []), taskButton(c, t.id, c)]))
    }
    return row.tr
  })
  const keep = new Set(payload.tasks.map((t) => t.id))
  for (const id of taskRows.keys()) if (!keep.has(id)) taskRows.delete(id)
  // move only the rows out of place (a new task on top shifts the others without re-inserting them)
  const body = $('tasks')
  shown.forEach((tr, i) => { if (body.children[i] !== tr) body.insertBefore(tr, body.children[i] || null) })
  while (body.children.length > shown.length) body.lastElementChild.remove()
}

const shownThoughts = new Set() // a reconnected stream sends the newest thoughts again
function addThought (t) {
  if (shownThoughts.has(t.id)) return
  shownThoughts.add(t.id)
  const li = document.createElement('li')
  const kind = document.createElement('span')
  kind.className = 'kind'
  kind.textContent = t.type || 'thought'
  li.append(kind, document.createTextNode(t.content || ''))
  li.title = `${t.id} · ${new Date(t.timestamp || Date.now()).toLocaleTimeString()}`
  const feed = $('stream')
  feed.prepend(li)
  while (feed.children.length > 100) feed.lastChild.remove()
}

let chatAfter = 0 // a reconnected stream sends the kept chat lines again
function addChat (line) {
  if (line.seq <= chatAfter) return
  chatAfter = line.seq
  const li = document.createElement('li')
  const who = document.createElement('span')
  who.className = line.said ? 'kind said' : 'kind'
  who.textContent = line.player
  li.append(who, document.createTextNode(line.text))
  li.title = new Date(line.ts).toLocaleTimeString()
  const feed = $('chat')
  feed.append(li)
  while (feed.children.length > 200) feed.firstChild.remove()
  feed.scrollTop = feed.scrollHeight
}

function addLog (line) {
  logAfter = Math.max(logAfter, line.seq)
  const pre = $('log')
  const span = document.createElement('span')
  span.className = line.level
  span.textContent = `${line.time} ${line.level.padEnd(7)} ${line.bot ? line.bot + ' | ' : ''}${line.message}\n`
  const atBottom = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4
  pre.append(span)
  while (pre.childNodes.length > 400) pre.firstChild.remove()
  if (atBottom) pre.scrollTop = pre.scrollHeight
}

function renderCounters (c) {
  $('counters').replaceChildren(...Object.entries(c).filter(([k]) => k !== 'startedAtMs').flatMap(([k, v]) => {
    const dt = document.createElement('dt'); dt.textContent = k
    const dd = document.createElement('dd'); dd.textContent = v
    return [dt, dd]
  }))
  chart.t.push(Date.now())
  for (const k of CHART_KEYS) (chart.series[k] ||= []).push(c[k] || 0)
  if (chart.t.length > HISTORY_MAX) { chart.t.shift(); for (const k of CHART_KEYS) chart.series[k].shift() }
  drawChart()
}

function drawChart () {
  const cv = $('counters-chart'); const g = cv.getContext('2d')
  g.clearRect(0, 0, cv.width, cv.height)
  const n = chart.t.length
  if (n < 2) return
  const max = Math.max(1, ...CHART_KEYS.flatMap((k) => chart.series[k]))
  CHART_KEYS.forEach((k, i) => {
    g.strokeStyle = COLORS[i]; g.beginPath()
    chart.series[k].forEach((v, j) => {
      const x = (j / (n - 1)) * (cv.width - 4) + 2; const y = cv.height - 4 - (v / max) * (cv.height - 16)
      j ? g.lineTo(x, y) : g.moveTo(x, y)
    })
    g.stroke(); g.fillStyle = COLORS[i]; g.fillText(k.replace('Suppressions', 'Sup'), 4 + i * 82, 10)
  })
}

function renderJobs (jobs) {
  $('jobs').replaceChildren(...Object.entries(jobs).map(([name, j]) => {
    const tr = document.createElement('tr')
    for (const v of [name, j.runs, j.errors, j.timeouts, j.skipped, fmt(j.lastRunS, 2)]) {
      const td = document.createElement('td'); td.textContent = v; tr.append(td)
    }
    if (j.errors || j.timeouts) tr.title = j.lastError || ''
    if (!j.enabled) tr.className = 'muted'
    return tr
  }))
}

function renderShelters (list) {
  const box = $('shelters')
  if (!list.length) { box.innerHTML = '<p class="muted">no shelter goal yet</p>'; return }
  box.replaceChildren(...list.map((s) => {
    const div = document.createElement('div')
    const where = s.site ? `at ${s.site.refCorner.join(' ')} facing ${s.site.facing}` : 'no site yet'
    div.textContent = `${s.verified ? '✔ verified' : '✘ not verified'} · ${s.status} · ${where}${s.lit === false ? ' · dark inside' : ''}${s.hold ? ' · held: ' + s.hold : ''}`
    if (s.blockers.length) {
      const ul = document.createElement('ul'); ul.className = 'blockers'
      ul.append(...s.blockers.slice(0, 8).map((b) => chip(b)))
      div.append(ul)
    }
    return div
  }))
}

// ---- controls ------------------------------------------------------------------------
$('goal-form').addEventListener('submit', async (e) => {
  e.preventDefault()
  const out = $('goal-result')
  const res = await api('POST', '/api/goals', { text: $('goal-text').value.trim(), priority: Number($('goal-priority').value), by: 'dashboard' })
  out.className = `result ${res.ok ? 'ok' : 'err'}`
  out.textContent = res.ok ? `created ${res.data.id}` : reason(res)
})
$('chat-form').addEventListener('submit', async (e) => {
  e.preventDefault() // a line to the bot as a commander's; the answers come back here
  const out = $('chat-result')
  const res = await api('POST', '/api/bot/chat', { text: $('chat-text').value.trim() })
  out.className = `result ${res.ok ? 'ok' : 'err'}`
  out.textContent = res.ok ? res.data.replies.join(' · ') : reason(res)
  if (res.ok) $('chat-text').value = ''
})
$('poke').addEventListener('click', async () => {
  const res = await api('POST', '/api/keepalive/poke')
  $('poke-result').textContent = res.ok ? `keep-alive: ${res.data.status}${res.data.thoughtId ? ' → ' + res.data.thoughtId : ''}` : reason(res)
})

// ---- the 3D view (prismarine-viewer, on its own loopback port) -----------------------
async function showViewer () {
  const res = await api('GET', '/api/viewer')
  const v = res.data || {}
  const box = $('viewer-box')
  if (!res.ok || !v.running) {
    $('viewer-note').textContent = v.enabled === false ? 'the 3D view is off ([viewer] enabled = false)'
      : `the 3D view is not running${v.error ? ': ' + v.error : ''}`
    setTimeout(showViewer, 5000)
    return
  }
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(location.hostname)) {
    // The view listens on the daemon's loopback only (it has no token check).
    $('viewer-note').textContent = `the 3D view listens on the daemon's loopback only: tunnel it ` +
      `(ssh -L ${v.port}:127.0.0.1:${v.port} ${location.hostname}) and open http://127.0.0.1:${v.port}/`
    return
  }
  const frame = document.createElement('iframe')
  frame.src = `${location.protocol}//${location.hostname}:${v.port}/`
  frame.title = '3D view of the bot'
  frame.dataset.testid = 'viewer'
  box.replaceChildren(frame)
}

function reloadViewer () {
  const frame = document.querySelector('[data-testid=viewer]')
  if (frame) frame.src = frame.src
}

connect()
showViewer()
