"""The Stream explorer's player: the finished runs, played in the browser.

``pudd_core.plots.player.player_spec`` packs every chunk's charts of the (cached) runs into
one JSON document; the component in ``ui/player_component`` shows it up to a cursor that the
browser moves itself: Reset, Back, Next, Play/Pause, a speed and a Jump slider, and the arrow
keys. The server does no work per step or frame, so Pause stops at once, and one server
plays for a class. When the player stops, it writes the cursor into the page's address
(``?chunk=``, and ``?detail=``: the setting whose details it shows); the next rerun of the
page reads them back (:func:`cursor_from_address`), so a link, a settings change and a
return to the page all keep them. Several PUDD settings and seeds are one spec.

The component is one of ``st.components.v2``: drawn in the page, not in an iframe, with the
plotly.js bundle that the page's charts load (:data:`ui.chart.PLOTLY_SRC`), so the explorer
and the Monitor page load no plotly.js of their own (an iframe loaded its own after the
page, 1.3-1.5 s of the page's load; issue 34 item 10).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import NamedTuple

import streamlit as st

from pudd_core.plots.player import player_spec, run_key
from pudd_core.views.explorer import Comparison
from ui import chart, pages, state

FRONTEND = Path(__file__).with_name("player_component")
#: The component's markup, its style (every rule under ``.pudd-player``) and its module.
HTML, CSS, JS = ((FRONTEND / name).read_text(encoding="utf-8")
                 for name in ("player.html", "player.css", "player.js"))

_component = st.components.v2.component("pudd_player", html=HTML, css=CSS,
                                        js=chart.MODULE_HEAD + JS, isolate_styles=False)


class Spec(NamedTuple):
    """A player spec as the component gets it: its JSON, its ``id`` and its last chunk."""

    text: str
    id: str
    last: int


@st.cache_resource(max_entries=16, show_spinner=False)
def spec(key: str, _comparison: Comparison, band: bool) -> Spec:
    """The runs' player spec, built once per runs (``key``: ``run_key`` of their results).

    A resource, not data: every session sends the same JSON text (nobody changes it), with
    no copy and no serialisation per rerun of a document of several hundred KB.
    """
    data = player_spec(_comparison.settings, _comparison.baselines, labels=_comparison.labels,
                       band=band)
    return Spec(json.dumps(data, separators=(",", ":"), allow_nan=False), data["id"],
                data["last"])


def cursor_from_address() -> None:
    """Take the chunk and setting the player left in the address bar (``?chunk=``, ``?detail=``)."""
    for name, key, top in (("chunk", state.EXPLORER_CURSOR, 100_000),
                           ("detail", state.EXPLORER_DETAIL, 4)):
        text = st.query_params.get(name)
        if text is not None and text.isdigit() and 1 <= int(text) <= top:
            st.session_state[key] = int(text)


def player(comparison: Comparison, *, band: bool) -> None:
    """The player of ``comparison``'s runs, opening at the session's cursor and setting."""
    start = time.perf_counter()
    runs = [r for group in (*comparison.settings, *comparison.baselines) for r in group]
    key = run_key(runs, comparison.labels, band)
    sent = spec(key, comparison, band)
    cursor = min(max(int(state.get(state.EXPLORER_CURSOR)), 1), sent.last)
    st.session_state[state.EXPLORER_CURSOR] = cursor
    detail = min(max(int(state.get(state.EXPLORER_DETAIL)), 1), len(comparison.labels))
    st.session_state[state.EXPLORER_DETAIL] = detail
    _component(key="explorer_player", data={
        "spec": sent.text, "id": sent.id, "start": cursor, "detail": detail,
        "src": chart.PLOTLY_SRC, "wider": chart.sources("basic")[1]})
    log_time("player", start)


def log_time(what: str, start: float) -> None:
    """:func:`ui.pages.log_time` with the session's cursor as its detail."""
    pages.log_time(what, state.get(state.EXPLORER_CURSOR), start)
