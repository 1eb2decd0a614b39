"""Every chart of the pages: a plotly figure drawn in the page by a partial plotly.js bundle.

``st.plotly_chart`` makes each page load Streamlit's 4.7 MB plotly.js chunk and evaluate
it, about 1.5 s of a warm page's 2-3.5 s (BENCHMARKS.md, "where a warm page's time goes").
:func:`chart` draws the figure with a custom component of ``st.components.v2`` instead: it
renders in the page, not in an iframe, so one load of the 1.4 MB cartesian partial bundle
(``pudd_core.plots.bundle.chart_js``, fetched at set-up) serves every chart of a page and of
the pages visited after it. A figure of scatter, bar and pie traces only (every chart of the
pages but the CIFAR pages' heatmaps and images) is drawn by the *basic* bundle (1.1 MB)
instead, which the browser evaluates about three times faster than the cartesian one
(BENCHMARKS.md, "where the browser's time goes"): a page whose charts need only it never
loads the cartesian bundle, and a chart that the basic bundle can draw uses the cartesian
one when the page has loaded (or is loading) that already. The bundles are
served from the cache folder by v1 components declared only for their files
(``component/ui.chart.pudd_plotly/<bundle>``); the page's JS is ``chart_component/chart.js``.
A figure with a trace type neither bundle has, or a set-up without them (a warning in the
log), falls back to ``st.plotly_chart``: the decision is :func:`renderer`'s, from the
figure's trace types alone.

:func:`draw` builds the figure as well, and keeps what it sends (the figure's JSON) in a
bounded cache: building a validated plotly figure is most of a warm page's script time, and
every visitor of a page with the same settings gets the same figure.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

import streamlit as st
import streamlit.components.v1 as components

from pudd_core.plots.bundle import (
    BASIC,
    BASIC_TRACE_TYPES,
    CARTESIAN,
    CARTESIAN_TRACE_TYPES,
    chart_js,
    kept_bundle,
    player_js,
)

_log = logging.getLogger("pudd_lab")

#: What every chart's modebar shows and hides, as ``st.plotly_chart`` had it: no plotly
#: logo, no lasso or box select (nothing reads a selection), no "send to cloud".
BASE_CONFIG: Mapping[str, Any] = {"displaylogo": False, "showSendToCloud": False,
                                  "modeBarButtonsToRemove": ["lasso2d", "select2d"]}
#: plotly.js's height of a figure without one (``st.plotly_chart`` uses it too).
DEFAULT_HEIGHT = 450
#: How many figures' JSON :func:`draw` keeps (a few kB to a few hundred kB each).
CACHED_FIGURES = 64
_ASSETS = "pudd_plotly"  # the v1 component that only serves the bundle's folder
#: What every module of a component that draws with plotly.js starts with: ``plotlyFrom``,
#: one load of a bundle per page, shared by the charts and the player (ui/player.py).
MODULE_HEAD = (Path(__file__).with_name("chart_component") / "plotly_loader.js").read_text(
    encoding="utf-8")
_JS = MODULE_HEAD + (Path(__file__).with_name("chart_component") / "chart.js").read_text(
    encoding="utf-8")

_draw = st.components.v2.component("pudd_chart", js=_JS, isolate_styles=False)


def served(bundle: Path, name: str) -> str:
    """The address in the app of the plotly.js file ``bundle``.

    Its folder is served by a v1 component ``name`` declared only for its files (never
    mounted).
    """
    components.declare_component(name, path=str(bundle.parent))
    return f"component/{__name__}.{name}/{bundle.name}"


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
    return served(bundle, _ASSETS)


def basic_src(cache: Path | None = None) -> str | None:
    """The basic bundle's address in the app, served from ``cache``; None without it.

    The charts of scatter, bar and pie traces are drawn by it (:func:`renderer`).
    """
    bundle = kept_bundle(BASIC, cache)
    return None if bundle is None else served(bundle, _ASSETS)


_SRC = bundle_src()
_BASIC_SRC = basic_src()


def player_src(chart_src: str | None) -> str:
    """The plotly.js of the player (ui/player.py): ``chart_src``, the charts' bundle.

    So a page loads one plotly.js. Without it (the charts then drawn by ``st.plotly_chart``),
    the basic partial bundle when kept, else the plotly package's full one
    (:func:`~pudd_core.plots.bundle.player_js`), served by the app.
    """
    return chart_src or served(player_js(), "pudd_plotly_player")


#: The player's plotly.js: the basic bundle's address when it is kept (its traces are
#: scatter and bar), the charts' otherwise.
PLOTLY_SRC = player_src(_BASIC_SRC or _SRC)


def trace_types(fig: Any) -> frozenset[str]:
    """The figure's trace types (plotly's default type, for a trace without one, is scatter)."""
    return frozenset(trace.type or "scatter" for trace in fig.data)


def renderer(fig: Any) -> Literal["basic", "cartesian", "streamlit"]:
    """Who draws ``fig``: the lightest kept bundle that has all the figure's trace types.

    The basic bundle (scatter, bar, pie), else the cartesian one (heatmaps, contours,
    images, ...), else Streamlit's plotly.js (``st.plotly_chart``), which has every trace type.
    """
    types = trace_types(fig)
    if _BASIC_SRC is not None and types <= BASIC_TRACE_TYPES:
        return "basic"
    if _SRC is not None and types <= CARTESIAN_TRACE_TYPES:
        return "cartesian"
    return "streamlit"


def sources(drawn_by: str) -> tuple[str | None, str | None]:
    """The plotly.js that a chart :func:`renderer` gives to ``drawn_by`` loads, and another.

    The other may serve the chart instead when the page has loaded it already (the cartesian
    bundle draws every basic trace too); None for none.
    """
    if drawn_by == "basic":
        return _BASIC_SRC, _SRC
    return (_SRC, None) if drawn_by == "cartesian" else (None, None)


def chart(fig: Any, key: str, *, config: Mapping[str, Any] | None = None) -> None:
    """Show a ``pudd_core.plots`` figure with its own template, as wide as its column.

    ``config``: plotly.js options added to :data:`BASE_CONFIG` (e.g.
    ``toImageButtonOptions``, the PNG's file name, by default ``pudd-<key>``). The figure's
    JSON is sent as ``st.plotly_chart`` sends it (``plotly.io.to_json``, which ``fig.to_json``
    calls); only its height is read here.
    """
    options = _options(key, config)
    drawn_by = renderer(fig)
    if drawn_by == "streamlit":
        st.plotly_chart(fig, key=key, theme=None, config=options)
        return
    _show(_sent(fig, drawn_by), key, options)


def draw(build: Callable[..., Any], /, *args: Any, key: str,
         config: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
    """:func:`chart` of ``build(*args, **kwargs)``, what it sends cached by the arguments.

    ``build`` is a ``pudd_core.plots`` figure builder: a pure function of its arguments, so
    the figure's JSON is kept (:data:`CACHED_FIGURES` of them, all pages together) and a
    warm page sends it without building the figure again. A figure that
    ``st.plotly_chart`` draws is built on each run (not kept).
    """
    sent = _built(f"{build.__module__}.{build.__qualname__}", args, kwargs, build)
    if sent is None:
        chart(build(*args, **kwargs), key, config=config)
    else:
        _show(sent, key, _options(key, config))


def _options(key: str, config: Mapping[str, Any] | None) -> dict[str, Any]:
    """The plotly.js options of a chart: :data:`BASE_CONFIG` and ``config``.

    The PNG's file name comes from the chart's key (``pudd-<key>.png``, not plotly's
    ``newplot.png`` for every chart) unless ``config`` names one.
    """
    return {**BASE_CONFIG, "toImageButtonOptions": {"filename": f"pudd-{key}"},
            **(config or {})}


def _sent(fig: Any, drawn_by: str) -> tuple[str, int, str]:
    """The figure's JSON, as ``st.plotly_chart`` sends it, its height in pixels, its bundle.

    The bundle: :func:`renderer`'s answer, ``drawn_by``.
    """
    height = fig.layout.height
    height = int(height) if height is not None and height >= 10 else DEFAULT_HEIGHT
    return fig.to_json(validate=False), height, drawn_by


@st.cache_data(max_entries=CACHED_FIGURES, show_spinner=False)
def _built(name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
           _build: Callable[..., Any]) -> tuple[str, int, str] | None:
    """:func:`_sent` of ``_build(*args, **kwargs)``; None for one no bundle can draw.

    ``name`` (the builder's) is in the key; ``_build`` itself is not hashed.
    """
    fig = _build(*args, **kwargs)
    drawn_by = renderer(fig)
    return None if drawn_by == "streamlit" else _sent(fig, drawn_by)


def _show(sent: tuple[str, int, str], key: str, options: Mapping[str, Any]) -> None:
    spec, height, drawn_by = sent
    src, wider = sources(drawn_by)
    _draw(key=key, data={"spec": spec, "config": options, "height": height, "src": src,
                         "wider": wider}, height=height)
