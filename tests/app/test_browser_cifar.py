"""CIFAR-10-CD from an empty cache in a real browser (issue 34, items 5 and 6).

A presenter's first visit on a new server: no decoded images and no backbone built in the
cache (the backbone ships with the package). The visitor leaves after 20 s; a second visit
sees the detectors' chart, the model above the majority class and PUDD-3 catching the
interest drift of the default run (seed 0, 10 chunks: one drift, at chunk 8). After every
action: no exception box, no traceback in the server's log, and none of Streamlit's "missing
ScriptRunContext" warnings (a torch child that ran the app again wrote ~240 per start).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from harness.browser import SERVER_LOGS, assert_no_exception, open_page, serve, settle
from tests.app.test_browser import _screenshot, _wait_for_work

pytestmark = [pytest.mark.browser, pytest.mark.datasets]

HEADING = "CIFAR-10-CD: interest drift on images"


def _checked(page: Any, url: str) -> None:
    assert_no_exception(page)
    log = SERVER_LOGS[url].read_text(errors="replace")
    assert "missing ScriptRunContext" not in log, log[-2000:]


def _summary(page: Any) -> dict[str, dict[str, str]]:
    """The run summary table: detector -> column -> cell text."""
    table = page.locator('[data-testid="stTable"] table').first  # section 3's, before the paper's
    header = [c.strip() for c in table.locator("thead th").all_inner_texts()]
    rows = {}
    for row in table.locator("tbody tr").all():
        cells = [c.strip() for c in row.locator("td").all_inner_texts()]
        rows[cells[0]] = dict(zip(header, cells, strict=True))
    assert header[0] == "detector", header
    return rows


def test_a_first_visit_from_an_empty_cache_then_a_second_one_sees_the_detectors(
    browser: Any, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"  # empty: the images are decoded on the first visit
    with serve(tmp_path, env={"PUDD_CACHE_DIR": str(cache)}) as url:
        with open_page(browser) as page:
            page.goto(f"{url}/cifar10-cd")
            page.get_by_role("heading", name=HEADING, level=1).wait_for()
            _checked(page, url)
            page.wait_for_timeout(20_000)
            _checked(page, url)
            # nothing is pretrained: the shipped backbone is used, the cache gets no copy
            assert not (cache / "backbones").exists()
            assert page.get_by_text("Pretraining the backbone").count() == 0
        # the visitor left (the tab closed, the session ended mid-work)
        with open_page(browser) as page:
            page.goto(f"{url}/cifar10-cd")
            settle(page, HEADING)
            _checked(page, url)
            chart = page.locator(".js-plotly-plot .legendtext").filter(has_text="DDM error rate")
            _wait_for_work(page, chart, timeout=540)
            settle(page, HEADING)
            _checked(page, url)
            assert page.locator(".js-plotly-plot .legendtext").filter(
                has_text="PUDD-3 error rate").count() > 0
            # the audience sees the model learn: above always answering "negative"
            text = page.locator('[data-testid="stMarkdownContainer"]').filter(
                has_text="Model against the majority class").inner_text()
            found = re.search(r"right on ([\d.]+) % .*?negative, ([\d.]+) % of these chunks",
                              text, re.S)
            assert found, text
            accuracy, majority = map(float, found.groups())
            assert accuracy > majority + 5, text
            assert page.get_by_text("no better than the majority class").count() == 0
            # and PUDD catch the interest drift: chunk 8's, with no false alarm
            rows = _summary(page)
            assert rows["PUDD-3"]["drifts detected"] == "1 of 1", rows
            assert rows["PUDD-3"]["false alarms"] == "0", rows
            assert "shipped with PUDD Lab" in page.locator(
                '[data-testid="stCaptionContainer"]').filter(has_text="Backbone:").inner_text()
            _screenshot(page, "cifar10-cd-first-visit")
            _checked(page, url)
