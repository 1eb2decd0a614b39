"""The server's cost of adding a seed or a setting to an exploration (no browser).

``benchmarks.bench_explorer`` times the same work in a plain process; this is the page in the
real server (harness/browser.py starts it with its own timing log: the runs, then the player
built), each change a new session driven through the websocket (benchmarks/_websocket.py)
whose other runs are cached, as when a user adds a seed to a link's exploration. No session
may show an exception.

Run: .venv/bin/python -m benchmarks.run_all --only app_explorer_add   (about a minute)
Prints Markdown (benchmarks/results/app_explorer_add.md).
"""

from __future__ import annotations

import asyncio
import statistics
from pathlib import Path
from urllib.parse import quote

from benchmarks._common import app_server, load_average, machine, player_timings
from benchmarks._websocket import WsSession

BASE = "baselines=adwin,ddm"
CASES = {  # what changes -> (the exploration before, after)
    "a 2nd seed to PUDD-3 + ADWIN + DDM (3 runs, a new stream)":
        (f"{BASE}&seed={{s}}", f"{BASE}&seed={{s}}&seeds=2"),
    "a 2nd setting (PUDD-5, all cuts) to PUDD-3 + ADWIN + DDM":
        (f"{BASE}&seed={{s}}", f"{BASE}&seed={{s}}&pudd={quote('3;5,cut_points=all')}"),
    "a 4th seed to PUDD-3 + ADWIN + DDM (3 runs, a new stream)":
        (f"{BASE}&seed={{s}}&seeds=3", f"{BASE}&seed={{s}}&seeds=4"),
    "a 2nd seed to PUDD-3, PUDD-5 + ADWIN + DDM + EDDM (5 runs, a new stream)":
        (f"{BASE},eddm&seed={{s}}&pudd=3;5", f"{BASE},eddm&seed={{s}}&pudd=3;5&seeds=2"),
}
REPEATS = 5


async def load(url: str, query: str) -> float:
    """A new session's run of the explorer with ``query``: seconds to script finished."""
    ws = WsSession(url)
    await ws.open()
    seconds = await ws.load(query)
    await ws.close()
    if ws.exceptions:
        raise SystemExit(f"the explorer showed an exception for {query}: {ws.exceptions[0]}")
    return seconds


async def measure(url: str, log: Path) -> dict[str, list[tuple[float, float, float]]]:
    """what -> (runs s, player s, page run s) of each repeat, each on new seeds."""
    results: dict[str, list[tuple[float, float, float]]] = {what: [] for what in CASES}
    await load(url, f"{BASE}&seed=999")  # the first visitor: workers start meanwhile
    await asyncio.sleep(8)
    for i in range(REPEATS):
        for k, (what, (before, after)) in enumerate(CASES.items()):
            seed = 1000 + 10 * i + 100 * k
            await load(url, before.format(s=seed))
            log.write_text("")
            wall = await load(url, after.format(s=seed))
            timed = player_timings(log)
            runs = sum(ms for w, ms in timed if w == "runs") / 1e3
            drawn = sum(ms for w, ms in timed if w == "player") / 1e3
            if runs <= 0:
                raise SystemExit(f"{what}: nothing was computed")
            results[what].append((runs, drawn, wall))
    return results


def cell(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s ({min(values):.2f}-{max(values):.2f})"


def main() -> None:
    with app_server(timing_log=True) as (url, log):
        results = asyncio.run(measure(url, log))
    print("\n".join([
        "## Stream explorer: adding a seed or a setting, inside the Streamlit server (issue 14)",
        "",
        "Command: `.venv/bin/python -m benchmarks.run_all --only app_explorer_add`  ",
        f"Machine: {machine()}; the server alone (sessions driven through its websocket, no "
        f"browser on the machine; load average at the end: {load_average()})",
        "",
        "sea0, GNB, 100 chunks. Each change is a new session on an exploration whose other "
        "runs are cached. Server: the page's own timing log, the missing runs (two or more "
        "at once on the server's two worker processes) and the player built; page run: the "
        f"script run from the request to finished. Median (min-max) of {REPEATS}, each on new "
        "seeds.",
        "",
        "| adding | target | server: runs + player | of which the player | page run |",
        "| --- | --- | ---: | ---: | ---: |",
        *(f"| {what} | ≤ 1 s | {cell([r + p for r, p, _ in rows])} | "
          f"{cell([p for _, p, _ in rows])} | {cell([w for _, _, w in rows])} |"
          for what, rows in results.items()),
        "",
    ]))


if __name__ == "__main__":
    main()
