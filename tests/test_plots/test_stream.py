"""pudd_core.plots.stream: error traces, alarms, true drifts and PUDD's p per chunk."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pudd_core import plots
from tests.test_plots._figures import hlines, trace_names, vlines


def test_error_trace_has_one_vertical_line_per_alarm_of_each_detector():
    fig = plots.error_trace_figure(
        range(1, 11), np.full(10, 0.1), true_drifts=[4, 8],
        alarms={"PUDD": [4, 9], "DDM": [6]},
    )
    assert trace_names(fig) == ["Error rate", "True drift", "PUDD alarm", "DDM alarm"]
    assert vlines(fig, plots.DETECTOR_COLOURS["PUDD"]) == [4, 9]
    assert vlines(fig, plots.DETECTOR_COLOURS["DDM"]) == [6]
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
    assert trace_names(fig) == ["Error rate", "PUDD log10 p", "threshold α = 1e-03"]
    logp = fig.data[1].y
    assert math.isnan(logp[0]) and logp[1] == -300 and logp[2] == pytest.approx(math.log10(0.5))
    assert hlines(fig) == [-3]
    assert fig.layout.yaxis2.title.text == "log₁₀ p-value"
    assert fig.layout.xaxis2.title.text == "Chunk index"
    assert not vlines(fig)


def test_error_trace_without_drifts_or_alarms_has_no_shapes():
    fig = plots.error_trace_figure([1, 2], [0.0, 0.5])
    assert trace_names(fig) == ["Error rate"] and fig.layout.shapes == ()


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
    assert vlines(fig) == [3]
    assert [s.x0 for s in fig.layout.shapes if s.type == "rect"] == [2.5]
    assert trace_names(fig)[2] == "PUDD error rate"  # drawn last of the curves, on top
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
    assert hlines(fig) == [-3.0]
    assert vlines(fig, plots.detector_colour("PUDD")) == [2]
    assert list(fig.layout.yaxis.range) == [-12.5, 0.5]


def _sea_runs():
    from pudd_core.experiments.runner import RunConfig, run_experiment

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
    pudd_lines = [x for x in vlines(fig) if x in runs["PUDD-1"].alarms]
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


def test_alarm_lanes_keep_short_labels_and_counts_that_do_not_overlap():
    # 12 detectors at 1024 px: a long lane name took half the plot, "k/n" counts overlapped
    from pudd_core.plots.stream import LANE_LABEL_WIDTH

    long = "A detector with a long explanatory name"
    x = list(range(1, 21))
    fig = plots.detector_error_figure(
        x, {"PUDD-3": [0.1] * 20, long: [0.1] * 20},
        alarms={"PUDD-3": x, long: [3]}, alarm_counts={"PUDD-3": [2] * 20, long: [1]},
        n_seeds=3)
    ticks = list(fig.layout.yaxis2.ticktext)
    assert all(len(t) <= LANE_LABEL_WIDTH for t in ticks) and len(set(ticks)) == 2
    assert ticks[1] == "PUDD-3" and ticks[0].startswith("A detector")
    lane = next(t for t in fig.data if t.name == "PUDD-3 alarm")
    shown = [a for a, text in zip(lane.x, lane.text, strict=True) if text]
    assert shown[0] == 1 and all(b - a >= 2 for a, b in zip(shown, shown[1:], strict=False))
    assert list(lane.customdata) == ["2/3"] * 20  # every count stays in the hover
    assert next(t for t in fig.data if t.name == f"{long} alarm").text == ("1/3",)
