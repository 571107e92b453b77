#!/usr/bin/env bash
# The integration tests as make test runs them: every version's tests side by side, each
# version in its own pytest process (PYTEST_WORKERS=2: two pytest-xdist workers, whole files to
# a worker; on 2 cores that starved the worlds into watchdog wedges) against its own embedded servers, and
# the long game runs in a process of their own beside them. They mostly wait on the game, so
# several worlds at once take little more wall time than one. A one_version test (a daemon
# property the protocol cannot change) runs in the last version's process only. Each
# process's output is printed whole once it is done; the exit code is non-zero when any failed.
# Usage: scripts/pytest_matrix.sh PYTEST "VERSIONS" [PYTEST ARGS...]
set -uo pipefail
cd "$(dirname "$0")/.."
pytest=$1; versions=$2; shift 2
workers=${PYTEST_WORKERS:-1}
xdist=()
[ "$workers" -gt 1 ] && xdist=(-n "$workers" --dist loadfile)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
last=${versions##* }
for v in $versions; do
  marks="integration and not long_run"
  [ "$v" = "$last" ] || marks="$marks and not one_version"
  ("$pytest" -m "$marks" --mc-version "$v" "${xdist[@]}" "$@" > "$logs/$v.log" 2>&1; echo $? > "$logs/$v.rc") &
done
# The long game runs (long_run) wait on game time for minutes: a process of their own, every
# version one after the other, beside the versions' processes.
("$pytest" -m "integration and long_run" --mc-version "${versions// /,}" "$@" > "$logs/long_run.log" 2>&1
 echo $? > "$logs/long_run.rc") &
wait
failed=""
for v in $versions long_run; do
  echo "integration tests: $v"
  cat "$logs/$v.log"
  [ "$(cat "$logs/$v.rc")" = 0 ] || failed="$failed $v"
done
if [ -n "$failed" ]; then echo "integration tests FAILED at:$failed"; exit 1; fi
echo "integration tests passed at: $versions"
