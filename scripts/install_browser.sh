#!/usr/bin/env bash
# Install Debian's chromium for the browser tests (tests/app/test_browser.py) when it is missing.
# Without root or sudo it prints how to install it; the browser tests then skip with that reason.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "note: no apt-get here; install Chromium and set PUDD_CHROMIUM=/path/to/chromium to run the browser tests." >&2
  exit 0
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; else
    echo "note: run 'sudo apt-get install -y chromium' to enable the browser tests." >&2
    exit 0
  fi
fi
echo "Installing Debian's chromium for the browser tests"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
