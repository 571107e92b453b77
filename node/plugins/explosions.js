// Explosions (creepers), per vanilla Explosion (1.18-1.21):
// - blocks: 16x16x16 rays from the centre, each starting at power * (0.7..1.3) and losing
//   0.225 per 0.3-block step plus (resistance + 0.3) * 0.3 in every non-air block it crosses
//   (resistance from minecraft-data); a block is destroyed where its ray still has strength, so
//   obsidian (1200) and bedrock never go. Each destroyed block drops its loot with chance
//   1/power (vanilla survives_explosion); blocks whose minecraft-data loot has more than one
//   entry (leaves, grass, gravel: conditions it cannot express) drop nothing here.
// - entities within 2*power of the centre: impact = (1 - dist/(2*power)) * exposure, exposure
//   being the share of rays from points spread over the entity's box to the centre that no
//   block stops (vanilla getSeenPercent); damage = floor((impact^2 + impact)/2 * 7 * 2*power + 1)
//   (43 point-blank for a creeper), players taking it scaled by difficulty (normal x1);
//   knockback = impact along centre -> eyes. Entity damage comes before the blocks go (vanilla).
// - players (unless spectators) are hurt with cause 'explosion' ("<player> was blown up by
//   Creeper") and get their knockback in the explosion packet (the client moves itself); every
//   player within 64 blocks gets that packet: up to 1.21.1 it lists the destroyed blocks, from
//   1.21.2 it carries the particle and sound instead and the blocks go as block changes, which
//   are sent at every version.
'use strict'

const { Vec3 } = require('vec3')
const { dropItem, randInt, itemName } = require('./_common')

module.exports = function explosions (serv, api) {
  const { registry } = serv
  const { hurt, bodyOf, forPlayer } = api
  const fields = (registry.protocol.play.toClient.types.packet_explosion?.[1] || []).map(f => f.name)
  const LISTS_BLOCKS = fields.includes('affectedBlockOffsets') // up to 1.21.1
  const CENTERED = fields.includes('center') // 1.21.9+: a vec3 centre, the radius and the block count
  const states = Math.max(...registry.blocksArray.map(b => b.maxStateId)) + 1
  const resistance = new Float32Array(states)
  for (const b of registry.blocksArray) for (let s = b.minStateId; s <= b.maxStateId; s++) resistance[s] = b.resistance ?? 0

  function blocksHit (world, center, power) {
    const hit = new Map()
    for (let i = 0; i < 16; i++) {
      for (let j = 0; j < 16; j++) {
        for (let k = 0; k < 16; k++) {
          if (i !== 0 && i !== 15 && j !== 0 && j !== 15 && k !== 0 && k !== 15) continue
          const dir = new Vec3(i / 15 * 2 - 1, j / 15 * 2 - 1, k / 15 * 2 - 1).normalize().scaled(0.3)
          let strength = power * (0.7 + Math.random() * 0.6)
          const p = center.clone()
          for (; strength > 0; strength -= 0.22500001) {
            const at = p.floored()
            const column = world.sync.getColumnAt(at)
            if (!column) break
            const s = world.sync.getBlockStateId(at) || 0
            if (s !== 0) {
              strength -= (resistance[s] + 0.3) * 0.3
              if (strength > 0) hit.set(`${at.x},${at.y},${at.z}`, at)
            }
            p.add(dir)
          }
        }
      }
    }
    return [...hit.values()]
  }

  // Share of rays from points over the box (feet at pos) to the centre that no block stops.
  function exposure (world, center, pos, width, height) {
    const sx = 1 / (width * 2 + 1)
    const sy = 1 / (height * 2 + 1)
    const ox = (1 - Math.floor(1 / sx) * sx) / 2
    let seen = 0
    let all = 0
    for (let a = 0; a <= 1; a += sx) {
      for (let b = 0; b <= 1; b += sy) {
        for (let c = 0; c <= 1; c += sx) {
          const from = new Vec3(pos.x - width / 2 + a * width + ox, pos.y + b * height, pos.z - width / 2 + c * width + ox)
          const d = center.minus(from)
          const len = d.norm()
          // stop just short of the centre, as vanilla's clip does: a creeper's centre lies on
          // the ground's top face, which would block every ray from above
          if (len < 1e-3 || !world.sync.raycast(from, d.scaled(1 / len), len - 1e-3)) seen++
          all++
        }
      }
    }
    return all ? seen / all : 0
  }

  function lootOf (stateId) {
    const block = registry.blocksByStateId[stateId]
    const entries = (registry.blockLoot?.[block?.name]?.drops || []).filter(d => !d.silkTouch)
    if (entries.length !== 1) return null
    const [lo, hi] = (entries[0].stackSizeRange || [1, 1]).map(n => n ?? 1)
    const name = itemName(registry, entries[0].item)
    return name ? [registry.itemsByName[name].id, randInt(lo, hi)] : null
  }

  return function explode (world, center, power, { source = null } = {}) {
    const radius = power * 2
    const blocks = blocksHit(world, center, power)
    const knockbacks = new Map()
    const impactOn = (e, width, height, eye) => {
      const dist = e.position.distanceTo(center) / radius
      if (dist > 1) return null
      const dir = e.position.offset(0, eye, 0).minus(center)
      const len = dir.norm()
      if (len === 0) return null
      const impact = (1 - dist) * exposure(world, center, e.position, width, height)
      return { impact, damage: Math.floor((impact * impact + impact) / 2 * 7 * radius + 1), push: dir.scaled(impact / len) }
    }
    for (const p of serv.players) {
      if (p.world !== world || p.gameMode === 3 || p.mcbotDead) continue
      const hit = impactOn(p, 0.6, 1.8, 1.62)
      if (!hit) continue
      knockbacks.set(p, hit.push)
      p.mcbotDamage(forPlayer(hit.damage), { cause: 'explosion', attacker: source, from: center })
    }
    for (const m of serv.mcbotMobs) {
      if (m === source || m.world !== world || m.ai.dead) continue
      const b = bodyOf(m.name)
      const hit = impactOn(m, b.width, b.height, b.eye)
      if (hit) hurt(m, { damage: hit.damage, attacker: source, knockbackFrom: center, cause: 'explosion' })
    }
    const base = center.floored()
    for (const p of serv.players) {
      if (p.world !== world || p.position.distanceTo(center) > 64) continue
      const push = knockbacks.get(p) || new Vec3(0, 0, 0)
      if (LISTS_BLOCKS) {
        p._client.write('explosion', {
          x: center.x,
          y: center.y,
          z: center.z,
          radius: power,
          affectedBlockOffsets: blocks.map(b => ({ x: b.x - base.x, y: b.y - base.y, z: b.z - base.z })),
          playerMotionX: push.x,
          playerMotionY: push.y,
          playerMotionZ: push.z
        })
      } else if (CENTERED) {
        p._client.write('explosion', {
          center: { x: center.x, y: center.y, z: center.z },
          radius: power,
          blockCount: blocks.length,
          playerKnockback: knockbacks.has(p) ? { x: push.x, y: push.y, z: push.z } : undefined,
          explosionParticle: { type: 'explosion_emitter' },
          sound: { soundId: registry.soundsByName['entity.generic.explode'].id },
          blockParticles: []
        })
      } else {
        p._client.write('explosion', {
          x: center.x,
          y: center.y,
          z: center.z,
          playerKnockback: knockbacks.has(p) ? { x: push.x, y: push.y, z: push.z } : undefined,
          explosionParticle: { type: 'explosion_emitter' }, // vanilla: the large one, power >= 2
          sound: { soundId: registry.soundsByName['entity.generic.explode'].id }
        })
      }
    }
    for (const at of blocks) {
      const s = world.sync.getBlockStateId(at) || 0
      if (s === 0) continue
      const loot = Math.random() < 1 / power ? lootOf(s) : null
      serv.setBlock(world, at, 0).catch((err) => serv.err(`explosion block ${at}: ${err.message}`))
      if (loot && loot[1] > 0) dropItem(serv, world, at.offset(0.5, 0.5, 0.5), loot[0], loot[1], new Vec3(Math.random() * 2 - 1, 2, Math.random() * 2 - 1))
    }
    return { blocks: blocks.length }
  }
}
