"""The Reproduction page through AppTest, on a results store in a temporary folder."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from pudd_core.experiments.grid import ResultStore, run_grid
from pudd_core.experiments.reproduce import reproduction_configs
from tests.app._apptest import open_page

TIMEOUT = 120


@pytest.fixture
def store(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Four tiny GNB runs (PUDD-3 and DDM on 10 chunks of sea0, seeds 0 and 1) in a new store."""
    path = tmp_path / "store"
    configs = reproduction_configs(1, "gnb", [0, 1], datasets=["sea0"],
                                   detectors=["pudd-3", "ddm"], regimes=["incremental"],
                                   n_chunks=10)
    run_grid(configs, store=path, executor="serial", progress=False)
    monkeypatch.setenv("PUDD_RESULTS_STORE", str(path))
    return path


def _page(query: dict[str, str] | None = None) -> AppTest:
    return open_page("pages/reproduction.py", query, timeout=TIMEOUT)


def _row(at: AppTest, detector: str) -> pd.Series:
    table = at.dataframe[0].value
    return table[(table["detector"] == detector) & (table["dataset"] == "sea0")
                 & (table["regime"] == "-I")].iloc[0]


def test_the_stored_runs_appear_beside_the_papers_numbers(store: Path) -> None:
    at = _page()
    assert at.title[0].value == "Reproduction"
    assert at.selectbox(key="w_reproduction_view").value == "gnb:10"
    rows = ResultStore(store).load()
    pudd = rows[rows["detector"] == "pudd"]["accuracy"].mean() * 100
    row = _row(at, "PUDD-3")
    assert row["paper (%)"] == 94.81  # the paper's GNB-I PUDD-3 on sea0
    assert row["ours (%)"] == pytest.approx(round(pudd, 2))
    assert row["seeds"] == 2
    assert _row(at, "DDM")["paper (%)"] == 93.97
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert [t["name"] for t in spec["data"]] == ["±1.5 points", "ours = paper", "PUDD-1/3/5",
                                                 "Baselines"]
    assert {m.label: m.value for m in at.metric}["Cells run"] == "2 of 10"


def test_the_committed_headline_is_computed_from_the_committed_report(store: Path) -> None:
    from pudd_core.views.reproduction import acceptance_headline, committed_report

    results = Path(__file__).resolve().parents[2] / "results"
    name = next(n for n in ("table1_gnb_acceptance_100seeds.csv", "table1_gnb.csv")
                if (results / n).is_file())
    head = acceptance_headline(committed_report(results / name))
    at = _page()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Acceptance cells within ±1.5"] == f"{head.within} of {head.total}"
    assert metrics["Largest gap among them"] == f"{head.largest_gap:.2f} points"
    assert metrics["Runs behind it"] == f"{head.runs:,}"
    assert f"`results/{name}`" in " ".join(md.value for md in at.markdown)


def test_a_small_reproduction_runs_into_the_store_and_updates_the_table(store: Path) -> None:
    at = _page({"datasets": "sea0", "detectors": "pudd-3", "seeds": "3", "chunks": "10"})
    at.multiselect(key="w_reproduction_regimes").set_value(["incremental"]).run(timeout=TIMEOUT)
    run = next(b for b in at.button if b.label.startswith("Run the 1 missing"))
    run.click().run(timeout=TIMEOUT)
    assert not at.exception
    assert len(ResultStore(store).load()) == 5  # seed 2 of PUDD-3 was added
    assert _row(at, "PUDD-3")["seeds"] == 3
    assert any("All 3 runs of this selection are in the store" in s.value for s in at.success)


def test_an_empty_selection_is_an_inline_error_and_an_empty_store_a_hint(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PUDD_RESULTS_STORE", str(tmp_path / "none"))
    at = _page()
    assert any("holds no runs of the paper's classifiers yet" in i.value for i in at.info)
    at.multiselect(key="w_reproduction_detectors").set_value([]).run(timeout=TIMEOUT)
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and errors[0].startswith("**Detectors**: detectors must be among")
