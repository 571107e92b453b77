'use strict'
// Foods as the game has them, from minecraft-data. Its 1.21.11 data (3.117) stores each food's
// saturation multiplied by twice its nutrition (bread: 60, vanilla 6.0; cooked beef: 204.8,
// vanilla 12.8) and lists the fish buckets as foods, which nobody can eat. Corrected here, in
// place, once per registry; data that is already right (1.18.2, 1.21.4) is left as it is.
const MAX_VANILLA_RATIO = 2.4 // saturation per nutrition point: golden carrot, the richest food

function fixFoods (registry) {
  if (!registry || !registry.foodsArray || registry.mcbotFoodsFixed) return registry
  registry.mcbotFoodsFixed = true
  const inflated = registry.foodsArray.some((f) => f.foodPoints > 0 && f.saturation / f.foodPoints > MAX_VANILLA_RATIO + 0.01)
  for (const f of [...registry.foodsArray]) {
    if (f.name.endsWith('_bucket')) {
      delete registry.foodsByName[f.name]
      delete registry.foods[f.id]
      registry.foodsArray.splice(registry.foodsArray.indexOf(f), 1)
      continue
    }
    if (inflated && f.foodPoints > 0) {
      f.saturation = Math.round(f.saturation / (2 * f.foodPoints) * 1000) / 1000
      f.saturationRatio = f.saturation / f.foodPoints
    }
  }
  return registry
}

module.exports = { fixFoods }
