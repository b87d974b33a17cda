#!/usr/bin/env bash
# Installs Debian's Chromium for the report's browser test, once. Without
# root or sudo it says so and the test skips.
set -u
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: no apt-get here; install Chromium yourself for the browser test" >&2
  exit 0
fi
run() { if [ "$(id -u)" = 0 ]; then "$@"; elif sudo -n true 2>/dev/null; then sudo "$@"; else return 1; fi; }
echo "ensure-chromium: installing Debian's chromium for the report's browser test (once; a few minutes on a cold machine)" >&2
if ! { run env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1 ||
       { run apt-get update -q >/dev/null 2>&1 && run env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1; }; }; then
  echo "ensure-chromium: could not install chromium (no root or sudo?); the browser test will skip" >&2
fi
exit 0
