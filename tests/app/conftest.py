"""The browser tests' shared fixtures: one Chromium and one app server for the whole session.

They live here, not in ``test_browser.py``, so that every browser test module
(``test_browser.py``, ``test_browser_course.py``, ``test_browser_layout.py``) shares the same
session: a module that imported them would define them a second time, and a second Playwright
started while the first runs fails ("Sync API inside the asyncio loop"). The server and the
browser are started by harness/browser.py, as the app benchmarks start theirs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from harness.browser import find_chromium, launch_browser, open_page, serve


@pytest.fixture(scope="session")
def chromium_path() -> str:
    pytest.importorskip("playwright.sync_api", reason="the playwright Python package is missing")
    path = find_chromium()
    if path is None and (os.environ.get("CI") or os.environ.get("PUDD_REQUIRE_BROWSER")):
        # on CI a skip would hide that the project's own script failed to install it
        pytest.fail("Chromium was not found on CI (CI or PUDD_REQUIRE_BROWSER is set): "
                    "scripts/install_browser.sh did not install it")
    if path is None:
        pytest.skip("Chromium not found: run scripts/install_browser.sh (Debian: apt-get install "
                    "chromium) or set PUDD_CHROMIUM=/path/to/chromium")
    return path


@pytest.fixture(scope="session")
def app_url(chromium_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve(tmp_path_factory.mktemp("streamlit")) as url:
        yield url


@pytest.fixture(scope="session")
def browser(chromium_path: str) -> Iterator[Any]:
    with launch_browser(chromium_path) as b:
        yield b


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    with open_page(browser) as p:
        yield p
