// Item stacks as windows.js's menus and clicks copy and compare them (the leading underscore
// keeps it off the plugin list).
'use strict'

function stacksOf (registry) {
  const Item = require('prismarine-item')(registry)
  const maxStack = (it) => registry.items[it.type]?.stackSize ?? 64
  // 1.20.5+ items carry data components (damage, name...) instead of nbt: both are kept.
  const clone = (it, n) => {
    const c = new Item(it.type, n ?? it.count, it.metadata, it.nbt)
    if (it.components) { c.components = it.components; c.removedComponents = it.removedComponents || [] }
    return c
  }
  const extra = (it) => JSON.stringify([it.nbt ?? null, it.components?.length ? it.components : null, it.removedComponents?.length ? it.removedComponents : null])
  const sameKind = (a, b) => a && b && a.type === b.type && extra(a) === extra(b)
  const same = (a, b) => (!a && !b) || (sameKind(a, b) && a.count === b.count)
  const snap = (it) => (it ? { type: it.type, count: it.count, nbt: it.nbt, components: it.components, removedComponents: it.removedComponents } : null)
  return { Item, maxStack, clone, sameKind, same, snap }
}

module.exports = { stacksOf }
