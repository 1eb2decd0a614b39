"""pudd_core.plots: assert on the figures' contents (traces, lines per alarm, axis titles)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from pudd_core import plots
from pudd_core.illustration import fig1_data


def _names(fig):
    return [t.name for t in fig.data]


def _vlines(fig, colour=None):
    return [s.x0 for s in fig.layout.shapes
            if s.type == "line" and s.x0 == s.x1 and (colour is None or s.line.color == colour)]


def _hlines(fig):
    return [s.y0 for s in fig.layout.shapes if s.type == "line" and s.y0 == s.y1]


# --- error_trace_figure -------------------------------------------------------------------------
def test_error_trace_has_one_vertical_line_per_alarm_of_each_detector():
    fig = plots.error_trace_figure(
        range(1, 11), np.full(10, 0.1), true_drifts=[4, 8],
        alarms={"PUDD": [4, 9], "DDM": [6]},
    )
    assert _names(fig) == ["Error rate", "True drift", "PUDD alarm", "DDM alarm"]
    assert _vlines(fig, plots.DETECTOR_COLOURS["PUDD"]) == [4, 9]
    assert _vlines(fig, plots.DETECTOR_COLOURS["DDM"]) == [6]
    bands = [s for s in fig.layout.shapes if s.type == "rect"]
    assert [(b.x0, b.x1) for b in bands] == [(3.5, 4.5), (7.5, 8.5)]
    assert all(s.line.dash == plots.ALARM_STYLE["dash"] for s in fig.layout.shapes
               if s.type == "line")


def test_error_trace_alarm_markers_sit_on_the_error_curve_in_percent():
    fig = plots.error_trace_figure([1, 2, 3], [0.1, 0.25, 0.2], alarms={"PUDD": [2]})
    assert list(fig.data[0].y) == pytest.approx([10, 25, 20])
    assert list(fig.data[1].x) == [2] and list(fig.data[1].y) == [25]
    assert fig.layout.xaxis.title.text == "Chunk index"
    assert fig.layout.yaxis.title.text == "Error rate (%)"


def test_error_trace_with_p_values_adds_a_log_p_row_and_the_threshold():
    fig = plots.error_trace_figure([1, 2, 3], [0.1, 0.1, 0.1], p_values=[float("nan"), 0.0, 0.5],
                                   alpha=1e-3)
    assert _names(fig) == ["Error rate", "PUDD log10 p", "threshold α = 1e-03"]
    logp = fig.data[1].y
    assert math.isnan(logp[0]) and logp[1] == -300 and logp[2] == pytest.approx(math.log10(0.5))
    assert _hlines(fig) == [-3]
    assert fig.layout.yaxis2.title.text == "log₁₀ p-value"
    assert fig.layout.xaxis2.title.text == "Chunk index"
    assert not _vlines(fig)


def test_error_trace_without_drifts_or_alarms_has_no_shapes():
    fig = plots.error_trace_figure([1, 2], [0.0, 0.5])
    assert _names(fig) == ["Error rate"] and fig.layout.shapes == ()


# --- pu_histogram_figure ------------------------------------------------------------------------
def test_pu_histogram_has_four_bar_traces_and_one_line_per_bucket_edge():
    rng = np.random.default_rng(0)
    u1, u2 = rng.uniform(0, 1, 300), rng.uniform(0, 1, 200)
    fig = plots.pu_histogram_figure(u1, u1 < 0.5, u2, u2 < 0.5, edges=[0.1, 0.25, 0.4])
    assert _names(fig) == ["Window 1: correct", "Window 1: misclassified", "Window 2: correct",
                           "Window 2: misclassified", "PUDD bucket edges"]
    assert _vlines(fig) == [0.1, 0.25, 0.4]
    # shares of each window add up to 100 %
    assert sum(fig.data[0].y) + sum(fig.data[1].y) == pytest.approx(100)
    assert sum(fig.data[2].y) + sum(fig.data[3].y) == pytest.approx(100)
    assert fig.data[1].marker.pattern.shape == "/" and fig.data[0].marker.pattern.shape == ""
    assert fig.layout.yaxis.title.text == "Share of window (%)"


def test_pu_histogram_names_and_no_edges():
    fig = plots.pu_histogram_figure([0.1], [True], [0.9], [False], names=("Set 1", "Set 2"))
    assert _names(fig)[0] == "Set 1: correct" and len(fig.data) == 4
    assert fig.data[0].marker.color == plots.WINDOW_COLOURS[0]


# --- cut p-values, curves and verdicts ----------------------------------------------------------
def test_cut_pvalue_figure_plots_log_p_per_cut_with_the_threshold():
    fig = plots.cut_pvalue_figure([1, 2, 4, 8], [1.0, 0.1, 1e-5, 0.3], alpha=1e-3)
    assert list(fig.data[0].x) == [1, 2, 4, 8]
    assert list(fig.data[0].y) == pytest.approx([0, -1, -5, math.log10(0.3)])
    assert _hlines(fig) == [-3]
    assert fig.layout.yaxis.title.text == "log₁₀ p-value"


def test_pvalue_curve_has_one_trace_per_test():
    fig = plots.pvalue_curve_figure([1000, 2000], {"PUDD": [0.9, 1e-6], "Error-rate test":
                                                   [1.0, 0.01]}, alpha=1e-5)
    assert _names(fig) == ["PUDD", "Error-rate test", "threshold α = 1e-05"]
    assert fig.data[0].line.color == plots.DETECTOR_COLOURS["PUDD"]
    assert _hlines(fig) == [-5]
    assert fig.layout.xaxis.title.text == "Test-set size n (points per set)"


def test_verdict_figure_marks_drift_against_alpha():
    fig = plots.verdict_figure(["PUDD", "Error-rate test"], [0.0, 0.2], alpha=1e-5)
    bars = fig.data[0]
    assert list(bars.x) == pytest.approx([300, -math.log10(0.2)])
    assert list(bars.text) == ["p < 1e-300: drift", "p = 0.2: no drift"]
    assert list(bars.marker.pattern.shape) == ["", "x"]
    assert _vlines(fig) == [5]


def test_p_text_formats():
    assert plots.p_text(float("nan")) == "p = n/a"
    assert plots.p_text(0.0123) == "p = 0.0123"


# --- tables and Theorem 1 -----------------------------------------------------------------------
def test_contingency_table_frame_interleaves_observed_and_expected():
    frame = plots.contingency_table_frame([[10, 20, 5], [20, 10, 5]],
                                          [[15, 15, 5], [15, 15, 5]])
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == ["bucket 1", "bucket 2", "misclassified"]
    assert list(frame.index) == ["Window 1 (reference) observed", "Window 1 (reference) expected",
                                 "Window 2 (recent) observed", "Window 2 (recent) expected"]
    assert frame.loc["Window 2 (recent) observed"].tolist() == [20, 10, 5]


def test_contingency_table_frame_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match="2 x"):
        plots.contingency_table_frame([[1, 2], [3, 4]], [[1, 2, 3], [4, 5, 6]])
    with pytest.raises(ValueError, match="column_labels"):
        plots.contingency_table_frame([[1, 2], [3, 4]], [[1, 2], [3, 4]], column_labels=["a"])


def test_theorem1_histogram_shows_proportions_of_both_windows():
    fig = plots.theorem1_histogram_figure([0.5, 0.75, 1.0], [6, 3, 1], [12, 6, 2])
    assert _names(fig) == ["Window 1 (n = 10)"] * 2 + ["Window 2 (n = 20)"] * 2
    assert [bool(t.showlegend) for t in fig.data] == [True, False, True, False]
    assert list(fig.data[0].y) + list(fig.data[1].y) == pytest.approx([60, 30, 10])
    assert list(fig.data[3].customdata) == [6, 2]
    assert list(fig.data[1].x) == ["[0.50, 0.75)", "[0.75, 1.00]"]
    assert fig.layout.yaxis.title.text == "Share of window (%)"
    assert fig.layout.xaxis2.title.text == "PU-index range of the error bin"


# --- Fig. 1 and the shared look -----------------------------------------------------------------
@pytest.fixture(scope="module")
def scatter():
    return plots.fig1_scatter_figure(fig1_data(grid_size=21))


def test_fig1_scatter_has_both_panels_with_boundary_and_concepts(scatter):
    names = _names(scatter)
    assert len(names) == 14  # 7 traces per panel
    for name in ("GNB boundary p(y=1) = 0.5", "old concept x0 + x1 = 9",
                 "new concept x0 + x1 = 8.2", "misclassified", "true class y = 0"):
        assert names.count(name) == 2
    assert sum(bool(t.showlegend) for t in scatter.data) == 7
    bad = [t for t in scatter.data if t.name == "misclassified"]
    assert [len(t.x) for t in bad] == [42, 42]
    assert scatter.layout.xaxis.title.text == "Feature x0 (SEA, range 0–10)"
    assert scatter.layout.yaxis.title.text == "Feature x1 (SEA, range 0–10)"


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


def test_palette_is_okabe_ito():
    assert set(plots.PALETTE) == set(plots.OKABE_ITO.values())
    assert len(plots.PALETTE) == 8
