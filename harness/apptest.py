"""Shared AppTest helpers: open a page as a visitor would, and read its plotly figures."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]


def open_page(page: str | None, query: dict[str, str] | None = None, *, timeout: float,
              via_home: bool = True) -> AppTest:
    """Run the app and switch to ``page`` with ``query`` in the address bar; no exception.

    ``via_home``: Home is served first (a visitor clicking through the sidebar); otherwise
    the page is the session's first run (a shared link opened in a new tab).
    """
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    if via_home:
        at.run(timeout=timeout)
    at.query_params.update(query or {})
    if page is not None:
        at.switch_page(page).run(timeout=timeout)
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown(markdown: str) -> str:
    """The text a reader sees of escaped Markdown (``ui.messages.escape``): escapes dropped."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)


def figures(at: AppTest) -> dict[str, dict[str, Any]]:
    """Plotly figures of the page by key, as the JSON the browser receives.

    ``ui.chart.chart`` sends a figure to its component (``pudd_chart``: the ``spec`` of its
    data) or, without the light plotly.js bundle, to ``st.plotly_chart``.
    """
    out = {}
    for el in at.get("plotly_chart"):
        key = el.proto.id.split("-")[-1] if el.key is None else el.key
        out[key] = json.loads(el.proto.spec)
    for el in charts(at):
        out[el.proto.id.split("-", 2)[2]] = json.loads(json.loads(el.proto.json)["spec"])
    return out


def charts(at: AppTest) -> list[Any]:
    """The page's ``ui.chart`` components (drawn by the light plotly.js bundle)."""
    return [el for el in at.get("bidi_component") if el.proto.component_name == "pudd_chart"]


def trace_named(spec: dict[str, Any], name: str) -> dict[str, Any]:
    """The trace called ``name`` of a figure's JSON."""
    return next(t for t in spec["data"] if t.get("name") == name)


def player(at: AppTest) -> dict[str, Any]:
    """The Stream explorer player's data: ``{"spec": ..., "start": chunk, "detail": ...}``.

    Its spec is read back from the JSON text the page sends.
    """
    [el] = [e for e in at.get("bidi_component") if e.proto.component_name == "pudd_player"]
    args: dict[str, Any] = json.loads(el.proto.json)
    args["spec"] = json.loads(args["spec"])
    return args


def send_stale_label(widget: Any, label: str) -> None:
    """Make ``widget`` (a radio or select box) send ``label`` on the next run, as a browser does.

    The browser sends back the label it last drew; AppTest sends the label of the current
    value. After a change that relabels the options, only the browser's way shows the bug.
    """
    base = type(widget)

    class Stale(base):  # type: ignore[misc,valid-type]
        @property
        def _widget_state(self) -> Any:
            ws = base._widget_state.fget(self)  # type: ignore[attr-defined]
            ws.string_value = label
            return ws

    widget.__class__ = Stale
