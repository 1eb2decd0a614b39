"""pudd_core.plots.windows: PU histograms, cut-point scans and the tested table."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from pudd_core import plots
from tests.test_plots._figures import hlines, trace_names, vlines, window_record


def test_pu_histogram_has_four_bar_traces_and_one_line_per_bucket_edge():
    rng = np.random.default_rng(0)
    u1, u2 = rng.uniform(0, 1, 300), rng.uniform(0, 1, 200)
    fig = plots.pu_histogram_figure(u1, u1 < 0.5, u2, u2 < 0.5, edges=[0.1, 0.25, 0.4])
    assert trace_names(fig) == ["Window 1: correct", "Window 1: misclassified", "Window 2: correct",
                           "Window 2: misclassified", "PUDD bucket edges"]
    assert vlines(fig) == [0.1, 0.25, 0.4]
    # shares of each window add up to 100 %
    assert sum(fig.data[0].y) + sum(fig.data[1].y) == pytest.approx(100)
    assert sum(fig.data[2].y) + sum(fig.data[3].y) == pytest.approx(100)
    assert fig.data[1].marker.pattern.shape == "/" and fig.data[0].marker.pattern.shape == ""
    assert fig.layout.yaxis.title.text == "Share of window (%)"


def test_hatched_bars_paint_no_white_between_their_stripes():
    # plotly's default pattern fill paints the gaps of a hatch white (or dark grey) by
    # contrast: the bars then show white notches. Both colours are set: the bar's own under
    # dark stripes, and no white outline
    rng = np.random.default_rng(0)
    u1, u2 = rng.beta(1, 6, 500), rng.beta(1, 3, 500)
    for fig in (plots.pu_histogram_figure(u1, u1 < 0.5, u2, u2 < 0.5),
                plots.window_histogram_figure(window_record())):
        hatched = [t for t in fig.data if t.type == "bar" and t.marker.pattern.shape == "/"]
        assert hatched
        for trace in hatched:
            pattern = trace.marker.pattern
            assert pattern.bgcolor == trace.marker.color
            assert pattern.fgcolor not in (None, "white", "#fff", "#ffffff")
            assert trace.marker.line.width == 0


def test_pu_histogram_names_and_no_edges():
    fig = plots.pu_histogram_figure([0.1], [True], [0.9], [False], names=("Set 1", "Set 2"))
    assert trace_names(fig)[0] == "Set 1: correct" and len(fig.data) == 4
    assert fig.data[0].marker.color == plots.WINDOW_COLOURS[0]


def test_cut_pvalue_figure_plots_log_p_per_cut_with_the_threshold():
    fig = plots.cut_pvalue_figure([1, 2, 4, 8], [1.0, 0.1, 1e-5, 0.3], alpha=1e-3)
    assert list(fig.data[0].x) == [1, 2, 4, 8]
    assert list(fig.data[0].y) == pytest.approx([0, -1, -5, math.log10(0.3)])
    assert hlines(fig) == [-3]
    assert fig.layout.yaxis.title.text == "log₁₀ p-value"


def test_cut_scan_figure_rings_the_winning_cut_on_a_fixed_log_axis():
    fig = plots.cut_scan_figure([1, 2, 4], [0.5, 1e-6, 0.2], alpha=1e-3, max_cut=64, floor=-10)
    assert trace_names(fig) == ["log10 p per cut", "threshold α = 1e-03", "smallest p"]
    assert fig.data[2].x == (2,) and fig.data[2].y[0] == pytest.approx(-6.0)
    assert fig.layout.xaxis.type == "log"
    assert fig.layout.xaxis.range[1] == pytest.approx(math.log10(64 * 1.35))
    empty = plots.cut_scan_figure([], [], alpha=1e-3, max_cut=64)
    assert empty.layout.annotations[0].text == "no test at this chunk"
    assert list(empty.layout.xaxis.range) == list(fig.layout.xaxis.range)


def test_window_histogram_shows_shares_bucket_edges_and_the_tested_columns_in_pu_order():
    fig = plots.window_histogram_figure(window_record(), title="t")
    bars = {t.name: t for t in fig.data}
    assert bars["Reference: correct"].y.tolist() == pytest.approx([66.667, 16.667, 0, 0], rel=1e-3)
    assert bars["Recent: misclassified"].y.tolist() == pytest.approx([0, 0, 8.333, 25], rel=1e-3)
    assert vlines(fig) == [0.3]
    tested = bars["Reference: tested"]
    assert list(tested.x) == ["0.10", "0.40", "miscl."]  # centres sorted, errors last
    assert list(tested.customdata) == [6, 4, 2]
    assert tested.xaxis == "x2" and tested.yaxis == "y2"


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
