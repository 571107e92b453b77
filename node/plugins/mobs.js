// Mob bodies and brains. flying-squid's mobs only fall; these walk, fight and die.
// Body, per tick: gravity (0.08, drag 0.98), steering at the kind's speed, a 0.42 jump when a
// one-block step is ahead, axis-by-axis collision of the kind's box (minecraft-data width and
// height) against full blocks and closed doors (no passing through walls). Spiders climb
// instead of jumping: 0.2 up per tick while blocked sideways (vanilla Spider.onClimbable).
// Targets (hostiles): the nearest survival/adventure player within the kind's follow range
// (zombies 35, others 16), acquired only with line of sight (vanilla mustSee), forgotten after
// 5 s unseen; a player who hits a hostile becomes its target. Spiders pick no target where it
// is bright (raw brightness >= 12, vanilla getLightLevelDependentMagicValue >= 0.5: daylight)
// and there drop an unprovoked one (1/100 per tick, vanilla SpiderAttackGoal).
// Without a target a hostile strolls (vanilla RandomStrollGoal): that is how one spawned behind
// a hill or a tree comes into view.
// Held up on the way to a target for 5 ticks, a walker follows a path round the obstacle
// (lib/mob_paths.js), as vanilla's ground navigation does; a closed door stays in its way.
// Melee (zombies, spiders): reach^2 = (2*width)^2 + 0.6, needs line of sight, one hit per 20
// ticks, damage by difficulty (zombie 2.5/3/4.5, spider 2/2/3). Skeletons and creepers: mob_kinds.js.
// Player hits deal the held weapon's vanilla damage with 0.4 knockback; death plays status 3,
// drops loot (a player's kill adds killLoot: the spider's eye) and removes the body after 20 ticks.
// Loot is drawn from the world's seed, the kind and how many of that kind died before since the
// server started, as a dug block's chance drops are (drops.js): the same kills in the same order
// give the same loot, whatever the machine (a test's summoned and killed mobs, every run).
'use strict'

const { Vec3 } = require('vec3')
const crypto = require('crypto')
const { isSolidState, dropItem, itemName } = require('./_common')
const { rng } = require('./_noise')
const light = require('./light')
const mobKinds = require('./mob_kinds')
const { findPath } = require('../lib/mob_paths')

const HURT_TICKS = 10 // a hit within 10 ticks of the last is ignored (vanilla invulnerableTime)
const FIRST_LOOK = 10 // ticks between a hostile's looks for a target, the first on its 10th tick
const ZOMBIE = { health: 20, damage: [2.5, 3, 4.5], speed: 0.115, follow: 35, eye: 1.74, loot: [['rotten_flesh', 0, 2]] }
// Speeds in blocks/tick: about half the movement-speed attribute (zombie 0.23 -> 0.115).
const KINDS = {
  zombie: { ...ZOMBIE, burns: true },
  husk: { ...ZOMBIE, burns: false },
  zombie_villager: { ...ZOMBIE, burns: true },
  skeleton: { brain: 'archer', health: 20, speed: 0.1, follow: 16, eye: 1.74, burns: true, held: 'bow', loot: [['bone', 0, 2], ['arrow', 0, 2]] },
  creeper: { brain: 'creeper', health: 20, speed: 0.1, follow: 16, eye: 1.445, loot: [['gunpowder', 0, 2]] },
  spider: { health: 16, damage: [2, 2, 3], speed: 0.12, follow: 16, eye: 0.65, climbs: true, shy: true, loot: [['string', 0, 2]], killLoot: [['spider_eye', 1 / 3]] },
  // Passive animals: gravity, knockback and loot; they only stroll (vanilla RandomStrollGoal,
  // ~1 block/s), never target anyone.
  cow: { passive: true, health: 10, speed: 0.05, loot: [['beef', 1, 3], ['leather', 0, 2]] },
  pig: { passive: true, health: 10, speed: 0.05, loot: [['porkchop', 1, 3]] },
  chicken: { passive: true, health: 4, speed: 0.05, loot: [['chicken', 1, 1], ['feather', 0, 2]] },
  sheep: { passive: true, health: 8, speed: 0.05, loot: [['mutton', 1, 2], ['white_wool', 1, 1]] }
}
const INERT = { passive: true, health: 10, loot: [] }
const WEAPON = Object.fromEntries([
  ['wooden_sword', 4], ['stone_sword', 5], ['iron_sword', 6], ['golden_sword', 4], ['diamond_sword', 7], ['netherite_sword', 8],
  ['wooden_axe', 7], ['stone_axe', 9], ['iron_axe', 9], ['golden_axe', 7], ['diamond_axe', 9], ['netherite_axe', 10],
  ['wooden_pickaxe', 2], ['stone_pickaxe', 3], ['iron_pickaxe', 4], ['golden_pickaxe', 2], ['diamond_pickaxe', 5], ['netherite_pickaxe', 6],
  ['wooden_shovel', 2.5], ['stone_shovel', 3.5], ['iron_shovel', 4.5], ['golden_shovel', 2.5], ['diamond_shovel', 5.5], ['netherite_shovel', 6.5],
  ['trident', 9]
])

module.exports.KINDS = KINDS

module.exports.server = function (serv, cfg = {}) {
  const { registry } = serv
  const Item = require('prismarine-item')(registry)
  const mobs = new Set()
  serv.mcbotMobs = mobs
  const lights = light(serv)

  // Body size per kind, from minecraft-data (zombie 0.6 x 1.95, spider 1.4 x 0.9).
  const sizes = new Map()
  function bodyOf (name) {
    if (!sizes.has(name)) {
      const data = registry.entitiesByName[name]
      const width = data?.width || 0.6
      const height = data?.height || 1.95
      sizes.set(name, { width, height, eye: KINDS[name]?.eye ?? height * 0.85 }) // vanilla default eye 0.85 h
    }
    return sizes.get(name)
  }

  const solidAt = (world, x, y, z) => {
    const id = world.sync.getBlockStateId(new Vec3(Math.floor(x), Math.floor(y), Math.floor(z)))
    return id ? isSolidState(registry, id) : false
  }
  // Does a box of this body with its feet at p overlap a solid block? Sampled at most one block
  // apart across, so a 1.4-wide spider cannot straddle a pillar.
  function collides (world, p, body) {
    const h = body.width / 2 - 0.001
    const n = Math.ceil(body.width)
    for (let y = Math.floor(p.y); y <= Math.floor(p.y + body.height - 0.001); y++) {
      for (let i = 0; i <= n; i++) {
        for (let j = 0; j <= n; j++) {
          if (solidAt(world, p.x - h + 2 * h * i / n, y, p.z - h + 2 * h * j / n)) return true
        }
      }
    }
    return false
  }
  serv.mcbotFits = (name, world, p) => !collides(world, p, bodyOf(name))
  serv.mcbotLineOfSight = (world, from, to) => {
    const d = to.minus(from)
    const n = Math.ceil(d.norm() / 0.25)
    for (let i = 1; i < n; i++) {
      const p = from.plus(d.scaled(i / n))
      if (solidAt(world, p.x, p.y, p.z)) return false
    }
    return true
  }
  const eyes = (e) => e.position.offset(0, e.type === 'player' ? 1.62 : bodyOf(e.name).eye, 0)
  const canSee = (mob, player) => serv.mcbotLineOfSight(mob.world, eyes(mob), eyes(player))
  const targetable = (p) => !p.mcbotDead && !p.disconnected && p.health > 0 && (p.gameMode === 0 || p.gameMode === 2)
  const bright = (mob) => {
    const e = eyes(mob)
    return lights.brightness(mob.world, e.x, e.y, e.z, serv.time) >= 12
  }

  serv.mcbotSpawnMob = (name, world, position) => {
    const kind = KINDS[name] || INERT
    const data = registry.entitiesByName[name]
    if (!data) throw new Error(`unknown entity ${name}`)
    const mob = serv.initEntity('mob', data.id, world, position.clone())
    mob.uuid = crypto.randomUUID()
    mob.name = name
    mob.mcbotDisplayName = data.displayName
    mob.velocity = new Vec3(0, 0, 0) // no .size: flying-squid's own physics leaves it alone
    mob.yaw = 0; mob.pitch = 0; mob.headPitch = 0
    mob.health = kind.health
    mob.metadata = []
    if (kind.held && registry.itemsByName[kind.held]) mob.equipment[0] = new Item(registry.itemsByName[kind.held].id, 1) // main hand
    mob.ai = { kind, body: bodyOf(name), vy: 0, kx: 0, kz: 0, onGround: false, cooldown: 0, target: null, provoked: false, stroll: null, unseen: 0, hurtAt: -Infinity, dead: false, burning: false, fall: 0, tick: 0, stuck: 0, path: null, replanAt: 0 }
    mob.takeDamage = (opts) => hurt(mob, opts)
    mob.updateAndSpawn()
    mobs.add(mob)
    return mob
  }

  function hurt (mob, { damage = 1, attacker = null, knockbackFrom = null, bypassInvulnerability = false, cause = null } = {}) {
    const ai = mob.ai
    if (ai.dead) return
    const now = serv.tickCount // game ticks, as vanilla's invulnerableTime (10 ticks)
    if (!bypassInvulnerability && now - ai.hurtAt < HURT_TICKS) return
    ai.hurtAt = now
    mob.health -= damage
    serv.mcbotHurtEffect(mob, { cause: cause || (attacker ? 'player' : 'command'), attacker })
    const from = knockbackFrom || (attacker && attacker.position)
    if (from) {
      const dx = mob.position.x - from.x
      const dz = mob.position.z - from.z
      const d = Math.hypot(dx, dz) || 1
      ai.kx = dx / d * 0.4; ai.kz = dz / d * 0.4
      if (ai.onGround) ai.vy = 0.4
    }
    if (!ai.kind.passive && attacker && attacker.type === 'player' && targetable(attacker)) {
      ai.target = attacker; ai.unseen = 0; ai.provoked = true
    }
    if (mob.health <= 0) die(mob, attacker)
  }

  const deaths = new Map() // kind -> how many of it died before, for its loot draws
  function lootDraws (name) {
    const before = deaths.get(name) || 0
    deaths.set(name, before + 1)
    let salt = 0
    for (const c of name) salt = Math.imul(salt, 31) + c.charCodeAt(0) | 0
    // cfg.seed is read here: a saved world's seed is set once the world is up (server.js)
    return rng((cfg.seed | 0) ^ Math.imul(salt, 0x9e3779b9) ^ Math.imul(before, 0x85ebca6b))
  }

  function die (mob, attacker) {
    mob.ai.dead = true
    mob._writeOthersNearby('entity_status', { entityId: mob.id, entityStatus: 3 })
    const byPlayer = attacker && attacker.type === 'player'
    const r = lootDraws(mob.name)
    const drops = mob.ai.kind.loot.map(([item, lo, hi]) => [item, lo + Math.floor(r() * (hi - lo + 1))])
    for (const [item, p] of (byPlayer && mob.ai.kind.killLoot) || []) drops.push([item, r() < p ? 1 : 0])
    for (const [item, n] of drops) {
      const name = itemName(registry, item)
      if (n > 0 && name) dropItem(serv, mob.world, mob.position.offset(0, 0.5, 0), registry.itemsByName[name].id, n)
    }
    if (byPlayer) attacker.emit('mcbotKilled', mob)
    setTimeout(() => remove(mob), 1000)
  }

  function remove (mob) {
    if (!mobs.has(mob)) return
    mobs.delete(mob)
    mob.ai.dead = true
    serv.destroyEntity(mob)
  }
  serv.mcbotRemoveMob = remove

  // Player melee: flying-squid's 'attack' behaviour carries no attacker and a fixed 1 damage.
  serv.on('newPlayer', (player) => {
    player.on('attack', (data) => {
      const held = player.inventory.slots[36 + player.heldItemSlot]
      const name = held ? registry.items[held.type]?.name : null
      data.damage = WEAPON[name] ?? 1
      data.attacker = player
      data.knockbackFrom = player.position
    })
  })

  function nearestTarget (mob) {
    let best = null
    let bestD = mob.ai.kind.follow
    for (const p of serv.players) {
      if (p.world !== mob.world || !targetable(p)) continue
      const d = p.position.distanceTo(mob.position)
      if (d < bestD && canSee(mob, p)) { best = p; bestD = d }
    }
    return best
  }

  function updateTarget (mob) {
    const ai = mob.ai
    const kind = ai.kind
    const t = ai.target
    if (t && (!targetable(t) || t.world !== mob.world || t.position.distanceTo(mob.position) > kind.follow ||
        !serv.players.includes(t))) ai.target = null
    if (ai.target && kind.shy && !ai.provoked && Math.random() < 0.01 && bright(mob)) ai.target = null
    if (!ai.target && ai.tick % FIRST_LOOK === 0 && !(kind.shy && bright(mob))) {
      ai.target = nearestTarget(mob)
      ai.provoked = false
    }
    if (ai.target) {
      if (canSee(mob, ai.target)) ai.unseen = 0
      else if (++ai.unseen > 100) ai.target = null
    }
  }

  // Steering helpers for the brains: a move of `speed` blocks/tick toward (or away from) a point.
  const toward = (mob, x, z, speed) => {
    const dx = x - mob.position.x
    const dz = z - mob.position.z
    const d = Math.hypot(dx, dz)
    if (d < 0.6) return { x: 0, z: 0, yaw: Math.atan2(-dx, dz) }
    return { x: dx / d * speed, z: dz / d * speed, yaw: Math.atan2(-dx, dz) }
  }
  const face = (mob, x, z) => ({ x: 0, z: 0, yaw: Math.atan2(-(x - mob.position.x), z - mob.position.z) })

  function melee (mob, t) {
    const ai = mob.ai
    if (!t) return stroll(mob)
    const reach2 = (ai.body.width * 2) ** 2 + 0.6
    if (mob.position.distanceSquared(t.position) <= reach2 && ai.cooldown === 0 && canSee(mob, t)) {
      ai.cooldown = 20
      mob._writeOthersNearby('animation', { entityId: mob.id, animation: 0 }) // arm swing
      const dmg = ai.kind.damage[Math.max(0, Math.min(2, serv.difficulty - 1))]
      if (serv.difficulty > 0) t.mcbotDamage(dmg, { cause: 'mob', attacker: mob, knockbackFrom: mob.position })
    }
    return chase(mob, t)
  }

  // Straight at the target while that gets it somewhere; held up for 5 ticks (a wall, a fence)
  // it walks a path round (lib/mob_paths.js), planned afresh every 20 ticks while it lasts.
  // Spiders climb over instead.
  function chase (mob, t) {
    const ai = mob.ai
    if (!ai.kind.climbs && ai.stuck >= 5 && !ai.path) plan(mob, t)
    else if (ai.path && ai.tick >= ai.replanAt) plan(mob, t)
    while (ai.path?.length) {
      const w = ai.path[0]
      if (Math.hypot(w.x + 0.5 - mob.position.x, w.z + 0.5 - mob.position.z) >= 0.7 || Math.abs(w.y - mob.position.y) > 1.2) {
        return toward(mob, w.x + 0.5, w.z + 0.5, ai.kind.speed)
      }
      ai.path.shift()
    }
    ai.path = null
    return toward(mob, t.position.x, t.position.z, ai.kind.speed)
  }
  function plan (mob, t) {
    const ai = mob.ai
    const solid = (x, y, z) => solidAt(mob.world, x + 0.5, y + 0.5, z + 0.5)
    const path = findPath(solid, mob.position.floored(), t.position.floored(), { height: Math.ceil(ai.body.height) })
    ai.path = path?.length ? path : null
    ai.replanAt = ai.tick + 20
    ai.stuck = 0
  }

  // Vanilla Player.hurt scaling of mob and explosion damage: easy min(d/2 + 1, d), hard 1.5 d.
  const forPlayer = (d) => [0, Math.min(d / 2 + 1, d), d, d * 1.5][serv.difficulty] ?? d
  const brains = { melee, ...mobKinds(serv, { canSee, eyes, toward, face, stroll, hurt, remove, bodyOf, forPlayer }) }

  function think (mob) {
    const ai = mob.ai
    if (ai.kind.passive) return ai.kind.speed ? stroll(mob) : null // inert bodies stand still
    updateTarget(mob)
    if (ai.cooldown > 0) ai.cooldown--
    if (ai.target) ai.stroll = null
    return brains[ai.kind.brain || 'melee'](mob, ai.target)
  }

  // Now and then (1/120 per tick) walk toward a random spot 3-10 blocks away, for at most 10 s;
  // never before the first look for a target (tick 10): a zombie summoned to hunt a player
  // wandered off sideways one time in twenty before it had looked (node/test/mob_paths.test.js).
  function stroll (mob) {
    const ai = mob.ai
    if (!ai.stroll && ai.tick >= FIRST_LOOK && Math.random() < 1 / 120) {
      const a = Math.random() * Math.PI * 2
      const r = 3 + Math.random() * 7
      ai.stroll = { x: mob.position.x + Math.cos(a) * r, z: mob.position.z + Math.sin(a) * r, until: ai.tick + 200 }
    }
    const s = ai.stroll
    if (!s) return null
    const d = Math.hypot(s.x - mob.position.x, s.z - mob.position.z)
    if (d < 0.5 || ai.tick > s.until) { ai.stroll = null; return null }
    return toward(mob, s.x, s.z, ai.kind.speed)
  }

  function step (mob) {
    const ai = mob.ai
    ai.tick++
    const want = ai.dead ? null : think(mob)
    if (!mobs.has(mob)) return // a creeper that blew up
    const world = mob.world
    const body = ai.body
    const p = mob.position.clone()
    let mx = (want ? want.x : 0) + ai.kx
    let mz = (want ? want.z : 0) + ai.kz
    ai.kx *= 0.6; ai.kz *= 0.6
    if (Math.abs(ai.kx) < 0.003) ai.kx = 0
    if (Math.abs(ai.kz) < 0.003) ai.kz = 0
    let blocked = false
    for (const axis of ['x', 'z']) {
      const delta = axis === 'x' ? mx : mz
      if (delta === 0) continue
      const q = p.clone(); q[axis] += delta
      if (!collides(world, q, body)) p[axis] = q[axis]
      else { blocked = true; if (axis === 'x') mx = 0; else mz = 0 }
    }
    const moving = want && (want.x !== 0 || want.z !== 0)
    ai.stuck = moving && Math.hypot(p.x - mob.position.x, p.z - mob.position.z) < 0.01 ? (ai.stuck || 0) + 1 : 0
    if (blocked && want && ai.kind.climbs) {
      ai.vy = 0.2 // climbing a wall; no fall damage builds up on it
      ai.fall = 0
    } else if (blocked && ai.onGround && want) {
      // Step up: blocked on the ground, and the same move one block higher is free.
      const up = p.offset(want.x, 1.01, want.z)
      if (!collides(world, up, body) && !collides(world, p.offset(0, 1.01, 0), body)) ai.vy = 0.42
    }
    const q = p.offset(0, ai.vy, 0)
    if (!collides(world, q, body)) {
      p.y = q.y; ai.onGround = false
      if (ai.vy < 0) ai.fall -= ai.vy
    } else {
      if (ai.vy < 0) {
        p.y = Math.floor(q.y) + 1
        if (collides(world, p, body)) p.y = mob.position.y
        ai.onGround = true
        if (ai.fall > 3) hurt(mob, { damage: Math.ceil(ai.fall - 3), bypassInvulnerability: true, cause: 'fall' })
        ai.fall = 0
      }
      ai.vy = 0
    }
    ai.vy = (ai.vy - 0.08) * 0.98 // vanilla order: move, then gravity and drag
    if (p.y < -64) { remove(mob); return }
    if (want) {
      const yawByte = Math.round((want.yaw * 180 / Math.PI) * 256 / 360) & 0xff
      const signed = yawByte > 127 ? yawByte - 256 : yawByte
      if (signed !== mob.yaw && ai.tick % 4 === 0) {
        mob.yaw = signed
        mob._writeOthersNearby('entity_look', { entityId: mob.id, yaw: signed, pitch: 0, onGround: ai.onGround })
        mob._writeOthersNearby('entity_head_rotation', { entityId: mob.id, headYaw: signed })
      }
    }
    if (!p.equals(mob.position) || mob.onGround !== ai.onGround) mob.sendPosition(p, ai.onGround)
  }

  serv.on('tick', () => {
    for (const mob of mobs) {
      try { step(mob) } catch (err) { serv.err(`mob ${mob.id}: ${err.stack}`); remove(mob) }
    }
  })
  serv.mcbotHurtMob = hurt
}
