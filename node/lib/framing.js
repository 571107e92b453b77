// minecraft-protocol's splitter cuts the byte stream into packets by reading each packet's
// length prefix with protodef's readVarInt, which throws a PartialReadError (a full Error,
// stack trace and all) when the data runs out, and the data runs out at the end of every chunk
// the socket delivers. With twenty bots in one node that throw was 12 % of node's time. This
// splitter cuts the same packets (same slices, same order, same wait for a partial prefix)
// without throwing; a server-side splitter that recognizes legacy pings keeps the original.
'use strict'

const path = require('path')

// {value, size} of the varint at offset, or null when the buffer ends inside it (or it is
// longer than a varint can be: the original waits for more data then, and so does this).
function peekVarInt (buffer, offset) {
  let value = 0
  let shift = 0
  for (let cursor = offset; cursor < buffer.length; cursor++) {
    const byte = buffer[cursor]
    value |= (byte & 0x7F) << shift
    if (!(byte & 0x80)) return { value, size: cursor + 1 - offset }
    shift += 7
    if (shift > 64) return null
  }
  return null
}

function installQuietSplitter (fromModule = 'mineflayer') {
  const base = path.dirname(require.resolve(fromModule))
  const framing = require(require.resolve('minecraft-protocol/src/transforms/framing', { paths: [base] }))
  if (framing.createSplitter.mcbotQuiet) return
  const Splitter = framing.createSplitter().constructor

  class QuietSplitter extends Splitter {
    _transform (chunk, enc, cb) {
      if (this.recognizeLegacyPing) return super._transform(chunk, enc, cb)
      this.buffer = Buffer.concat([this.buffer, chunk])
      let offset = 0
      for (;;) {
        const head = peekVarInt(this.buffer, offset)
        if (head === null || this.buffer.length < offset + head.size + head.value) break
        this.push(this.buffer.slice(offset + head.size, offset + head.size + head.value))
        offset += head.size + head.value
      }
      this.buffer = this.buffer.slice(offset)
      return cb()
    }
  }

  const createSplitter = () => new QuietSplitter()
  createSplitter.mcbotQuiet = true
  framing.createSplitter = createSplitter
}

module.exports = { installQuietSplitter, peekVarInt }
