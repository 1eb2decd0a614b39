"""The app in a real headless Chromium: sidebar navigation, URLs, a live control, screenshots.

Modelled on streamlit/streamlit e2e_playwright/multipage_apps_v2/mpa_v2_basics_test.py, but
driving Debian's chromium (set PUDD_CHROMIUM to use another binary) against
``streamlit run app.py``. Screenshots go to artifacts/screenshots/; with
PUDD_UPDATE_SCREENSHOTS=1 they are also copied to docs/screenshots/ for the README.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from ui.pages import PAGES

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "screenshots"
DOCS = ROOT / "docs" / "screenshots"
VIEWPORT = {"width": 1280, "height": 900}
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
# the h1 each page shows (the default page's sidebar title is "Home")
HEADINGS = {"pages/home.py": "PUDD Lab"}


def _chromium() -> str | None:
    path = os.environ.get("PUDD_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    return path if Path(path).is_file() else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _heading(spec: Any) -> str:
    return HEADINGS.get(spec.path, spec.title)


def _slug(spec: Any) -> str:
    return spec.url_path or "home"


@pytest.fixture(scope="session")
def chromium_path() -> str:
    pytest.importorskip("playwright.sync_api", reason="the playwright Python package is missing")
    path = _chromium()
    if path is None:
        pytest.skip("Chromium not found: run scripts/install_browser.sh (Debian: apt-get install "
                    "chromium) or set PUDD_CHROMIUM=/path/to/chromium")
    return path


@contextmanager
def _serve(log_dir: Path) -> Iterator[str]:
    """``streamlit run app.py`` on a free port until the block ends; yields its URL."""
    port = _free_port()
    log = (log_dir / f"streamlit-{port}.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.headless", "true", "--server.address", "127.0.0.1",
         "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
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
                pytest.fail(f"streamlit did not start (exit code {proc.poll()}); see {log.name}")
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


@pytest.fixture(scope="session")
def app_url(chromium_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with _serve(tmp_path_factory.mktemp("streamlit")) as url:
        yield url


@pytest.fixture(scope="session")
def browser(chromium_path: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=VIEWPORT)
    p = context.new_page()
    p.set_default_timeout(30_000)
    yield p
    context.close()


_MAIN_HEIGHT = "() => document.querySelector('[data-testid=\"stMain\"]')?.scrollHeight ?? 0"
_RUNNING = "() => !!document.querySelector('[data-testid=\"stStatusWidget\"]')"


def _settle(page: Any, heading: str) -> None:
    """Wait for the page's title, then until the script has finished and the layout is still."""
    page.get_by_role("heading", name=heading, level=1).wait_for()
    last, stable, deadline = -1, 0, time.monotonic() + 60
    while stable < 3 and time.monotonic() < deadline:
        page.wait_for_timeout(250)
        height = page.evaluate(_MAIN_HEIGHT)
        stable = stable + 1 if height == last and not page.evaluate(_RUNNING) else 0
        last = height


def _assert_no_exception(page: Any) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0


def _screenshot(page: Any, name: str) -> None:
    """The whole page: Streamlit scrolls inside its main container, so grow the viewport."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    target = ARTIFACTS / f"{name}.png"
    height = page.evaluate(_MAIN_HEIGHT)
    page.set_viewport_size({"width": VIEWPORT["width"], "height": min(max(height, 900), 8000)})
    page.wait_for_timeout(800)  # plotly redraws at the new size
    page.screenshot(path=str(target), full_page=True)
    page.set_viewport_size(VIEWPORT)
    if os.environ.get("PUDD_UPDATE_SCREENSHOTS") == "1":
        DOCS.mkdir(parents=True, exist_ok=True)
        _save_small(target, DOCS / f"{name}.png")


def _save_small(source: Path, target: Path) -> None:
    """Copy a screenshot for the README as a 128-colour PNG (about a third of the bytes)."""
    from PIL import Image

    with Image.open(source) as im:
        small = im.convert("RGB").quantize(colors=128, method=Image.Quantize.MEDIANCUT,
                                           dither=Image.Dither.NONE)
        small.save(target, optimize=True)


def test_sidebar_lists_exactly_the_navigation_pages_in_order(page: Any, app_url: str) -> None:
    page.goto(app_url)
    _settle(page, _heading(PAGES[0]))
    links = page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]')
    # each link's text is the material icon's name, then the title
    assert [t.split("\n")[-1] for t in links.all_inner_texts()] == [s.title for s in PAGES]


def test_clicking_each_page_shows_its_title_and_no_exception(page: Any, app_url: str) -> None:
    page.goto(app_url)
    _settle(page, _heading(PAGES[0]))
    for spec in PAGES:
        page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]').filter(
            has_text=spec.title
        ).click()
        _settle(page, _heading(spec))
        expected = f"{app_url}/{spec.url_path}" if spec.url_path else app_url
        assert page.url.split("?")[0].rstrip("/") == expected.rstrip("/")
        _assert_no_exception(page)
        _screenshot(page, _slug(spec))


@pytest.mark.parametrize("spec", PAGES[1:], ids=_slug)
def test_each_url_path_opens_its_page_directly(page: Any, app_url: str, spec: Any) -> None:
    page.goto(f"{app_url}/{spec.url_path}")
    _settle(page, _heading(spec))
    _assert_no_exception(page)


def test_a_fresh_servers_first_request_for_a_page_url_gets_the_full_app(
    page: Any, tmp_path: Path
) -> None:
    # With a pages/ folder Streamlit runs the page file alone until st.navigation has run once
    # in the process; ui.pages.ensure_routed must route it through app.py.
    with _serve(tmp_path) as url:
        page.goto(f"{url}/fig1")
        _settle(page, "Fig. 1: the illustrative example")
        links = page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]')
        assert [t.split("\n")[-1] for t in links.all_inner_texts()] == [s.title for s in PAGES]
        sidebar = page.locator('[data-testid="stSidebar"]')
        assert sidebar.locator('[data-testid="stNumberInput"]').count() == 1  # the seed
        _assert_no_exception(page)


def test_theorem2_moving_the_error_rate_slider_updates_the_metrics(
    page: Any, app_url: str
) -> None:
    from playwright.sync_api import expect

    page.goto(f"{app_url}/theorem2")
    _settle(page, "Theorem 2, step by step")
    metric = page.locator('[data-testid="stMetric"]').filter(has_text="Window 1 error rate")
    value = metric.first.locator('[data-testid="stMetricValue"]')
    expect(value).to_have_text("0.500")
    slider = page.get_by_role("slider", name="Error rate of both windows")
    expect(slider).to_have_value("0.5")
    slider.focus()
    slider.press("ArrowLeft")  # one step of 0.05
    expect(slider).to_have_value("0.45")
    expect(value).to_have_text("0.450", timeout=30_000)
    expect(page).to_have_url(re.compile(r"error_rate=0\.45"))  # the shareable link follows
    _assert_no_exception(page)
