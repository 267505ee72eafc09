#!/usr/bin/env bash
# Make Debian's headless chromium available, idempotently, for the episode
# browser's tests (tests/view_browser_test.ts drives it with puppeteer-core,
# pinned in package.json; puppeteer-core downloads no browser).
#
# 1. apt-get install Debian's chromium when `chromium` is missing (Debian's
#    mirror is reachable from our machines; Google's downloads are not used);
# 2. check that it starts and prints its version.
#
# Run from anywhere. Environment: CHROMIUM (default "chromium"), the binary
# the tests start (LEDGERBENCH_CHROMIUM there).
set -euo pipefail
cd "$(dirname "$0")/.."

BINARY="${CHROMIUM:-chromium}"

sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

if ! command -v "$BINARY" >/dev/null 2>&1; then
  echo "install_chromium: installing chromium" >&2
  export DEBIAN_FRONTEND=noninteractive
  sudo_if_needed apt-get update -qq
  sudo_if_needed apt-get install -y -qq chromium >/dev/null
fi

if ! version="$("$BINARY" --version 2>/dev/null)"; then
  echo "install_chromium: error: '$BINARY' does not start ('$BINARY --version' failed)" >&2
  exit 1
fi
echo "install_chromium: $(command -v "$BINARY"): $version" >&2
