// Daylight cycle with a speed multiplier (cfg.dayLengthScale, 1.0 = vanilla 20 time units
// per second) for fast soaks. Replaces flying-squid's fixed cycle; time still advances and is
// broadcast once per second like vanilla, and /time set keeps working through serv.setTime.
'use strict'

module.exports.server = function (serv, cfg) {
  const scale = Math.max(0, Number(cfg.dayLengthScale ?? 1) || 0)
  serv.doDaylightCycle = false // flying-squid's own cycle stands down
  serv.mcbotDaylightCycle = true
  let carry = 0
  serv.on('tick', (delta, count) => {
    if (!serv.mcbotDaylightCycle || count % 20 !== 0) return
    carry += 20 * scale
    const whole = Math.floor(carry)
    carry -= whole
    if (whole > 0) serv.setTime((serv.time + whole) % 24000)
  })
}
