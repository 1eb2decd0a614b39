"""Fetch plotly.js's partial bundles for the browser (run by scripts/setup_env.sh).

The basic bundle is the player's, the cartesian one the pages' charts'. Without them the
player loads the plotly package's full bundle and the charts are Streamlit's own: they work
the same, and a page takes about a second longer to open (BENCHMARKS.md, "App: page load").
Exits 0 either way.
"""

from __future__ import annotations

import sys

from pudd_core.plots.bundle import BASIC, CARTESIAN, fetch_bundle

_WITHOUT = {BASIC: "the player uses plotly's full bundle",
            CARTESIAN: "the pages' charts use Streamlit's plotly.js"}


def main() -> int:
    """Fetch the bundles, or warn and go on without them."""
    for release, without in _WITHOUT.items():
        try:
            path = fetch_bundle(release)
        except (OSError, ValueError) as err:
            print(f"warning: could not fetch {release.member} of {release.package} "
                  f"{release.version} ({err}); {without} (pages open about a second slower)",
                  file=sys.stderr)
            continue
        print(f"plotly.js {release.name} bundle: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
