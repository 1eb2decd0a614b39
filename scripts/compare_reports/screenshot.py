"""Screenshot an HTML report with the project's headless Chromium: the top of the page.

Usage (from the repository root, with the project's venv):
    PYTHONPATH=. .venv/bin/python scripts/compare_reports/screenshot.py REPORT.html OUT.png [HEIGHT]
"""

from __future__ import annotations

import sys
from pathlib import Path

from harness.browser import find_chromium, launch_browser


def main(report: str, out: str, height: int = 1900) -> None:
    """Open ``report`` at 1280 px wide, let plotly draw, keep the top ``height`` pixels."""
    chromium = find_chromium()
    if chromium is None:
        raise SystemExit("no chromium: scripts/install_browser.sh installs one")
    with launch_browser(chromium) as browser:
        page = browser.new_context(viewport={"width": 1280, "height": height}).new_page()
        page.goto(Path(report).resolve().as_uri())
        page.wait_for_timeout(3000)  # plotly draws after load
        page.screenshot(path=out, clip={"x": 0, "y": 0, "width": 1280, "height": height},
                        full_page=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], *(int(a) for a in sys.argv[3:4]))
