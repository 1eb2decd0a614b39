"""pudd_core.plots.teaching: verdicts, Theorem 1 histograms, p-value curves, Fig. 1."""

from __future__ import annotations

import math

import pytest

from pudd_core import plots
from pudd_core.views.illustration import fig1_data
from tests.test_plots._figures import hlines, trace_names, vlines


def test_pvalue_curve_has_one_trace_per_test():
    fig = plots.pvalue_curve_figure([1000, 2000], {"PUDD": [0.9, 1e-6], "Error-rate test":
                                                   [1.0, 0.01]}, alpha=1e-5)
    assert trace_names(fig) == ["PUDD", "Error-rate test", "threshold α = 1e-05"]
    assert fig.data[0].line.color == plots.DETECTOR_COLOURS["PUDD"]
    assert hlines(fig) == [-5]
    assert fig.layout.xaxis.title.text == "Test-set size n (points per set)"


def test_verdict_figure_marks_drift_against_alpha():
    fig = plots.verdict_figure(["PUDD", "Error-rate test"], [0.0, 0.2], alpha=1e-5)
    bars = fig.data[0]
    assert list(bars.x) == pytest.approx([300, -math.log10(0.2)])
    assert list(bars.text) == ["p < 1e-300: drift", "p = 0.2: no drift"]
    assert list(bars.marker.pattern.shape) == ["", "x"]
    assert vlines(fig) == [5]


def test_theorem1_histogram_shows_proportions_of_both_windows():
    fig = plots.theorem1_histogram_figure([0.5, 0.75, 1.0], [6, 3, 1], [12, 6, 2])
    assert trace_names(fig) == ["Window 1 (n = 10)"] * 2 + ["Window 2 (n = 20)"] * 2
    assert [bool(t.showlegend) for t in fig.data] == [True, False, True, False]
    assert list(fig.data[0].y) + list(fig.data[1].y) == pytest.approx([60, 30, 10])
    assert list(fig.data[3].customdata) == [6, 2]
    assert list(fig.data[1].x) == ["[0.50, 0.75)", "[0.75, 1.00]"]
    assert fig.layout.yaxis.title.text == "Share of window (%)"
    assert fig.layout.xaxis2.title.text == "PU-index range of the error bin"


@pytest.fixture(scope="module")
def scatter():
    return plots.fig1_scatter_figure(fig1_data(grid_size=21))


def test_fig1_scatter_has_both_panels_with_boundary_and_concepts(scatter):
    names = trace_names(scatter)
    assert len(names) == 14  # 7 traces per panel
    for name in ("GNB boundary p(y=1) = 0.5", "old concept x0 + x1 = 9",
                 "new concept x0 + x1 = 8.2", "misclassified", "true class y = 0"):
        assert names.count(name) == 2
    assert sum(bool(t.showlegend) for t in scatter.data) == 7
    bad = [t for t in scatter.data if t.name == "misclassified"]
    assert [len(t.x) for t in bad] == [42, 42]
    assert scatter.layout.xaxis.title.text == "Feature x0 (SEA, range 0–10)"
    assert scatter.layout.yaxis.title.text == "Feature x1 (SEA, range 0–10)"
