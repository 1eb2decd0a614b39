"""Fetch plotly.js's basic partial bundle for the browser player (run by scripts/setup_env.sh).

Without it the player loads the plotly package's full bundle: it works the same, and a page
takes about a second longer to open (BENCHMARKS.md, "App: page load"). Exits 0 either way.
"""

from __future__ import annotations

import sys

from pudd_core.plots.bundle import BASIC, fetch_basic_bundle


def main() -> int:
    """Fetch the bundle, or warn and go on with the full one."""
    try:
        path = fetch_basic_bundle()
    except (OSError, ValueError) as err:
        print(f"warning: could not fetch {BASIC.package} {BASIC.version} ({err}); the player "
              "uses plotly's full bundle (pages open about a second slower)", file=sys.stderr)
        return 0
    print(f"plotly.js basic bundle: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
