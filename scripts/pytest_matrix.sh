#!/usr/bin/env bash
# The integration tests as make test runs them: every version's protocol-facing tests side by
# side, each version in its own pytest process against its own embedded servers, and the
# one_version tests (a daemon property the protocol cannot change: its API, store, processes
# and faults) in a process of their own at the first version. They mostly wait on the game, so
# several worlds at once take little more wall time than one. PYTEST_WORKERS=2 gives each
# process two pytest-xdist workers (whole files to a worker; on 2 cores that starved the worlds
# into watchdog wedges). The long game runs (long_run) are left to make test-matrix and make
# bench. Each process's output is printed whole once it is done; the exit code is non-zero
# when any failed.
# Usage: scripts/pytest_matrix.sh PYTEST "VERSIONS" [PYTEST ARGS...]
set -uo pipefail
cd "$(dirname "$0")/.."
pytest=$1; versions=$2; shift 2
workers=${PYTEST_WORKERS:-1}
xdist=()
[ "$workers" -gt 1 ] && xdist=(-n "$workers" --dist loadfile)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
first=${versions%% *}
run() { # name, marks, version, args...
  local name=$1 marks=$2 version=$3; shift 3
  ("$pytest" -m "$marks" --mc-version "$version" "${xdist[@]}" "$@" > "$logs/$name.log" 2>&1
   echo $? > "$logs/$name.rc") &
}
for v in $versions; do
  run "$v" "integration and not long_run and not one_version" "$v" "$@"
done
run one_version "integration and not long_run and one_version" "$first" "$@"
wait
failed=""
for v in $versions one_version; do
  echo "integration tests: $v"
  cat "$logs/$v.log"
  [ "$(cat "$logs/$v.rc")" = 0 ] || failed="$failed $v"
done
if [ -n "$failed" ]; then echo "integration tests FAILED at:$failed"; exit 1; fi
echo "integration tests passed at: $versions"
