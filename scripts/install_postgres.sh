#!/usr/bin/env bash
# The PostgreSQL task store's tests start a real server from Debian's binaries (package
# `postgresql`, /usr/lib/postgresql/*/bin). Install it when it is missing and this machine can
# (root with apt-get); otherwise say why, and those tests say they are skipped. Never fails the
# build. Only the binaries are wanted: the package's own cluster service is never started here.
set -u
if ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "postgresql: not installed and this machine cannot install it here (needs root and apt-get); the PostgreSQL store tests will be skipped"
  exit 0
fi
echo "postgresql: installing Debian's package for the PostgreSQL store tests"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -qq --no-install-recommends postgresql >/tmp/mcbot-apt-postgresql.log 2>&1; then
  apt-get update -qq >>/tmp/mcbot-apt-postgresql.log 2>&1
  apt-get install -y -qq --no-install-recommends postgresql >>/tmp/mcbot-apt-postgresql.log 2>&1 \
    || echo "postgresql: apt-get could not install it (see /tmp/mcbot-apt-postgresql.log); the PostgreSQL store tests will be skipped"
fi
exit 0
