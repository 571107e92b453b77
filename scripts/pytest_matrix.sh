#!/usr/bin/env bash
# The world tests as make test runs them, in lanes side by side, each against its own embedded
# servers: one lane per version runs that version's protocol-facing integration tests; one lane
# runs the node test files NODE_TESTS names, at each version in turn (two files at a time); one
# more lane runs the one_version tests (a daemon property the protocol cannot change: its API,
# store, processes and faults) at the first version. The tests mostly wait on the game, so
# several worlds at once take little more wall time than one. THEN, a command line, starts once
# the version and node lanes are done, beside the one_version lane's tail (make test's soaks).
# PYTEST_WORKERS=2 gives each pytest process two pytest-xdist workers (whole files to a worker;
# on 2 cores that starved the worlds into watchdog wedges). The long game runs (long_run) are
# left to make test-matrix and make bench. Each lane's output is printed whole once all are
# done; the exit code is non-zero when any failed.
# Usage: [NODE_TESTS="test/a.test.js ..."] [THEN="command ..."] scripts/pytest_matrix.sh PYTEST "VERSIONS" [PYTEST ARGS...]
set -uo pipefail
cd "$(dirname "$0")/.."
pytest=$1; versions=$2; shift 2
workers=${PYTEST_WORKERS:-1}
node_tests=${NODE_TESTS:-}
then_cmd=${THEN:-}
xdist=()
[ "$workers" -gt 1 ] && xdist=(-n "$workers" --dist loadfile)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
first=${versions%% *}

node_lane() {
  local rc=0 v
  for v in $versions; do
    echo "node tests at $v"
    # node tests marked oneVersion (helpers.js) run at the first version only
    # shellcheck disable=SC2086 # the file names are words
    (cd node && MCBOT_MC_VERSION=$v MCBOT_ONE_VERSION=$first node --test --test-concurrency=2 $node_tests) || rc=1
  done
  return $rc
}

lane() { # name, command...
  local name=$1; shift
  ("$@" > "$logs/$name.log" 2>&1; echo $? > "$logs/$name.rc") &
}

lanes=()
for v in $versions; do
  lane "$v" "$pytest" -m "integration and not long_run and not one_version" --mc-version "$v" "${xdist[@]}" "$@"
  lanes+=($!)
done
names="$versions"
if [ -n "$node_tests" ]; then lane node node_lane; lanes+=($!); names="$names node"; fi
lane one_version "$pytest" -m "integration and not long_run and one_version" --mc-version "$first" "${xdist[@]}" "$@"
names="$names one_version"
if [ -n "$then_cmd" ]; then
  wait "${lanes[@]}"
  echo "world lanes but one_version done; then: $then_cmd"
  lane then bash -c "$then_cmd"
  names="$names then"
fi
wait
failed=""
for name in $names; do
  echo "lane: $name"
  cat "$logs/$name.log"
  [ "$(cat "$logs/$name.rc")" = 0 ] || failed="$failed $name"
done
if [ -n "$failed" ]; then echo "world tests FAILED at:$failed"; exit 1; fi
echo "world tests passed at: $names"
