"""A class on one server, driven through the websocket, beside one student's browser.

The capacity measurement where 30 browsers do not fit on the machine: ``--class-size``
sessions (default 30) are driven through Streamlit's websocket protocol
(benchmarks/_websocket.py: what the server sees of a class; each loads the explorer, then stays
connected while its browser plays, which sends nothing; when busy, every 5-15 s one reruns its
page, as a student reloading or coming back), and one real headless Chromium
(harness/browser.py) is the student whose Next, Play and Pause are timed, plus new
visitors' loads. No session may show an exception.

Run: .venv/bin/python -m benchmarks.run_all --only app_capacity_ws   (a few minutes; Chromium)
Prints Markdown (benchmarks/results/app_capacity_ws.md).
"""

from __future__ import annotations

import asyncio
import random
import statistics
import threading
import time
from collections.abc import Coroutine
from typing import Any

from benchmarks._common import cpu_seconds, p90, rss_mb
from benchmarks._websocket import WsSession
from benchmarks.app_capacity import LAPTOP, class_main, visit
from harness.browser import (
    PLAYER,
    SERVER_PIDS,
    assert_no_exception,
    open_page,
    press,
    step_times,
    wait_for_player,
)


def measure_window(browser: Any, url: str, pid: int) -> dict[str, Any]:
    """New visitors' loads, then the student's steps and pauses, with the server's CPU."""
    cpu0, t0 = cpu_seconds(pid), time.monotonic()
    visitors = [visit(browser, f"{url}/explorer?seed={seed}")  # one after another
                for seed in (0, 1, 2, 0, 1)]
    with open_page(browser, LAPTOP) as student:
        student.goto(f"{url}/explorer?seed=0")
        frame = wait_for_player(student, 99, timeout=240_000)
        player = student.locator(PLAYER)
        steps = step_times(student, frame, 20)
        pauses = []
        player.locator("#speed").select_option("5")
        for _ in range(10):
            player.locator("#play").click()
            student.wait_for_timeout(1200)
            press(student, "#play")  # Pause, as a person clicks it
            frame.wait_for_function("() => !__player.playing")
            p = frame.evaluate("() => __player.stats.lastPause")
            pauses.append((p["delayMs"], p["stopped"] - p["seen"]))
        assert_no_exception(student)
    window = time.monotonic() - t0
    return {"visitors": visitors, "steps": steps, "pauses": pauses, "window": window,
            "cpu": (cpu_seconds(pid) - cpu0) / window}


def measure(browser: Any, url: str, n: int) -> dict[str, Any]:
    """The class connected and playing (quiet), then also rerunning its pages (busy)."""
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()

    def run(coro: Coroutine[Any, Any, Any], timeout: float = 600) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, loop).result(timeout)

    pid = SERVER_PIDS[url]
    sessions = [WsSession(url) for _ in range(n)]
    loads = []
    for i, ws in enumerate(sessions):  # the class opens the teacher's link
        run(ws.open())
        loads.append(run(ws.load(f"seed={i % 3}")))
    rss_loaded = rss_mb(pid)
    quiet = measure_window(browser, url, pid)  # the class playing in their browsers
    reruns: list[float] = []
    stop = threading.Event()

    async def churn(ws: WsSession, rng: random.Random, i: int) -> None:
        while not stop.is_set():
            await asyncio.sleep(rng.uniform(5, 15))
            if not stop.is_set():
                reruns.append(await ws.load(f"seed={i % 3}"))

    tasks = [asyncio.run_coroutine_threadsafe(churn(ws, random.Random(i), i), loop)
             for i, ws in enumerate(sessions)]
    busy = measure_window(browser, url, pid)  # and each one rerunning its page every 5-15 s
    stop.set()
    for task in tasks:
        task.result(120)
    rss = rss_mb(pid)
    for ws in sessions:
        run(ws.close())
    loop.call_soon_threadsafe(loop.stop)
    shown = [e for ws in sessions for e in ws.exceptions]
    if shown:
        raise SystemExit(f"{len(shown)} exception(s) in the sessions, the first: {shown[0]}")
    return {"loads": loads, "quiet": quiet, "busy": busy, "reruns": reruns,
            "rss_loaded": rss_loaded, "rss": rss}


def window_rows(w: dict[str, Any], when: str) -> list[str]:
    """The table's rows of one measuring window (``measure_window``)."""
    med = statistics.median
    delays = [d for d, _ in w["pauses"]]
    return [
        f"| {when}: a new visitor's page load in a browser (median, max of "
        f"{len(w['visitors'])}) | ≤ 5 s | {med(w['visitors']):.2f} s, "
        f"{max(w['visitors']):.2f} s |",
        f"| {when}: the student's Next chunk, press to the frame painted (median, p90 of "
        f"{len(w['steps'])}) | ≤ 300 ms (p90) | {med(w['steps']):.0f} ms, "
        f"{p90(w['steps']):.0f} ms |",
        f"| {when}: the student's Pause at 5 chunks/s, press to stopped (median, p90 of "
        f"{len(delays)}; chunks past the one on screen, max) | ≤ 300 ms (p90), ≤ 1 | "
        f"{med(delays):.0f} ms, {p90(delays):.0f} ms; {max(o for _, o in w['pauses'])} |",
        f"| {when}: server CPU over the {w['window']:.0f} s (cores busy) | | {w['cpu']:.2f} |",
    ]


def report(m: dict[str, Any], n: int, command: str) -> list[str]:
    med = statistics.median
    return [
        "## App: a class on one server, driven through the websocket (issue 9)",
        "",
        f"Command: `{command}`  ",
        f"Machine: 2-core server; {n} sessions driven through Streamlit's websocket protocol "
        "(the app's own BackMsg/ForwardMsg protobufs: what the server sees of a class's "
        "browsers) and one headless Chromium, the student being timed, on the same machine.",
        "",
        f"Each of the {n} sessions loads the Stream explorer (sea0, GNB, PUDD-3 + ADWIN + DDM, "
        "100 chunks; three seeds shared by the class) and stays connected. *Playing*: each "
        "plays in its own browser, which sends nothing to the server. *Busy*: besides, every "
        "5-15 s each one reruns its page (a reload, a return from another page), about three "
        "page runs a second for the class. Meanwhile new visitors load the page, then the "
        "student steps, plays and pauses.",
        "",
        "| measure | target | result |",
        "| --- | --- | ---: |",
        f"| each session's first load (server: script run to finished; median, max) | | "
        f"{med(m['loads']):.2f} s, {max(m['loads']):.2f} s |",
        *window_rows(m["quiet"], f"{n} playing"),
        f"| busy: the class's reruns (median, p90 of {len(m['reruns'])}) | | "
        f"{med(m['reruns']):.2f} s, {p90(m['reruns']):.2f} s |",
        *window_rows(m["busy"], f"{n} busy"),
        f"| server memory (RSS): {n} sessions loaded, at the end | | {m['rss_loaded']:.0f} MB, "
        f"{m['rss']:.0f} MB |",
        "",
        "No session showed an exception. Step and Pause are the student's browser alone (the "
        "player sends nothing to the server); the new visitors, and the reruns when busy, are "
        "what the class costs the server.",
        "",
    ]


def main() -> None:
    class_main("app_capacity_ws", __doc__, measure, report)


if __name__ == "__main__":
    main()
