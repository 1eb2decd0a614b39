"""A class on one server: 30 browser sessions play the Stream explorer at once.

Starts ``streamlit run app.py`` with a fresh results store and one headless Chromium
(harness/browser.py, as the browser tests do). ``--class-size`` sessions (default 30) open
the teacher's link one after another (sea0, GNB, PUDD-3 + ADWIN + DDM, 100 chunks; three seeds
shared by the class), then all press Play at 5 chunks/s while a new visitor loads the page and
ten of them pause; the server's CPU and memory are read with psutil. Then the sessions stop
and another visitor loads the page (the server's own share). Every session is checked for
exception boxes and server tracebacks.

Run: .venv/bin/python -m benchmarks.run_all --only app_capacity   (a few minutes; needs Chromium)
Prints Markdown (benchmarks/results/app_capacity.md).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

from benchmarks._common import app_server, cpu_seconds, headless_browser, positive_int, rss_mb
from harness.browser import (
    SERVER_PIDS,
    assert_no_exception,
    open_page,
    press,
    wait_for_player,
)

LAPTOP = {"width": 1280, "height": 800}
#: (browser, server URL, class size) -> measurements; (them, class size, command) -> Markdown
Measure = Callable[[Any, str, int], dict[str, Any]]
Report = Callable[[dict[str, Any], int, str], list[str]]


def visit(browser: Any, url: str) -> float:
    """Seconds from a new visitor's request to the explorer's player drawn."""
    with open_page(browser, LAPTOP) as page:
        t = time.monotonic()
        page.goto(url)
        wait_for_player(page, 99, timeout=240_000)
        seconds = time.monotonic() - t
        assert_no_exception(page)
    return seconds


def measure(browser: Any, url: str, n: int) -> dict[str, Any]:
    pid = SERVER_PIDS[url]
    with ExitStack() as stack:
        pages, frames, loads = [], [], []
        for i in range(n):  # students open the teacher's link, one after another
            page = stack.enter_context(open_page(browser, LAPTOP, timeout_ms=120_000))
            t = time.monotonic()
            page.goto(f"{url}/explorer?seed={i % 3}")  # three runs shared by the class
            frames.append(wait_for_player(page, 99, timeout=240_000))
            loads.append(time.monotonic() - t)
            print(f"student {i + 1}: {loads[-1]:.1f} s", file=sys.stderr, flush=True)
            assert_no_exception(page)
            pages.append(page)
        rss_idle = rss_mb(pid)
        for frame in frames:
            frame.evaluate("() => document.getElementById('play').click()")
        cpu0, t0 = cpu_seconds(pid), time.monotonic()
        visitor = visit(browser, f"{url}/explorer?seed=1")
        pauses = []
        for page, frame in zip(pages[:10], frames[:10], strict=True):
            press(page, "#play")  # Pause, as a person clicks it
            p = frame.evaluate("() => __player.stats.lastPause")
            if p:
                pauses.append((p["delayMs"], p["stopped"] - p["seen"]))
        while time.monotonic() - t0 < 20:
            time.sleep(1)
        server_cpu = (cpu_seconds(pid) - cpu0) / (time.monotonic() - t0)
        playing = sum(f.evaluate("() => __player.playing") for f in frames)
        drawn = [f.evaluate("() => __player.stats.drawn") for f in frames]
        rss = rss_mb(pid)
        # the server's own capacity: the same sessions, stopped so that their drawing no longer
        # takes this machine's two cores (the server sees no difference: playing sends nothing)
        for frame in frames:
            frame.evaluate("() => __player.playing && document.getElementById('play').click()")
        visitor_idle = visit(browser, f"{url}/explorer?seed=2")
        for page in pages:
            assert_no_exception(page)
    return {"loads": loads, "visitor": visitor, "visitor_idle": visitor_idle, "pauses": pauses,
            "server_cpu": server_cpu, "playing": playing, "drawn": drawn,
            "rss_idle": rss_idle, "rss": rss}


def report(m: dict[str, Any], n: int, command: str) -> list[str]:
    med = statistics.median
    delays = sorted(d for d, _ in m["pauses"])
    return [
        "## App: a class on one server",
        "",
        f"Command: `{command}`  ",
        f"{n} browser sessions (one headless Chromium on the same 2-core machine as the server) "
        "open the Stream explorer (sea0, GNB, PUDD-3 + ADWIN + DDM, 100 chunks; three seeds "
        "shared by the class), then all press Play at 5 chunks/s.",
        "",
        "| measure | target | result |",
        "| --- | --- | ---: |",
        f"| page load of each student, one after another (median, max) | | "
        f"{med(m['loads']):.2f} s, {max(m['loads']):.2f} s |",
        f"| a new visitor's page load while {n} play in this machine's browser | ≤ 5 s | "
        f"{m['visitor']:.2f} s |",
        f"| a new visitor's page load with the {n} sessions connected, stopped (the server's "
        f"share: it sees the same traffic as while they play) | ≤ 5 s | "
        f"{m['visitor_idle']:.2f} s |",
        f"| Pause in 10 of the playing sessions: press to stopped (median, max) | ≤ 300 ms "
        f"(p90) | {med(delays):.0f} ms, {max(delays):.0f} ms |",
        f"| … chunks past the one on screen at the press | ≤ 1 | "
        f"{max((o for _, o in m['pauses']), default=0)} |",
        f"| server CPU while {n} play (cores busy, over 20 s) | | {m['server_cpu']:.3f} |",
        f"| server memory (RSS): {n} sessions loaded, then after playing | | "
        f"{m['rss_idle']:.0f} MB, {m['rss']:.0f} MB |",
        f"| sessions still playing after 20 s, frames drawn per session (median) | | "
        f"{m['playing']} of {n}, {med([float(d) for d in m['drawn']]):.0f} |",
        "",
        "Playing costs the server nothing: the player runs in each browser from the runs it "
        "was sent (server CPU above). On this machine the 30 players' drawing takes both cores, "
        "so a new visitor's load while they play measures the browsers, not the server; the "
        "next row stops them (the server sees no difference) and measures the server. The "
        "press-to-stopped times are the browsers' own.",
        "",
    ]


def class_main(name: str, doc: str | None, measure: Measure, report: Report) -> None:
    """Parse ``--class-size``, measure a class on a new server with a browser, print Markdown.

    Shared by this benchmark and ``app_capacity_ws`` (``name``: the module, for the command).
    """
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("--class-size", type=positive_int, default=30, help="sessions in the class")
    n = parser.parse_args().class_size
    command = (f".venv/bin/python -m benchmarks.run_all --only {name}" if n == 30 else
               f".venv/bin/python -m benchmarks.{name} --class-size {n}")
    with headless_browser() as browser, app_server() as (url, _):
        m = measure(browser, url, n)
    print("\n".join(report(m, n, command)))


def main() -> None:
    class_main("app_capacity", __doc__, measure, report)


if __name__ == "__main__":
    main()
