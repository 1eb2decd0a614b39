"""Four PUDD settings side by side in the Stream explorer: stepping timed in a browser.

Starts ``streamlit run app.py`` with a fresh results store and headless Chromium
(harness/browser.py, as the browser tests do), opens the explorer with four PUDD settings
beside ADWIN, DDM and EDDM (one seed, then three), and times 20 clicks of Next chunk from the
click to every chart, number and table redrawn (in the browser: stepping sends nothing to the
server). Every click is checked for exception boxes and server tracebacks.

Run: .venv/bin/python -m benchmarks.run_all --only app_settings   (a minute or two; needs Chromium)
Prints Markdown (benchmarks/results/app_settings.md).
"""

from __future__ import annotations

import statistics
from typing import Any
from urllib.parse import quote

from benchmarks._common import app_server, headless_browser, load_average, machine
from harness.browser import (
    EXPLORER,
    FOUR,
    PLAYER,
    assert_no_exception,
    open_page,
    settle,
    wait_for_player,
)


def measure(page: Any, url: str) -> list[tuple[str, float, float, float]]:
    """(label, median ms, max ms, last frame's render ms) for one seed, then three."""
    rows = []
    for seeds, label in ((1, "one seed"), (3, "three seeds, mean and band")):
        page.goto(f"{url}/explorer?baselines=adwin,ddm,eddm&pudd={quote(FOUR)}"
                  f"&seeds={seeds}&chunk=1")
        settle(page, EXPLORER)
        frame = wait_for_player(page, 99, timeout=600_000)
        player = page.locator(PLAYER)
        steps = []
        for _ in range(20):
            t0 = frame.evaluate("() => performance.now()")
            player.locator("#next").click()
            steps.append(frame.evaluate("(t0) => performance.now() - t0", t0))
            assert_no_exception(page)
        render = frame.evaluate("() => __player.stats.lastRenderMs")
        rows.append((label, statistics.median(steps), max(steps), render))
    return rows


def main() -> None:
    with headless_browser() as browser, app_server() as (url, _), open_page(browser) as page:
        rows = measure(page, url)
    print("\n".join([
        "## App: four PUDD settings side by side, stepping in a browser (issue 14)",
        "",
        "Command: `.venv/bin/python -m benchmarks.run_all --only app_settings`  ",
        f"Machine: {machine()}; headless chromium and the server share the CPUs (load average "
        f"at the end: {load_average()})",
        "",
        "sea0, GNB, 100 chunks; PUDD-3, PUDD-5 (all cuts), PUDD-3 (EK), PUDD-1 (floor 0) beside "
        "ADWIN, DDM and EDDM. Next chunk: click to every chart, the numbers and the tables "
        "redrawn, measured in the browser (stepping sends nothing to the server).",
        "",
        "| stepping | target | median | max | last frame's render |",
        "| --- | --- | ---: | ---: | ---: |",
        *(f"| {label} | ≤ 300 ms | {m:.0f} ms | {mx:.0f} ms | {r:.0f} ms |"
          for label, m, mx, r in rows),
        "",
    ]))


if __name__ == "__main__":
    main()
