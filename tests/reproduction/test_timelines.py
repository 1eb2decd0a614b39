"""The alarm timelines over seeds: near-event counts, their tail p, the spread, the script."""

from __future__ import annotations

import dataclasses
import importlib.util
import itertools
import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from pudd_core.experiments.runner import RunConfig, run_experiment
from pudd_core.reproduction.timelines import (
    near_p,
    same_every_seed,
    timeline_configs,
    timeline_spread,
    timeline_summary,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("n_tested, near_chunks, alarms", [(10, (1, 2, 3), 2), (9, (4, 5), 4),
                                                           (12, (1, 6, 7, 11), 5)])
def test_near_p_is_the_share_of_all_alarm_placements_with_as_many_near(
        n_tested: int, near_chunks: tuple[int, ...], alarms: int) -> None:
    # the oracle: every way of putting the alarms on distinct tested chunks, counted
    placements = list(itertools.combinations(range(1, n_tested + 1), alarms))
    for hits in range(alarms + 1):
        at_least = sum(sum(c in near_chunks for c in p) >= hits for p in placements)
        assert near_p(alarms, hits, len(near_chunks), n_tested) == pytest.approx(
            at_least / len(placements)), hits


def test_near_p_by_hand() -> None:
    assert near_p(2, 2, 3, 10) == pytest.approx(3 / 45)  # C(3,2) of C(10,2) placements
    assert near_p(2, 1, 3, 10) == pytest.approx(1 - 21 / 45)  # 1 - C(7,2)/C(10,2)
    assert near_p(4, 0, 3, 10) == 1.0


def _runs() -> pd.DataFrame:
    # 11 chunks (10 tested), one event at chunk 4: near chunks 4 and 5 (2 of 10)
    rows = [("gnb", 0, "a", [4, 5, 9]), ("gnb", 1, "a", [5]), ("gnb", 2, "a", [2, 3]),
            ("gnb", 0, "b", []), ("gnb", 1, "b", [4]), ("gnb", 2, "b", [4]),
            ("vfdt", 0, "a", [1, 2, 3, 4])]
    return pd.DataFrame([{"dataset": "s", "classifier": c, "seed": seed, "detector": d,
                          "n_chunks": 11, "alarms": json.dumps(a)} for c, seed, d, a in rows])


def _events() -> pd.DataFrame:
    return pd.DataFrame({"dataset": ["s", "s", "t"], "chunk": [4, 7, 2],
                         "events": ["x", "", "y"]})


def test_the_summary_counts_each_run_by_hand() -> None:
    s = timeline_summary(_runs(), _events())
    assert s[["classifier", "seed", "detector"]].values.tolist()[0] == ["gnb", 0, "a"]
    assert s["near"].tolist() == [2, 1, 0, 0, 1, 1, 1]
    assert s["chance"].tolist() == [0.6, 0.2, 0.4, 0.0, 0.2, 0.2, 0.8]
    assert s["chance_share"].tolist() == [0.2] * 7
    assert s.loc[0, "p"] == pytest.approx(1 / 15)  # both near: C(2,2) C(8,1) / C(10,3)
    assert s.loc[4, "p"] == pytest.approx(0.2)  # one alarm, 2 of 10 chunks near
    assert s.loc[2, "p"] == 1.0


def test_the_spread_over_seeds_by_hand() -> None:
    spread = timeline_spread(timeline_summary(_runs(), _events()))
    assert spread[["classifier", "detector", "seeds"]].values.tolist() == [
        ["gnb", "a", 3], ["gnb", "b", 3], ["vfdt", "a", 1]]
    a = spread.iloc[0]
    assert (a["alarms_min"], a["alarms_median"], a["alarms_max"]) == (1, 2, 3)
    assert (a["near_min"], a["near_median"], a["near_max"]) == (0, 1, 2)
    assert a["share"] == pytest.approx(3 / 6) and a["chance_share"] == pytest.approx(0.2)
    assert a["above"] == 2  # 2 > 0.6 and 1 > 0.2; 0 < 0.4
    assert a["significant"] == 0  # the lowest p is 1/15 > 0.05
    b = spread.iloc[1]
    assert b["share"] == 1.0 and b["above"] == 2 and b["significant"] == 0


def test_a_stream_without_events_has_no_spread() -> None:
    runs = _runs().assign(dataset="u")
    s = timeline_summary(runs, _events())
    assert s["near"].isna().all() and s["p"].isna().all()
    assert timeline_spread(s).empty


def test_the_configs_cover_every_classifier_and_seed() -> None:
    cfgs = timeline_configs(["elec2", "airline"], classifiers=["gnb", "vfdt"], seeds=[0, 4, 5])
    assert len(cfgs) == 2 * 2 * 3 * 10
    assert {(c.dataset, c.classifier, c.seed) for c in cfgs} == set(
        itertools.product(["elec2", "airline"], ["gnb", "vfdt"], [0, 4, 5]))


def test_only_pudd_and_kswin_vary_with_the_seed_on_the_real_streams() -> None:
    free = {c.detector if c.detector != "pudd" else f"pudd-{c.alpha}": same_every_seed(c)
            for c in timeline_configs(["elec2"], classifiers=["gnb", "vfdt"])}
    assert {d for d, f in free.items() if not f} == {"pudd-0.1", "pudd-0.001", "pudd-1e-05",
                                                     "kswin"}


@pytest.fixture
def script(monkeypatch: Any) -> Any:
    """scripts/alarm_timelines.py with its runs cut to 8 chunks (the same code, fast)."""
    spec = importlib.util.spec_from_file_location("alarm_timelines",
                                                  ROOT / "scripts" / "alarm_timelines.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    full = module.timeline_configs
    monkeypatch.setattr(module, "timeline_configs", lambda *a, **k: [
        dataclasses.replace(c, n_chunks=8) for c in full(*a, **k)])
    return module


@pytest.mark.datasets
def test_the_script_copies_only_the_runs_that_ignore_the_seed(script: Any, tmp_path: Path,
                                                             capsys: Any) -> None:
    assert script.main(["--seeds", "0-2", "--datasets", "powersupply", "--out",
                        str(tmp_path)]) == 0
    runs = pd.read_csv(tmp_path / "timelines_runs.csv")
    assert len(runs) == 30 and set(runs["seed"]) == {0, 1, 2}
    copied = runs[runs["run_s"] == 0.0]
    assert set(copied["detector"]) == {"adwin", "ddm", "eddm", "hddma", "hddmw", "pagehinkley"}
    assert set(copied["seed"]) == {1, 2} and copied["same_every_seed"].all()
    # a copy is what running that seed gives
    for detector in ("adwin", "hddma"):
        row = runs[(runs["seed"] == 2) & (runs["detector"] == detector)].iloc[0]
        ran = run_experiment(RunConfig("powersupply", "gnb", detector, seed=2, n_chunks=8))
        assert json.loads(row["alarms"]) == list(ran.alarms)
    # --add keeps the runs another call made
    assert script.main(["--seeds", "0", "--classifiers", "vfdt", "--datasets", "powersupply",
                        "--out", str(tmp_path), "--add"]) == 0
    both = pd.read_csv(tmp_path / "timelines_runs.csv")
    assert len(both) == 40 and set(both["classifier"]) == {"gnb", "vfdt"}
    assert both[both["classifier"] == "gnb"].reset_index(drop=True).equals(runs)
    assert not math.isnan(float(both["accuracy"].min()))
    capsys.readouterr()


def test_the_findings_give_the_spread_over_seeds_from_the_files(tmp_path: Path) -> None:
    from pudd_core.reproduction.findings import Reports
    from pudd_core.reproduction.findings_more import MORE

    # stream x: 11 chunks, an event at chunk 4 (near: 4, 5); stream y has no events
    rows = []
    for seed, (pudd, kswin) in enumerate([([4, 9], [2]), ([4, 5], [2]), ([1], [3])]):
        rows += [("x", seed, "pudd-1", pudd, False), ("x", seed, "pudd-3", pudd, False),
                 ("x", seed, "pudd-5", pudd, False), ("x", seed, "kswin", kswin, False),
                 ("x", seed, "adwin", [4, 6], True)]
    rows += [("y", 0, d, [2], d == "adwin") for d in ("pudd-1", "pudd-3", "pudd-5", "adwin")]
    pd.DataFrame([{"dataset": d, "classifier": "gnb", "seed": s, "detector": det,
                   "n_chunks": 11, "alarms": json.dumps(a), "same_every_seed": same}
                  for d, s, det, a, same in rows]).to_csv(tmp_path / "timelines_runs.csv",
                                                          index=False)
    pd.DataFrame({"dataset": ["x"] * 11 + ["y"] * 11, "chunk": list(range(11)) * 2,
                  "first": "a", "last": "b",
                  "events": [""] * 4 + ["e"] + [""] * 6 + [""] * 11}).to_csv(
        tmp_path / "timelines_events.csv", index=False)
    reports = Reports(tmp_path)
    text = MORE["timelines"](reports)
    assert "GNB on x, y (seeds 0-2)" in text
    assert ("the alarms differ only for PUDD-1 with GNB on x (3 different sets), PUDD-3 with GNB "
            "on x (3 different sets), PUDD-5 with GNB on x (3 different sets) and KSWIN with "
            "GNB on x (2 different sets)") in text
    # PUDD-3 near 1, 2, 0 (median 1) of 2, 2, 1 alarms (median 2); chance 0.4, 0.4, 0.2;
    # p: 2 of 2 near is 1/45 < 0.05 at seed 1 only
    assert ("PUDD-3 has 1 (0-2) of 2 (1-2) alarms near an event (0.40 by chance; p < 0.05 at "
            "1 of 3 seeds)") in text
    table = MORE["timelines-table"](reports).splitlines()
    assert "| x | GNB | PUDD-3 | 3 | 2 (1-2) | 1 (0-2) | 0.40 | 60 % (20 %) | 1 |" in table
    assert "| x | GNB | ADWIN | 3 | 2 | 1 | 0.40 | 50 % (20 %) | 0 |" in table
    assert not any(line.startswith("| y ") for line in table)  # y has no events
