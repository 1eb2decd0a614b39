"""PUDD settings side by side, over seeds: configs, links, and the exports against the library."""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import json
import math

import numpy as np
import pytest
import scipy.stats

from pudd_core._validation import ParameterError
from pudd_core.chi2 import chi2_test
from pudd_core.detector import ChunkPUDD
from pudd_core.experiments.runner import RunConfig, run_experiment
from pudd_core.online import PUDD
from pudd_core.views.explorer import VARIANTS, Comparison, ExplorerConfig, PUDDSetting, read_setting
from pudd_core.views.explorer_downloads import cuts_frame, export_json, windows_frame

FOUR = (PUDDSetting(3), PUDDSetting(5, {"cut_points": "all"}), PUDDSetting(3, {"partition": "ek"}),
        PUDDSetting(2, {"clamp_min": 0, "skip_rule": None, "yates": False}))
CFG = ExplorerConfig(settings=FOUR, baselines=("ddm",), n_chunks=30, seeds=2, seed=4)


@pytest.fixture(scope="module")
def comparison() -> Comparison:
    return CFG.comparison([run_experiment(c) for c in CFG.run_configs()])


# --- the options: the library's own -----------------------------------------------------------
def test_each_option_has_the_detectors_default_and_its_docstring_help():
    params = inspect.signature(ChunkPUDD).parameters
    for name, option in VARIANTS.items():
        assert option.default == params[name].default
        assert option.help and option.help in " ".join(ChunkPUDD.__doc__.split()).replace(
            "``", "`")
        assert option.online == (name in inspect.signature(PUDD).parameters)
    assert VARIANTS["skip_rule"].choices == ("accuracy", "pu_mean", None)
    assert not VARIANTS["partition"].online and not VARIANTS["cache_buckets"].online


ALL = [PUDDSetting(x, dict(zip(("cut_points", "skip_rule", "yates", "partition",
                                "cache_buckets", "clamp_min"), combo, strict=True)))
       for x in (1, 5) for combo in itertools.product(
           *(VARIANTS[n].choices for n in ("cut_points", "skip_rule", "yates", "partition",
                                           "cache_buckets")), (0, 5, 7))]


def test_every_setting_survives_its_link_text_and_has_its_own_label():
    for setting in ALL:
        assert PUDDSetting.parse(setting.text) == setting
        assert read_setting(setting.text) == (setting, ())
    assert len({s.label for s in ALL}) == len(ALL) == 2 * 2 * 3 * 2 * 2 * 2 * 3


def test_default_values_are_left_out_so_equal_settings_compare_equal():
    assert PUDDSetting(3, {"yates": True, "clamp_min": 5}) == PUDDSetting(3)
    assert PUDDSetting(3).text == "3" and PUDDSetting(3).label == "PUDD-3"


def test_a_bad_piece_of_a_link_is_named_and_the_rest_kept():
    setting, problems = read_setting("4,cut_points=most,partition=ek,clamp_min=-2")
    assert setting == PUDDSetting(4, {"partition": "ek"})
    assert len(problems) == 2
    assert "cut_points=most" in problems[0] and "'pow2' or 'all'" in problems[0]
    assert "clamp_min" in problems[1]


def test_settings_the_detector_refuses_raise_a_parameter_error():
    with pytest.raises(ParameterError, match="clamp_min"):
        PUDDSetting(3, {"clamp_min": -1})
    with pytest.raises(ParameterError, match="unknown option"):
        PUDDSetting(3, {"n_buckets": 3})


def test_an_exploration_takes_one_to_four_distinct_settings_and_up_to_ten_seeds():
    with pytest.raises(ParameterError, match="the same"):
        ExplorerConfig(settings=(PUDDSetting(3), PUDDSetting(3, {"yates": True})))
    with pytest.raises(ParameterError, match="1 to 4"):
        ExplorerConfig(settings=(*FOUR, PUDDSetting(9)))
    with pytest.raises(ParameterError, match="seeds"):
        ExplorerConfig(seeds=11)


# --- the runs: each setting and seed its own -----------------------------------------------------
def test_each_setting_and_seed_is_its_own_run_of_the_library(comparison: Comparison):
    assert comparison.labels == tuple(s.label for s in FOUR)
    assert comparison.seeds == (4, 5)
    for setting, runs in zip(FOUR, comparison.settings, strict=True):
        for seed, run in zip((4, 5), runs, strict=True):
            alone = run_experiment(RunConfig("sea0", "gnb", "pudd", setting.alpha, seed=seed,
                                             chunk_size=1000, n_chunks=30, record_windows=True,
                                             detector_options=dict(setting.options)))
            assert run.config == alone.config
            assert run.alarms == alone.alarms and run.accuracy == alone.accuracy
    [ddm] = comparison.baselines
    assert [r.config.seed for r in ddm] == [4, 5] and ddm[0].config.detector == "ddm"


def test_changing_one_setting_leaves_the_other_runs_alone():
    other = dataclasses.replace(CFG, settings=(FOUR[0], PUDDSetting(7), *FOUR[2:]))
    changed = [a != b for a, b in zip(CFG.run_configs(), other.run_configs(), strict=True)]
    assert changed == [False, True, False, False, False] * 2


# --- the exports equal the library's numbers ----------------------------------------------------
def test_each_cuts_p_value_is_the_chi2_survival_of_its_statistic(comparison: Comparison):
    frame = cuts_frame(comparison)
    assert set(frame["setting"]) == set(comparison.labels)
    tested = frame[~frame["skipped"] & frame["shortcut"].isna()]
    assert len(tested) > 50
    expected = scipy.stats.chi2.sf(tested["statistic"], tested["dof"])
    np.testing.assert_allclose(tested["p_value"], expected, rtol=1e-9, atol=1e-300)
    skipped = frame[frame["skipped"]]
    assert skipped["p_value"].isna().all() and (skipped["decided_by"] == "skip rule").all()
    floored = frame[frame["floored_cells"] > 0]
    assert floored["decided_by"].str.startswith("count floor").all()


def test_the_cuts_export_holds_every_logged_cut(comparison: Comparison):
    frame = cuts_frame(comparison)
    for label, runs in zip(comparison.labels, comparison.settings, strict=True):
        for run in runs:
            mine = frame[(frame["setting"] == label) & (frame["seed"] == run.config.seed)]
            logged = [(c.chunk_index, cut, None if math.isnan(p) else p)  # NaN: no test
                      for c in run.chunks for cut, p in c.cut_p_values]
            assert list(zip(mine["chunk_index"], mine["cut"], [
                None if math.isnan(p) else p for p in mine["p_value"]], strict=True)) == logged
            winners = mine[mine["winning"]]
            by_chunk = {c.chunk_index: None if c.no_test else c.p_value
                        for c in run.chunks if c.cut_p_values}
            assert dict(zip(winners["chunk_index"], [
                None if math.isnan(p) else p for p in winners["p_value"]], strict=True)) \
                == by_chunk


def _table(frame, quantity):
    rows = [frame[(frame["window"] == w) & (frame["quantity"] == quantity)]["value"].to_numpy()
            for w in ("reference", "recent")]
    return np.vstack(rows)


def test_each_exported_table_gives_the_winning_tests_statistic_again(comparison: Comparison):
    windows, cuts = windows_frame(comparison), cuts_frame(comparison)
    checked = 0
    for (label, seed, chunk), part in windows.groupby(["setting", "seed", "chunk_index"]):
        observed, expected = _table(part, "observed"), _table(part, "expected")
        n = observed.sum()  # eq. 12: row total x column total / N
        np.testing.assert_allclose(expected, np.outer(observed.sum(1), observed.sum(0)) / n)
        [win] = cuts[(cuts["setting"] == label) & (cuts["seed"] == seed)
                     & (cuts["chunk_index"] == chunk) & cuts["winning"]].itertuples()
        if win.dof and "no Yates" not in label:
            assert chi2_test(observed.astype(np.int64), yates=True).statistic == pytest.approx(
                win.statistic, rel=1e-9)
            checked += 1
        hist = _table(part, "histogram correct") + _table(part, "histogram misclassified")
        assert hist.shape == (2, 40)
    assert checked > 20


def test_the_json_export_is_strict_and_agrees_with_the_csv_exports(comparison: Comparison):
    doc = json.loads(json.dumps(export_json(comparison), allow_nan=False))
    cuts = cuts_frame(comparison)
    assert [s["label"] for s in doc["settings"]] == list(comparison.labels)
    rows = [(s["label"], r["seed"], c["chunk_index"], cut["cut"], cut["p_value"])
            for s in doc["settings"] for r in s["runs"] for c in r["chunks"] for cut in c["cuts"]]
    assert rows == list(zip(cuts["setting"], cuts["seed"], cuts["chunk_index"], cuts["cut"],
                            [None if math.isnan(p) else p for p in cuts["p_value"]],
                            strict=True))  # a cut not tested: null in JSON, empty in CSV
    ek = doc["settings"][2]["runs"][0]["chunks"]
    tested = [c["window"] for c in ek if c["window"]]
    assert tested and all(len(w["observed"][0]) == len(w["bucket_centres"]) for w in tested)


