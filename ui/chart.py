"""Every chart of the pages: a plotly figure drawn in the page by plotly.js's cartesian bundle.

``st.plotly_chart`` makes each page load Streamlit's 4.7 MB plotly.js chunk and evaluate
it, about 1.5 s of a warm page's 2-3.5 s (BENCHMARKS.md, "where a warm page's time goes").
:func:`chart` draws the figure with a custom component of ``st.components.v2`` instead: it
renders in the page, not in an iframe, so one load of the 1.4 MB cartesian partial bundle
(``pudd_core.plots.bundle.chart_js``, fetched at set-up) serves every chart of a page and of
the pages visited after it. The bundle is served from the cache folder by a v1 component
declared only for its files (``component/ui.chart.pudd_plotly/<bundle>``); the page's JS is
``chart_component/chart.js``. A figure with a trace type the bundle lacks, or a set-up
without the bundle (a warning in the log), falls back to ``st.plotly_chart``: the decision
is :func:`renderer`'s, from the figure's trace types alone.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import streamlit as st
import streamlit.components.v1 as components

from pudd_core.plots.bundle import CARTESIAN, CARTESIAN_TRACE_TYPES, chart_js

_log = logging.getLogger("pudd_lab")

#: What every chart's modebar shows and hides, as ``st.plotly_chart`` had it: no plotly
#: logo, no lasso or box select (nothing reads a selection), no "send to cloud".
BASE_CONFIG: Mapping[str, Any] = {"displaylogo": False, "showSendToCloud": False,
                                  "modeBarButtonsToRemove": ["lasso2d", "select2d"]}
#: plotly.js's height of a figure without one (``st.plotly_chart`` uses it too).
DEFAULT_HEIGHT = 450
_ASSETS = "pudd_plotly"  # the v1 component that only serves the bundle's folder
_JS = (Path(__file__).with_name("chart_component") / "chart.js").read_text(encoding="utf-8")

_draw = st.components.v2.component("pudd_chart", js=_JS, isolate_styles=False)


def bundle_src(cache: Path | None = None) -> str | None:
    """The cartesian bundle's address in the app, served from ``cache``; None without it.

    None (the bundle not fetched, damaged or of another version) logs a warning: the charts
    are then drawn by ``st.plotly_chart``.
    """
    bundle = chart_js(cache)
    if bundle is None:
        _log.warning("plotly.js's %s bundle %s is not in the cache (scripts/"
                     "fetch_plotly_bundle.py fetches it): the charts are drawn by "
                     "st.plotly_chart, pages open about a second slower", CARTESIAN.name,
                     CARTESIAN.version)
        return None
    # declared only to serve the bundle's folder: never mounted
    components.declare_component(_ASSETS, path=str(bundle.parent))
    return f"component/{__name__}.{_ASSETS}/{bundle.name}"


_SRC = bundle_src()


def trace_types(fig: Any) -> frozenset[str]:
    """The figure's trace types (plotly's default type, for a trace without one, is scatter)."""
    return frozenset(trace.type or "scatter" for trace in fig.data)


def renderer(fig: Any) -> Literal["bundle", "streamlit"]:
    """Who draws ``fig``: the cartesian bundle if it is kept and has the figure's trace types.

    Else Streamlit's plotly.js (``st.plotly_chart``), which has every trace type.
    """
    if _SRC is not None and trace_types(fig) <= CARTESIAN_TRACE_TYPES:
        return "bundle"
    return "streamlit"


def chart(fig: Any, key: str, *, config: Mapping[str, Any] | None = None) -> None:
    """Show a ``pudd_core.plots`` figure with its own template, as wide as its column.

    ``config``: plotly.js options added to :data:`BASE_CONFIG` (e.g.
    ``toImageButtonOptions``, the PNG's file name). The figure's JSON is sent as
    ``st.plotly_chart`` sends it (``plotly.io.to_json``, which ``fig.to_json`` calls); only
    its height is read here.
    """
    options = {**BASE_CONFIG, **(config or {})}
    if renderer(fig) == "streamlit":
        st.plotly_chart(fig, key=key, theme=None, config=options)
        return
    height = fig.layout.height
    height = int(height) if height is not None and height >= 10 else DEFAULT_HEIGHT
    _draw(key=key, data={"spec": fig.to_json(validate=False), "config": options,
                         "height": height, "src": _SRC},
          height=height)
