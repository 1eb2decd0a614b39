"""Each page's script time on a warm server: the server's share of a warm page load.

Runs app.py and each page in Streamlit's AppTest (in a child process per checkout, so that
each imports its own code), once to fill the caches and then ``--repeat`` reruns of the same
session, timed: what the server spends on a visit whose results are cached (the page's
elements built and sent, its figures' JSON made). With ``--baseline PATH`` a second
checkout is timed the same way, round by round in turn with this one.

Run: .venv/bin/python -m benchmarks.bench_page_scripts [--pages home,fig1] [--repeat 5]
[--baseline PATH] [--rounds 2]
Prints Markdown; the browser's share is bench_pages'.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from benchmarks._common import (
    checkouts,
    chosen_pages,
    existing_path,
    load_average,
    machine,
    positive_int,
)

ROOT = Path(__file__).resolve().parents[1]
#: the child: warm reruns of each page, seconds each, as JSON {path: [s, ...]}
_CHILD = """
import json, sys, time
from harness.apptest import open_page
out = {}
for path in sys.argv[2].split(","):
    at = open_page(path, timeout=600)
    times = []
    for _ in range(int(sys.argv[1])):
        t = time.perf_counter()
        at.run(timeout=600)
        times.append(time.perf_counter() - t)
    out[path] = times
json.dump(out, sys.stdout)
"""


def _times(tree: Path, paths: list[str], repeat: int) -> dict[str, list[float]]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.setdefault("PUDD_CACHE_DIR", str(ROOT / "datasets" / "cache"))
    env.setdefault("PUDD_RESULTS_STORE", str(tree / "results" / "store"))
    done = subprocess.run([sys.executable, "-c", _CHILD, str(repeat), ",".join(paths)],
                          cwd=tree, env=env, capture_output=True, text=True, check=True)
    return {k: list(v) for k, v in json.loads(done.stdout.splitlines()[-1]).items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", default="", help="comma-separated URL paths (default: all)")
    parser.add_argument("--repeat", type=positive_int, default=5, help="timed reruns per page")
    parser.add_argument("--rounds", type=positive_int, default=2,
                        help="runs of each checkout, in turn")
    parser.add_argument("--baseline", type=existing_path, default=None,
                        help="another checkout (e.g. a worktree of main), timed in turn")
    args = parser.parse_args()
    chosen = chosen_pages(parser, args.pages)
    trees = checkouts(args.baseline)
    times: dict[str, dict[str, list[float]]] = {n: {p.path: [] for p in chosen} for n in trees}
    for _ in range(args.rounds):
        for name, tree in trees.items():
            for path, values in _times(tree, [p.path for p in chosen], args.repeat).items():
                times[name][path] += values
    print("## App: each page's script time on a warm server\n")
    extra = (f" --pages {args.pages}" if args.pages else "") + (
        " --baseline PATH" if args.baseline is not None else "")
    print(f"Command: `.venv/bin/python -m benchmarks.bench_page_scripts --repeat {args.repeat} "
          f"--rounds {args.rounds}{extra}`  ")
    print(f"Machine: {machine()} (load average at the end: {load_average()})\n")
    names = list(trees)
    print("| page | " + " | ".join(f"warm script, {n}, median (ms)" for n in names) + " |")
    print("| --- |" + " ---: |" * len(names))
    for spec in chosen:
        cells = " | ".join(f"{1e3 * statistics.median(times[n][spec.path]):.0f}"
                           for n in names)
        print(f"| {spec.title} | {cells} |")
    print(f"\nAppTest runs app.py and the page as the server does (a new session, then "
          f"{args.repeat} reruns of it, each timed, in {args.rounds} rounds"
          + (", the checkouts in turn" if len(names) > 1 else "") + "): the warm visit's "
          "script, its results cached; medians of all reruns. The page's elements are built "
          "and queued as in a server, not sent over a websocket.")


if __name__ == "__main__":
    main()
