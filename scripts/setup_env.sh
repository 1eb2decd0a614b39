#!/usr/bin/env bash
# Create the project virtualenv (.venv) and install the pinned requirements into it.
# Usage: scripts/setup_env.sh [runtime|dev]. Re-running is cheap: pip runs only when
# the requirement files changed since the last successful install.
set -euo pipefail
cd "$(dirname "$0")/.."
kind="${1:-runtime}"
req=requirements.txt
[ "$kind" = dev ] && req=requirements-dev.txt

py=""
for cand in python3.11 python3 python; do
  if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import sys; sys.exit(sys.version_info[:2] < (3, 11))'; then
    py="$cand"; break
  fi
done
if [ -z "$py" ]; then
  echo "error: Python 3.11 or newer is needed to create .venv; install it (e.g. apt-get install python3.11) and re-run." >&2
  exit 1
fi

if [ ! -x .venv/bin/python ]; then
  echo "Creating .venv with $($py --version)"
  "$py" -m venv .venv
fi

stamp=".venv/.installed-$kind"
want=$(cat requirements.txt "$req" pyproject.toml | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "Installing $req into .venv (first run takes a few minutes)"
  # (this machine's pip config names local index folders that may not exist: drop that noise)
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$req" \
    2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps \
    --no-build-isolation -e . 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
  echo "$want" > "$stamp"
fi
# plotly.js partial bundles for the player and the charts (npm registry, sha512-checked; cheap when present)
.venv/bin/python scripts/fetch_plotly_bundle.py
