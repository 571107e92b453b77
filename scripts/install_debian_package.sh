#!/usr/bin/env bash
# usage: install_debian_package.sh PACKAGE PROBE WHAT
# A test that needs a program from Debian (PROBE: a shell test that it is there) installs
# PACKAGE when it is missing and this machine can (root with apt-get); otherwise it says why,
# and the tests that need it say they are skipped. Never fails the build.
set -u
package="$1" probe="$2" what="$3"
if eval "$probe" >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "$package: not installed and this machine cannot install it here (needs root and apt-get); $what will be skipped"
  exit 0
fi
echo "$package: installing Debian's package for $what"
export DEBIAN_FRONTEND=noninteractive
log="/tmp/mcbot-apt-$package.log"
if ! apt-get install -y -qq --no-install-recommends "$package" >"$log" 2>&1; then
  apt-get update -qq >>"$log" 2>&1
  apt-get install -y -qq --no-install-recommends "$package" >>"$log" 2>&1 \
    || echo "$package: apt-get could not install it (see $log); $what will be skipped"
fi
exit 0
