"""pudd_core.views.reproduction: store groups, one group's report, the headline counts."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from pudd_core.experiments.grid import ResultStore, run_grid
from pudd_core.reproduction import reproduction_configs
from pudd_core.reproduction.committed import committed_report
from pudd_core.reproduction.report import acceptance_headline
from pudd_core.views.reproduction import (
    default_store,
    group_key,
    group_report,
    store_groups,
    store_problem,
    stored_keys,
    summarise,
)


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    """PUDD-3 on sea0 at two lengths (10 chunks: seeds 0, 1; 12 chunks: seed 0), GNB -I."""
    store = tmp_path_factory.mktemp("store")
    for n_chunks, seeds in ((10, [0, 1]), (12, [0])):
        cfgs = reproduction_configs(1, "gnb", seeds, datasets=["sea0"], detectors=["pudd-3"],
                                    regimes=["incremental"], n_chunks=n_chunks)
        run_grid(cfgs, store=store, executor="serial", progress=False)
    return ResultStore(store).load()


def test_the_default_store_is_results_store_unless_the_environment_says_otherwise(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    monkeypatch.delenv("PUDD_RESULTS_STORE", raising=False)
    assert default_store().parts[-2:] == ("results", "store")
    monkeypatch.setenv("PUDD_RESULTS_STORE", str(tmp_path))
    assert default_store() == tmp_path
    assert default_store("").parts[-2:] == ("results", "store")  # empty text: as unset


def test_the_default_stores_examples_hold_whatever_the_environment_says(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Issue 33: its doctest failed whenever $PUDD_RESULTS_STORE was set (make screenshots)."""
    import doctest

    monkeypatch.setenv("PUDD_RESULTS_STORE", str(tmp_path))
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in doctest.DocTestFinder().find(default_store):
        runner.run(test)
    assert runner.summarize(verbose=False) == (0, 3)


def test_a_results_store_that_is_a_file_is_named_with_the_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """$PUDD_RESULTS_STORE naming a file (or a path under one): the Reproduction page says
    so, with the variable to set, instead of "holds no runs yet" and runs that cannot be
    kept. A path that does not exist yet is fine: the first run creates it."""
    file = tmp_path / "store.txt"
    file.write_text("a file where the results store should be")
    for path, where in ((file, "is a file"), (file / "store", f"lies under the file `{file}`")):
        monkeypatch.setenv("PUDD_RESULTS_STORE", str(path))
        problem = store_problem(default_store())
        assert problem is not None and f"`{path}` {where}, not a folder" in problem
        assert "Set `$PUDD_RESULTS_STORE` to a writable folder" in problem
    for fine in (tmp_path / "no" / "such" / "store", tmp_path):
        monkeypatch.setenv("PUDD_RESULTS_STORE", str(fine))
        assert store_problem(default_store()) is None
    assert not (tmp_path / "no").exists()  # nothing created by asking


def test_runs_are_grouped_by_classifier_and_stream_length(rows: pd.DataFrame):
    groups = store_groups(rows)
    assert [(g.key, g.runs, g.seeds) for g in groups] == [("gnb:10", 2, 2), ("gnb:12", 1, 1)]
    assert groups[0].label == "gnb, 10 chunks: 2 runs, 2 seeds"
    assert group_key("gnb", None) == "gnb:full"
    assert store_groups(pd.DataFrame(columns=["key", "status"])) == []


def test_a_groups_report_uses_only_its_runs(rows: pd.DataFrame):
    report = group_report(rows, "gnb", 10)
    cell = report.cells.query("detector == 'pudd-3' and dataset == 'sea0'").iloc[0]
    ten = rows[rows["n_chunks"] == 10]
    assert cell["n_seeds"] == 2
    assert cell["ours"] == pytest.approx(100 * ten["accuracy"].mean())
    assert cell["paper"] == 94.81
    with pytest.raises(ValueError, match="no runs of classifier 'gnb'"):
        group_report(rows, "gnb", 30)


def test_mixing_stream_lengths_in_one_report_is_refused_by_the_report_itself(rows):
    # why the page groups first: reproduction_report will not average two protocols
    from pudd_core.reproduction import reproduction_report

    with pytest.raises(ValueError, match="mixes runs with different n_chunks"):
        reproduction_report(rows, 1, "gnb")


def test_the_headline_counts_and_the_stored_keys(rows: pd.DataFrame):
    counts = summarise(group_report(rows, "gnb", 10))
    assert (counts.run, counts.acceptance_outside) == (1, 0)
    assert counts.acceptance_not_run == 41  # 42 acceptance cells, one run here
    assert stored_keys(rows) == frozenset(rows["key"])
    assert stored_keys(pd.DataFrame()) == frozenset()


RESULTS = Path(__file__).resolve().parents[2] / "results"
COMMITTED = sorted(p.name for p in RESULTS.glob("table1_gnb*.csv"))


def test_the_committed_reports_are_found():
    assert COMMITTED, RESULTS  # an empty list would skip the test below unnoticed


@pytest.mark.parametrize("name", COMMITTED)
def test_the_headline_of_a_committed_report_agrees_with_its_markdown(name: str) -> None:
    import re

    report = committed_report(RESULTS / name)
    assert report is not None
    head = acceptance_headline(report)
    text = (RESULTS / name).with_suffix(".md").read_text()
    outside, not_run = map(int, re.search(r"(\d+) cell\(s\) outside, (\d+) not run",
                                          text).groups())
    assert head.total == 42
    assert head.within == 42 - outside - not_run
    pudd = report.cells[report.cells["detector"].str.startswith("pudd")
                        & (report.cells["dataset"] != "airline")].dropna(subset=["ours"])
    assert head.runs == pudd["n_seeds"].sum()
    assert head.largest_gap == round(pudd["difference"].abs().max(), 2)
    assert (head.largest_gap > 1.5) == (outside > 0)


def test_the_evidence_lines_are_read_from_the_committed_reports(tmp_path: Path) -> None:
    import shutil

    from pudd_core.reproduction.committed import results_dir
    from pudd_core.views.reproduction import committed_sources

    for name in ("table2_dnn-ensemble.csv", "table2_dnn-ensemble.md"):
        shutil.copy(results_dir() / name, tmp_path / name)
    cells = pd.read_csv(tmp_path / "table2_dnn-ensemble.csv", float_precision="round_trip")
    ns = cells["detector"] == "ns"
    cells.loc[ns, ["n_seeds", "seeds"]] = [1, "0"]  # the report now holds one seed of NS
    cells.loc[ns & (cells["dataset"] == "sine"), ["n_seeds", "ours", "seeds"]] = [
        0, float("nan"), float("nan")]
    cells.to_csv(tmp_path / "table2_dnn-ensemble.csv", index=False)
    [line] = [s for s in committed_sources(tmp_path) if s.startswith("`table2")]
    n = cells["dataset"].nunique()
    assert f"NS: 1 seed on {n - 1} of {n} datasets (" in line and "sine" not in line.split(
        "NS: ")[1].split(";")[0]
    assert "not run: IWE" in line
