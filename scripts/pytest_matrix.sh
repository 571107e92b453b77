#!/usr/bin/env bash
# The world tests as make test runs them, in lanes side by side, each against its own embedded
# servers: one lane per version runs that version's protocol-facing integration tests and then,
# when NODE_TESTS names node test files, those files at that version; one more lane runs the
# one_version tests (a daemon property the protocol cannot change: its API, store, processes
# and faults) at the first version. The tests mostly wait on the game, so several worlds at once
# take little more wall time than one, and a version's node tests start while the one_version
# lane is still busy. PYTEST_WORKERS=2 gives each pytest process two pytest-xdist workers (whole
# files to a worker; on 2 cores that starved the worlds into watchdog wedges). The long game
# runs (long_run) are left to make test-matrix and make bench. Each lane's output is printed
# whole once it is done; the exit code is non-zero when any failed.
# Usage: [NODE_TESTS="test/a.test.js ..."] scripts/pytest_matrix.sh PYTEST "VERSIONS" [PYTEST ARGS...]
set -uo pipefail
cd "$(dirname "$0")/.."
pytest=$1; versions=$2; shift 2
workers=${PYTEST_WORKERS:-1}
node_tests=${NODE_TESTS:-}
xdist=()
[ "$workers" -gt 1 ] && xdist=(-n "$workers" --dist loadfile)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
first=${versions%% *}
last=${versions##* }

version_lane() { # version, pytest args...
  local v=$1; shift
  local rc=0
  "$pytest" -m "integration and not long_run and not one_version" --mc-version "$v" "${xdist[@]}" "$@" || rc=1
  if [ -n "$node_tests" ]; then
    echo "node tests at $v"
    # shellcheck disable=SC2086 # the file names are words
    # node tests marked oneVersion (helpers.js) run at the last version only: its lane is the
    # shorter (the first version's also waits on the one_version lane's worlds)
    (cd node && MCBOT_MC_VERSION=$v MCBOT_ONE_VERSION=$last node --test --test-concurrency=2 $node_tests) || rc=1
  fi
  return $rc
}

for v in $versions; do
  (version_lane "$v" "$@" > "$logs/$v.log" 2>&1; echo $? > "$logs/$v.rc") &
done
("$pytest" -m "integration and not long_run and one_version" --mc-version "$first" "${xdist[@]}" "$@" \
   > "$logs/one_version.log" 2>&1; echo $? > "$logs/one_version.rc") &
wait
failed=""
for lane in $versions one_version; do
  echo "world tests: $lane"
  cat "$logs/$lane.log"
  [ "$(cat "$logs/$lane.rc")" = 0 ] || failed="$failed $lane"
done
if [ -n "$failed" ]; then echo "world tests FAILED at:$failed"; exit 1; fi
echo "world tests passed at: $versions and one_version"
