"""pudd_core.plots._style and the package: one look, one palette, every name exported."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given
from hypothesis import strategies as hst

from pudd_core import plots
from tests.test_plots._figures import cells, window_record


def test_p_text_formats():
    assert plots.p_text(float("nan")) == "p = n/a"
    assert plots.p_text(0.0123) == "p = 0.0123"


def test_palette_is_okabe_ito():
    assert set(plots.PALETTE) == set(plots.OKABE_ITO.values())
    assert len(plots.PALETTE) == 8


def test_every_figure_uses_the_one_template():
    figs = [
        plots.error_trace_figure([1], [0.1]),
        plots.pu_histogram_figure([0.1], [True], [0.2], [True]),
        plots.cut_pvalue_figure([1], [0.5], alpha=0.01),
        plots.verdict_figure(["PUDD"], [0.5], alpha=0.01),
        plots.theorem1_histogram_figure([0.5, 1.0], [1, 1], [1, 1]),
        plots.pvalue_curve_figure([1], {"PUDD": [0.5]}, alpha=0.01),
    ]
    for fig in figs:
        assert list(fig.layout.template.layout.colorway) == list(plots.PALETTE)


def test_explorer_builders_use_the_one_template():
    figs = [
        plots.detector_error_figure([1], {"PUDD": [0.1]}, alarms={}),
        plots.min_pvalue_figure([1], [0.5], alpha=0.01),
        plots.cut_scan_figure([1], [0.5], alpha=0.01),
        plots.window_histogram_figure(window_record()),
    ]
    for fig in figs:
        assert list(fig.layout.template.layout.colorway) == list(plots.PALETTE)


def test_lab_builders_use_the_one_template():
    figs = [
        plots.transition_matrix_figure(np.eye(2), ["a", "b"]),
        plots.interest_timeline_figure(np.eye(2), ["a", "b"]),
        plots.false_alarm_figure(pd.DataFrame({"exponent": [1], "alpha": [0.1],
                                               "per_test": [0.1], "per_chunk": [0.1],
                                               "bonferroni": [0.1], "n_tests": 1,
                                               "n_chunks": 1})),
        plots.reproduction_figure(cells()),
    ]
    for fig in figs:
        assert list(fig.layout.template.layout.colorway) == list(plots.PALETTE)


def test_the_package_reexports_the_public_names_of_its_modules():
    from pudd_core.plots import (
        _style,
        ablation,
        cifar,
        course,
        reproduction,
        significance,
        stream,
        teaching,
        thresholds,
        windows,
    )

    from_modules = {}
    for mod in (stream, windows, teaching, cifar, thresholds, reproduction, significance,
                ablation, course):
        assert list(mod.__all__) == sorted(mod.__all__)
        from_modules |= {name: getattr(mod, name) for name in mod.__all__}
    # the rest of plots.__all__ is the look: palette, styles, template, p_text, detector_colour
    from_style = {name: getattr(_style, name) for name in plots.__all__ if name not in from_modules}
    assert set(from_modules) <= set(plots.__all__)
    for name, obj in {**from_modules, **from_style}.items():
        assert getattr(plots, name) is obj, name


def test_alarms_and_true_drifts_are_drawn_alike_in_every_figure():
    alarms = {"PUDD": [2], "HDDM-A": [3]}
    trace = plots.error_trace_figure([1, 2, 3], [0.1, 0.2, 0.1], true_drifts=[2], alarms=alarms)
    lanes = plots.detector_error_figure([1, 2, 3], {n: [0.1, 0.2, 0.1] for n in alarms},
                                        alarms=alarms, true_drifts=[2])
    min_p = plots.min_pvalue_figure([1, 2, 3], [0.5, 1e-6, 0.5], alpha=1e-3, alarms=[2],
                                    true_drifts=[2])
    for name in alarms:  # one colour per detector on every page
        colours = {t.marker.color for fig in (trace, lanes) for t in fig.data
                   if t.name == f"{name} alarm"}
        assert colours == {plots.detector_colour(name)}
    figs = (trace, lanes, min_p)
    pudd_lines = [s for fig in figs for s in fig.layout.shapes
                  if s.type == "line" and s.x0 == 2 and s.x0 == s.x1]
    assert len(pudd_lines) == 3 and len({s.to_plotly_json().__repr__() for s in pudd_lines}) == 1
    assert pudd_lines[0].line.dash == plots.ALARM_STYLE["dash"]
    bands = [s for fig in figs for s in fig.layout.shapes if s.type == "rect"]
    assert len(bands) == 3 and len({s.to_plotly_json().__repr__() for s in bands}) == 1
    assert bands[0].fillcolor == plots.TRUE_DRIFT_STYLE["fillcolor"]


def test_every_registered_detector_and_explorer_setting_has_its_own_colour():
    # 12 detectors in one chart (the explorer's lanes, the reproduction) must be told apart
    from pudd_core.experiments.detectors import DETECTORS

    colours = {name: plots.detector_colour(name) for name in DETECTORS.values()}
    assert len(colours) == len(DETECTORS)
    assert len(set(colours.values())) == len(colours), colours
    # a PUDD setting of the explorer shares no colour with a baseline beside it
    assert plots.SETTING_COLOURS[0] == plots.detector_colour("PUDD")
    assert len(set(plots.SETTING_COLOURS)) == len(plots.SETTING_COLOURS)
    assert not set(plots.SETTING_COLOURS[1:]) & set(colours.values())


@given(hst.lists(hst.text(alphabet="abcdefghij-:()0123456789", min_size=1, max_size=70),
                 min_size=1, max_size=20))
def test_a_wrapped_title_keeps_every_word_in_order_on_lines_that_fit(words: list[str]):
    from pudd_core.plots._style import TITLE_WIDTH, wrap_title

    title = " ".join(words)
    lines = wrap_title(title)
    assert " ".join(lines).split() == title.split()
    # a line is over the width only when it is one word that is longer by itself
    assert all(len(line) <= TITLE_WIDTH or " " not in line for line in lines)


def test_a_long_title_gets_its_lines_and_the_room_for_them():
    # the CIFAR-10-CD chart's title was cut at the chart's edge at 1024 px
    from pudd_core.plots._style import TITLE_WIDTH

    short = plots.error_trace_figure([1], [0.1], title="Error rate")
    title = "pretrained-cnn on CIFAR-10-CD: error rate per chunk and alarms"
    long = plots.error_trace_figure([1], [0.1], title=title)
    lines = long.layout.title.text.split("<br>")
    assert len(lines) == 2 and " ".join(lines) == title
    assert all(len(line) <= TITLE_WIDTH for line in lines)
    room = long.layout.margin.t - short.layout.margin.t
    assert room > 0 and long.layout.height - short.layout.height == room
    # a title that carries its own markup is its author's layout
    assert plots.error_trace_figure([1], [0.1], title="a<br>b").layout.title.text == "a<br>b"
