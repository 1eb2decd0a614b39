"""pudd_core.plots.thresholds: the α sweep, false alarms and the Bonferroni view."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from pudd_core import plots
from tests.test_plots._figures import hlines, trace_names


def test_threshold_sweep_frame_of_cached_runs_equals_threshold_sweep():
    from pudd_core.experiments.runner import RunConfig, run_experiment
    from pudd_core.experiments.sweep import threshold_sweep

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
    assert single.data[1].error_y.visible is False and "True drifts" not in trace_names(single)


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
    assert hlines(fig) == [-2]
    assert fig.layout.yaxis.title.text == "log₁₀ min p over cut points"
