#!/usr/bin/env bash
# The world tests as make test runs them, in lanes side by side, each against its own embedded
# servers: one lane per version runs that version's protocol-facing integration tests and then,
# when NODE_TESTS names node test files, those files at that version; one more lane runs the
# one_version tests (a daemon property the protocol cannot change: its API, store, processes
# and faults) at the first version, then the node test files whose every test is oneVersion
# (helpers.js; the 1.18.2 lane, which ran them, was the longest by 1.5 minutes at 6f32cea).
# The tests mostly wait on the game, so several worlds at once take little more wall time than
# one, and a version's node tests start while the one_version lane is still busy.
# PYTEST_WORKERS=2 gives each pytest process two pytest-xdist workers (whole files to a worker;
# on 2 cores that starved the worlds into watchdog wedges). The long game
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

# A file whose every top-level test( passes oneVersion(...) is one version's whole: it runs in
# the one_version lane. A file with some of them runs in the version lanes, its oneVersion tests
# at the last version.
whole_one_version() { # node test file
  local n
  n=$(grep -c "^test(" "node/$1")
  [ "$n" -gt 0 ] && [ "$n" = "$(grep -c "oneVersion(" "node/$1")" ]
}
# The longest files first: node --test starts files in the order given, so a long one started
# last is a lane's tail while the other slot idles (staircase, 108 s of the 26.1 lane's 330 s,
# started near the end by name at 528fa18). Durations at 528fa18, 26.1, longest first.
LONGEST_FIRST="test/staircase.test.js test/pillar.test.js test/walking.test.js test/bounded_search.test.js \
test/animals_beds.test.js test/furnace.test.js test/mechanics.test.js test/night_hostiles.test.js"
ordered=""
for f in $LONGEST_FIRST; do case " $node_tests " in *" $f "*) ordered="$ordered $f" ;; esac; done
for f in $node_tests; do case " $LONGEST_FIRST " in *" $f "*) ;; *) ordered="$ordered $f" ;; esac; done
node_tests=$ordered
version_node_tests=""
one_version_node_tests=""
for f in $node_tests; do
  if whole_one_version "$f"; then one_version_node_tests="$one_version_node_tests $f"
  else version_node_tests="$version_node_tests $f"; fi
done

version_lane() { # version, pytest args...
  local v=$1; shift
  local rc=0
  "$pytest" -m "integration and not long_run and not one_version" --mc-version "$v" "${xdist[@]}" "$@" || rc=1
  if [ -n "$version_node_tests" ]; then
    echo "node tests at $v"
    # shellcheck disable=SC2086 # the file names are words
    (cd node && MCBOT_MC_VERSION=$v MCBOT_ONE_VERSION=$last node --test --test-concurrency=2 $version_node_tests) || rc=1
  fi
  return $rc
}

one_version_lane() { # pytest args...
  local rc=0
  "$pytest" -m "integration and not long_run and one_version" --mc-version "$first" "${xdist[@]}" "$@" || rc=1
  if [ -n "$one_version_node_tests" ]; then
    echo "node tests at $first, every test of each file oneVersion:$one_version_node_tests"
    # shellcheck disable=SC2086 # the file names are words
    (cd node && MCBOT_MC_VERSION=$first MCBOT_ONE_VERSION=$first node --test --test-concurrency=2 $one_version_node_tests) || rc=1
  fi
  return $rc
}

for v in $versions; do
  (version_lane "$v" "$@" > "$logs/$v.log" 2>&1; echo $? > "$logs/$v.rc") &
done
(one_version_lane "$@" > "$logs/one_version.log" 2>&1; echo $? > "$logs/one_version.rc") &
wait
failed=""
for lane in $versions one_version; do
  echo "world tests: $lane"
  cat "$logs/$lane.log"
  [ "$(cat "$logs/$lane.rc")" = 0 ] || failed="$failed $lane"
done
if [ -n "$failed" ]; then echo "world tests FAILED at:$failed"; exit 1; fi
echo "world tests passed at: $versions and one_version"
