// Op commands for tests and soaks (everybody is op in the embedded world). One base command,
// `/mcbot <sub> ...`; every reply starts with "mcbot: " (errors: "mcbot: error: ...").
//   /mcbot damage <player> <amount> [cause]      deal damage (invulnerability ignored; cause mob,
//                                                arrow, explosion, lava...: worn armour absorbs part)
//   /mcbot damage <mob id> <amount> [player]     hurt a mob (as if by that player: a kill drops its loot)
//   /mcbot health <player> <hp>                  set health (1-20)
//   /mcbot food <player> <food> [saturation]     set food (0-20) and saturation
//   /mcbot time <ticks>                          set the time of day (13000 = night)
//   /mcbot spawn <mob> <count> [player] [dist]   spawn mobs around a player (default: you, 5 blocks)
//   /mcbot summon <mob> <x> <y> <z> [ignited]    spawn one mob at an exact place (an ignited
//                                                creeper explodes 1.5 s later, whatever it sees)
//   /mcbot fill <x1> <y1> <z1> <x2> <y2> <z2> <block>[props]   fill a box (max 32768 blocks)
//   /mcbot setblock <x> <y> <z> <block>[props]   set one block
//   /mcbot tp <player> <x> <y> <z>               teleport
//   /mcbot killall [mob]                         remove spawned mobs (all kinds, or one)
//   /mcbot info [player]                         JSON: time, mob count and kinds, each mob's health,
//                                                place and target, player vitals and places
//   /mcbot light <x> <y> <z>                     JSON: block light, sky light, raw brightness there
//   /mcbot tick freeze|unfreeze|step <n>         stop the game clock, restart it, or run exactly
//                                                n ticks of a frozen world (replies once they ran)
//   /mcbot tick sprint <n>                       the same n ticks back to back, as fast as it goes
//   /mcbot save                                  write a saved world's chunks, furnaces and players
//                                                now (vanilla save-all flush); replies once written
// Coordinates accept ~ and ~N relative to the issuing player. <player> accepts a name or @s/@p.
'use strict'

const { Vec3 } = require('vec3')
const { parseBlockSpec, chatReply } = require('./_common')
const light = require('./light')

const HURT_CAUSES = ['command', 'mob', 'arrow', 'explosion', 'lava', 'fall', 'drown', 'wall', 'starve']
const USAGE = 'damage|health|food|time|spawn|summon|fill|setblock|tp|killall|info|light|tick|save'

module.exports.server = function (serv, cfg = {}) {
  const { registry } = serv

  function playerArg (name, ctx) {
    if (!name) {
      if (ctx.player) return ctx.player
      throw new Error('player required from the console')
    }
    const found = serv.getPlayer(name) || (name.startsWith('@') ? serv.getPlayers(name, ctx.player)[0] : null)
    if (!found) throw new Error(`no player ${name}`)
    return found
  }
  function num (s, what) {
    const n = Number(s)
    if (s === undefined || !Number.isFinite(n)) throw new Error(`${what} must be a number`)
    return n
  }
  function coords (args, ctx) {
    const base = ctx.player ? ctx.player.position : null
    return args.map((s, i) => {
      const axis = ['x', 'y', 'z'][i]
      if (s === undefined) throw new Error('missing coordinate')
      if (s.startsWith('~')) {
        if (!base) throw new Error('~ needs a player')
        return Math.floor(base[axis]) + (s.length > 1 ? num(s.slice(1), axis) : 0)
      }
      return num(s, axis)
    })
  }

  // World edits (fill, setblock) apply in the order they arrive, one after the other, as vanilla
  // runs commands. Each write awaits its chunk, so two fills started side by side interleave, and
  // a large fill sent first could overwrite, cell by cell, a small one sent after it (a test's
  // air chamber inside a stone box came back stone).
  let edits = Promise.resolve()
  function setBlocks (world, positions, id) {
    const run = edits.then(() => writeBlocks(world, positions, id))
    edits = run.catch(() => {})
    return run
  }

  // Each changed block goes to the players that have its chunk: one that gets the chunk later
  // gets it with the change (a test's 25 000-block fill far from the bot sent it 25 000
  // packets it threw away).
  async function writeBlocks (world, positions, id) {
    const viewers = serv.players.filter(p => p.world === world)
    for (const pos of positions) {
      await world.setBlockStateId(pos, id)
      const chunk = `${pos.x >> 4},${pos.z >> 4}`
      for (const p of viewers) if (p.loadedChunks?.[chunk]) p._client.write('block_change', { location: pos, type: id })
    }
  }

  function groundNear (world, x, y, z) {
    for (let dy = 8; dy >= -8; dy--) {
      const below = world.sync.getBlockStateId(new Vec3(x, y + dy - 1, z))
      const at = world.sync.getBlockStateId(new Vec3(x, y + dy, z))
      const head = world.sync.getBlockStateId(new Vec3(x, y + dy + 1, z))
      if (below && registry.blocksByStateId[below]?.boundingBox === 'block' && !at && !head) return y + dy
    }
    return y
  }

  const subs = {
    damage ([who, amount, by], ctx) {
      const mob = /^\d+$/.test(who || '') ? [...(serv.mcbotMobs || [])].find(m => m.id === Number(who)) : null
      if (mob) {
        const attacker = by ? playerArg(by, ctx) : null
        serv.mcbotHurtMob(mob, { damage: num(amount, 'amount'), attacker, bypassInvulnerability: true })
        return `damaged ${mob.name} ${mob.id} by ${amount}, health ${Math.max(0, mob.health)}`
      }
      const p = playerArg(who, ctx)
      const cause = by || 'command' // a player's hurt as if by a mob, an arrow... (armour counts)
      if (!HURT_CAUSES.includes(cause)) throw new Error(`cause must be one of ${HURT_CAUSES.join(', ')}, not ${cause}`)
      const dealt = p.mcbotDamage(num(amount, 'amount'), { cause, bypassInvulnerability: true })
      return `damaged ${p.username} by ${dealt}, health ${p.health}`
    },
    health ([who, hp], ctx) {
      const p = playerArg(who, ctx)
      p.updateHealth(Math.max(1, Math.min(20, num(hp, 'hp'))))
      return `${p.username} health ${p.health}`
    },
    food ([who, food, sat], ctx) {
      const p = playerArg(who, ctx)
      p.food = Math.max(0, Math.min(20, Math.round(num(food, 'food'))))
      p.foodSaturation = sat === undefined ? Math.min(p.foodSaturation ?? 0, p.food) : Math.max(0, Math.min(p.food, num(sat, 'saturation')))
      p.foodExhaustion = 0
      p.mcbotSendVitals()
      return `${p.username} food ${p.food} saturation ${p.foodSaturation}`
    },
    time ([t]) {
      serv.setTime(Math.max(0, Math.floor(num(t, 'time'))) % 24000)
      return `time ${serv.time}`
    },
    spawn ([name, count, who, dist], ctx) {
      const data = registry.entitiesByName[(name || '').replace(/^minecraft:/, '')]
      if (!data) throw new Error(`unknown mob ${name}`)
      const n = Math.max(1, Math.min(50, Math.floor(num(count ?? '1', 'count'))))
      const p = playerArg(who, ctx)
      const d = dist === undefined ? 5 : num(dist, 'distance')
      const ids = []
      for (let i = 0; i < n; i++) {
        const a = Math.random() * Math.PI * 2
        const x = Math.floor(p.position.x + Math.cos(a) * d)
        const z = Math.floor(p.position.z + Math.sin(a) * d)
        const y = groundNear(p.world, x, Math.floor(p.position.y), z)
        ids.push(serv.mcbotSpawnMob(data.name, p.world, new Vec3(x + 0.5, y, z + 0.5)).id)
      }
      return `spawned ${n} ${data.name} near ${p.username}: ${ids.join(',')}`
    },
    summon ([name, x0, y0, z0, flag], ctx) {
      const data = registry.entitiesByName[(name || '').replace(/^minecraft:/, '')]
      if (!data) throw new Error(`unknown mob ${name}`)
      const xyz = [x0, y0, z0]
      const [x, y, z] = coords(xyz, ctx)
      const pos = new Vec3(x + (xyz[0].includes('.') ? 0 : 0.5), y, z + (xyz[2].includes('.') ? 0 : 0.5))
      if (flag !== undefined && (flag !== 'ignited' || data.name !== 'creeper')) throw new Error(`${flag} is not an option for ${data.name}`)
      const mob = serv.mcbotSpawnMob(data.name, ctx.player ? ctx.player.world : serv.overworld, pos)
      if (flag) serv.mcbotIgnite(mob)
      return `summoned ${data.name} at ${pos.x} ${pos.y} ${pos.z}: ${mob.id}`
    },
    async fill (args, ctx) {
      const [x1, y1, z1] = coords(args.slice(0, 3), ctx)
      const [x2, y2, z2] = coords(args.slice(3, 6), ctx)
      const id = parseBlockSpec(registry, args[6] || '')
      const vol = (Math.abs(x2 - x1) + 1) * (Math.abs(y2 - y1) + 1) * (Math.abs(z2 - z1) + 1)
      if (vol > 32768) throw new Error(`${vol} blocks is more than 32768`)
      const positions = []
      for (let x = Math.min(x1, x2); x <= Math.max(x1, x2); x++) {
        for (let y = Math.min(y1, y2); y <= Math.max(y1, y2); y++) {
          for (let z = Math.min(z1, z2); z <= Math.max(z1, z2); z++) positions.push(new Vec3(x, y, z))
        }
      }
      await setBlocks(ctx.player ? ctx.player.world : serv.overworld, positions, id)
      return `filled ${vol} blocks with ${args[6]}`
    },
    async setblock (args, ctx) {
      const [x, y, z] = coords(args.slice(0, 3), ctx)
      const id = parseBlockSpec(registry, args[3] || '')
      await setBlocks(ctx.player ? ctx.player.world : serv.overworld, [new Vec3(x, y, z)], id)
      return `set ${x} ${y} ${z} to ${args[3]}`
    },
    async tp ([who, ...xyz], ctx) {
      const p = playerArg(who, ctx)
      // after the world edits sent before it: a player sent onto a pad just filled lands on it,
      // not on the chunks as they were (and falls through where the pad comes later)
      await edits
      const [x, y, z] = coords(xyz, { player: ctx.player || p })
      const dest = new Vec3(x, y, z)
      // whole numbers mean block centres, like vanilla
      if (!xyz[0].includes('.')) dest.x += 0.5
      if (!xyz[2].includes('.')) dest.z += 0.5
      await p.teleport(dest)
      // flying-squid only streams chunks as a player walks: a far teleport would leave the
      // client standing in unloaded chunks (frozen by its physics) for good.
      p.worldSendRestOfChunks().catch(() => {})
      // Nor does it tell the players around the destination (or the one teleported) who is
      // there now: a bot teleported next to another stayed invisible to it.
      p.updateAndSpawn()
      return `teleported ${p.username} to ${dest.x} ${dest.y} ${dest.z}`
    },
    killall ([name]) {
      let n = 0
      for (const mob of [...(serv.mcbotMobs || [])]) {
        if (!name || mob.name === name) { serv.mcbotRemoveMob(mob); n++ }
      }
      for (const e of Object.values(serv.entities)) {
        if (e.type === 'mob' && !e.ai && (!name || e.name === name)) { serv.destroyEntity(e); n++ }
      }
      return `removed ${n} mobs`
    },
    info ([who], ctx) {
      const players = who ? [playerArg(who, ctx)] : serv.players
      const alive = [...(serv.mcbotMobs || [])].filter(m => !m.ai.dead)
      const kinds = {}
      for (const m of alive) kinds[m.name] = (kinds[m.name] || 0) + 1
      return JSON.stringify({
        time: serv.time,
        mobs: alive.length,
        kinds,
        // each mob's place and whom it hunts: what a test asserts about a mob's mind
        mobList: alive.map(m => ({
          id: m.id,
          name: m.name,
          health: m.health,
          pos: [m.position.x, m.position.y, m.position.z].map(v => Math.round(v * 100) / 100),
          target: m.ai.target ? m.ai.target.username : null
        })),
        players: players.map(p => ({
          name: p.username,
          health: p.health,
          food: p.food,
          saturation: p.foodSaturation,
          gameMode: p.gameMode,
          pos: [p.position.x, p.position.y, p.position.z].map(v => Math.round(v * 100) / 100)
        }))
      })
    },
    async tick ([what, n]) {
      if (what === 'freeze') { serv.mcbotFreezeTicks(); return `ticks frozen at ${serv.tickCount}` }
      if (what === 'unfreeze') { serv.mcbotUnfreezeTicks(); return `ticks running from ${serv.tickCount}` }
      if (what !== 'step' && what !== 'sprint') throw new Error('use tick freeze|unfreeze|step <n>|sprint <n>')
      const count = Math.floor(num(n, 'n'))
      if (count < 1 || count > 72000) throw new Error('n must be 1..72000')
      const sprint = what === 'sprint'
      return `${sprint ? 'sprinted' : 'stepped'} ${count} ticks to ${await serv.mcbotStepTicks(count, { sprint })}`
    },
    // A test's way to know what a restart will find, instead of waiting for the periodic save.
    async save () {
      if (!cfg.worldFolder) return 'nothing to save: the world is in memory'
      const world = serv.overworld
      await (world.waitSaving ? world.waitSaving() : world.saveNow?.())
      await Promise.all(serv.players.map(p => p.save?.()))
      return `saved the world and ${serv.players.length} players`
    },
    light (xyz, ctx) {
      const [x, y, z] = coords(xyz, ctx)
      const world = ctx.player ? ctx.player.world : serv.overworld
      const L = light(serv)
      return JSON.stringify({ block: L.blockLight(world, x, y, z), sky: L.skyLight(world, x, y, z), brightness: L.brightness(world, x, y, z, serv.time) })
    }
  }

  serv.commands.add({
    base: 'mcbot',
    info: 'mcbot test and soak commands',
    usage: `/mcbot <${USAGE}> ...`,
    op: true,
    parse (str) { return str.trim() ? str.trim().split(/\s+/) : false },
    async action ([sub, ...args], ctx) {
      const fn = subs[sub]
      if (!fn) { chatReply(serv, ctx, `error: unknown subcommand ${sub}; use ${USAGE}`); return }
      try {
        chatReply(serv, ctx, await fn(args, ctx))
      } catch (err) {
        chatReply(serv, ctx, `error: ${err.message}`)
      }
    }
  })
}
