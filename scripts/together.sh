#!/usr/bin/env bash
# Run shell commands side by side (each mostly waits on its own embedded world, so two take
# little more wall time than one on a 2-core machine). Each one's output is printed whole, in
# the order given, once all are done; the exit code is non-zero when any failed.
# Usage: scripts/together.sh "COMMAND 1" "COMMAND 2" ...
set -uo pipefail
cd "$(dirname "$0")/.."
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
i=0
for cmd in "$@"; do
  i=$((i + 1))
  (start=$SECONDS; bash -c "$cmd" > "$logs/$i.log" 2>&1; echo $? > "$logs/$i.rc"; echo $((SECONDS - start)) > "$logs/$i.s") &
done
wait
failed=0
i=0
for cmd in "$@"; do
  i=$((i + 1))
  echo "== $cmd (exit $(cat "$logs/$i.rc"), $(cat "$logs/$i.s") s)"
  cat "$logs/$i.log"
  [ "$(cat "$logs/$i.rc")" = 0 ] || failed=1
done
[ "$failed" = 0 ] || { echo "FAILED: see the commands above with a non-zero exit"; exit 1; }
