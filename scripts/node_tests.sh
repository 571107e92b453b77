#!/usr/bin/env bash
# Node tests at every version at once: scripts/node_tests.sh "VERSIONS" TEST_FILES...
# The tests mostly wait on game time (mobs walking, smelting), so the versions run side by
# side, each against its own servers, and halve the wall time on a 2-core machine. Each
# version's output is printed whole once it is done; the exit code is non-zero when any failed.
set -uo pipefail
cd "$(dirname "$0")/../node"
versions=$1; shift
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
for v in $versions; do
  (MCBOT_MC_VERSION=$v node --test "$@" > "$logs/$v.log" 2>&1; echo $? > "$logs/$v.rc") &
done
wait
failed=""
for v in $versions; do
  echo "node tests at $v"
  cat "$logs/$v.log"
  [ "$(cat "$logs/$v.rc")" = 0 ] || failed="$failed $v"
done
if [ -n "$failed" ]; then echo "node tests FAILED at:$failed"; exit 1; fi
echo "node tests passed at: $versions"
