"""The pages' charts in a real browser: drawn by plotly.js's partial bundles (ui/chart.py).

Each chart of a page is drawn in the page with the figure's traces and the modebar's PNG
and Fullscreen buttons, by the basic bundle where its traces are scatter and bar (the
cartesian one where the page has loaded that already), the bundle is loaded once for every
chart and every page after it, and Streamlit's 4.7 MB ``PlotlyChart`` chunk is never
requested. After every action: no
exception box, no server traceback, no console error.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from harness.apptest import figures, open_page
from harness.browser import (
    CHART_LOADING,
    EXPLORER,
    assert_no_exception,
    settle,
    wait_for_player,
)
from pudd_core.plots.bundle import BASIC, CARTESIAN, chart_js, kept_bundle

pytestmark = pytest.mark.browser

BUNDLE = f"plotly-cartesian-{CARTESIAN.version}.min.js"
BASIC_BUNDLE = f"plotly-basic-{BASIC.version}.min.js"
#: Streamlit's own chart element: the lazily loaded chunk with the full plotly.js
STREAMLIT_CHUNK = "/PlotlyChart."
#: Streamlit's frontend probes its base path at each page's URL first; these 404s are its own
_PROBES = ("/_stcore/health", "/_stcore/host-config")
_DRAWN = """(key) => {
    const gd = document.querySelector(`.st-key-${key} .js-plotly-plot`);
    if (!gd) return null;
    const box = gd.closest('.pudd-chart');
    return {state: box.dataset.puddChart, traces: gd.data.length, drawn: gd._fullData.length,
            svg: gd.querySelectorAll('.main-svg').length,
            groups: gd.querySelectorAll('.main-svg .cartesianlayer .trace').length,
            width: gd.getBoundingClientRect().width, height: gd.getBoundingClientRect().height,
            column: box.parentElement.getBoundingClientRect().width};
}"""


#: records each chart's states in order (key, state), from the page's first script on
_RECORD = """window.__chartStates = [];
new MutationObserver((changes) => { for (const c of changes) {
    const holder = c.target.closest('[class*="st-key-"]');
    const key = [...(holder?.classList ?? [])].find((n) => n.startsWith('st-key-'));
    window.__chartStates.push([key?.slice(7) ?? '', c.target.dataset.puddChart]);
} }).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-pudd-chart']});
"""


@pytest.fixture
def seen(page: Any) -> Iterator[dict[str, list[str]]]:
    """What ``page`` requests and logs as an error (the probes of _PROBES aside)."""
    log: dict[str, list[str]] = {"requests": [], "errors": []}
    page.on("request", lambda r: log["requests"].append(r.url))

    def console(message: Any) -> None:
        where = message.location.get("url", "")
        if message.type == "error" and not where.endswith(_PROBES):
            log["errors"].append(f"{message.text} ({where})")

    page.on("console", console)
    page.on("pageerror", lambda err: log["errors"].append(str(err)))
    if chart_js() is None or kept_bundle(BASIC) is None:
        pytest.skip(f"the {BUNDLE} or the {BASIC_BUNDLE} is not fetched (scripts/"
                    "fetch_plotly_bundle.py): the charts are st.plotly_chart's")
    yield log


def _check(page: Any, seen: dict[str, list[str]]) -> None:
    assert_no_exception(page)
    assert not seen["errors"], seen["errors"]
    assert not [u for u in seen["requests"] if STREAMLIT_CHUNK in u], "Streamlit's chunk loaded"


def test_fig1s_charts_are_drawn_by_the_basic_bundle_with_their_traces_and_png_button(
    page: Any, app_url: str, seen: dict[str, list[str]]
) -> None:
    # the figures of the same page and seed, as the server sends them
    expected = {key: len(spec["data"]) for key, spec in
                figures(open_page("pages/fig1.py", timeout=120, via_home=False)).items()}
    assert len(expected) == 5
    page.add_init_script(_RECORD)
    page.goto(f"{app_url}/fig1")
    settle(page, "Fig. 1: the illustrative example")
    _check(page, seen)
    assert page.locator(CHART_LOADING).count() == 0
    # the first screen's chart is drawn at once; those out of sight (below it) wait until
    # scrolled to (settle scrolls as a visitor would), the one in the closed expander until
    # it opens
    log = page.evaluate("() => window.__chartStates")
    states = {key: [s for k, s in log if k == key] for key in expected}
    assert "deferred" not in states["fig1_scatter"], states
    assert states["fig1_pvalue_curve"][-3:] == ["deferred", "loading", "drawn"], states
    assert states["fig1_notebook_histogram"][-1] == "deferred", states
    # the curve may log "loading" before it finds itself out of sight: its real load is the
    # last one, after "deferred", and comes after the first screen's chart is drawn
    last_load = max(i for i, entry in enumerate(log) if entry == ["fig1_pvalue_curve", "loading"])
    assert log.index(["fig1_scatter", "drawn"]) < last_load, log
    page.get_by_text("Why the notebook printed").click()
    page.wait_for_function("() => document.querySelector("
                           "'.st-key-fig1_notebook_histogram .pudd-chart').dataset.puddChart"
                           " === 'drawn'")
    shown: list[str] = []
    for key, traces in expected.items():
        got = page.evaluate(_DRAWN, key)
        assert got is not None, f"chart {key} is not on the page"
        assert got["state"] == "drawn" and got["svg"] >= 1, (key, got)
        assert got["traces"] == got["drawn"] == traces, (key, got)
        assert got["groups"] >= 1, (key, got)
        assert abs(got["width"] - got["column"]) <= 1, (key, got)  # as wide as its column
        chart = page.locator(f".st-key-{key} .js-plotly-plot")
        shown.append(key)
        chart.scroll_into_view_if_needed()
        chart.hover()
        png = chart.locator('.modebar-btn[data-title="Download plot as a PNG"]')
        assert png.count() == 1, key
        assert chart.locator('.modebar-btn[data-title="Fullscreen"]').count() == 1, key
    assert len(shown) == 5
    # one load of the basic bundle served every chart (their traces: scatter and bar)
    assert [u for u in seen["requests"] if u.endswith(BASIC_BUNDLE)] == [
        f"{app_url}/component/ui.chart.pudd_plotly/{BASIC_BUNDLE}"]
    assert not [u for u in seen["requests"] if u.endswith(BUNDLE)]
    _check(page, seen)

    # a PNG is saved, named after its chart (not plotly's newplot.png for every chart)
    key = shown[0]
    chart = page.locator(f".st-key-{key} .js-plotly-plot")
    chart.scroll_into_view_if_needed()
    chart.hover()
    with page.expect_download() as info:
        chart.locator('.modebar-btn[data-title="Download plot as a PNG"]').click()
    assert info.value.suggested_filename == f"pudd-{key}.png"
    assert info.value.path().read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    _check(page, seen)

    # Fullscreen fills the screen with the chart; Close fullscreen gives its height back
    before = page.evaluate(_DRAWN, key)["height"]
    chart.locator('.modebar-btn[data-title="Fullscreen"]').click()
    page.wait_for_function("() => !!document.fullscreenElement")
    page.wait_for_timeout(500)
    assert page.evaluate(_DRAWN, key)["height"] == page.evaluate("() => window.innerHeight")
    page.mouse.move(600, 300)
    page.locator('.modebar-btn[data-title="Close fullscreen"]').click()
    page.wait_for_function("() => !document.fullscreenElement")
    page.wait_for_timeout(500)
    assert page.evaluate(_DRAWN, key)["height"] == before
    _check(page, seen)

    # a narrower window: each chart follows its column's width, keeps the figure's height
    heights = {k: page.evaluate(_DRAWN, k)["height"] for k in shown}
    page.set_viewport_size({"width": 1024, "height": 768})
    page.wait_for_timeout(1000)
    for key in shown:
        got = page.evaluate(_DRAWN, key)
        assert abs(got["width"] - got["column"]) <= 1 and got["height"] == heights[key], (key, got)
    _check(page, seen)


def test_another_page_in_the_session_reuses_the_loaded_bundle(
    page: Any, app_url: str, seen: dict[str, list[str]]
) -> None:
    page.goto(f"{app_url}/course-theorem2")
    settle(page, "4. What the error rate cannot see")
    _check(page, seen)
    page.get_by_role("link", name="Theorem 2, step by step").click()
    settle(page, "Theorem 2, step by step")
    drawn = page.evaluate("() => [...document.querySelectorAll('.pudd-chart')].map(b => "
                          "[b.dataset.puddChart, b.querySelectorAll('.main-svg').length, "
                          "b.checkVisibility()])")
    # every chart shown is drawn; Theorem 1's, on the tab not shown, waits for its tab
    assert len(drawn) >= 3 and all(state == "drawn" and svg >= 1
                                   for state, svg, shown in drawn if shown), drawn
    assert [state for state, _, shown in drawn if not shown] == ["deferred"], drawn
    page.get_by_role("tab", name=re.compile("Theorem 1")).click()
    settle(page, "Theorem 2, step by step")
    assert page.locator(".st-key-theorem1_histogram .pudd-chart[data-pudd-chart=drawn]"
                        ).count() == 1
    page.get_by_role("tab", name=re.compile("Theorem 2")).click()
    assert len([u for u in seen["requests"] if u.endswith(BASIC_BUNDLE)]) == 1  # loaded once
    _check(page, seen)
    # a slider moved: the page reruns and its charts are drawn again, no error
    slider = page.get_by_role("slider").first
    slider.focus()
    page.keyboard.press("ArrowRight")
    settle(page, "Theorem 2, step by step")
    assert page.locator(".pudd-chart").count() == len(drawn)
    assert page.locator(CHART_LOADING).count() == 0
    _check(page, seen)
    # the explorer's player draws with the same bundle, in the page: no plotly.js, no frame
    # of its own (it loaded the basic bundle in an iframe after the page; issue 34 item 10)
    page.locator('[data-testid="stSidebarNavLink"]').filter(has_text=EXPLORER).click()
    settle(page, EXPLORER)
    wait_for_player(page, timeout=300_000)
    plotly = [u for u in seen["requests"] if "plotly" in u.rsplit("/", 1)[-1].lower()]
    assert len(plotly) == 1 and plotly[0].endswith(BASIC_BUNDLE), plotly
    assert page.locator("iframe").count() == 0
    _check(page, seen)


def test_after_a_page_with_the_cartesian_bundle_the_basic_charts_use_it(
    page: Any, app_url: str, seen: dict[str, list[str]]
) -> None:
    # lesson 6's interest timeline is a heatmap: the cartesian bundle; then Fig. 1's
    # scatter and bar charts are drawn by it, with no load of the basic bundle
    page.goto(f"{app_url}/course-cifar")
    settle(page, "6. A real demo on CIFAR images")
    _check(page, seen)
    page.locator('[data-testid="stSidebarNavLink"]').filter(has_text="Fig. 1").click()
    settle(page, "Fig. 1: the illustrative example")
    drawn = page.evaluate("() => [...document.querySelectorAll('.pudd-chart')].map(b => "
                          "[b.dataset.puddChart, b.querySelectorAll('.main-svg').length])")
    # the notebook's histogram waits in its closed expander
    assert sorted(state for state, _ in drawn) == ["deferred", *["drawn"] * 4], drawn
    assert all(svg >= 1 for state, svg in drawn if state == "drawn"), drawn
    plotly = [u for u in seen["requests"] if "plotly" in u.rsplit("/", 1)[-1].lower()]
    assert len(plotly) == 1 and plotly[0].endswith(BUNDLE), plotly
    _check(page, seen)
