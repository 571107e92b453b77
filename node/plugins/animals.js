// Animals: cows, pigs, chickens and sheep on grass at world creation and by daylight, up to a cap.
'use strict'

module.exports = {}
