"""Two checkouts' page loads, interleaved: the same pages, the same browser, the same load.

``bench_pages`` measures one checkout; on a shared machine whose load drifts by the minute,
two runs of it an hour apart compare the load as much as the code. This script starts
``streamlit run app.py`` in this checkout and in ``--baseline PATH`` (e.g. a worktree of
main; each server imports its own tree), then visits each page in both, alternately, as
``bench_pages`` does: one cold visit each, then ``--warm`` new-browser visits and
``--warm`` returning-browser visits, baseline and this checkout in turn. Both servers read
the same data cache (``$PUDD_CACHE_DIR``, else this checkout's) and a fresh results store each.

Run: .venv/bin/python -m benchmarks.bench_pages_ab --baseline /path/to/worktree [--warm 2]
[--pages fig1,theorem2]. Needs Chromium and playwright; prints Markdown.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from benchmarks._common import (
    existing_path,
    headless_browser,
    load_average,
    machine,
    names_from,
    positive_int,
    rss_mb,
)
from benchmarks.bench_pages import _visit
from tests.app._browser import free_port

ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def _server(tree: Path, log_dir: Path) -> Iterator[tuple[str, int]]:
    """``streamlit run app.py`` of ``tree`` (its own code on ``PYTHONPATH``) until the end:
    its URL and process id."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(tree),
           "PUDD_CACHE_DIR": os.environ.get("PUDD_CACHE_DIR", str(ROOT / "datasets" / "cache")),
           "PUDD_RESULTS_STORE": str(log_dir / f"store-{port}")}
    env.pop("PUDD_WORKERS", None)
    with (log_dir / f"streamlit-{port}.log").open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
             "--server.headless", "true", "--server.address", "127.0.0.1",
             "--browser.gatherUsageStats", "false"],
            cwd=tree, stdout=log, stderr=subprocess.STDOUT, env=env)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                        break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(f"{tree}: streamlit did not start") from None
                    time.sleep(0.3)
            yield url, proc.pid
        finally:
            proc.terminate()
            proc.wait(timeout=20)


def main() -> None:
    from ui.pages import PAGES

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--baseline", type=existing_path, required=True,
                        help="the other checkout (a worktree of main)")
    parser.add_argument("--warm", type=positive_int, default=2, help="warm visits per page")
    parser.add_argument("--pages", default="", help="comma-separated URL paths (default: all)")
    args = parser.parse_args()
    wanted = names_from(args.pages, [p.url_path or "home" for p in PAGES], parser, "--pages")
    chosen = [p for p in PAGES if not wanted or (p.url_path or "home") in wanted]
    trees = {"baseline": Path(args.baseline).resolve(), "this": ROOT}
    rows = []
    with tempfile.TemporaryDirectory() as tmp, headless_browser() as browser, \
            ExitStack() as stack:
        servers = {name: stack.enter_context(_server(tree, Path(tmp)))
                   for name, tree in trees.items()}
        urls = {name: url for name, (url, _) in servers.items()}
        start_rss = {name: rss_mb(pid) for name, (_, pid) in servers.items()}
        returning = {name: browser.new_context(viewport={"width": 1280, "height": 800})
                     for name in trees}
        for spec in chosen:
            times: dict[str, dict[str, list[float]]] = {
                name: {"cold": [], "warm": [], "again": []} for name in trees}
            charts = {}
            for name, url in urls.items():
                cold, charts[name] = _visit(browser, f"{url}/{spec.url_path or ''}")
                times[name]["cold"].append(cold)
            for _ in range(args.warm):
                for name, url in urls.items():
                    times[name]["warm"].append(_visit(browser, f"{url}/{spec.url_path or ''}")[0])
            for name, url in urls.items():  # fills the returning browser's caches
                _visit(browser, f"{url}/{spec.url_path or ''}", context=returning[name])
            for _ in range(args.warm):
                for name, url in urls.items():
                    times[name]["again"].append(_visit(browser, f"{url}/{spec.url_path or ''}",
                                                       context=returning[name])[0])
            rss = {name: rss_mb(pid) for name, (_, pid) in servers.items()}
            rows.append((spec.title, times, charts, rss))
            print(spec.title, {n: {k: [round(v, 1) for v in vs] for k, vs in t.items()}
                               for n, t in times.items()}, file=sys.stderr)
        for context in returning.values():
            context.close()
    print("## App: every page's load, before and after, interleaved\n")
    pages = f" --pages {args.pages}" if args.pages else ""
    print(f"Command: `.venv/bin/python -m benchmarks.bench_pages_ab --baseline PATH "
          f"--warm {args.warm}{pages}`  ")
    print(f"Machine: {machine()}; headless Chromium at 1280x800; both servers and the browser "
          f"share the CPUs (load average at the end: {load_average()})\n")
    print(f"Server RSS after start: before {start_rss['baseline']:.0f} MB, after "
          f"{start_rss['this']:.0f} MB.\n")
    print("| page | cold, before (s) | cold, after (s) | warm, new browser, before (s) | "
          "warm, new browser, after (s) | warm, returning, before (s) | "
          "warm, returning, after (s) | charts | server RSS after, before / after (MB) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for title, times, charts, rss in rows:
        b, a = times["baseline"], times["this"]
        print(f"| {title} | {b['cold'][0]:.1f} | {a['cold'][0]:.1f} | "
              f"{statistics.median(b['warm']):.1f} | {statistics.median(a['warm']):.1f} | "
              f"{statistics.median(b['again']):.1f} | {statistics.median(a['again']):.1f} | "
              f"{charts['this']} | {rss['baseline']:.0f} / {rss['this']:.0f} |")
    print("\nEach page is visited in the baseline's server and in this checkout's in turn "
          "(as bench_pages times a visit: from the request to the page settled), so a change "
          "of the machine's load hits both columns alike. Medians of the warm visits.")


if __name__ == "__main__":
    main()
