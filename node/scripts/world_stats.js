#!/usr/bin/env node
// Prints, as one JSON object, what the embedded world's chunks and the real vanilla samples are
// made of (lib/world_stats.js): `mcbot world compare` judges and draws it.
//   node scripts/world_stats.js --version V --seed S --chunks N [--terrain plains|caves] [--tree-density D]
'use strict'

const { vanillaStats, ourStats, VANILLA_VERSIONS } = require('../lib/world_stats')

function arg (name, fallback) {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1] : fallback
}

async function main () {
  const version = arg('version', '1.21.4')
  const seed = parseInt(arg('seed', '1'), 10)
  const chunks = parseInt(arg('chunks', '64'), 10)
  const terrain = arg('terrain', 'plains')
  const treeDensity = parseFloat(arg('tree-density', '0.04'))
  const ours = ourStats(version, seed, chunks, { terrain, treeDensity })
  // the plains generator timed in the same run, side by side
  const plains = terrain === 'plains' ? ours : ourStats(version, seed, chunks, { terrain: 'plains', treeDensity })
  ours.plainsGenerateMs = plains.generateMs
  const vanilla = {}
  for (const v of VANILLA_VERSIONS) vanilla[v] = await vanillaStats(v)
  process.stdout.write(JSON.stringify({ version, seed, terrain, ours, vanilla }) + '\n')
}

main().catch((err) => { process.stderr.write(`world_stats: ${err.stack || err}\n`); process.exit(1) })
