'use strict'
// The 3D view of the bot (prismarine-viewer), one web server per bridge process.
//
// Built from the library's parts instead of its mineflayer() helper: that helper listens on
// every interface and is bound to one bot object for good, while a reconnect here makes a
// new bot object. start() on a running server re-attaches it to the new bot; the page has
// no token check, so the host it listens on is the caller's loopback choice.

const { withTimeout } = require('./guard')
const { drawnAs, translatingEmitter } = require('./viewer_versions')

const LISTEN_TIMEOUT_MS = 5000
const CLOSE_TIMEOUT_MS = 3000

let server = null // { host, port, requestedPort, http, io, listening }
let bot = null
let settings = { viewDistance: 6, firstPerson: false }
let lastError = null
let lastAddress = { host: null, port: null } // of the last start, kept for status() after a failed listen
const sessions = new Map() // served socket -> detach() from the bot it was served

// Resolves the status once the server listens (or failed to: status().error says why;
// nothing is thrown, so a busy port never costs the bot its connection).
async function start (newBot, options = {}) {
  const host = options.host || '127.0.0.1'
  const port = options.port === undefined ? 3007 : options.port
  settings = { viewDistance: options.viewDistance || 6, firstPerson: !!options.firstPerson }
  lastAddress = { host, port }
  if (server && (server.host !== host || server.requestedPort !== port)) await stop()
  const started = !server
  if (started) {
    lastError = null
    server = open(host, port)
  }
  attach(newBot)
  await withTimeout(server.ready, LISTEN_TIMEOUT_MS, `viewer listen on ${host}:${port}`)
  return { ...status(), started: started && status().running }
}

function sameOrigin (req) {
  const origin = req.headers.origin
  if (!origin) return true // not a browser's cross-site request
  try { return new URL(origin).host === req.headers.host } catch (e) { return false }
}

function open (host, port) {
  // Loaded on first use: a bridge whose view is off never loads the web server's packages.
  const http = require('http')
  const express = require('express')
  const { Server } = require('socket.io')
  const { setupRoutes } = require('prismarine-viewer/lib/common')

  const app = express()
  setupRoutes(app, '')
  const httpServer = http.createServer(app)
  // Only the view's own page may open its socket: any other site the user has open could
  // otherwise read the bot's world from 127.0.0.1 (browsers send Origin on cross-site sockets).
  const io = new Server(httpServer, { allowRequest: (req, done) => done(null, sameOrigin(req)) })
  const s = { host, port, requestedPort: port, http: httpServer, io, listening: false }
  io.on('connection', serve)
  s.ready = new Promise((resolve) => {
    httpServer.once('listening', () => {
      s.listening = true
      s.port = httpServer.address().port // the real one when 0 asked for any free port
      resolve()
    })
    // Kept on for the server's life: an 'error' with no listener would be thrown.
    httpServer.on('error', (err) => {
      lastError = `viewer cannot listen on ${host}:${port}: ${err.message}`
      console.error(`[viewer] ${lastError}`)
      if (!s.listening) {
        if (server === s) server = null // the next start() tries again
        io.close()
        resolve()
      }
    })
  })
  httpServer.listen(port, host)
  return s
}

function attach (newBot) {
  if (newBot === bot) return
  detachAll()
  bot = newBot
  // Pages still show the old bot's world. Dropping the transport (not a socket.io
  // disconnect, after which a client stays away for good) makes their client reconnect,
  // and the reconnection is served the new bot's world from scratch.
  if (server) for (const socket of server.io.of('/').sockets.values()) socket.conn.close()
}

function detachAll () {
  for (const detach of sessions.values()) detach()
  sessions.clear()
}

// What prismarine-viewer's mineflayer() does per connection, against the bot attached now.
function serve (socket) {
  const current = bot
  if (!current || !current.entity) return // not spawned: the next attach() reconnects this socket
  // The module itself, not the package's viewer/ index: that loads the browser renderer,
  // which needs the native 'canvas' package (a devDependency there, absent here).
  const { WorldView } = require('prismarine-viewer/viewer/lib/worldView')
  const { viewDistance, firstPerson } = settings
  // a version newer than the viewer's assets is drawn as the newest it has (lib/viewer_versions.js)
  const drawn = drawnAs(current.registry)
  socket.emit('version', drawn || current.version)
  const emitter = drawn ? translatingEmitter(socket, current.registry) : socket
  const worldView = new WorldView(current.world, viewDistance, current.entity.position, emitter)
  worldView.init(current.entity.position).catch(logError)
  const onMove = () => {
    const packet = { pos: current.entity.position, yaw: current.entity.yaw, addMesh: true }
    if (firstPerson) packet.pitch = current.entity.pitch
    socket.emit('position', packet)
    worldView.updatePosition(current.entity.position).catch(logError)
  }
  current.on('move', onMove)
  worldView.listenToBot(current)
  const detach = () => {
    current.removeListener('move', onMove)
    worldView.removeListenersFromBot(current)
  }
  sessions.set(socket, detach)
  socket.on('disconnect', () => {
    if (sessions.get(socket) !== detach) return // already detached by attach() or stop()
    detach()
    sessions.delete(socket)
  })
}

function logError (err) {
  console.error('[viewer]', err && err.stack ? err.stack : err)
}

// Resolves the status once the port is free.
async function stop () {
  const s = server
  server = null
  detachAll()
  bot = null
  lastError = null
  if (!s) return status()
  const closed = s.io.close() // disconnects every socket, then closes the HTTP server
  s.http.closeAllConnections() // idle keep-alive page loads would hold the port open
  try {
    await withTimeout(closed, CLOSE_TIMEOUT_MS, 'viewer close')
  } catch (err) {
    logError(err)
  }
  return status()
}

function status () {
  const running = !!(server && server.listening)
  const host = server ? server.host : lastAddress.host
  const port = server ? server.port : lastAddress.port
  const urlHost = host && host.includes(':') ? `[${host}]` : host
  return {
    running,
    host,
    port,
    url: running ? `http://${urlHost}:${port}/` : null,
    botAttached: running && !!bot,
    clients: running ? sessions.size : 0,
    error: lastError
  }
}

module.exports = { start, stop, status }
