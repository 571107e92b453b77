#!/usr/bin/env bash
# Soak the daemon: scripts/soak.sh MINUTES [--server embedded|HOST:PORT] [--version 1.21.4|1.18.2] [--creative] [--fast]
# Samples the HTTP API, judges the 8 acceptance criteria (contract 7.2) and the stall
# classes (7.3), writes soak-results/, exits non-zero on FAIL. See bot/soak.py.
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/python -m bot.soak "$@"
