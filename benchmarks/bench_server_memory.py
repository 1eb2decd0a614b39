"""Where the app server's memory goes: the imports, each page's visit, the caches.

In a fresh process, as the server loads them: the resident memory (RSS) after each group
of imports (Streamlit, the numeric stack, plotly, scikit-learn, river, ``pudd_core``, the
app's ``ui``); then, in this process, after a visit of each page (AppTest, a new session
each, run as the server runs it), with the bytes ``st.cache_data`` holds after it
(Streamlit's own count of the pickled values kept). At the end, the largest of those caches.

Run: .venv/bin/python -m benchmarks.bench_server_memory [--pages home,fig1,...]
Prints Markdown. Work that runs off the server (the torch child) is not counted here;
bench_pages reads the real server's RSS and its workers' after each page.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from benchmarks._common import chosen_pages, load_average, machine, rss_mb

ROOT = Path(__file__).resolve().parents[1]

#: The server's imports in groups, in the order a first page loads them (each counts what
#: the groups before it did not already load).
IMPORTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Streamlit (server runtime, elements, AppTest)",
     ("streamlit", "streamlit.web.server", "streamlit.testing.v1")),
    ("numpy, pandas, pyarrow", ("numpy", "pandas", "pyarrow")),
    ("scipy (stats)", ("scipy.stats",)),
    ("plotly (graph_objects, subplots)", ("plotly.graph_objects", "plotly.subplots")),
    ("scikit-learn", ("sklearn.naive_bayes", "sklearn.neural_network", "sklearn.tree")),
    ("river", ("river.drift", "river.tree")),
    ("pudd_core (with experiments, plots, views)",
     ("pudd_core", "pudd_core.experiments.runner", "pudd_core.plots", "pudd_core.views")),
    ("the app's ui package", ("ui.cache", "ui.chart", "ui.controls", "ui.explorer",
                              "ui.monitor", "ui.player", "ui.reproduction", "ui.thresholds")),
)


def cache_bytes() -> dict[str, int]:
    """``st.cache_data`` function name -> bytes it keeps, from Streamlit's stats."""
    from streamlit.runtime.caching.cache_data_api import get_data_cache_stats_provider

    out: dict[str, int] = defaultdict(int)
    families = get_data_cache_stats_provider().get_stats()
    for stat in (s for stats in families.values() for s in stats):
        out[stat.cache_name] += stat.byte_length
    return dict(out)


def import_steps() -> list[tuple[str, float, float]]:
    """(group, RSS after in MB, seconds) of :data:`IMPORTS` in a fresh process, in turn."""
    code = ("import importlib, json, os, sys, time\n"
            "from benchmarks._common import rss_mb\n"
            "from benchmarks.bench_server_memory import IMPORTS\n"
            "out = [('Python and psutil', rss_mb(os.getpid()), 0.0)]\n"
            "for label, modules in IMPORTS:\n"
            "    t = time.perf_counter()\n"
            "    for m in modules: importlib.import_module(m)\n"
            "    out.append((label, rss_mb(os.getpid()), time.perf_counter() - t))\n"
            "json.dump(out, sys.stdout)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    return [(label, float(rss), float(s)) for label, rss, s in json.loads(done.stdout)]


def main() -> None:
    from harness.apptest import open_page
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", default="", help="comma-separated URL paths (default: all)")
    args = parser.parse_args()
    chosen = chosen_pages(parser, args.pages)
    steps = import_steps()
    pid = os.getpid()
    visits = []
    for spec in chosen:
        t = time.perf_counter()
        open_page(spec.path, timeout=600, via_home=False)
        caches = cache_bytes()
        visits.append((spec.title, rss_mb(pid), time.perf_counter() - t,
                       sum(caches.values()) / 2**20))
    caches = cache_bytes()

    print("## App: where the server's memory goes\n")
    pages = f" --pages {args.pages}" if args.pages else ""
    print(f"Command: `.venv/bin/python -m benchmarks.bench_server_memory{pages}`  ")
    print(f"Machine: {machine()} (load average at the end: {load_average()})\n")
    print("| step | RSS after (MB) | added (MB) | its time (s) |")
    print("| --- | ---: | ---: | ---: |")
    last = steps[0][1]
    for label, rss, seconds in steps:
        print(f"| import: {label} | {rss:.0f} | {rss - last:+.0f} | {seconds:.1f} |")
        last = rss
    print("\n| page visited (a new session each, in this order) | RSS after (MB) | added (MB) "
          "| st.cache_data kept after it (MB) | its time (s) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for title, rss, seconds, kept in visits:
        print(f"| {title} | {rss:.0f} | {rss - last:+.0f} | {kept:.1f} | {seconds:.1f} |")
        last = rss
    print("\n| st.cache_data function | kept at the end (MB) |")
    print("| --- | ---: |")
    for name, kept in sorted(caches.items(), key=lambda kv: -kv[1])[:12]:
        print(f"| `{name}` | {kept / 2**20:.2f} |")
    print("\nRSS is the process's resident memory (psutil); what a group of imports adds "
          "depends on what the groups before it loaded. The pages' visits run in this process "
          "through Streamlit's AppTest, as a server runs them (the torch child's work, off "
          "the server, is not counted). Kept: Streamlit's own count of the pickled values "
          "each `st.cache_data` function holds (every one of them has `max_entries`).")


if __name__ == "__main__":
    main()
