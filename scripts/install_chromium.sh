#!/usr/bin/env bash
# The dashboard's browser test drives Debian's Chromium (package `chromium`). Install it when
# it is missing and this machine can (root with apt-get); otherwise say why, and the test says
# it is skipped. Never fails the build: the browser test is the one that needs it.
set -u
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "chromium: not installed and this machine cannot install it here (needs root and apt-get); the dashboard's browser test will be skipped"
  exit 0
fi
echo "chromium: installing Debian's package for the dashboard's browser test"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -qq --no-install-recommends chromium >/tmp/mcbot-apt-chromium.log 2>&1; then
  apt-get update -qq >>/tmp/mcbot-apt-chromium.log 2>&1
  apt-get install -y -qq --no-install-recommends chromium >>/tmp/mcbot-apt-chromium.log 2>&1 \
    || echo "chromium: apt-get could not install it (see /tmp/mcbot-apt-chromium.log); the browser test will be skipped"
fi
exit 0
