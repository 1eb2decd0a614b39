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


# --- Stream explorer builders --------------------------------------------------------------------
def _window_record():
    from pudd_core.runner import WindowRecord

    return WindowRecord(
        ref_correct=(8, 2, 0, 0), ref_wrong=(0, 0, 1, 1), new_correct=(5, 3, 0, 0),
        new_wrong=(0, 0, 1, 3), bucket_edges=(0.3,), bucket_centres=(0.4, 0.1),
        table=((4, 6, 2), (4, 4, 4)), expected=((4.0, 5.0, 3.0), (4.0, 5.0, 3.0)))


def test_detector_error_figure_draws_each_model_and_a_lane_of_alarms_per_detector():
    fig = plots.detector_error_figure(
        [1, 2, 3, 4], {"PUDD": [0.1, 0.1, 0.4, 0.1], "ADWIN": [0.1, 0.1, 0.4, 0.3],
                       "HDDM-A": [0.1, 0.2, 0.4, 0.2]},
        alarms={"PUDD": [3], "ADWIN": [3, 4], "HDDM-A": []}, true_drifts=[3],
        x_range=(0.5, 10.5), y_max=0.5)
    lines = {t.name: t for t in fig.data if t.name.endswith("error rate")}
    assert list(lines["PUDD error rate"].y) == pytest.approx([10, 10, 40, 10])
    assert list(lines["PUDD error rate"].customdata) == pytest.approx([90, 90, 60, 90])
    lanes = {t.name: t for t in fig.data if t.name.endswith(" alarm")}
    assert list(lanes["ADWIN alarm"].x) == [3, 4] and set(lanes["ADWIN alarm"].y) == {"ADWIN"}
    assert all(t.yaxis == "y2" for t in lanes.values())
    # dotted lines for PUDD's alarms only, one grey band per true drift
    assert _vlines(fig) == [3]
    assert [s.x0 for s in fig.layout.shapes if s.type == "rect"] == [2.5]
    assert _names(fig)[2] == "PUDD error rate"  # drawn last of the curves, on top
    assert lines["HDDM-A error rate"].line.color != lines["PUDD error rate"].line.color
    assert list(fig.layout.xaxis.range) == [0.5, 10.5]
    assert list(fig.layout.yaxis.range) == pytest.approx([0, 52.5])


def test_min_pvalue_figure_floors_tiny_p_values_and_marks_threshold_and_alarms():
    fig = plots.min_pvalue_figure([1, 2, 3, 4], [1.0, 1e-50, 0.01, math.nan], alpha=1e-3,
                                  alarms=[2], true_drifts=[2], x_range=(0.5, 4.5), floor=-12)
    trace = fig.data[0]
    assert trace.y[:3].tolist() == pytest.approx([0.0, -12.0, -2.0]) and math.isnan(trace.y[3])
    assert list(trace.marker.symbol) == ["circle", "triangle-down", "circle", "circle"]
    assert list(trace.text[:2]) == ["p = 1", "p = 1.0e-50"]  # the hover keeps the true p
    assert _hlines(fig) == [-3.0]
    assert _vlines(fig, plots.detector_colour("PUDD")) == [2]
    assert list(fig.layout.yaxis.range) == [-12.5, 0.5]


def test_cut_scan_figure_rings_the_winning_cut_on_a_fixed_log_axis():
    fig = plots.cut_scan_figure([1, 2, 4], [0.5, 1e-6, 0.2], alpha=1e-3, max_cut=64, floor=-10)
    assert _names(fig) == ["log10 p per cut", "threshold α = 1e-03", "smallest p"]
    assert fig.data[2].x == (2,) and fig.data[2].y[0] == pytest.approx(-6.0)
    assert fig.layout.xaxis.type == "log"
    assert fig.layout.xaxis.range[1] == pytest.approx(math.log10(64 * 1.35))
    empty = plots.cut_scan_figure([], [], alpha=1e-3, max_cut=64)
    assert empty.layout.annotations[0].text == "no test at this chunk"
    assert list(empty.layout.xaxis.range) == list(fig.layout.xaxis.range)


def test_window_histogram_shows_shares_bucket_edges_and_the_tested_columns_in_pu_order():
    fig = plots.window_histogram_figure(_window_record(), title="t")
    bars = {t.name: t for t in fig.data}
    assert bars["Reference: correct"].y.tolist() == pytest.approx([66.667, 16.667, 0, 0], rel=1e-3)
    assert bars["Recent: misclassified"].y.tolist() == pytest.approx([0, 0, 8.333, 25], rel=1e-3)
    assert _vlines(fig) == [0.3]
    tested = bars["Reference: tested"]
    assert list(tested.x) == ["0.10", "0.40", "miscl."]  # centres sorted, errors last
    assert list(tested.customdata) == [6, 4, 2]
    assert tested.xaxis == "x2" and tested.yaxis == "y2"


def test_explorer_builders_use_the_one_template():
    figs = [
        plots.detector_error_figure([1], {"PUDD": [0.1]}, alarms={}),
        plots.min_pvalue_figure([1], [0.5], alpha=0.01),
        plots.cut_scan_figure([1], [0.5], alpha=0.01),
        plots.window_histogram_figure(_window_record()),
    ]
    for fig in figs:
        assert list(fig.layout.template.layout.colorway) == list(plots.PALETTE)


# --- CIFAR-10-CD, Threshold lab, Reproduction builders -------------------------------------------
CLASSES = ("cat", "dog", "frog")


def test_transition_matrix_colours_log_p_prints_the_diagonal_and_hovers_every_p():
    m = np.array([[0.96, 0.03, 0.01], [0.002, 0.995, 0.003], [0.5, 0.25, 0.25]])
    fig = plots.transition_matrix_figure(m, CLASSES)
    heat = fig.data[0]
    np.testing.assert_allclose(heat.z, np.log10(m))
    assert (heat.zmin, heat.zmax) == (-3.0, 0.0)
    assert [list(r) for r in heat.text] == [["0.96", "", ""], ["", "0.99", ""], ["", "", "0.25"]]
    assert heat.customdata.tolist() == m.tolist()
    assert list(heat.x) == list(heat.y) == list(CLASSES)
    assert fig.layout.yaxis.autorange == "reversed"  # row 0 on top, as printed
    assert fig.layout.xaxis.title.text == "To class (next chunk)"


def test_interest_timeline_has_one_column_per_chunk_and_one_band_per_true_drift():
    mask = np.array([[1, 1, 0, 0], [0, 1, 1, 1], [0, 0, 0, 1]], dtype=bool)
    fig = plots.interest_timeline_figure(mask, CLASSES, drift_chunks=[1, 2, 3])
    assert fig.data[0].z.tolist() == mask.astype(int).tolist()
    assert list(fig.data[0].x) == [0, 1, 2, 3]
    bands = [s for s in fig.layout.shapes if s.type == "rect"]
    assert [(b.x0, b.x1) for b in bands] == [(0.5, 1.5), (1.5, 2.5), (2.5, 3.5)]
    assert all(b.fillcolor == plots.TRUE_DRIFT_STYLE["fillcolor"] and b.layer == "above"
               for b in bands)
    assert fig.layout.xaxis.title.text == "Chunk index (500 images each)"
    no_drift = plots.interest_timeline_figure(mask, CLASSES)
    assert "True drift (interests change)" not in _names(no_drift) and not no_drift.layout.shapes


def test_sample_grid_is_one_png_with_a_row_per_class_and_labels_on_the_axis():
    images = np.zeros((6, 32, 32, 3), dtype=np.uint8)
    fig = plots.sample_grid_figure(images, [0, 0, 1, 1, 2, 2], [1, 1, 0, 0, 1, 1], CLASSES)
    assert fig.data[0].type == "image"
    assert fig.data[0].source.startswith("data:image/png;base64,")
    assert list(fig.layout.yaxis.ticktext) == ["cat · label 1", "dog · label 0",
                                              "frog · label 1"]
    ticks = list(fig.layout.yaxis.tickvals)
    assert ticks == sorted(ticks) and len(set(np.diff(ticks).round(6))) == 1  # evenly spaced
    assert _names(fig)[1:] == ["Positive: label 1", "Negative: label 0"]
    assert fig.layout.xaxis.visible is False


def _sea_runs():
    from pudd_core.runner import RunConfig, run_experiment

    return {name: run_experiment(RunConfig("sea0", "gnb", det, alpha=1e-1, n_chunks=25))
            for name, det in (("PUDD-1", "pudd"), ("DDM", "ddm"))}


def test_runs_figure_draws_each_runs_errors_and_one_marker_per_alarm():
    runs = _sea_runs()
    fig = plots.runs_figure(runs, true_drifts=[10, 20])
    by_name = {t.name: t for t in fig.data}
    for name, res in runs.items():
        assert list(by_name[f"{name} alarm"].x) == list(res.alarms)
        assert list(by_name[f"{name} error rate"].y) == pytest.approx(
            [100 * c.error_rate for c in res.chunks])
    # alarm lines for the first run only, PUDD's colour
    pudd_lines = [x for x in _vlines(fig) if x in runs["PUDD-1"].alarms]
    assert pudd_lines == list(runs["PUDD-1"].alarms)


def test_run_summary_frame_scores_each_run_against_the_true_drifts():
    runs = _sea_runs()
    frame = plots.run_summary_frame(runs)
    assert frame["detector"].tolist() == ["PUDD-1", "DDM"]
    pudd = runs["PUDD-1"]
    row = frame.iloc[0]
    assert row["alarms"] == pudd.n_alarms
    assert row["drifts detected"] == f"{2 - pudd.detection.missed} of 2"
    assert row["accuracy (%)"] == pytest.approx(100 * pudd.accuracy)


def test_threshold_sweep_frame_of_cached_runs_equals_threshold_sweep():
    from pudd_core.runner import RunConfig, run_experiment
    from pudd_core.sweep import threshold_sweep

    base = RunConfig("sea0", "gnb", n_chunks=25)
    runs = [run_experiment(RunConfig("sea0", "gnb", alpha=10.0 ** -x, seed=s, n_chunks=25))
            for x in (1, 4) for s in (0, 1)]
    pd.testing.assert_frame_equal(plots.threshold_sweep_frame(runs),
                                  threshold_sweep(base, exponents=(1, 4), seeds=(0, 1)))


def test_threshold_sweep_figure_has_four_panels_of_means_with_error_bars_on_a_log_alpha_axis():
    sweep = pd.DataFrame({
        "exponent": [1, 1, 2, 2, 3, 3], "alpha": [0.1, 0.1, 0.01, 0.01, 1e-3, 1e-3],
        "seed": [0, 1] * 3, "accuracy": [0.9, 0.7, 0.8, 0.8, 0.85, 0.85],
        "n_alarms": [6, 4, 2, 2, 1, 1], "mean_delay": [0.0, 1.0, 1.0, 1.0, float("nan"), 2.0],
        "missed": [0, 0, 0, 1, 1, 1], "false_alarms": [4, 2, 0, 0, 0, 0]})
    fig = plots.threshold_sweep_figure(sweep, n_drifts=2)
    by_name = {t.name: t for t in fig.data}
    assert list(by_name["Accuracy"].y) == pytest.approx([80, 80, 85])
    assert list(by_name["Alarms"].y) == [5, 2, 1] and list(by_name["Alarms"].x) == [0.1, 0.01,
                                                                                    0.001]
    assert list(by_name["Alarms"].error_y.array) == [1, 0, 0]
    assert list(by_name["Mean detection delay"].y) == [0.5, 1.0, 2.0]  # NaN seeds are skipped
    assert list(by_name["True drifts"].y) == [2, 2]
    assert [a.text for a in fig.layout.annotations] == [
        "Accuracy (%)", "Alarms per run", "Mean detection delay (chunks)",
        "Missed drifts per run"]
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis.autorange == "reversed"
    assert list(fig.layout.xaxis.ticktext) == ["1e-1", "1e-2", "1e-3"]
    assert list(fig.layout.xaxis.tickvals) == [0.1, 0.01, 0.001]
    assert fig.layout.xaxis3.title.text == "Threshold α (log scale)"
    single = plots.threshold_sweep_figure(sweep[sweep["seed"] == 0])
    assert single.data[1].error_y.visible is False and "True drifts" not in _names(single)


def test_false_alarm_figure_puts_zero_rates_at_half_the_resolution_with_open_markers():
    rates = pd.DataFrame({"exponent": [1, 2, 3], "alpha": [0.1, 0.01, 0.001],
                          "per_test": [0.11, 0.01, 0.0], "per_chunk": [0.3, 0.0, 0.0],
                          "bonferroni": [0.4, 0.04, 0.004], "n_tests": 200, "n_chunks": 50})
    fig = plots.false_alarm_figure(rates)
    by_name = {t.name: t for t in fig.data}
    nominal = by_name["Nominal α (per-test guarantee)"]
    assert list(nominal.x) == list(nominal.y) == [0.1, 0.01, 0.001]
    per_test = by_name["Per test: p < α"]
    assert list(per_test.y) == [0.11, 0.01, 0.0025]  # 0 of 200 drawn at 1 / 400
    assert per_test.marker.symbol == ("circle", "circle", "circle-open")
    assert list(per_test.customdata)[2] == "0 of 200"
    assert list(by_name["Per chunk: min p < α (an alarm)"].y) == [0.3, 0.01, 0.01]
    assert list(by_name["Bonferroni bound: α × cut points"].y) == [0.4, 0.04, 0.004]
    assert fig.layout.yaxis.type == "log" and fig.layout.xaxis.autorange == "reversed"
    assert fig.layout.yaxis.title.text == "False-alarm rate (log scale)"


def test_bonferroni_figure_marks_raw_false_alarms_against_alpha_and_alpha_over_m():
    chunk_p = pd.DataFrame({"chunk": [3, 4, 5, 6], "min_p": [0.2, 6e-3, 5e-4, 0.0],
                            "n_cuts": [1, 2, 4, 4]})
    fig = plots.bonferroni_figure(chunk_p, alpha=1e-2)
    by_name = {t.name: t for t in fig.data}
    assert list(by_name["false alarm: min p < α"].x) == [4, 5, 6]
    assert by_name["min p over cut points"].y.tolist()[3] == -300  # p = 0 at the floor
    corrected = by_name["Bonferroni: α / cut points"].y
    assert corrected.round(3).tolist() == [-2.0, -2.301, -2.602, -2.602]
    # under Bonferroni only chunks 5 and 6 would alarm: 6e-3 > 1e-2 / 2
    assert [c for c, p, y in zip(chunk_p["chunk"], chunk_p["min_p"], corrected, strict=True)
            if math.log10(max(p, 1e-300)) < y] == [5, 6]
    assert _hlines(fig) == [-2]
    assert fig.layout.yaxis.title.text == "log₁₀ min p over cut points"


def _cells():
    return pd.DataFrame({
        "detector": ["pudd-3", "pudd-3", "ddm", "eddm"],
        "dataset": ["sea0", "powersupply", "sea0", "airline"],
        "regime": ["incremental", "train-once", "incremental", "incremental"],
        "paper": [94.81, 71.0, 93.97, 62.72], "ours": [94.67, 73.0, float("nan"), 51.66],
        "difference": [-0.14, 2.0, float("nan"), -11.06], "std": [0.1, 0.0, float("nan"), 0.0],
        "n_seeds": [10, 10, 0, 10], "n_errors": 0})


def test_reproduction_frame_uses_the_papers_names_and_flags_cells_outside_the_tolerance():
    frame = plots.reproduction_frame(_cells())
    assert frame["detector"].tolist() == ["PUDD-3", "PUDD-3", "DDM", "EDDM"]
    assert frame["dataset"].tolist() == ["sea0", "ps", "sea0", "airline"]
    assert frame["regime"].tolist() == ["-I", "-O", "-I", "-I"]
    assert frame["within ±1.5"].tolist() == [True, False, None, False]
    assert plots.reproduction_frame(_cells(), tolerance=2.0)["within ±2"].tolist()[1] is True


def test_reproduction_figure_splits_pudd_from_baselines_on_square_axes_with_the_band():
    fig = plots.reproduction_figure(_cells())
    by_name = {t.name: t for t in fig.data}
    assert list(by_name["PUDD-1/3/5"].x) == [94.81, 71.0]
    assert list(by_name["PUDD-1/3/5"].marker.symbol) == ["circle", "diamond"]
    assert list(by_name["Baselines"].y) == [51.66]  # DDM was not run
    band = by_name["±1.5 points"]
    assert band.y[0] - band.x[0] == pytest.approx(1.5)
    assert fig.layout.yaxis.scaleanchor == "x"
    assert list(fig.layout.xaxis.range) == list(fig.layout.yaxis.range) == [49.0, 97.0]


def test_lab_builders_use_the_one_template():
    figs = [
        plots.transition_matrix_figure(np.eye(2), ["a", "b"]),
        plots.interest_timeline_figure(np.eye(2), ["a", "b"]),
        plots.false_alarm_figure(pd.DataFrame({"exponent": [1], "alpha": [0.1],
                                               "per_test": [0.1], "per_chunk": [0.1],
                                               "bonferroni": [0.1], "n_tests": 1,
                                               "n_chunks": 1})),
        plots.reproduction_figure(_cells()),
    ]
    for fig in figs:
        assert list(fig.layout.template.layout.colorway) == list(plots.PALETTE)
