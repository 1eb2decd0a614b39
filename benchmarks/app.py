"""The Stream explorer in a browser: first and cached loads, Next chunk, Pause and Play.

Starts ``streamlit run app.py`` on a free port with a fresh results store and drives it in
headless Chromium (harness/browser.py, as the browser tests do). A visitor arrives at Home,
then opens the explorer (sea0, GNB, PUDD-3 + ADWIN + DDM + EDDM, 100 chunks) from the sidebar
three times with new seeds (runs computed; the server's own timing log says how long the runs
took) and three times again (runs cached); then steps 20 times and pauses and plays at each
speed. Every action is checked for exception boxes and server tracebacks.

Run: .venv/bin/python -m benchmarks.run_all --only app   (a few minutes; needs Chromium)
Prints Markdown (benchmarks/results/app.md).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks._common import (
    app_server,
    chromium_version,
    headless_browser,
    load_average,
    machine,
    p90,
    player_timings,
)
from harness.browser import (
    EXPLORER,
    PLAYER,
    assert_no_exception,
    open_page,
    press,
    settle,
    step_times,
    wait_for_player,
)

SEEDS = (101, 102, 103)
SPEEDS = ("1", "2", "5", "10")


def measure(page: Any, url: str, log: Path) -> dict[str, Any]:
    """Loads (computed, cached), steps, pauses and plays of the explorer at ``url``."""
    page.goto(url)  # a visitor arrives at Home: the server imports everything once
    settle(page, "PUDD Lab")

    def navigate(seed: int) -> float:
        """From Home (seed from the link) to the explorer's player by its sidebar link."""
        page.goto(f"{url}/?seed={seed}&baselines=adwin,ddm,eddm")
        settle(page, "PUDD Lab")
        t = time.monotonic()
        page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]').filter(
            has_text=EXPLORER).click()
        wait_for_player(page, 99)
        assert_no_exception(page)
        return time.monotonic() - t

    first = [navigate(s) for s in SEEDS]  # runs computed
    computing = [ms / 1e3 for what, ms in player_timings(log) if what == "runs"][:len(SEEDS)]
    again = [navigate(s) for s in SEEDS]  # runs cached
    frame = wait_for_player(page, 99)
    player = page.locator(PLAYER)
    steps = [ms / 1e3 for ms in step_times(page, frame, 20)]
    pauses: dict[str, list[tuple[float, int]]] = {}
    plays: dict[str, tuple[float, int, int]] = {}
    for speed in SPEEDS:
        player.locator("#speed").select_option(speed)
        for _ in range(3):
            player.locator("#reset").click()
            player.locator("#play").click()
            page.wait_for_timeout(1500)
            press(page, "#play")  # Pause
            frame.wait_for_function("() => !__player.playing")
            p = frame.evaluate("() => __player.stats.lastPause")
            pauses.setdefault(speed, []).append((p["delayMs"] / 1e3, p["stopped"] - p["seen"]))
        player.locator("#reset").click()
        t = time.monotonic()
        drawn0 = frame.evaluate("() => __player.stats.drawn")
        player.locator("#play").click()
        frame.wait_for_function("() => !__player.playing", timeout=200_000)
        plays[speed] = (time.monotonic() - t,
                        frame.evaluate("() => __player.stats.drawn") - drawn0, 98)
        print(f"played at {speed}/s", file=sys.stderr)
    assert_no_exception(page)
    return {"first": first, "computing": computing, "again": again, "steps": steps,
            "pauses": pauses, "plays": plays}


def report(m: dict[str, Any]) -> list[str]:
    import plotly
    import streamlit

    med = statistics.median
    steps = m["steps"]
    rows = [
        ("First load of the Stream explorer from the sidebar, runs computed (sea0, GNB, "
         "PUDD-3 + ADWIN + DDM + EDDM, 100 chunks; a new seed each time)", "",
         f"{med(m['first']):.2f} s", len(m["first"])),
        ("… of which the server computing the four runs (one shared stream)", "",
         f"{med(m['computing']):.2f} s", len(m["computing"])),
        ("Same, runs cached (revisit): click to the player drawn", "≤ 2 s",
         f"{med(m['again']):.2f} s", len(m["again"])),
        ("Next chunk: press (the input event's time stamp) to the frame painted with the "
         "counter, charts and tables redrawn (in the browser; no server work)", "≤ 300 ms",
         f"{1e3 * med(steps):.0f} ms (p90 {1e3 * p90(steps):.0f}, max "
         f"{1e3 * max(steps):.0f})", len(steps)),
        *((f"Pause at {speed} chunk{'s' if speed != '1' else ''}/s: press (the input event's "
           f"time stamp) to stopped; chunks past the one on screen at the press: "
           f"{', '.join(str(d) for _, d in runs)}",
           "≤ 300 ms, ≤ 1 chunk", f"{1e3 * med([t for t, _ in runs]):.0f} ms", len(runs))
          for speed, runs in m["pauses"].items()),
        *((f"Play chunks 1 → 99 at {speed} chunk{'s' if speed != '1' else ''}/s: frames drawn "
           f"/ due = {drawn} / {due}",
           "every frame at 5/s" if speed == "5" else "",
           f"{t:.1f} s (nominal {98 / float(speed):.1f} s)", 1)
          for speed, (t, drawn, due) in m["plays"].items()),
    ]
    return [
        "## App: Stream explorer in a browser",
        "",
        "Command: `.venv/bin/python -m benchmarks.run_all --only app`  ",
        f"Machine: {machine()}; streamlit {streamlit.__version__}, plotly {plotly.__version__}, "
        f"{chromium_version()} headless; server and browser share the CPUs (load average at "
        f"the end: {load_average()})",
        "",
        "| measure | target | median | n |",
        "| --- | --- | ---: | ---: |",
        *(f"| {what} | {target} | {value} | {n} |" for what, target, value, n in rows),
        "",
        "The player (ui/player_component) plays the finished runs in the browser: stepping and "
        "playing send nothing to the server. Every chunk is drawn; when drawing a frame takes "
        "longer than the speed allows, playing runs slower than nominal rather than skipping "
        "chunks (compare the seconds with the nominal time).",
        "",
    ]


def main() -> None:
    with headless_browser() as browser, app_server(timing_log=True) as (url, log), \
            open_page(browser) as page:
        m = measure(page, url, log)
    print("\n".join(report(m)))


if __name__ == "__main__":
    main()
