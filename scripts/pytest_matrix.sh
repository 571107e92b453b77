#!/usr/bin/env bash
# The pytest suite as make test runs it: the unit tests, then the integration tests of every
# version side by side (and the long game runs in a third process), each version its own
# pytest process against its own embedded servers
# (they mostly wait on the game, so two versions take little more wall time than one on a
# 2-core machine). A one_version test runs in the last version's process only (the other's
# run is the longer). Each process's output is printed whole once it is done; the exit code is
# non-zero when any failed.
# Usage: scripts/pytest_matrix.sh PYTEST "VERSIONS" [PYTEST ARGS...]
set -uo pipefail
cd "$(dirname "$0")/.."
pytest=$1; versions=$2; shift 2
"$pytest" -m "not integration" "$@" || exit $?
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
last=${versions##* }
for v in $versions; do
  marks="integration and not long_run"
  [ "$v" = "$last" ] || marks="$marks and not one_version"
  ("$pytest" -m "$marks" --mc-version "$v" "$@" > "$logs/$v.log" 2>&1; echo $? > "$logs/$v.rc") &
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
