#!/usr/bin/env bash
# Makes Debian's Chromium available for the browser tests (test/**/*.browser.test.ts drive it with
# playwright-core at /usr/bin/chromium, or CHROMIUM_PATH). Installs the Debian package when it is
# missing and this is a Debian machine run as root; otherwise says what is missing and fails, so a
# browser test never silently does not run.
#   usage: scripts/browser.sh ensure
set -euo pipefail

CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"

if [ -x "$CHROMIUM" ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "browser: $CHROMIUM is missing; install Debian's chromium package (or set CHROMIUM_PATH)" >&2
  exit 1
fi
echo "browser: installing chromium" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium >/dev/null
"$CHROMIUM" --version >&2
