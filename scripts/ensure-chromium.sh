#!/bin/sh
# Debian's Chromium for the browser tests of the OAuth pages (playwright-core drives it; no
# browser is ever downloaded). Runs before `npm test`; installs only where it is missing and
# apt-get can run; otherwise the browser tests say they were skipped and why.
set -u
if command -v chromium >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "browser tests: installing Debian's chromium (apt-get install -y chromium)..."
  if apt-get install -y chromium >/dev/null 2>&1 || { apt-get update >/dev/null 2>&1 && apt-get install -y chromium >/dev/null 2>&1; }; then
    exit 0
  fi
fi
echo "browser tests: chromium is not installed and could not be (run: apt-get install -y chromium); they will be skipped"
exit 0
