#!/usr/bin/env bash
# Install Debian's Chromium and its driver for the browser tests (tests/test_web_browser.py), unless both are
# there already. Idempotent and quiet; needs root (CI and the development machines run as root). The tests use
# these exact paths, so nothing downloads a browser or a driver of its own.
set -euo pipefail
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "installing chromium and chromium-driver (browser tests)"
# a fresh machine may have no package lists yet: update first, then install
if ! { apt-get update -qq && apt-get install -y -qq chromium chromium-driver; } >"$log" 2>&1; then
    cat "$log" >&2
    echo "error: could not install chromium and chromium-driver" >&2
    exit 1
fi
