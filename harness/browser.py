"""The app in a real browser, for the browser tests and the app benchmarks alike.

Starts ``streamlit run app.py`` on a free port (``serve``), launches Debian's headless
Chromium (``find_chromium``, ``launch_browser``; ``$PUDD_CHROMIUM`` names another binary)
and opens pages that record every request leaving the machine (``open_page``); then waits
for a page to settle, checks that it shows no exception, and drives the Stream explorer's
player. tests/app/conftest.py builds the browser tests' fixtures from these, and the
benchmarks/app*.py scripts start their own server and browser with them.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
VIEWPORT = {"width": 1280, "height": 900}
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
EXPLORER = "Stream explorer"
#: the Stream explorer's player, drawn in the page (ui/player_component/player.html)
PLAYER = ".pudd-player"
#: four PUDD settings side by side (the explorer's ``pudd`` link parameter)
FOUR = "3;5,cut_points=all;3,partition=ek;1,clamp_min=0"
MAIN_HEIGHT = "() => document.querySelector('[data-testid=\"stMain\"]')?.scrollHeight ?? 0"
#: a chart of ui/chart.py, or the player, until its plotly.js has drawn it (each keeps its
#: height meanwhile)
CHART_LOADING = '[data-pudd-chart="loading"]'
_CHARTS_LOADING = f"() => document.querySelectorAll('{CHART_LOADING}').length"
#: a chart of ui/chart.py out of sight, drawn when the visitor scrolls near it (or opens its
#: expander: ui/chart_component/chart.js)
CHART_DEFERRED = '[data-pudd-chart="deferred"]'
#: the charts out of sight that a visitor can scroll to (not in a closed expander)
_DEFERRED_SHOWN = (f"() => [...document.querySelectorAll('{CHART_DEFERRED}')]"
                   ".filter((e) => e.checkVisibility()).length")
_SCROLL_TO_DEFERRED = (f"() => [...document.querySelectorAll('{CHART_DEFERRED}')]"
                       ".find((e) => e.checkVisibility())?.scrollIntoView({block: 'center'})")
RUNNING = "() => !!document.querySelector('[data-testid=\"stStatusWidget\"]')"
_ERROR_DIALOG = '[role="dialog"]:has-text("error"), [role="alertdialog"]'

#: url -> the server's log, read by assert_no_exception; url -> the server's process id
SERVER_LOGS: dict[str, Path] = {}
SERVER_PIDS: dict[str, int] = {}
#: id(page) -> the requests it made to any host but the app's (a CDN, a font server)
OUTSIDE: dict[int, list[str]] = {}


def find_chromium() -> str | None:
    """``$PUDD_CHROMIUM``, else the ``chromium`` on the PATH; None when there is none."""
    path = os.environ.get("PUDD_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    return path if Path(path).is_file() else None


def free_port() -> int:
    """A TCP port of 127.0.0.1 that is free now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def serve(log_dir: Path, store: Path | None = None,
          env: Mapping[str, str] | None = None, tree: Path | None = None) -> Iterator[str]:
    """``streamlit run app.py`` on a free port until the block ends; yields its URL.

    The app's results store is ``$PUDD_RESULTS_STORE`` if set, else ``store``, else a new one
    in ``log_dir`` (so that the tests neither read nor write the developer's
    ``results/store``); ``env`` adds variables (e.g. ``PUDD_TIMING_LOG``). The server's
    output goes to a log in ``log_dir``, which ``assert_no_exception`` reads. ``tree`` is the
    checkout served (another one, e.g. a worktree of main, imports its own code and reads
    this checkout's data cache unless ``$PUDD_CACHE_DIR`` names one); default: this checkout.
    """
    port = free_port()
    log_path = log_dir / f"streamlit-{port}.log"
    log = log_path.open("w")
    environ = {**os.environ, **(env or {})}
    environ.setdefault("PUDD_RESULTS_STORE", str(store or log_dir / "results-store"))
    environ.pop("PUDD_WORKERS", None)  # the server runs quick runs on worker processes
    if tree is not None and tree.resolve() != ROOT:
        environ["PYTHONPATH"] = str(tree)
        environ.setdefault("PUDD_CACHE_DIR", str(ROOT / "datasets" / "cache"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.headless", "true", "--server.address", "127.0.0.1",
         "--browser.gatherUsageStats", "false"],
        cwd=tree or ROOT, stdout=log, stderr=subprocess.STDOUT, env=environ,
    )
    url = f"http://127.0.0.1:{port}"
    SERVER_LOGS[url] = log_path
    SERVER_PIDS[url] = proc.pid
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not start (exit code {proc.poll()}); "
                                   f"see {log_path}")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@contextmanager
def launch_browser(chromium: str) -> Iterator[Any]:
    """One headless Chromium (Playwright) until the block ends."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS,
                                     headless=True)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def open_page(browser: Any, viewport: Mapping[str, int] = VIEWPORT,
              timeout_ms: float = 30_000) -> Iterator[Any]:
    """A page in a new browser context that records requests leaving the machine."""
    context = browser.new_context(viewport=dict(viewport))
    page = context.new_page()
    page.set_default_timeout(timeout_ms)
    watch_requests(page)
    try:
        yield page
    finally:
        OUTSIDE.pop(id(page), None)
        context.close()


def watch_requests(page: Any) -> None:
    """Record every request of ``page`` that leaves this machine (the app must work offline)."""
    seen = OUTSIDE.setdefault(id(page), [])

    def record(request: Any) -> None:
        parts = urlsplit(request.url)
        if parts.scheme in ("http", "https", "ws", "wss") and parts.hostname not in (
                "localhost", "127.0.0.1", "::1"):
            seen.append(request.url)

    page.on("request", record)


def settle(page: Any, heading: str) -> None:
    """Wait for the page's title, then until its script, charts and layout are still.

    Still: the script has finished, every chart is drawn and the page's height is the same
    three times in a row (a minute at most). The charts out of sight, drawn when a visitor
    scrolls to them, are scrolled to (as a visitor would), then the page goes back to its
    top; those in a closed expander stay as they are (drawn when it opens).
    """
    _still(page, heading)
    if not page.evaluate(_DEFERRED_SHOWN):
        return
    deadline = time.monotonic() + 60
    while scroll_to_deferred(page) and time.monotonic() < deadline:
        page.wait_for_timeout(250)
        _still(page, heading)
    page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]')?.scrollTo(0, 0)")
    _still(page, heading)


def scroll_to_deferred(page: Any) -> bool:
    """Scroll to the first chart out of sight that a visitor can reach, so that it is drawn.

    As a visitor would. False when there is none (those in a closed expander or tab aside).
    """
    if not page.evaluate(_DEFERRED_SHOWN):
        return False
    page.evaluate(_SCROLL_TO_DEFERRED)
    return True


def _still(page: Any, heading: str) -> None:
    page.get_by_role("heading", name=heading, level=1).wait_for()
    last, stable, deadline = -1, 0, time.monotonic() + 60
    while stable < 3 and time.monotonic() < deadline:
        page.wait_for_timeout(250)
        height = page.evaluate(MAIN_HEIGHT)
        quiet = not page.evaluate(RUNNING) and not page.evaluate(_CHARTS_LOADING)
        stable = stable + 1 if height == last and quiet else 0
        last = height


def assert_no_exception(page: Any) -> None:
    """After every action: no exception box, no error dialog, no uncaught error in the log."""
    assert page.locator('[data-testid="stException"]').count() == 0, "an exception box is shown"
    assert page.locator(_ERROR_DIALOG).count() == 0, "an error dialog is shown"
    assert not OUTSIDE.get(id(page)), f"requests left the machine: {OUTSIDE[id(page)][:3]}"
    for url, log in SERVER_LOGS.items():
        if page.url.startswith(url) and log.is_file():
            text = log.read_text(errors="replace")
            assert "Uncaught app execution" not in text and "Traceback" not in text, (
                f"the server logged an error ({log}):\n{text[-3000:]}")


# --- the Stream explorer's player -------------------------------------------------------------
def wait_for_player(page: Any, last: int | None = None, timeout: float = 90_000) -> Any:
    """The page once its player shows a run (of ``last`` chunks, if given).

    The player is in the page (no frame of its own): what is returned is ``page`` itself,
    on which ``__player`` (its state: cursor, playing, stats) and its controls are found.
    """
    page.wait_for_function(
        "(last) => { const p = window.__player;"
        " return !!p && p.last > 0 && (last === null || p.last === last); }",
        arg=last, timeout=timeout)
    return page


def press(page: Any, selector: str) -> None:
    """A person's click on a player button: the mouse at its place.

    No waiting for it to be "stable" (Playwright's click waits for quiet animation frames,
    which a playing player never gives).
    """
    button = page.locator(PLAYER).locator(selector)
    button.scroll_into_view_if_needed()
    box = button.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def step_times(page: Any, frame: Any, n: int) -> list[float]:
    """Milliseconds from each of ``n`` presses of Next chunk to the frame painted.

    Pressed as a person clicks it (:func:`press`), measured by the player itself
    (``stats.lastStep``).
    """
    times = []
    for _ in range(n):
        frame.evaluate("() => { __player.stats.lastStep = null; }")
        press(page, "#next")
        frame.wait_for_function("() => __player.stats.lastStep !== null")
        times.append(float(frame.evaluate("() => __player.stats.lastStep.delayMs")))
    return times
