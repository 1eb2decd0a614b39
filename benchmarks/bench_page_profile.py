"""Where a warm page's browser time goes: Chromium's CPU profile of a visit, by script.

Starts ``streamlit run app.py`` and the widget floor's page (``bench_pages.FLOORS``) as
bench_pages does, then visits each page ``--repeat`` times in a browser that has loaded it
twice before (a returning visitor), with Chromium's sampling profiler on (1 ms), until the
page is settled as bench_pages times it. Prints, per page, the median settled time, the
median of the main thread's busy time, and the median milliseconds of its busiest scripts
(the file a sampled function belongs to: Streamlit's lazily loaded chunks, plotly.js; the
browser's own work is "(program)", "(garbage collector)").

Run: .venv/bin/python -m benchmarks.bench_page_profile [--pages floor,explorer] [--repeat 3]
Needs Chromium and the playwright package; prints Markdown.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import time
from pathlib import Path
from typing import Any

from benchmarks._common import (
    app_server,
    headless_browser,
    load_average,
    machine,
    names_from,
    positive_int,
)
from benchmarks.bench_pages import _BUSY, FLOOR_WIDGETS, FLOORS, STILL_S, _visit, floor_server
from harness.browser import MAIN_HEIGHT

ROOT = Path(__file__).resolve().parents[1]
FLOOR_NAME = "floor"  # --pages' name of the widget floor
SHOWN = 8  # scripts listed per page
_IDLE = ("(idle)",)


def _profiled(context: Any, url: str) -> tuple[float, collections.Counter[str]]:
    """Seconds to settled, and the sampled milliseconds per script, of one visit."""
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 1000})
    cdp.send("Profiler.start")
    t0 = time.monotonic()
    page.goto(url)
    page.locator("h1").first.wait_for()
    last, changed = -1, time.monotonic()
    while time.monotonic() - changed < STILL_S:
        page.wait_for_timeout(100)
        height = page.evaluate(MAIN_HEIGHT)
        if height != last or page.evaluate(_BUSY):
            last, changed = height, time.monotonic()
    profile = cdp.send("Profiler.stop")["profile"]
    page.close()
    nodes = {n["id"]: n["callFrame"] for n in profile["nodes"]}
    spent: collections.Counter[str] = collections.Counter()
    for sample, delta in zip(profile["samples"], profile["timeDeltas"], strict=True):
        frame = nodes[sample]
        name = frame["url"].rsplit("/", 1)[-1] or frame["functionName"] or "(native)"
        spent[name] += delta / 1000
    return changed - t0, spent


def main() -> None:
    from ui.pages import PAGES

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", default="floor,explorer,monitor,reproduction",
                        help="comma-separated URL paths, 'floor' for the widget floor")
    parser.add_argument("--repeat", type=positive_int, default=3, help="profiled visits a page")
    args = parser.parse_args()
    known = [FLOOR_NAME, *(p.url_path or "home" for p in PAGES)]
    chosen = names_from(args.pages, known, parser, "--pages")
    rows = []
    with (headless_browser() as browser, app_server(store=ROOT / "results" / "store") as (url, _),
          floor_server(FLOORS[FLOOR_WIDGETS]) as floor):
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        for name in chosen:
            address = floor if name == FLOOR_NAME else f"{url}/{'' if name == 'home' else name}"
            for _ in range(2):  # the server's caches and the browser's filled
                _visit(browser, address, context=context)
            visits = [_profiled(context, address) for _ in range(args.repeat)]
            scripts = {s for _, spent in visits for s in spent if s not in _IDLE}
            median = {s: statistics.median(spent[s] for _, spent in visits) for s in scripts}
            busy = statistics.median(sum(v for s, v in spent.items() if s not in _IDLE)
                                     for _, spent in visits)
            top = sorted(median.items(), key=lambda kv: -kv[1])[:SHOWN]
            rows.append((name, statistics.median(t for t, _ in visits), busy, top))
        context.close()
    print("## App: where a warm page's browser time goes, by script\n")
    print(f"Command: `.venv/bin/python -m benchmarks.bench_page_profile --pages {args.pages} "
          f"--repeat {args.repeat}`  ")
    print(f"Machine: {machine()}; headless Chromium at 1280x800, a returning browser "
          f"(load average at the end: {load_average()})\n")
    print("| page | settled, median (s) | main thread busy, median (ms) | its busiest scripts, "
          "median (ms) |")
    print("| --- | ---: | ---: | --- |")
    for name, settled, busy, top in rows:
        shown = "; ".join(f"{s} {ms:.0f}" for s, ms in top)
        print(f"| {'widget floor' if name == FLOOR_NAME else name} | {settled:.1f} | "
              f"{busy:.0f} | {shown} |")
    print("\nChromium's sampling profiler (1 ms) over each visit, from the request to the page "
          "settled as bench_pages times it; a sample counts for the script file of the "
          "function it caught (Streamlit's chunks, plotly.js) or the browser's own work "
          "(program, garbage collector). Busy: every sample but idle.")


if __name__ == "__main__":
    main()
