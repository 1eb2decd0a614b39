"""The CIFAR-10-CD comparison: its runs, its scoring against the true drifts, its files."""

from __future__ import annotations

import pandas as pd
import pytest

from pudd_core._validation import ParameterError
from pudd_core.experiments.evaluation import match_alarms
from pudd_core.reproduction.cifar import (
    COMPARED,
    comparison_configs,
    comparison_report,
    default_classifier,
    merge_comparisons,
    read_comparison,
    seed_accuracies,
)
from pudd_core.views.cifar import interest_drift


def test_every_detector_runs_on_the_same_seeds_incrementally_pudd_as_its_three_thresholds():
    cfgs = comparison_configs([3, 5], classifier="pretrained-cnn", n_chunks=30)
    assert [c.detector for c in cfgs[20:]] == ["none", "none", "oracle", "oracle"]  # refs last
    cfgs = cfgs[:20]
    assert len(cfgs) == 2 * len(COMPARED) == 20
    assert [(c.detector, c.alpha) for c in cfgs[:6:2]] == [
        ("pudd", 0.1), ("pudd", 1e-3), ("pudd", 1e-5)]
    assert [c.detector for c in cfgs[6::2]] == [
        "adwin", "ddm", "eddm", "hddma", "hddmw", "kswin", "pagehinkley"]
    assert {(c.seed, c.regime, c.n_chunks) for c in cfgs[:2]} == {
        (3, "incremental", 30), (5, "incremental", 30)}
    assert len({c.key() for c in cfgs}) == 20


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"detectors": ["pudd-2"]}, "detectors must be among pudd-1"),
    ({"detectors": []}, "detectors must be among"),
    ({"seeds": [1, 1]}, "seeds must be distinct"),
    ({"seeds": []}, "seeds must be distinct"),
])
def test_bad_detectors_or_seeds_are_refused_by_name(kwargs, message):
    args = {"seeds": [0], **kwargs}
    with pytest.raises(ParameterError, match=message):
        comparison_configs(args.pop("seeds"), **args)


def test_resnet18_is_the_default_where_cuda_is(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert default_classifier() == "resnet18"
    assert comparison_configs([0], detectors=["ddm"])[0].classifier == "resnet18"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    assert default_classifier() == "pretrained-cnn"


def _rows(alarms: dict[tuple[str, float, int], list[int]]) -> pd.DataFrame:
    return pd.DataFrame([
        {"dataset": "cifar10-cd", "classifier": "pretrained-cnn", "n_chunks": 50,
         "detector": d, "alpha": a, "seed": s, "accuracy": 0.8 + 0.01 * s + 0.001 * len(al),
         "alarms": al, "elapsed_s": 10.0, "status": "ok"}
        for (d, a, s), al in alarms.items()])


def test_the_report_scores_alarms_against_each_seeds_true_drifts():
    truth = {s: interest_drift(s, n_chunks=50).drift_chunks for s in (0, 1)}
    assert truth[1][3] - truth[1][2] > 4  # seed 1's third drift lasts past the late alarm
    alarms = {("pudd", 1e-3, 0): [truth[0][0], truth[0][1] + 2, 49],  # 49: the last, late
              ("pudd", 1e-3, 1): [truth[1][2] + 4],                     # late but detected
              ("ddm", 1e-3, 0): [2], ("ddm", 1e-3, 1): []}
    report = comparison_report(_rows(alarms))
    cells = report.cells.set_index("detector")
    assert list(cells.index) == ["pudd-3", "ddm"]  # the figure's order
    n = len(truth[0]) + len(truth[1])
    pudd = cells.loc["pudd-3"]
    assert (pudd["drifts"], pudd["early"], pudd["detected"]) == (n, 2, 4)
    # the oracle: evaluation.match_alarms on each run, summed
    matched = [match_alarms(alarms[("pudd", 1e-3, s)], truth[s], 50) for s in (0, 1)]
    assert pudd["false_alarms"] == sum(m.false_alarms for m in matched) / 2
    assert pudd["alarms"] == 2.0
    ddm = cells.loc["ddm"]
    assert (ddm["early"], ddm["false_alarms"]) == (0, 0.5)  # 2 is before every first drift
    assert ddm["accuracy"] == pytest.approx(100 * (0.801 + 0.81) / 2)
    assert ddm["std"] == pytest.approx(100 * pd.Series([0.801, 0.81]).std())
    assert report.seeds == (0, 1) and set(report.cells["seeds"]) == {"0 1"}


def test_runs_of_two_classifiers_are_not_mixed_into_one_report():
    rows = _rows({("pudd", 1e-3, 0): [], ("ddm", 1e-3, 0): []})
    rows.loc[1, "classifier"] = "resnet18"
    with pytest.raises(ValueError, match="the runs mix classifier"):
        comparison_report(rows)


def test_the_saved_csv_is_the_cells_and_the_markdown_names_the_command(tmp_path):
    report = comparison_report(_rows({("pudd", 0.1, 0): [8], ("adwin", 1e-3, 0): []}))
    md, csv = report.save(tmp_path, "python -m pudd_core reproduce --table cifar --seeds 1")
    pd.testing.assert_frame_equal(pd.read_csv(csv, dtype={"seeds": str, "seed_accuracy": str}),
                                  report.cells, check_dtype=False)
    text = md.read_text()
    assert "`python -m pudd_core reproduce --table cifar --seeds 1`" in text
    assert "| PUDD-1 |" in text and "| ADWIN |" in text


def test_each_seeds_accuracy_is_kept_and_ranked_paired_by_seed(tmp_path):
    # three detectors, three seeds: PUDD-3 best on every seed, DDM last on every seed
    rows = _rows({(d, a, s): [] for d, a in (("pudd", 1e-3), ("ddm", 1e-3), ("adwin", 1e-3))
                  for s in (0, 1, 2)})
    rows["accuracy"] += rows["detector"].map({"pudd": 0.02, "adwin": 0.01, "ddm": 0.0})
    rows.loc[(rows["detector"] == "adwin") & (rows["seed"] == 2), "status"] = "error"
    report = comparison_report(rows)
    _, csv = report.save(tmp_path)
    back = seed_accuracies(pd.read_csv(csv, dtype={"seeds": str, "seed_accuracy": str}))
    # the oracle: each run's own accuracy in %, NaN for the failed run
    for r in rows.itertuples():
        want = 100 * r.accuracy if r.status == "ok" else float("nan")
        name = "pudd-3" if r.detector == "pudd" else r.detector
        assert back.loc[r.seed, name] == pytest.approx(want, nan_ok=True)
    ranked = report.ranks()  # seeds 0 and 1: the complete ones
    assert ranked.n_blocks == 2 and ranked.ranks.to_dict() == {
        "pudd-3": 1.0, "adwin": 2.0, "ddm": 3.0}
    assert "average ranks of the accuracy, 1 = best: PUDD-3 1.00, ADWIN 2.00, DDM 3.00" in (
        report.markdown())


def test_a_report_without_seed_accuracies_is_refused_by_name():
    cells = comparison_report(_rows({("pudd", 1e-3, 0): []})).cells.drop(
        columns="seed_accuracy")
    with pytest.raises(ValueError, match="no seed_accuracy column"):
        seed_accuracies(cells)


def test_the_references_are_scored_beside_the_ranking_but_never_ranked(tmp_path):
    truth = {s: interest_drift(s, n_chunks=50).drift_chunks for s in (0, 1, 2)}
    alarms = {(d, 1e-3, s): [] for d in ("pudd", "ddm", "adwin") for s in (0, 1, 2)}
    alarms.update({("none", 1e-3, s): [] for s in (0, 1, 2)})
    alarms.update({("oracle", 1e-3, s): list(truth[s]) for s in (0, 1, 2)})
    rows = _rows(alarms)
    # no detector: 0.805 on every seed, between DDM (0.80x) and PUDD-3 (0.82x)
    rows["accuracy"] += rows["detector"].map({"pudd": 0.02, "adwin": 0.01, "ddm": 0.0,
                                              "none": 0.005, "oracle": 0.03})
    report = comparison_report(rows)
    cells = report.cells.set_index("detector")
    assert list(cells.index) == ["pudd-3", "adwin", "ddm", "none", "oracle"]
    n = sum(map(len, truth.values()))
    assert (cells.loc["oracle", "early"], cells.loc["oracle", "false_alarms"]) == (n, 0)
    assert cells.loc["none", "alarms"] == 0
    assert set(report.ranks().ranks.index) == {"pudd-3", "adwin", "ddm"}
    text = report.markdown()
    none = cells.loc["none", "accuracy"]
    low = [cells.loc[d, "name"] for d in ("pudd-3", "adwin", "ddm")
           if cells.loc[d, "accuracy"] <= none + 1e-9]
    assert low == ["DDM"]
    assert (f"With no detector at all the same classifier scores {none:.2f}: 1 of the 3 "
            "ranked rows are at or below it (DDM).") in text
    assert f"(the oracle) it scores {cells.loc['oracle', 'accuracy']:.2f}." in text
    assert "PUDD-3 (the best-ranked PUDD) against each other ranked row" in text
    assert "ADWIN 3-0, p = " in text and "DDM 3-0, p = " in text


def test_a_saved_report_reads_back_and_the_references_merge_in(tmp_path):
    alarms = {(d, 1e-3, s): [] for d in ("pudd", "ddm") for s in (0, 1)}
    base = comparison_report(_rows(alarms), device="cpu")
    base.save(tmp_path, "first command")
    back, command = read_comparison(tmp_path / "cifar10_cd.csv")
    pd.testing.assert_frame_equal(back.cells, base.cells, check_dtype=False, check_exact=True)
    assert (back.seeds, back.device, command, back.majority) == (
        base.seeds, "cpu", "first command", pytest.approx(base.majority))
    refs = comparison_report(_rows({("none", 1e-3, s): [] for s in (0, 1)}))
    merged = merge_comparisons(back, refs)
    assert merged.cells["detector"].tolist() == ["pudd-3", "ddm", "none"]
    pd.testing.assert_frame_equal(
        merged.cells.iloc[:2].reset_index(drop=True), base.cells, check_dtype=False)
    other_seeds = comparison_report(_rows({("none", 1e-3, s): [] for s in (0, 2)}))
    with pytest.raises(ParameterError, match="pairs its rows by seed"):
        merge_comparisons(back, other_seeds)
    (tmp_path / "x.csv").write_text("detector,accuracy\npudd-3,80\n")
    with pytest.raises(ValueError, match="no column classifier"):
        read_comparison(tmp_path / "x.csv")


def test_the_mean_delay_is_over_every_detected_drift_and_an_old_report_says_it_lacks_it(
        tmp_path):
    import math

    import pandas as pd

    from pudd_core.reproduction.cifar import (
        _example_runs,
        comparison_report,
        read_comparison,
    )

    report = comparison_report(_example_runs())
    cells = report.cells.set_index("detector")
    # PUDD-3, seed 0: alarms 8 and 13 against drifts 8, 11, 18 -> delays 0 and 2; seed 1 none
    # DDM, seed 0: alarm 5 before the first drift (false), 9 detects drift 8 -> delay 1
    assert cells.loc["pudd-3", "delay"] == 1.0 and cells.loc["ddm", "delay"] == 1.0
    assert "| mean delay (chunks) |" in report.markdown()
    _, csv = report.save(tmp_path, "cmd")
    pd.read_csv(csv).drop(columns=["delay"]).to_csv(csv, index=False)
    old, _ = read_comparison(csv)
    assert old.cells["delay"].isna().all()
    text = old.markdown()
    assert "| PUDD-3 | 82.00 ± 1.41 | 2 | 1.0 | 2 of 6 (33 %) | 2 | — |" in text
    assert "not recorded, this report was written before reports kept it" in text
    assert not math.isnan(read_comparison(report.save(tmp_path / "new")[1])[0].cells.loc[
        0, "delay"])


def test_a_report_without_false_alarms_or_delay_reads_back_without_a_raw_error(tmp_path):
    """Hypothesis found it (test_surfaces): a report lacking both columns raised
    "'false_alarms' is not in list", a ValueError that named neither the file nor the cause."""
    csv = tmp_path / "cifar10_cd.csv"
    csv.write_text("detector,accuracy,classifier,n_chunks,seeds,seed_accuracy\n"
                   "pudd-1,80,pretrained-cnn,100,0 1,80 81\n", encoding="utf-8")
    report, _ = read_comparison(csv)
    assert report.cells["delay"].isna().all() and report.seeds == (0, 1)
