"""Where a warm page's time goes in the browser: plotly.js, loaded and evaluated per page load.

Two measurements in headless Chromium, each in a new browser context (nothing cached):

1. A blank page that loads one plotly.js bundle and draws a two-trace chart: milliseconds to
   load and evaluate the bundle, then to draw. The full bundle the plotly package ships
   (Streamlit's chart element lazy-loads a chunk of the same size), against plotly's *basic*
   partial bundle (scatter, bar, pie) that the player loads and the *cartesian* one that the
   pages' charts load (``ui/chart.py``), when set-up fetched them.
2. The app: a page with one chart (lesson 4), timed from the request to the script finished,
   to its plotly.js received (the cartesian bundle, or Streamlit's ``PlotlyChart`` chunk
   without it), and to the chart drawn.

Run: .venv/bin/python -m benchmarks.bench_plotly_js [--repeat 5] [--page course-theorem2]
Needs Chromium and the playwright package; the basic bundle is read from the data cache
(``scripts/setup_env.sh`` fetches it) or ``--basic PATH``, the cartesian one from the data
cache; prints Markdown.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._common import existing_path, machine, names_from, positive_int

_PAGE = """<html><body><div id="g" style="width:600px;height:400px"></div>
<script>window.t0 = performance.now()</script><script src="{src}"></script>
<script>window.t1 = performance.now();
Plotly.newPlot('g', [{{x: [1, 2, 3], y: [2, 1, 3], type: 'scatter'}},
                     {{x: [1, 2, 3], y: [1, 2, 1], type: 'bar'}}], {{}})
  .then(() => {{ window.t2 = performance.now(); }});</script></body></html>"""
_ARGS = ["--no-sandbox", "--disable-gpu"]


def _bundles(browser: Any, bundles: dict[str, Path], repeat: int) -> list[tuple[str, int, float,
                                                                               float]]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        pages = {}
        for name, path in bundles.items():
            page = Path(tmp) / f"{name}.html"
            page.write_text(_PAGE.format(src=path.resolve().as_uri()))
            pages[name] = page
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in bundles}
        for _ in range(repeat):
            for name, page in pages.items():  # interleaved: the machine's load hits both
                context = browser.new_context()
                p = context.new_page()
                p.goto(page.as_uri())
                p.wait_for_function("() => window.t2")
                load, draw = p.evaluate("() => [t1 - t0, t2 - t1]")
                times[name].append((load, draw))
                context.close()
        for name, path in bundles.items():
            rows.append((name, path.stat().st_size,
                         statistics.median(t[0] for t in times[name]),
                         statistics.median(t[1] for t in times[name])))
    return rows


_STATE = ("() => document.querySelector('[data-testid=\"stApp\"]')"
          "?.getAttribute('data-test-script-state')")
# the page's plotly.js: ui/chart.py's bundle, else Streamlit's chart chunk
_CHUNK = ("() => { const r = performance.getEntriesByType('resource')"
          ".find(e => e.name.includes('/PlotlyChart.') || e.name.includes('/plotly-cartesian-'));"
          " return r ? [r.responseEnd, r.encodedBodySize, r.name] : null; }")
_DRAWN = ("() => document.querySelectorAll('.js-plotly-plot').length > 0 && document"
          ".querySelectorAll('.pudd-chart[data-pudd-chart=\"loading\"]').length === 0")


def _app(browser: Any, page_path: str,
         repeat: int) -> list[tuple[float, float, float, int, str]]:
    """Per visit: seconds to the script finished, to the plotly.js received, to the chart."""
    from benchmarks._common import app_server

    with app_server() as (url, _):
        return _visits(browser, url, page_path, repeat)


def _visits(browser: Any, url: str, page_path: str,
            repeat: int) -> list[tuple[float, float, float, int, str]]:
    out = []
    for visit in range(repeat + 1):  # the first visit fills the server's caches
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        p = context.new_page()
        t0 = time.monotonic()
        p.goto(f"{url}/{page_path}", wait_until="commit")
        done = None
        while time.monotonic() - t0 < 60:
            if done is None and p.evaluate(_STATE) == "notRunning":
                done = time.monotonic() - t0
            if p.evaluate(_DRAWN):
                break
            p.wait_for_timeout(20)
        drawn = time.monotonic() - t0
        chunk = p.evaluate(_CHUNK)
        if visit and chunk is not None and done is not None:
            # responseEnd is in ms since the page's own start, which is t0 to within ms
            out.append((done, chunk[0] / 1000, drawn, int(chunk[1]), str(chunk[2])))
        context.close()
    return out


def main() -> None:
    from playwright.sync_api import sync_playwright

    from pudd_core.plots.bundle import FULL_JS, basic_bundle_path, chart_js, player_js

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=positive_int, default=5)
    parser.add_argument("--page", default="course-theorem2")
    parser.add_argument("--basic", type=existing_path, default=None,
                        help="the basic bundle (default: the data cache's)")
    args = parser.parse_args()
    from ui.pages import PAGES

    names_from(args.page, [p.url_path for p in PAGES if p.url_path], parser, "--page")
    basic = args.basic or (basic_bundle_path() if player_js() != FULL_JS else None)
    bundles = {"full (the plotly package's plotly.min.js)": FULL_JS}
    if basic is not None:
        bundles["basic (plotly.js-basic-dist-min)"] = basic
    cartesian = chart_js()
    if cartesian is not None:
        bundles["cartesian (plotly.js's plotly-cartesian.min.js)"] = cartesian
    chromium = os.environ.get("PUDD_CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=_ARGS)
        rows = _bundles(browser, bundles, args.repeat)
        visits = _app(browser, args.page, args.repeat)
        browser.close()
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    command = f".venv/bin/python -m benchmarks.bench_plotly_js --repeat {args.repeat}"
    if args.page != "course-theorem2":
        command += f" --page {args.page}"
    if args.basic is not None:
        command += " --basic PATH"
    print("## App: where a warm page's time goes in the browser (plotly.js)\n")
    print(f"Command: `{command}`  ")
    print(f"Machine: {machine()}; headless Chromium, a new context per load (load average at "
          f"the end: {load})\n")
    print("| plotly.js bundle | size (MB) | load and evaluate, median (ms) | first chart, "
          "median (ms) |")
    print("| --- | ---: | ---: | ---: |")
    for name, size, load_ms, draw_ms in rows:
        print(f"| {name} | {size / 1e6:.1f} | {load_ms:.0f} | {draw_ms:.0f} |")
    if visits:
        done = statistics.median(v[0] for v in visits)
        chunk = statistics.median(v[1] for v in visits)
        drawn = statistics.median(v[2] for v in visits)
        size = visits[0][3] / 1e6
        which = ("Streamlit's `PlotlyChart` chunk" if "/PlotlyChart." in visits[0][4]
                 else "the cartesian bundle (ui/chart.py)")
        print(f"\nThe app's page `{args.page}` (one chart), {len(visits)} warm visits, medians "
              f"from the request: script finished {done:.2f} s, {which} ({size:.1f} MB, "
              f"as sent) received {chunk:.2f} s, chart drawn "
              f"{drawn:.2f} s: {drawn - max(done, chunk):.2f} s after both, the browser "
              "evaluating plotly.js before it draws anything.")
    else:
        print("\nThe app's page drew no chart: check --page.", file=sys.stderr)


if __name__ == "__main__":
    main()
