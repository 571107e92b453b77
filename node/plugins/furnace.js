// Furnaces: placement, the furnace window, fuel and smelting (vanilla times).
'use strict'

module.exports = {}
