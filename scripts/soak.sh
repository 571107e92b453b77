#!/usr/bin/env bash
# Soak the daemon: scripts/soak.sh MINUTES [--server embedded|HOST:PORT] [--version 26.1|1.21.11|1.21.4|1.18.2] [--creative] [--fast]
#                             [--chaos [--seed N] [--recovery-times bounds|figures]] [--min-task-success 0.8]
#                             [--milestone-game-days 2]
# Samples the HTTP API, judges the 8 acceptance criteria (docs/contracts.md SOAK-1), the stall
# classes (SOAK-2) and competence (task success rate, milestones, deaths explained, never wedged),
# writes soak-results/ (the newest 20 runs kept), exits non-zero on FAIL.
# --chaos kills the bridge, the embedded world and the daemon at seeded random intervals and
# FAILS on any task or acked thought lost, duplicate live goal key or orphan process.
# See bot/tooling/soak.py.
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/python -m bot.tooling.soak "$@"
