"""ui.chart: the figure's JSON sent unchanged, drawn by the light bundle or by st.plotly_chart."""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

import plotly.graph_objects as go
import plotly.io
import pytest
from streamlit.testing.v1 import AppTest

import ui.chart
from harness.apptest import charts, figures
from pudd_core.plots import bundle
from pudd_core.plots.bundle import CARTESIAN, CARTESIAN_TRACE_TYPES

SRC = f"component/ui.chart.pudd_plotly/plotly-cartesian-{CARTESIAN.version}.min.js"
BASIC_SRC = f"component/ui.chart.pudd_plotly/plotly-basic-{CARTESIAN.version}.min.js"


def _script() -> None:
    """One chart of each kind the app draws, and one that the cartesian bundle cannot
    (AppTest runs this function's source: the figures are built again in ``_figures``)."""
    import numpy as np
    import plotly.graph_objects as go

    from pudd_core import plots
    from ui import chart

    rng = np.random.default_rng(0)
    chart.chart(go.Figure([go.Scatter(x=[1, 2, 3], y=[3, 1, 2], name="line"),
                           go.Bar(x=[1, 2], y=[2, 5])],
                          layout={"height": 310, "template": plots.TEMPLATE}), key="lines")
    chart.chart(go.Figure([go.Heatmap(z=rng.random((3, 4))), go.Contour(z=rng.random((3, 4)))]),
                key="maps", config={"toImageButtonOptions": {"filename": "maps_seed0"}})
    chart.chart(go.Figure(go.Image(z=rng.integers(0, 255, (2, 2, 3)))), key="image")
    chart.chart(go.Figure(go.Scatter3d(x=[1], y=[2], z=[3])), key="space")


def _figures() -> dict[str, go.Figure]:
    """The figures ``_script`` draws, built here a second time."""
    import numpy as np

    from pudd_core import plots

    rng = np.random.default_rng(0)
    return {
        "lines": go.Figure([go.Scatter(x=[1, 2, 3], y=[3, 1, 2], name="line"),
                            go.Bar(x=[1, 2], y=[2, 5])],
                           layout={"height": 310, "template": plots.TEMPLATE}),
        "maps": go.Figure([go.Heatmap(z=rng.random((3, 4))), go.Contour(z=rng.random((3, 4)))]),
        "image": go.Figure(go.Image(z=rng.integers(0, 255, (2, 2, 3)))),
        "space": go.Figure(go.Scatter3d(x=[1], y=[2], z=[3])),
    }


def _run(monkeypatch: pytest.MonkeyPatch, src: str | None,
         basic: str | None = None) -> AppTest:
    monkeypatch.setattr(ui.chart, "_SRC", src)  # as if set-up had (or had not) fetched them
    monkeypatch.setattr(ui.chart, "_BASIC_SRC", basic)
    at = AppTest.from_function(_script, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_trace_types_decide_who_draws_a_figure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ui.chart, "_SRC", SRC)
    monkeypatch.setattr(ui.chart, "_BASIC_SRC", BASIC_SRC)
    drawn = {key: ui.chart.renderer(fig) for key, fig in _figures().items()}
    assert drawn == {"lines": "basic", "maps": "cartesian", "image": "cartesian",
                     "space": "streamlit"}
    # a basic chart may be drawn by the cartesian bundle when the page has it already
    assert ui.chart.sources("basic") == (BASIC_SRC, SRC)
    assert ui.chart.sources("cartesian") == (SRC, None)
    monkeypatch.setattr(ui.chart, "_BASIC_SRC", None)  # the basic bundle not fetched
    assert ui.chart.renderer(_figures()["lines"]) == "cartesian"
    monkeypatch.setattr(ui.chart, "_SRC", None)  # neither: Streamlit's
    assert {ui.chart.renderer(fig) for fig in _figures().values()} == {"streamlit"}
    monkeypatch.setattr(ui.chart, "_BASIC_SRC", BASIC_SRC)  # the basic one alone
    assert [ui.chart.renderer(f) for f in _figures().values()] == ["basic", *["streamlit"] * 3]
    assert ui.chart.trace_types(go.Figure(go.Scatter())) == {"scatter"}
    assert {"scatter", "bar", "heatmap", "contour", "image"} <= CARTESIAN_TRACE_TYPES
    assert "scatter3d" not in CARTESIAN_TRACE_TYPES


def test_the_component_gets_the_figures_json_unchanged_with_its_height_and_config(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    at = _run(monkeypatch, SRC, BASIC_SRC)
    built = _figures()
    sent = {el.proto.id.split("-", 2)[2]: json.loads(el.proto.json) for el in charts(at)}
    assert list(sent) == ["lines", "maps", "image"]  # in page order; 3-D went to Streamlit
    for key, data in sent.items():
        assert data["spec"] == plotly.io.to_json(built[key], validate=False)  # byte for byte
        # scatter and bar: the basic bundle, or the cartesian one if the page has it already
        assert (data["src"], data["wider"]) == ((BASIC_SRC, SRC) if key == "lines" else
                                                (SRC, None))
        assert {k: data["config"][k] for k in ui.chart.BASE_CONFIG} == dict(ui.chart.BASE_CONFIG)
    assert [d["height"] for d in sent.values()] == [310, 450, 450]  # the figure's, else plotly's
    assert sent["maps"]["config"]["toImageButtonOptions"] == {"filename": "maps_seed0"}
    # the others save under their key's name, not plotly's newplot.png
    assert sent["lines"]["config"]["toImageButtonOptions"] == {"filename": "pudd-lines"}
    assert sent["image"]["config"]["toImageButtonOptions"] == {"filename": "pudd-image"}
    [space] = at.get("plotly_chart")
    assert json.loads(space.proto.spec) == json.loads(plotly.io.to_json(built["space"]))
    assert json.loads(space.proto.config) == {
        **ui.chart.BASE_CONFIG, "toImageButtonOptions": {"filename": "pudd-space"}}
    assert space.proto.theme == ""  # theme=None: the figure's own template
    assert set(figures(at)) == {"lines", "maps", "image", "space"}  # the tests' reader sees all


def test_without_the_bundle_every_figure_goes_to_st_plotly_chart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    at = _run(monkeypatch, None)
    assert charts(at) == []
    built = _figures()
    got = figures(at)
    assert set(got) == set(built)
    for key, fig in built.items():
        assert got[key] == json.loads(plotly.io.to_json(fig, validate=False))


def test_a_missing_or_damaged_bundle_is_named_in_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="pudd_lab"):
        assert ui.chart.bundle_src(tmp_path) is None  # nothing fetched
    assert "cartesian bundle 3.3.1 is not in the cache" in caplog.text
    assert "fetch_plotly_bundle.py" in caplog.text


def test_a_kept_bundle_is_served_from_its_cache_folder(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    text = f"/**\n* plotly.js (cartesian - minified) v{CARTESIAN.version}\n*/\nvar Plotly;\n"
    path = bundle.bundle_path(CARTESIAN, tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(text)
    path.with_name(path.name + ".sha256").write_text(hashlib.sha256(text.encode()).hexdigest())
    declared: dict[str, str] = {}
    monkeypatch.setattr(ui.chart.components, "declare_component",
                        lambda name, path: declared.setdefault(name, path))
    assert ui.chart.bundle_src(tmp_path) == SRC
    assert declared == {"pudd_plotly": str(path.parent)}
