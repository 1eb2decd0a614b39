"""The player's component: in the page, with the charts' plotly.js, its style kept to itself."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import ui.chart
import ui.player as player
from harness.apptest import open_page
from pudd_core.plots.bundle import player_js


def _selectors(css: str) -> list[str]:
    """Every selector of every rule of ``css``, inside ``@media`` blocks too."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    found, depth, head = [], 0, ""
    for char in css:
        if char == "{":
            if not head.strip().startswith("@"):
                found += [s.strip() for s in head.split(",")]
            depth, head = depth + 1, ""
        elif char == "}":
            depth, head = depth - 1, ""
        else:
            head += char
    assert depth == 0, "unbalanced braces"
    return found


def test_the_players_style_touches_nothing_outside_it() -> None:
    """Drawn in the page, not in a frame: a rule for ``button`` or ``table`` would restyle
    Streamlit's own buttons and tables on every page the player visits."""
    selectors = _selectors(player.CSS)
    assert len(selectors) > 20
    outside = [s for s in selectors if not s.startswith(".pudd-player")]
    assert outside == []
    assert _selectors(".a { x: 1 } @media (max-width: 9px) { b, .c d { y: 2 } }") == [
        ".a", "b", ".c d"]  # the reading itself


def test_every_element_the_script_reads_is_in_the_markup_once() -> None:
    ids = re.findall(r'\$\("([\w-]+)"\)', player.JS)
    charts = re.search(r"const CHARTS = \[(.*?)\]", player.JS)
    assert charts is not None
    ids += re.findall(r'"([\w-]+)"', charts.group(1))
    assert {"play", "next", "prev", "reset", "jump", "speed", "c-trace", "c-hist"} <= set(ids)
    for name in set(ids):
        assert len(re.findall(rf'id="{name}"', player.HTML)) == 1, name
    assert player.HTML.count('class="pudd-player"') == 1


def _explorer() -> AppTest:
    return open_page("pages/explorer.py", {"n_chunks": "12", "chunk": "4"}, timeout=300,
                     via_home=False)


def test_the_player_is_in_the_page_and_loads_the_charts_plotly_js() -> None:
    """Issue 34 item 10: the player's iframe loaded its own plotly.js after the page."""
    at = _explorer()
    assert not at.exception
    assert not [e for e in at.get("component_instance")]  # no iframe component on the page
    [el] = [e for e in at.get("bidi_component") if e.proto.component_name == "pudd_player"]
    assert not el.proto.isolate_styles  # plotly.js's own style sheet reaches its charts
    data = json.loads(el.proto.json)
    assert data["src"] == ui.chart.PLOTLY_SRC
    if ui.chart._BASIC_SRC is not None:  # set-up fetched it: the basic bundle (scatter, bar)
        # as the charts of those traces, or the cartesian one when the page has it already
        assert (data["src"], data["wider"]) == (ui.chart._BASIC_SRC, ui.chart._SRC)
    elif ui.chart._SRC is not None:  # the charts' bundle: the same file
        assert data["src"] == ui.chart._SRC
    spec = json.loads(data["spec"])
    assert (data["id"], data["start"], data["detail"]) == (spec["id"], 4, 1)
    assert spec["last"] == 11


def test_without_the_charts_bundle_the_player_loads_its_own_from_the_app(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kept = "component/ui.chart.pudd_plotly/plotly-cartesian.min.js"
    assert ui.chart.player_src(kept) == kept
    declared: dict[str, str] = {}
    monkeypatch.setattr(ui.chart.components, "declare_component",
                        lambda name, path: declared.setdefault(name, path))
    bundle = player_js()  # the basic bundle when kept, else the plotly package's full one
    # the app serves a declared component's folder at component/<module>.<name>/
    assert ui.chart.player_src(None) == f"component/ui.chart.pudd_plotly_player/{bundle.name}"
    assert Path(declared["pudd_plotly_player"], bundle.name).samefile(bundle)
