// Beds: two-half placement, sleeping, skipping the night, the spawn point.
'use strict'

module.exports = {}
