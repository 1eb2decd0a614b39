"""The player's spec with several PUDD settings and seeds: colours, bands, counts, numbers."""

from __future__ import annotations

import json
import warnings
from typing import Any

import numpy as np
import pytest

from pudd_core.experiments.runner import run_experiment
from pudd_core.plots.player import player_spec
from pudd_core.plots.stream import SETTING_COLOURS
from pudd_core.views.explorer import Comparison, ExplorerConfig, PUDDSetting

FOUR = (PUDDSetting(3), PUDDSetting(5, {"cut_points": "all"}), PUDDSetting(3, {"partition": "ek"}),
        PUDDSetting(1, {"clamp_min": 0}))
CFG = ExplorerConfig(settings=FOUR, baselines=("ddm",), n_chunks=20, seeds=3)


@pytest.fixture(scope="module")
def comparison() -> Comparison:
    return CFG.comparison([run_experiment(c) for c in CFG.run_configs()])


def _trace(figure: dict[str, Any], name: str) -> dict[str, Any]:
    return next(t for t in figure["data"] if t.get("name") == name)


def test_each_setting_keeps_its_colour_in_every_chart(comparison: Comparison) -> None:
    spec = player_spec(comparison.settings, comparison.baselines, labels=comparison.labels)
    charts = spec["charts"]
    for label, colour, part in zip(comparison.labels, SETTING_COLOURS, spec["settings"],
                                   strict=True):
        assert part["colour"] == colour
        assert _trace(charts["trace"]["figure"], f"{label} error rate")["line"]["color"] == colour
        assert _trace(charts["trace"]["figure"], f"{label} alarm")["marker"]["color"] == colour
        assert _trace(charts["minp"]["figure"], f"{label} min p")["line"]["color"] == colour
        cuts = _trace(part["cuts"]["figure"], "log10 p per cut")
        assert cuts["line"]["color"] == colour
    lanes = charts["trace"]["figure"]["layout"]["yaxis2"]["categoryarray"]
    assert list(lanes)[::-1] == [*comparison.labels, "DDM"]
    json.dumps(spec, allow_nan=False)


def test_one_seed_shows_each_settings_first_run_exactly(comparison: Comparison) -> None:
    spec = player_spec(comparison.settings, comparison.baselines, labels=comparison.labels)
    assert spec["band"] == 1
    for label, runs, part in zip(comparison.labels, comparison.settings, spec["settings"],
                                 strict=True):
        run = runs[0]
        error = _trace(spec["charts"]["trace"]["figure"], f"{label} error rate")["y"]
        np.testing.assert_allclose(error, [100 * c.error_rate for c in run.chunks])
        alarms = _trace(spec["charts"]["trace"]["figure"], f"{label} alarm")["x"]
        assert alarms == list(run.alarms)
        assert part["metrics"]["alarm"] == [c.alarm for c in run.chunks]
        for chunk, rows in zip(run.chunks, part["stats"], strict=True):
            assert [r[0] for r in rows] == [cut for cut, _ in chunk.cut_p_values]
            assert [r[2] for r in rows] == [t.dof or "–" for t in chunk.cut_tests]
            assert [r[5] for r in rows] == [t.cut == chunk.cut_point for t in chunk.cut_tests]


def test_several_seeds_show_the_mean_a_min_max_band_and_alarm_counts(
    comparison: Comparison,
) -> None:
    spec = player_spec(comparison.settings, comparison.baselines, labels=comparison.labels,
                       band=True)
    assert spec["band"] == 3
    figure = spec["charts"]["trace"]["figure"]
    for label, runs in zip((*comparison.labels, "DDM"),
                           (*comparison.settings, comparison.baselines[0]), strict=True):
        grid = 100 * np.array([[c.error_rate for c in r.chunks] for r in runs])
        np.testing.assert_allclose(_trace(figure, f"{label} error rate")["y"], grid.mean(0))
        np.testing.assert_allclose(_trace(figure, f"{label} band low")["y"], grid.min(0))
        np.testing.assert_allclose(_trace(figure, f"{label} band high")["y"], grid.max(0))
        counts: dict[int, int] = {}
        for r in runs:
            for a in r.alarms:
                counts[a] = counts.get(a, 0) + 1
        lane = _trace(figure, f"{label} alarm")
        assert dict(zip(lane["x"], lane["customdata"], strict=True)) == {
            a: f"{n}/3" for a, n in counts.items()}
        assert lane["meta"] == "prefix"
    minp = spec["charts"]["minp"]["figure"]
    runs = comparison.settings[0]
    # the geometric mean over the seeds that ran a test on the chunk; a gap where none did
    # (an untested chunk is never p = 1)
    p = np.array([[c.p_value if c.no_test is None and c.cut_p_values else np.nan
                   for c in r.chunks] for r in runs])
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN chunks: NaN, as wanted
        geometric = np.nanmean(np.log10(np.clip(p, 1e-300, 1)), axis=0)
    assert np.isnan(geometric).any() and not np.isnan(geometric).all()
    floor = minp["layout"]["yaxis"]["range"][0] + 0.5
    shown = np.array([np.nan if y is None else y
                      for y in _trace(minp, f"{comparison.labels[0]} min p")["y"]], dtype=float)
    np.testing.assert_allclose(shown, np.maximum(geometric, floor))


def test_the_band_and_the_labels_are_part_of_the_players_id(comparison: Comparison) -> None:
    one = player_spec(comparison.settings, comparison.baselines, labels=comparison.labels)
    band = player_spec(comparison.settings, comparison.baselines, labels=comparison.labels,
                       band=True)
    fewer = player_spec(comparison.settings[:2], comparison.baselines,
                        labels=comparison.labels[:2])
    assert len({one["id"], band["id"], fewer["id"]}) == 3


def test_an_untested_chunk_is_a_gap_in_the_p_chart_never_p_one(comparison: Comparison) -> None:
    run = comparison.settings[0][0]
    spec = player_spec([[run]], labels=comparison.labels[:1])
    y = _trace(spec["charts"]["minp"]["figure"], f"{comparison.labels[0]} min p")["y"]
    untested = [i for i, c in enumerate(run.chunks) if c.no_test is not None]
    assert untested and all(y[i] is None for i in untested)
    assert all(y[i] is not None for i, c in enumerate(run.chunks) if c.no_test is None)
