"""Every page of the app in a real browser: cold and warm page loads, and the server's memory.

Starts ``streamlit run app.py`` on a free port (the committed results store unless
``$PUDD_RESULTS_STORE`` names another) and headless Chromium as the browser tests do
(harness/browser.py), then opens each page of the navigation by its URL in a
fresh headless-Chromium session: the first visit is *cold* (nothing of that page cached on this
server: imports, data, runs), the next ``--warm`` visits are *warm* (new sessions, the server's
caches filled). A visit is timed from the request to the page *settled*: its title shown,
its script not running (Streamlit's ``data-test-script-state``), no progress bar, no
element's skeleton and no chart waiting for plotly.js, and the main column's height unchanged
for ``STILL_S`` seconds (the time counted ends at the last change). A chart out of sight
(more than half a screen below the first, or in a closed expander or tab) is drawn only when
the visitor comes near it (``ui/chart_component/chart.js``): the visit does not scroll, so
it is not counted; the charts column counts those drawn. Each warm visit is made
twice: in a new browser, and in one that visited before. After each page the server's
resident memory (RSS) and its worker processes' are read with psutil; at the end, again
after the torch child's idle time.

With ``--baseline PATH`` (e.g. a worktree of main) a second server runs that checkout (its
own code, this checkout's data cache) and each visit is made in both servers in turn, so
that a change of the shared machine's load hits both columns alike; two runs an hour apart
compare the load as much as the code.

Run: .venv/bin/python -m benchmarks.bench_pages [--warm 2] [--pages explorer,theorem2] [--no-idle]
[--baseline PATH]
Needs Chromium (``scripts/install_browser.sh``) and the playwright package; prints Markdown.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from benchmarks._common import (
    app_server,
    checkouts,
    chosen_pages,
    existing_path,
    headless_browser,
    load_average,
    machine,
    player_timings,
    positive_int,
    rss_mb,
)
from harness.browser import CHART_LOADING, MAIN_HEIGHT, SERVER_PIDS, serve
from pudd_core.experiments.pool import CHILD_IDLE_S

ROOT = Path(__file__).resolve().parents[1]
#: A page is settled when its main column's height has not changed for this long.
STILL_S = 1.0
#: Streamlit marks its root with the script's state ("running", "notRunning", ...)
# busy: the script runs, a progress bar shows, an element still shows Streamlit's
# skeleton while its code loads (st.plotly_chart's plotly.js), or a chart of ui/chart.py
# waits for its plotly.js (it keeps its height meanwhile: the height alone does not wait)
_BUSY = ("() => document.querySelector('[data-testid=\"stApp\"]')"
         "?.getAttribute('data-test-script-state') !== 'notRunning' || "
         "document.querySelectorAll('[data-testid=\"stProgress\"]').length > 0 || "
         "document.querySelectorAll('[data-testid=\"stSkeleton\"]').length > 0 || "
         f"document.querySelectorAll('{CHART_LOADING}').length > 0")
_CHARTS = "() => document.querySelectorAll('.js-plotly-plot').length"
#: The first row: a one-line Streamlit page (:func:`floor_server`)
FLOOR = "*Floor: a one-line Streamlit page*"
#: The second: Streamlit's own widgets of the kinds the Monitor and explorer pages show, with
#: none of the app's code: what the frontend's lazily loaded widget code costs by itself
FLOOR_WIDGETS = "*Floor with widgets: Streamlit's own, no app code*"
FLOORS = {
    FLOOR: 'import streamlit as st\n\nst.title("Floor")\n',
    FLOOR_WIDGETS: """import streamlit as st

st.title("Floor with widgets")
with st.sidebar:
    st.radio("Dataset", ["sea0", "elec2", "sine"])
    st.selectbox("Classifier", ["GNB", "Hoeffding tree"])
    st.multiselect("Baselines", ["ADWIN", "DDM", "EDDM"], default=["ADWIN", "DDM"])
    st.number_input("Rows per chunk", 10, 100_000, 1000)
    st.checkbox("Bounded history", True)
    st.text_input("A path on the server", "")
for i in range(6):
    st.markdown(f"Paragraph {i}: plain text, as a page's explanations, with **bold** words.")
for i, col in enumerate(st.columns(4)):
    col.metric(f"Metric {i}", f"{i / 10:.2f}", f"{i}")
st.radio("Show", ["one seed", "all seeds"], horizontal=True)
st.radio("Chart", ["error rate", "p-values"], horizontal=True)
st.selectbox("Setting", ["PUDD-3", "PUDD-5"])
st.number_input("Seed", 0, 100, 0)
st.table({"chunk": [1, 2, 3], "p-value": [0.5, 0.01, 0.2], "alarm": ["", "yes", ""]})
st.download_button("Download CSV", "a,b\\n1,2\\n", "runs.csv")
st.download_button("Download JSON", "{}", "runs.json")
st.code("python -m pudd_core monitor log.csv --json", language="bash")
""",
}


def _children_mb(pid: int) -> float:
    """RSS of the server's worker processes (joblib's, the torch child), all together."""
    import psutil

    total = 0.0
    for child in psutil.Process(pid).children(recursive=True):
        try:
            total += child.memory_info().rss
        except psutil.Error:  # it exited meanwhile
            pass
    return total / 2**20


def _script_s(log: Path | None) -> float:
    """Seconds of script runs (app.py and its page) in the server's timing log so far."""
    if log is None or not log.exists():
        return 0.0
    return sum(ms for what, ms in player_timings(log) if what == "script") / 1e3


def _visit(browser: Any, url: str, timeout: float = 300.0, context: Any = None,
           log: Path | None = None) -> tuple[float, int, float]:
    """Seconds from the request to the page settled, its number of plotly charts, and the
    seconds its script runs took in the server (from the server's timing log ``log``; 0
    without one, or for a checkout that does not write it).

    A new browser context (no HTTP cache: a first visit) unless ``context`` is given (a
    returning visitor's browser: the static files and their compiled code cached).
    """
    before = _script_s(log)
    own = context is None
    if own:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(timeout * 1000)
    t0 = time.monotonic()
    page.goto(url)
    page.locator("h1").first.wait_for()
    last_height, changed = -1, time.monotonic()
    while time.monotonic() - changed < STILL_S and time.monotonic() - t0 < timeout:
        page.wait_for_timeout(100)
        height = page.evaluate(MAIN_HEIGHT)
        if height != last_height or page.evaluate(_BUSY):
            last_height, changed = height, time.monotonic()
    charts = int(page.evaluate(_CHARTS))
    page.close()
    if own:
        context.close()
    return changed - t0, charts, _script_s(log) - before


def _times(browser: Any, addresses: dict[str, str], warm: int, returning: dict[str, Any],
           logs: dict[str, Path | None]) -> tuple[dict[str, dict[str, list[float]]], int]:
    """One page in each server, visit for visit in turn: its cold, warm (new browser) and
    returning-browser times per server, the warm visits' script times in the server
    (``script``: new browser, ``script_again``: returning), and the number of charts of this
    checkout's page (the widget floor visited in turn with it has none)."""
    times: dict[str, dict[str, list[float]]] = {
        name: {"cold": [], "warm": [], "again": [], "script": [], "script_again": []}
        for name in addresses}
    charts = 0
    for name, address in addresses.items():
        cold, drawn, _ = _visit(browser, address, log=logs[name])
        times[name]["cold"].append(cold)
        charts = drawn if name == "this" else charts
    for _ in range(warm):
        for name, address in addresses.items():
            settled, _, script = _visit(browser, address, log=logs[name])
            times[name]["warm"].append(settled)
            times[name]["script"].append(script)
    for name, address in addresses.items():  # fills the returning browser's caches
        _visit(browser, address, context=returning[name])
    for _ in range(warm):
        for name, address in addresses.items():
            settled, _, script = _visit(browser, address, context=returning[name],
                                        log=logs[name])
            times[name]["again"].append(settled)
            times[name]["script_again"].append(script)
    return times, charts


@contextmanager
def floor_server(source: str = FLOORS[FLOOR]) -> Iterator[str]:
    """The same Streamlit serving the page ``source`` (default: one ``st.title``) with the
    app's config.

    The one-line page is what no page of the app can go under in this browser on this
    machine: Streamlit's own frontend (its static files, the websocket, one script run, one
    element drawn). :data:`FLOORS` has a second page, of Streamlit's own widgets.
    """
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "floor"
        (tree / ".streamlit").mkdir(parents=True)
        shutil.copy(ROOT / ".streamlit" / "config.toml", tree / ".streamlit" / "config.toml")
        (tree / "app.py").write_text(source, encoding="utf-8")
        with serve(Path(tmp), tree=tree) as url:
            yield url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--warm", type=positive_int, default=2, help="warm visits per page")
    parser.add_argument("--pages", default="", help="comma-separated URL paths (default: all)")
    parser.add_argument("--no-idle", action="store_true",
                        help="skip the wait for the torch child's idle exit at the end")
    parser.add_argument("--baseline", type=existing_path, default=None,
                        help="another checkout (e.g. a worktree of main) whose pages are "
                             "visited in turn with this one's, under the same load")
    args = parser.parse_args()
    chosen = chosen_pages(parser, args.pages)
    trees = checkouts(args.baseline)
    rows = []
    with headless_browser() as browser, ExitStack() as stack:
        served = {name: stack.enter_context(app_server(timing_log=True,
                                                       store=tree / "results" / "store",
                                                       tree=tree))
                  for name, tree in trees.items()}
        urls = {name: url for name, (url, _) in served.items()}
        logs: dict[str, Path | None] = {name: log for name, (_, log) in served.items()}
        floors = {title: stack.enter_context(floor_server(source))
                  for title, source in FLOORS.items()}
        pids = {name: SERVER_PIDS[url] for name, url in urls.items()}
        start_rss = {name: rss_mb(pid) for name, pid in pids.items()}
        returning = {name: browser.new_context(viewport={"width": 1280, "height": 800})
                     for name in trees}
        for title, floor in floors.items():  # first, each in a context of its own
            floor_returning = browser.new_context(viewport={"width": 1280, "height": 800})
            times, charts = _times(browser, {name: floor for name in trees}, args.warm,
                                   {name: floor_returning for name in trees},
                                   {name: None for name in trees})
            rows.append((title, times, charts, {n: rss_mb(p) for n, p in pids.items()},
                         _children_mb(pids["this"])))
            floor_returning.close()
        floor_returning = browser.new_context(viewport={"width": 1280, "height": 800})
        for spec in chosen:
            addresses = {name: f"{url}/{spec.url_path or ''}" for name, url in urls.items()}
            contexts, page_logs = returning, logs
            if args.baseline is None:  # the widget floor visited in turn with the page
                addresses[FLOOR_WIDGETS] = floors[FLOOR_WIDGETS]
                contexts = {**returning, FLOOR_WIDGETS: floor_returning}
                page_logs = {**logs, FLOOR_WIDGETS: None}
            times, charts = _times(browser, addresses, args.warm, contexts, page_logs)
            rows.append((spec.title, times, charts, {n: rss_mb(p) for n, p in pids.items()},
                         _children_mb(pids["this"])))
            print(spec.title, {n: {k: [round(v, 1) for v in vs] for k, vs in t.items()}
                               for n, t in times.items()}, file=sys.stderr)
        for context in (*returning.values(), floor_returning):
            context.close()
        idle = None
        if not args.no_idle and args.baseline is None:  # the torch child exits when idle
            time.sleep(CHILD_IDLE_S + 15)
            idle = (rss_mb(pids["this"]), _children_mb(pids["this"]))
    if args.baseline is None:
        _print_one(args, start_rss["this"], rows, idle)
    else:
        _print_both(args, start_rss, rows)


def _script(title: str, seconds: list[float]) -> str:
    """The median script time, "–" for the floor and for a server that logs none."""
    if title in FLOORS or not any(seconds):
        return "–"
    return f"{statistics.median(seconds):.2f}"


def ratios(times: dict[str, dict[str, list[float]]]) -> tuple[float, float] | None:
    """The page's median warm times over the widget floor's, visited in turn with it: a new
    browser's and a returning one's; None for a row without the floor beside it.

    >>> ratios({"this": {"warm": [6.0, 3.0, 4.0], "again": [3.0]},
    ...         FLOOR_WIDGETS: {"warm": [2.0, 4.0, 2.0], "again": [2.5]}})
    (2.0, 1.2)
    """
    if FLOOR_WIDGETS not in times:
        return None
    page, floor = times["this"], times[FLOOR_WIDGETS]
    return (statistics.median(page["warm"]) / statistics.median(floor["warm"]),
            statistics.median(page["again"]) / statistics.median(floor["again"]))


def _ratios(times: dict[str, dict[str, list[float]]]) -> str:
    both = ratios(times)
    return "–" if both is None else f"{both[0]:.2f} / {both[1]:.2f}"


def _print_one(args: argparse.Namespace, start_rss: float, rows: list[Any],
               idle: tuple[float, float] | None) -> None:
    load = load_average()
    print("## App: every page's load in a browser, and the server's memory\n")
    pages = f" --pages {args.pages}" if args.pages else ""
    print(f"Command: `.venv/bin/python -m benchmarks.bench_pages --warm {args.warm}{pages}`  ")
    print(f"Machine: {machine()}; headless Chromium at 1280x800; server and browser share the "
          f"CPUs (load average at the end: {load})\n")
    print(f"Server RSS after start: {start_rss:.0f} MB.\n")
    print("| page | cold (s) | warm, new browser, median (s) | its script runs, median (s) | "
          "warm, returning browser, median (s) | its script runs, median (s) | "
          "÷ floor with widgets, new / returning | charts | server RSS after (MB) | "
          "its workers' RSS (MB) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for title, times, charts, rss, workers in rows:
        t = times["this"]
        print(f"| {title} | {t['cold'][0]:.1f} | {statistics.median(t['warm']):.1f} | "
              f"{_script(title, t['script'])} | {statistics.median(t['again']):.1f} | "
              f"{_script(title, t['script_again'])} | {_ratios(times)} | {charts} | "
              f"{rss['this']:.0f} | {workers:.0f} |")
    if idle is not None:
        print(f"\n{CHILD_IDLE_S + 15:.0f} s after the last visit: server RSS {idle[0]:.0f} MB, "
              f"its workers' {idle[1]:.0f} MB.")
    print("\nA visit is timed from the request to the page settled (title shown, the script "
          "not running (Streamlit's `data-test-script-state`), no progress bar, no element's "
          "skeleton, no chart waiting for plotly.js, the main "
          f"column's height still for {STILL_S:g} s; the time ends at the last change; a "
          "chart out of sight, drawn when the visitor scrolls near it, is not waited for: the "
          "charts column counts those drawn). Cold: "
          "the page's first visit on a fresh server, after the pages above it; warm: the "
          "median of new sessions after it, each in a new browser (nothing cached: a first "
          "visitor) or in one browser that has loaded the page before (a returning visitor: "
          "Streamlit's static files are cached for a year and their compiled code with them). "
          "Its script runs: the server's time in app.py and the page's script, all runs of "
          "the visit together (`$PUDD_TIMING_LOG`); the rest of a visit is Streamlit's "
          "frontend, the websocket's round trips and the browser drawing (plotly.js, "
          "components). The floor: the same Streamlit serving a page of one `st.title`, in "
          "the same browser, with the app's `.streamlit/config.toml` (no script time logged): "
          "what no page of the app can go under here. The floor with widgets: the same, "
          "serving a page of Streamlit's own widgets of the kinds the Monitor and explorer "
          "pages show (sidebar radio, select boxes, a multiselect, number and text inputs, a "
          "checkbox; metrics, a table, download buttons, code; "
          "`benchmarks/bench_pages.FLOORS`) and nothing of the app: what Streamlit's frontend "
          "takes to load and draw those widgets' code by itself. ÷ floor with widgets: the "
          "page's warm medians over the widget floor's, whose visits are made in turn with "
          "the page's (floor, page, floor, page, ...), so that a change of the machine's load "
          "hits both alike; issue 34 asks for 1.2 at most. "
          "The warm goal is 2 s (issue 25). The workers: "
          "joblib's processes for runs at once, and the child that does torch's work (it "
          f"exits after {CHILD_IDLE_S:.0f} s idle), their RSS together.")


def _print_both(args: argparse.Namespace, start_rss: dict[str, float],
                rows: list[Any]) -> None:
    print("## App: every page's load, before and after, interleaved\n")
    pages = f" --pages {args.pages}" if args.pages else ""
    print(f"Command: `.venv/bin/python -m benchmarks.bench_pages --baseline PATH "
          f"--warm {args.warm}{pages}`  ")
    print(f"Machine: {machine()}; headless Chromium at 1280x800; both servers and the browser "
          f"share the CPUs (load average at the end: {load_average()})\n")
    print(f"Server RSS after start: before {start_rss['baseline']:.0f} MB, after "
          f"{start_rss['this']:.0f} MB.\n")
    print("| page | cold, before (s) | cold, after (s) | warm, new browser, before (s) | "
          "warm, new browser, after (s) | warm, returning, before (s) | "
          "warm, returning, after (s) | script runs, new browser, before / after (s) | "
          "charts | server RSS after, before / after (MB) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for title, times, charts, rss, _ in rows:
        b, a = times["baseline"], times["this"]
        print(f"| {title} | {b['cold'][0]:.1f} | {a['cold'][0]:.1f} | "
              f"{statistics.median(b['warm']):.1f} | {statistics.median(a['warm']):.1f} | "
              f"{statistics.median(b['again']):.1f} | {statistics.median(a['again']):.1f} | "
              f"{_script(title, b['script'])} / {_script(title, a['script'])} | "
              f"{charts} | {rss['baseline']:.0f} / {rss['this']:.0f} |")
    print("\nEach page is visited in the baseline's server and in this checkout's in turn "
          "(each server imports its own tree and reads its own committed results store), so "
          "a change of the machine's load hits both columns alike. Medians of the warm "
          "visits. Script runs: the server's time in app.py and the page, all runs of a "
          "visit together (`$PUDD_TIMING_LOG`; – where a checkout does not log it). The "
          "floors: the same Streamlit serving a page of one `st.title`, and one of "
          "Streamlit's own widgets with no app code (both columns visit the same server): "
          "what no page can go under here.")


if __name__ == "__main__":
    main()
