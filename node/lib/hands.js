'use strict'
// The bot's hands never click into a window they did not open, and never open one by placing.
// A placement against a crafting table or a furnace without sneaking opens it (vanilla and our
// server alike), and nothing closed it: mineflayer's equip and toss then clicked the open
// container with the player inventory's slot numbers (off by one in a table, by six in a
// furnace), moving other items on the server while the bot's inventory believed nothing moved.
// A bench bot's mutton then never reached its hand, and 127 eats in a row timed out.

// Blocks a use opens or toggles instead of placing against (unless sneaking).
const USABLE = /(^|_)(furnace|smoker|crafting_table|chest|barrel|anvil|bed|door|trapdoor|fence_gate|button|lever|table|loom|stonecutter|grindstone|shulker_box|hopper|dispenser|dropper|lectern|bell|beacon|brewing_stand|enchanting_table|note_block|repeater|comparator)$/

const usable = (block) => Boolean(block && USABLE.test(block.name))

// Place the held item against `ref`'s `face`, sneaking when `ref` is a block a use would open.
async function placeAgainst (bot, ref, face) {
  const sneak = usable(ref)
  if (sneak) bot.setControlState('sneak', true)
  try {
    if (sneak) await bot.waitForTicks(2) // the server knows the bot crouches before the use
    await bot.placeBlock(ref, face)
  } finally {
    if (sneak) bot.setControlState('sneak', false)
  }
}

// Close a container window left open before an inventory click of the player's own slots.
// bot.mcbotStrayWindows counts them (node/test/hands.test.js reads it).
function closeStray (bot) {
  const w = bot.currentWindow
  if (!w || w === bot.inventory) return
  bot.mcbotStrayWindows = (bot.mcbotStrayWindows || 0) + 1
  bot.closeWindow(w)
}

// A stopped action still handing back what it put in a window (lib/actions/smelt.js: a smelt's
// take-back) sets bot.mcbotHandBack: the hands wait for it, at most HAND_BACK_MS, before
// closing the window. The stop is reported at once and a reflex equips its sword at once: the
// close cut the take-back short, and the raw iron stayed in a furnace the bot left behind.
const HAND_BACK_MS = 4000 // the smelt's poll and its three takes of a second each

async function handedBack (bot) {
  const pending = bot.mcbotHandBack
  if (!pending) return
  let timer
  const late = await Promise.race([
    pending.then(() => false, () => false),
    new Promise((resolve) => { timer = setTimeout(() => resolve(true), HAND_BACK_MS) })
  ])
  clearTimeout(timer)
  // never settled (a take stuck in a window gone): waited for once, not by every equip after it
  if (late && bot.mcbotHandBack === pending) bot.mcbotHandBack = null
}

function install (bot) {
  bot.mcbotStrayWindows = 0
  bot.once('inject_allowed', () => {
    for (const name of ['equip', 'unequip', 'toss', 'tossStack']) {
      const original = bot[name]
      if (typeof original !== 'function') continue
      bot[name] = function (...args) {
        // at once when nothing is handed back: a caller's next packet (a hit after an equip it
        // did not await) keeps coming after the equip's (node/test/attack_reach.test.js)
        if (bot.mcbotHandBack) return handedBack(bot).then(() => { closeStray(bot); return original.apply(this, args) })
        closeStray(bot)
        return original.apply(this, args)
      }
    }
  })
}

module.exports = { install, placeAgainst, usable, USABLE }
