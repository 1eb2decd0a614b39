from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from pudd_core.experiments.runner import RunConfig, run_experiment
from pudd_core.paper import (
    CLASSIC_DETECTORS,
    DATASETS,
    SOTA_DETECTORS,
    SOTA_LEARNERS,
    paper_accuracy,
)
from pudd_core.reproduction import (
    SETTING_COLUMNS,
    detector_label,
    merge_reports,
    read_report,
    reproduction_configs,
    reproduction_report,
)

NO_KSWIN = [d for d in (*CLASSIC_DETECTORS, "pudd-1", "pudd-3", "pudd-5") if d != "kswin"]


def _label(cfg: RunConfig) -> str:
    return detector_label(cfg.detector, cfg.alpha)


def _run(detector, dataset="sea0", regime="incremental", seed=0, accuracy=0.9,
         status="ok", classifier="gnb", alpha=1e-3, **extra):
    return {"dataset": dataset, "classifier": classifier, "detector": detector, "alpha": alpha,
            "regime": regime, "seed": seed, "accuracy": accuracy, "status": status, **extra}


def _cell(report, detector, dataset="sea0", regime="incremental"):
    c = report.cells
    rows = c[(c.detector == detector) & (c.dataset == dataset) & (c.regime == regime)]
    assert len(rows) == 1
    return rows.iloc[0]


# --- reproduction_configs ------------------------------------------------------------------


def test_table1_gnb_ten_seeds_without_kswin_is_every_dataset_regime_detector_and_seed():
    cfgs = reproduction_configs(1, "gnb", 10, detectors=NO_KSWIN)
    assert len(cfgs) == 8 * 2 * 9 * 10 == 1440
    got = {(c.dataset, c.regime, _label(c), c.seed) for c in cfgs}
    want = set(itertools.product(DATASETS, ("incremental", "train-once"), NO_KSWIN, range(10)))
    assert got == want
    assert {c.classifier for c in cfgs} == {"gnb"}
    assert all(c.n_chunks is None and c.classifier_options == () for c in cfgs)
    assert len({c.key() for c in cfgs}) == len(cfgs)


def test_table1_default_is_all_eight_datasets_both_regimes_and_ten_detectors_with_kswin():
    cfgs = reproduction_configs(1, "vfdt", 1)
    ranked = [c for c in cfgs if c.detector not in ("none", "oracle")]
    assert len(ranked) == 8 * 2 * 10
    assert {c.dataset for c in cfgs} == set(DATASETS) >= {"sea10", "sea20"}
    assert "kswin" in {c.detector for c in cfgs}


def test_the_reference_rows_run_by_default_the_oracle_only_where_drifts_are_known():
    cfgs = reproduction_configs(1, "gnb", 2)
    none = {(c.dataset, c.regime, c.seed) for c in cfgs if c.detector == "none"}
    oracle = {(c.dataset, c.regime, c.seed) for c in cfgs if c.detector == "oracle"}
    assert none == set(itertools.product(DATASETS, ("incremental", "train-once"), range(2)))
    synthetic = {"mixed", "sea0", "sine", "sea10", "sea20"}
    assert oracle == set(itertools.product(synthetic, ("incremental", "train-once"), range(2)))
    assert {c.classifier for c in cfgs if c.detector in ("none", "oracle")} == {"gnb"}
    t2 = reproduction_configs(2, "dnn-ensemble", [0], datasets=["elec2", "sine"],
                              detectors=["none", "oracle", "ns"])
    assert [(c.dataset, c.classifier, c.detector) for c in t2] == [
        ("elec2", "ns", "none"), ("elec2", "dnn-ensemble", "none"),
        ("sine", "ns", "none"), ("sine", "dnn-ensemble", "none"),
        ("sine", "dnn-ensemble", "oracle")]


def test_an_oracle_on_real_streams_only_is_refused_before_any_run():
    with pytest.raises(ValueError, match="oracle adapts at a stream's true drifts"):
        reproduction_configs(1, "gnb", 1, datasets=["elec2"], detectors=["oracle"])


def test_pudd_x_is_pudd_with_alpha_ten_to_the_minus_x_and_baselines_keep_their_names():
    cfgs = reproduction_configs(1, "dnn", [0], datasets=["sine"], regimes=["incremental"])
    pudd = {c.alpha for c in cfgs if c.detector == "pudd"}
    assert pudd == {10**-1, 10**-3, 10**-5} == {0.1, 0.001, 1e-5}
    assert [c.detector for c in cfgs if c.detector != "pudd"] == [*CLASSIC_DETECTORS, "none",
                                                                    "oracle"]
    assert [_label(c) for c in cfgs] == [*CLASSIC_DETECTORS, "pudd-1", "pudd-3", "pudd-5",
                                         "none", "oracle"]


def test_table2_runs_the_ensemble_with_pudd_1_3_5_and_the_sota_learners_on_eight_datasets():
    cfgs = reproduction_configs(2, "dnn-ensemble", 3)
    pudd = [c for c in cfgs if c.detector == "pudd"]
    assert len(pudd) == 8 * 3 * 3
    assert {c.classifier for c in pudd} == {"dnn-ensemble"}
    assert {c.regime for c in cfgs} == {"incremental"}
    assert {c.alpha for c in pudd} == {0.1, 1e-3, 1e-5}
    learners = [c for c in cfgs if c.detector == "none" and c.classifier in SOTA_LEARNERS]
    assert len(learners) == 8 * 3 * len(SOTA_LEARNERS)
    assert {c.classifier for c in learners} == set(SOTA_LEARNERS)
    assert {c.detector for c in cfgs} <= {"pudd", "none", "oracle", *SOTA_DETECTORS}


def test_table2_report_shows_each_sota_learner_as_its_own_row():
    runs = pd.DataFrame({
        "dataset": "sea0", "classifier": ["ns", "ns", "dnn-ensemble", "adlter"],
        "detector": ["none", "none", "pudd", "none"], "alpha": 1e-3,
        "regime": "incremental", "seed": [0, 1, 0, 0],
        "accuracy": [0.90, 0.92, 0.98, 0.95], "status": "ok"})
    report = reproduction_report(runs, 2, "dnn-ensemble")
    cells = report.cells.set_index("detector")
    assert cells.loc["ns", "ours"] == pytest.approx(91.0)
    assert cells.loc["ns", "n_seeds"] == 2
    assert cells.loc["ns", "difference"] == pytest.approx(91.0 - 93.54)
    assert cells.loc["adlter", "ours"] == pytest.approx(95.0)
    assert cells.loc["pudd-3", "ours"] == pytest.approx(98.0)
    assert pd.isna(cells.loc["iwe", "ours"]) and cells.loc["iwe", "paper"] == 93.14
    text = report.markdown()
    assert "| NS | 91.00 / 93.54 (-2.54) |" in text
    assert "IWE (Jiao et al., IEEE TAI 2024) is not implemented" in text


def test_subsets_and_explicit_seeds_keep_the_tables_order():
    cfgs = reproduction_configs(1, "gnb", [5, 3], datasets=["sine", "sea0"],
                                detectors=["pudd-3", "ddm"], regimes=["train-once"])
    assert [(c.dataset, _label(c), c.seed) for c in cfgs] == [
        ("sea0", "ddm", 5), ("sea0", "ddm", 3), ("sea0", "pudd-3", 5), ("sea0", "pudd-3", 3),
        ("sine", "ddm", 5), ("sine", "ddm", 3), ("sine", "pudd-3", 5), ("sine", "pudd-3", 3),
    ]


def test_frozen_head_flag_and_n_chunks_reach_the_run_configs():
    cfgs = reproduction_configs(1, "dnn", 1, datasets=["sea0"], detectors=["pudd-3"],
                                n_chunks=20, reproduce_frozen_head=True)
    assert {c.classifier_options for c in cfgs} == {(("reproduce_frozen_head", True),)}
    assert {c.n_chunks for c in cfgs} == {20}
    with pytest.raises(ValueError, match="dnn"):
        reproduction_configs(1, "gnb", 1, reproduce_frozen_head=True)


@pytest.mark.parametrize(("args", "kwargs", "match"), [
    ((3, "gnb", 1), {}, "unknown table"),
    ((1, "dnn-ensemble", 1), {}, "classifier"),
    ((2, "gnb", 1), {}, "classifier"),
    ((2, "dnn-ensemble", 1), {"detectors": ["iwe"]}, "detectors must be among"),
    ((2, "dnn-ensemble", 1), {"regimes": ["train-once"]}, "regimes must be among"),
    ((1, "gnb", 1), {"datasets": ["cifar10-cd"]}, "datasets must be among"),
    ((1, "gnb", 1), {"detectors": []}, "detectors must be among"),
    ((1, "gnb", 0), {}, "seeds"),
    ((1, "gnb", [1, 1]), {}, "seeds"),
    ((1, "gnb", [-1]), {}, "seeds"),
])
def test_invalid_requests_raise_value_error(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        reproduction_configs(*args, **kwargs)


# --- reproduction_report: the maths ----------------------------------------------------------


@pytest.fixture
def summaries():
    rows = [
        _run("pudd", seed=0, accuracy=0.95), _run("pudd", seed=1, accuracy=0.96),
        _run("pudd", seed=2, accuracy=0.94),
        _run("pudd", seed=3, accuracy=float("nan"), status="error"),
        _run("ddm", seed=0, accuracy=0.90), _run("ddm", seed=1, accuracy=0.92),
        _run("ddm", seed=2, accuracy=float("nan"), status="error"),
        _run("ddm", seed=2, accuracy=0.91, key="rerun"),  # an ok rerun supersedes the error
        _run("ph", seed=0, accuracy=0.80, regime="train-once"),
        _run("pudd", seed=0, accuracy=0.50, classifier="vfdt"),  # another classifier: ignored
    ]
    return pd.DataFrame(rows)


def test_report_cells_are_means_times_100_beside_the_paper_with_differences(summaries):
    report = reproduction_report(summaries, 1, "gnb")
    pudd = _cell(report, "pudd-3")
    assert pudd["ours"] == pytest.approx(95.0)
    assert pudd["std"] == pytest.approx(np.std([95, 96, 94], ddof=1))
    assert pudd["paper"] == 94.81 and pudd["difference"] == pytest.approx(95.0 - 94.81)
    assert (pudd["n_seeds"], pudd["n_errors"]) == (3, 1)
    ddm = _cell(report, "ddm")
    assert ddm["ours"] == pytest.approx(91.0) and ddm["paper"] == 93.97
    assert (ddm["n_seeds"], ddm["n_errors"]) == (3, 0)
    ph = _cell(report, "pagehinkley", regime="train-once")
    assert ph["ours"] == pytest.approx(80.0) and ph["paper"] == 94.12 and ph["n_seeds"] == 1
    assert report.seeds == (0, 1, 2) and report.n_errors == 1


def test_report_lists_every_paper_row_of_the_datasets_and_regimes_run(summaries):
    report = reproduction_report(summaries, 1, "gnb")
    assert len(report.cells) == 10 * 2  # sea0 in both regimes, ten detectors each
    not_run = _cell(report, "kswin")
    assert np.isnan(not_run["ours"]) and not_run["n_seeds"] == 0
    assert not_run["paper"] == paper_accuracy(1, "gnb", "kswin", "sea0", "incremental")
    assert list(report.cells.columns) == ["detector", "dataset", "regime", "paper", "ours",
                                          "difference", "std", "n_seeds", "n_errors",
                                          "seeds", "alarms", "drifts", "detected",
                                          "false_alarms", "delay", *SETTING_COLUMNS]


def test_report_rejects_a_cell_that_mixes_settings_unless_configs_select_the_runs():
    cfgs = reproduction_configs(1, "gnb", 2, datasets=["sea0"], detectors=["pudd-3"],
                                regimes=["incremental"])
    rows = [_run("pudd", seed=c.seed, accuracy=0.95, key=c.key(), n_chunks=None) for c in cfgs]
    rows.append(_run("pudd", seed=5, accuracy=0.5, key="short", n_chunks=20.0))
    df = pd.DataFrame(rows)
    with pytest.raises(ValueError, match="n_chunks"):
        reproduction_report(df, 1, "gnb")
    report = reproduction_report(df, 1, "gnb", configs=cfgs)
    assert _cell(report, "pudd-3")["ours"] == pytest.approx(95.0)
    assert report.seeds == (0, 1)


def test_error_rows_options_written_as_python_reprs_do_not_count_as_other_settings():
    df = pd.DataFrame([
        _run("pudd", seed=0, classifier="dnn",
             classifier_options='{"reproduce_frozen_head": true}'),
        _run("pudd", seed=1, classifier="dnn", status="error", accuracy=None,
             classifier_options="{'reproduce_frozen_head': True}"),
    ])
    report = reproduction_report(df, 1, "dnn")
    assert _cell(report, "pudd-3")["n_errors"] == 1
    assert any("reproduce_frozen_head=True" in c for c in report.caveats)


@pytest.mark.parametrize(("frame", "match"), [
    (pd.DataFrame([_run("pudd")]).drop(columns="status"), "status"),
    (pd.DataFrame([_run("pudd", classifier="vfdt")]), "no runs"),
])
def test_report_input_errors(frame, match):
    with pytest.raises(ValueError, match=match):
        reproduction_report(frame, 1, "gnb")


# --- Markdown, within(), save() ----------------------------------------------------------------


def test_markdown_states_classifier_seeds_and_every_caveat(summaries):
    text = reproduction_report(summaries, 1, "gnb").markdown()
    assert "`gnb`" in text and "Seeds: 0-2 (3 seeds" in text
    for phrase in ("SUBSTITUTE", "2007", "14-column", "50 chunks", "58-chunk", "679-dim",
                   "per-instance 0/1 errors", "river's default parameters", "reset",
                   "retrains on the current chunk", "our reading of the paper",
                   "no baseline code"):
        assert phrase in text, phrase
    assert "frozen-head" not in text  # a GNB report
    assert "| PUDD-3 | 95.00 / 94.81 (+0.19) [1 err] |" in text
    assert "| KSWIN | — / 91.72 |" in text


def test_dnn_markdown_says_the_paper_had_the_frozen_head_bug_and_ours_is_fixed():
    report = reproduction_report(pd.DataFrame([_run("pudd", classifier="dnn")]), 1, "dnn")
    text = report.markdown()
    assert "frozen-head bug" in text and "ours use the fixed adaptation" in text


def test_table2_markdown_shows_the_sota_rows_as_paper_only():
    df = pd.DataFrame([_run("pudd", classifier="dnn-ensemble", alpha=0.1, accuracy=0.98)])
    report = reproduction_report(df, 2, "dnn-ensemble")
    text = report.markdown()
    assert "| MCD-DD | — / 97.66 |" in text and "| PUDD-1 | 98.00 / 98.47 (-0.47) |" in text
    assert "SOTA rows" in text and "SUBSTITUTE" in text


def _report_with_differences(deltas):
    rows = []
    for (det, dataset), delta in deltas.items():
        paper = paper_accuracy(1, "gnb", det, dataset, "incremental")
        name, alpha = ("pudd", 10.0 ** -int(det[-1])) if det.startswith("pudd") else (det, 1e-3)
        rows.append(_run(name, dataset=dataset, alpha=alpha, accuracy=(paper + delta) / 100))
    return reproduction_report(pd.DataFrame(rows), 1, "gnb")


def test_within_flags_exactly_the_cells_outside_the_tolerance():
    report = _report_with_differences({
        ("pudd-1", "sea0"): 1.4, ("pudd-3", "sea0"): -1.6, ("pudd-5", "sea0"): 1.5,
        ("pudd-1", "sine"): -1.5, ("pudd-3", "sine"): 2.0, ("pudd-5", "sine"): 0.0,
        ("ddm", "sea0"): 5.0,  # not a PUDD row: not checked by default
        ("pudd-1", "airline"): 10.0,  # substitute data: not checked by default
    })
    bad = report.within(1.5, include_missing=False)
    assert set(zip(bad.detector, bad.dataset, bad.regime, strict=True)) == {
        ("pudd-3", "sea0", "incremental"), ("pudd-3", "sine", "incremental")}
    assert set(bad.problem) == {"outside"}
    assert bad.set_index("dataset").loc["sine", "difference"] == pytest.approx(2.0)
    assert report.within(2.5, include_missing=False).empty
    wider = report.within(1.5, detectors=["ddm", "pudd-1"], datasets=["sea0", "airline"],
                          include_missing=False)
    assert set(zip(wider.detector, wider.dataset, strict=True)) == {
        ("ddm", "sea0"), ("pudd-1", "airline")}


def test_within_reports_unrun_cells_so_an_empty_store_cannot_pass():
    report = _report_with_differences({("pudd-1", "sea0"): 0.0})
    bad = report.within(datasets=["sea0", "sea10"], regimes=["incremental"])
    assert set(zip(bad.detector, bad.dataset, bad.problem, strict=True)) == {
        ("pudd-3", "sea0", "not run"), ("pudd-5", "sea0", "not run"),
        ("pudd-1", "sea10", "not run"), ("pudd-3", "sea10", "not run"),
        ("pudd-5", "sea10", "not run")}
    assert (bad.n_seeds == 0).all() and bad.paper.notna().all()
    with pytest.raises(ValueError, match="tolerance"):
        report.within(-1.0)


def test_save_writes_the_markdown_and_a_csv_of_the_cells(summaries, tmp_path):
    report = reproduction_report(summaries, 1, "gnb")
    md, csv = report.save(tmp_path / "reports")
    assert md.name == "table1_gnb.md" and csv.name == "table1_gnb.csv"
    assert md.read_text(encoding="utf-8") == report.markdown()
    written = pd.read_csv(csv, dtype={"seeds": str}, keep_default_na=False,
                          na_values={c: [""] for c in ("paper", "ours", "difference", "std",
                                                       "alarms", "drifts", "detected",
                                                       "false_alarms", "delay")})
    assert set(written["table"]) == {1} and set(written["classifier"]) == {"gnb"}
    pd.testing.assert_frame_equal(written.drop(columns=["table", "classifier"]), report.cells,
                                  check_dtype=False)


# --- end to end ------------------------------------------------------------------------------


def test_report_of_real_runs_averages_their_accuracies():
    cfgs = reproduction_configs(1, "gnb", 2, datasets=["sea0"], detectors=["pudd-3", "ddm"],
                                regimes=["incremental"], n_chunks=20)
    assert len(cfgs) == 4
    results = [run_experiment(c) for c in cfgs]
    df = pd.DataFrame([{**r.summary(), "status": "ok"} for r in results])
    report = reproduction_report(df, 1, "gnb", configs=cfgs)
    for label in ("pudd-3", "ddm"):
        accs = [r.accuracy for r, c in zip(results, cfgs, strict=True) if _label(c) == label]
        cell = _cell(report, label)
        assert cell["ours"] == pytest.approx(100 * np.mean(accs), abs=1e-12)
        assert cell["n_seeds"] == 2 and cell["n_errors"] == 0
        assert cell["difference"] == pytest.approx(cell["ours"] - cell["paper"])
    assert _cell(report, "pudd-3")["paper"] == 94.81 and _cell(report, "ddm")["paper"] == 93.97
    assert report.seeds == (0, 1)
    assert "n_chunks=20" in report.markdown()


def test_report_says_how_long_the_runs_took_and_with_what():
    runs = pd.DataFrame({
        "dataset": "sea0", "classifier": "gnb", "detector": "pudd", "alpha": 1e-3,
        "regime": "incremental", "seed": [0, 1, 2], "accuracy": [0.95, 0.94, None],
        "status": ["ok", "ok", "error"], "elapsed_s": [30.0, 90.0, 5.0]})
    report = reproduction_report(runs, 1, "gnb")
    assert report.run_seconds == 120.0  # the failed run's time is not counted
    [line] = [x for x in report.markdown().splitlines() if x.startswith("- Run time")]
    assert line.startswith("- Run time: 2.0 min summed over the 2 runs (60.0 s per run on one "
                           "core); Python 3.")
    assert "numpy " in line and "river " in line
    no_times = reproduction_report(runs.drop(columns="elapsed_s"), 1, "gnb")
    assert "- Run time" not in no_times.markdown()


def test_a_store_whose_error_rows_hold_python_reprs_still_loads_into_the_same_report(tmp_path):
    from pudd_core.experiments.grid import ResultStore

    ok = _run("pudd", seed=0, classifier="dnn", key="k0",
              classifier_options='{"reproduce_frozen_head": true}')
    reports = []
    for i, written in enumerate(("{'reproduce_frozen_head': True}",
                                 '{"reproduce_frozen_head": true}')):
        store = ResultStore(tmp_path / str(i))
        store.put(ok)
        store.put(_run("pudd", seed=1, classifier="dnn", status="error", accuracy=None,
                       key="k1", classifier_options=written))
        store.flush()
        reports.append(reproduction_report(ResultStore(store.path).load(), 1, "dnn"))
    legacy, current = reports
    pd.testing.assert_frame_equal(legacy.cells, current.cells)
    assert legacy.caveats == current.caveats
    assert _cell(legacy, "pudd-3")["n_errors"] == 1 and _cell(legacy, "pudd-3")["n_seeds"] == 1


def test_merging_keeps_the_cell_with_more_seeds_and_adds_new_rows():
    from pudd_core.reproduction import ReproductionReport, merge_reports
    from pudd_core.reproduction.report import _example_runs

    runs = _example_runs()
    both = reproduction_report(runs, 1, "gnb")  # PUDD-3 with seeds 0-1
    one_seed = reproduction_report(runs[runs["seed"] == 1], 1, "gnb")
    merged = merge_reports(both, one_seed).cells.set_index("detector")
    assert merged.loc["pudd-3", "n_seeds"] == 2  # not replaced by the 1-seed cell
    assert merged.loc["pudd-3", "ours"] == both.cells.set_index("detector").loc["pudd-3", "ours"]
    only_ddm = reproduction_report(runs[runs["detector"] == "ddm"], 1, "gnb")
    grown = merge_reports(only_ddm, both).cells
    assert set(grown.query("n_seeds > 0")["detector"]) == {"ddm", "pudd-3"}
    assert len(grown) == len(grown.drop_duplicates(["detector", "dataset", "regime"]))
    other_table = ReproductionReport(2, "dnn-ensemble", both.cells, (0,), 0, ())
    with pytest.raises(ValueError, match="cannot merge table 2"):
        merge_reports(both, other_table)


def test_a_merged_table2_names_the_rows_it_holds_once():
    """Adding one SOTA row's seeds must not keep a caveat saying the others were not run."""
    from pudd_core.reproduction import merge_reports

    def runs(detectors, seed):
        return pd.DataFrame([_run(d, seed=seed, classifier="dnn-ensemble", alpha=a)
                             for d, a in detectors])

    base = reproduction_report(runs([("pudd", 1e-3), ("ns", 1e-3), ("mcd-dd", 1e-3)], 0), 2,
                               "dnn-ensemble")
    added = reproduction_report(runs([("mcd-dd", 1e-3)], 1), 2, "dnn-ensemble")
    assert any("SOTA rows run here: MCD-DD (" in c for c in added.caveats)
    merged = merge_reports(merge_reports(base, added), added, replace=True)
    rows = [c for c in merged.caveats if c.startswith("PUDD-1/3/5 reset the 5-DNN")]
    assert len(rows) == 1
    assert "SOTA rows run here: NS, MCD-DD (" in rows[0]
    assert rows[0].endswith("paper's numbers only: AMF, IWE, ADLTER.")
    assert merged.caveats.index(rows[0]) == base.caveats.index(
        next(c for c in base.caveats if c.startswith("PUDD-1/3/5 reset")))


def test_a_saved_report_reads_back_with_its_caveats_and_exact_floats(tmp_path):
    from pudd_core.reproduction import read_report
    from pudd_core.reproduction.report import _example_runs

    report = reproduction_report(_example_runs(), 1, "gnb")
    _, csv = report.save(tmp_path)
    back = read_report(csv, 1, "gnb")
    assert back.cells.equals(report.cells) and back.caveats == report.caveats
    (tmp_path / "other.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="not a reproduction report"):
        read_report(tmp_path / "other.csv", 1, "gnb")
    with pytest.raises(FileNotFoundError, match="no report at"):
        read_report(tmp_path / "none.csv", 1, "gnb")


# --- reference rows and alarm counts ---------------------------------------------------------


def _alarm_run(detector, seed, n_alarms, false_alarms, missed, mean_delay, accuracy=0.9,
               dataset="sea0", classifier="gnb"):
    return _run(detector, dataset=dataset, seed=seed, accuracy=accuracy, classifier=classifier,
                n_alarms=n_alarms, false_alarms=false_alarms, missed=missed,
                mean_delay=mean_delay)


def test_alarm_counts_are_means_over_seeds_and_the_delay_a_mean_over_all_detections():
    # seed 0: 4 alarms, 1 false -> 3 of 9 drifts detected with delays averaging 2;
    # seed 1: 1 alarm, 0 false -> 1 detected with delay 6. Over all 4 detections: (3*2+6)/4 = 3
    runs = pd.DataFrame([_alarm_run("ddm", 0, 4, 1, 6, 2.0), _alarm_run("ddm", 1, 1, 0, 8, 6.0),
                         _alarm_run("ddm", 0, 3, None, None, float("nan"), dataset="elec2"),
                         _alarm_run("ddm", 1, 5, None, None, float("nan"), dataset="elec2")])
    report = reproduction_report(runs, 1, "gnb")
    sea = _cell(report, "ddm")
    assert (sea.alarms, sea.drifts, sea.detected, sea.false_alarms) == (2.5, 9.0, 2.0, 0.5)
    assert sea.delay == pytest.approx(3.0)
    elec = _cell(report, "ddm", "elec2")
    assert elec.alarms == 4.0
    assert np.isnan([elec.drifts, elec.detected, elec.false_alarms, elec.delay]).all()
    text = report.markdown()
    assert "| DDM | 4.0 | 2.5 (2.0/9 detected, 0.5 false, delay 3.0) |" in text


def test_a_learner_of_table2_raises_no_alarms_and_its_count_is_not_a_zero():
    runs = pd.DataFrame([
        _alarm_run("none", 0, 0, 0, 9, float("nan"), classifier="ns"),
        _alarm_run("none", 0, 0, 0, 9, float("nan"), classifier="dnn-ensemble", accuracy=0.95),
        _alarm_run("oracle", 0, 9, 0, 0, 0.0, classifier="dnn-ensemble", accuracy=0.97)])
    report = reproduction_report(runs, 2, "dnn-ensemble")
    assert np.isnan(_cell(report, "ns").alarms)
    none, oracle = _cell(report, "none"), _cell(report, "oracle")
    assert (none.alarms, none.detected, none.ours, none.paper is None or np.isnan(none.paper)) \
        == (0.0, 0.0, 95.0, True)
    assert (oracle.alarms, oracle.detected, oracle.false_alarms, oracle.delay) == (9, 9, 0, 0)
    lines = report.markdown().splitlines()
    assert "| NS | — |" in lines and "| No detector (ref.) | 95.00 / — |" in lines
    # the references come after every ranked row, and NS sits at or below doing nothing
    assert lines.index("| No detector (ref.) | 95.00 / — |") > max(
        i for i, line in enumerate(lines) if line.startswith("| PUDD-5 |"))
    assert report.beaten_by_nothing()[["detector", "ours", "none"]].to_dict("records") == [
        {"detector": "ns", "ours": 90.0, "none": 95.0}]
    assert "- -I sea0 (no detector 95.00): NS 90.00" in lines


def test_pooled_alarm_counts_equal_the_counts_of_all_seeds_run_at_once():
    rng = np.random.default_rng(5)
    rows = []
    for seed in range(5):
        n, false = int(rng.integers(2, 12)), int(rng.integers(0, 2))
        rows.append(_alarm_run("pudd", seed, n, false, 9 - (n - false),
                               float(rng.uniform(0, 3)), accuracy=float(rng.uniform(0.8, 1))))
    rows.append(_alarm_run("pudd", 5, 0, 0, 9, float("nan")))  # a seed detecting nothing
    runs = pd.DataFrame(rows)
    whole = reproduction_report(runs, 1, "gnb")
    parts = merge_reports(reproduction_report(runs[runs.seed < 2], 1, "gnb"),
                          reproduction_report(runs[runs.seed >= 2], 1, "gnb"))
    a, b = _cell(whole, "pudd-3"), _cell(parts, "pudd-3")
    for name in ("ours", "std", "alarms", "drifts", "detected", "false_alarms", "delay"):
        assert b[name] == pytest.approx(a[name], rel=1e-12), name


def test_alarm_counts_and_references_survive_save_and_read_and_an_old_report_has_none(tmp_path):
    runs = pd.DataFrame([_alarm_run("ddm", 0, 4, 1, 6, 2.0),
                         _alarm_run("none", 0, 0, 0, 9, float("nan"), accuracy=0.8)])
    report = reproduction_report(runs, 1, "gnb")
    _, csv = report.save(tmp_path)
    back = read_report(csv, 1, "gnb")
    pd.testing.assert_frame_equal(back.cells, report.cells)
    old = pd.read_csv(csv, dtype={"seeds": str}).drop(
        columns=["alarms", "drifts", "detected", "false_alarms", "delay"])
    old = old[old.detector != "none"]
    old.to_csv(csv, index=False)
    earlier = read_report(csv, 1, "gnb")
    assert np.isnan(_cell(earlier, "ddm").alarms)
    # counts merged into a report that did not have them: unknown, never a made-up number
    pooled = merge_reports(earlier, reproduction_report(runs.assign(seed=1), 1, "gnb"))
    assert _cell(pooled, "ddm").n_seeds == 2 and np.isnan(_cell(pooled, "ddm").alarms)
    assert _cell(pooled, "none").alarms == 0


# --- a report records its cells' settings; --add refuses others by name (issue 36) ----------
def test_the_frozen_head_bug_is_a_setting_add_refuses_to_mix_before_any_run():
    from pudd_core._validation import ParameterError
    from pudd_core.reproduction import check_addition

    frozen = '{"reproduce_frozen_head": true}'
    base = reproduction_report(pd.DataFrame([_run("pudd", classifier="dnn", seed=s,
                                                  classifier_options=frozen)
                                             for s in (0, 1)]), 1, "dnn")
    assert base.cells.set_index("detector").loc["pudd-3", "classifier_options"] == frozen
    fixed = reproduction_configs(1, "dnn", [2], datasets=["sea0"], detectors=["pudd-3"])
    with pytest.raises(ParameterError, match="classifier_options=.*--reproduce-frozen-head"):
        check_addition(base, fixed)
    with pytest.raises(ParameterError, match="classifier_options"):  # whatever the seeds
        check_addition(base, fixed, replace=True)
    check_addition(base, reproduction_configs(1, "dnn", [2], datasets=["sea0"],
                                              detectors=["pudd-3"], reproduce_frozen_head=True))
    # the library's merge refuses the same, whichever way the cells come
    other = reproduction_report(pd.DataFrame([_run("ddm", classifier="dnn", seed=2)]), 1, "dnn")
    with pytest.raises(ParameterError, match="classifier_options"):
        merge_reports(base, other)


def test_an_old_report_tells_its_settings_by_its_caveats_or_is_refused(tmp_path):
    from pudd_core._validation import ParameterError
    from pudd_core.reproduction import check_addition

    runs = pd.DataFrame([_run("pudd", seed=s, n_chunks=20) for s in (0, 1)])
    md, csv = reproduction_report(runs, 1, "gnb").save(tmp_path)
    assert "n_chunks=20" in md.read_text()  # the caveat naming the non-default setting
    pd.read_csv(csv).drop(columns=list(SETTING_COLUMNS)).to_csv(csv, index=False)
    old = read_report(csv, 1, "gnb")
    assert old.cells.set_index("detector").loc["pudd-3", "n_chunks"] == "20"
    assert old.cells.set_index("detector").loc["ddm", "n_chunks"] == ""  # not run
    check_addition(old, reproduction_configs(1, "gnb", [2], datasets=["sea0"],
                                             detectors=["pudd-3"], n_chunks=20))
    with pytest.raises(ParameterError, match="n_chunks=20; these runs have n_chunks=default"):
        check_addition(old, reproduction_configs(1, "gnb", [2], datasets=["sea0"],
                                                 detectors=["pudd-3"]))
    md.unlink()  # without its Markdown nothing tells them
    with pytest.raises(ParameterError, match="does not say with which"):
        check_addition(read_report(csv, 1, "gnb"),
                       reproduction_configs(1, "gnb", [2], datasets=["sea0"],
                                            detectors=["pudd-3"], n_chunks=20))
