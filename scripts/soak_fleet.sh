#!/usr/bin/env bash
# Soak a fleet: scripts/soak_fleet.sh MINUTES [--bots 3] [--version 26.1|1.21.11|1.21.4|1.18.2] [--fast] [--out soak-results]
# One daemon drives N bots (fleet01..) on the embedded world with drive ticks on; samples
# /api/bots and the live tasks every 5 s and judges: no duplicate live goal (same goal and
# binding, or same goalBinding key), every bot alive at the end (and connected in >= 90 % of
# the samples), every bot completed a task it held. Writes soak-results/fleet-soak-<stamp>.*,
# exits 0 PASS, 1 FAIL, 3 when the daemon cannot start. See bot/tooling/soak_fleet.py.
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/python -m bot.tooling.soak_fleet "$@"
