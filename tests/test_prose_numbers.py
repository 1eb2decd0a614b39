"""Numbers the README and results/README.md state in prose, computed again from the reports.

Each check computes a number or a count from the committed reports (or the paper's own
tables) and asserts that the sentence stating it says exactly that. A report that changes
fails here until its prose is written again from it.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd
import pytest

from pudd_core.experiments.claims import comparison_table, paper_cells
from pudd_core.experiments.reproduce import read_report
from pudd_core.experiments.significance import friedman_nemenyi
from pudd_core.paper import CLASSIC_DETECTORS, DISPLAY_NAMES, PUDD_DETECTORS, REFERENCES
from pudd_core.views.reproduction import acceptance_headline

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
ACCEPTANCE = ("sea0", "sea10", "sea20", "sine", "mixed", "elec2", "powersupply")


def _text(path: Path) -> str:
    """The file's text with line breaks and repeated spaces folded: prose wraps anywhere."""
    return " ".join(path.read_text(encoding="utf-8").split())


README = _text(ROOT / "README.md")
RESULTS_README = _text(RESULTS / "README.md")


def _report(name: str, table: int, classifier: str):
    return read_report(RESULTS / name, table, classifier)


def _within(cells: pd.DataFrame, detectors, tolerance: float = 1.5) -> tuple[int, int]:
    """How many run cells of ``detectors`` on the comparable streams are within tolerance."""
    part = cells[cells["detector"].isin(detectors) & cells["dataset"].isin(ACCEPTANCE)
                 & cells["ours"].notna() & cells["paper"].notna()]
    return int((part["difference"].abs() <= tolerance + 1e-9).sum()), len(part)


def test_the_gnb_acceptance_numbers_are_the_100_seed_reports():
    head = acceptance_headline(_report("table1_gnb_acceptance_100seeds.csv", 1, "gnb"))
    assert (head.within, head.total) == (42, 42)
    phrase = (f"largest gap {head.largest_gap:.2f} points; on the real streams elec2 and "
              f"powersupply at most {head.largest_gap_real:.2f}")
    assert phrase in README
    assert f"the largest gap is {head.largest_gap:.2f} points" in RESULTS_README


def test_the_readme_counts_of_cells_within_the_tolerance_are_the_reports():
    vfdt = _report("table1_vfdt.csv", 1, "vfdt").cells
    ensemble = _report("table2_dnn-ensemble.csv", 2, "dnn-ensemble").cells
    dnn = _report("table1_dnn.csv", 1, "dnn").cells
    fixed = _report("table1_dnn_fixed_head.csv", 1, "dnn").cells
    v, e, d, f = (_within(c, PUDD_DETECTORS) for c in (vfdt, ensemble, dnn, fixed))
    assert f"VFDT (3 seeds): {v[0]} of {v[1]} PUDD cells within ±1.5" in README
    assert f"the DNN ensemble of Table 2 (3 seeds): {e[0]} of {e[1]}" in README
    assert f"frozen-head bug): {d[0]} of {d[1]}" in README
    assert f"{v[0]} of the {v[1]} PUDD-1/3/5 cells are within ±1.5 points" in RESULTS_README
    assert f"{e[0]} of the {e[1]} PUDD cells on the seven comparable streams" in RESULTS_README
    assert f"With the bug, {d[0]} of the {d[1]} PUDD cells are within" in RESULTS_README
    assert f"{f[0]} of {f[1]} cells are within ±1.5" in RESULTS_README
    baselines = [b for b in CLASSIC_DETECTORS if b != "kswin"]
    b = _within(vfdt, baselines)
    assert f"within ±1.5 points on {b[0]} of {b[1]} cells" in RESULTS_README
    k = _within(vfdt, ["kswin"], 1.1)
    assert f"{k[0]} of its {k[1]} cells are within ±1.1 points" in RESULTS_README


def test_the_papers_own_table2_statistics_are_computed():
    table, blocks = comparison_table(paper_cells(), "table2")
    res = friedman_nemenyi(table, blocks=blocks)
    r = res.ranks
    assert r["pudd-3"] == r["pudd-5"]
    phrase = (f"Friedman p = {res.p_value:.2g}".replace("e-0", "e-") + f", CD = "
              f"{res.critical_difference:.3f}, average ranks PUDD-3 = PUDD-5 = "
              f"{r['pudd-3']:.3f}, ADLTER {r['adlter']:.2f}, IWE {r['iwe']:.1f}")
    assert phrase in README


def test_every_reference_sentence_of_a_report_is_its_cells():
    """A report's 'Against the references' line counts its own cells (it is generated)."""
    for name, table, classifier in (("table1_gnb.csv", 1, "gnb"),
                                    ("table2_dnn-ensemble.csv", 2, "dnn-ensemble"),
                                    ("table1_dnn.csv", 1, "dnn")):
        report = _report(name, table, classifier)
        if "none" not in set(report.cells["detector"]):
            continue
        md = _text(RESULTS / name.replace(".csv", ".md"))
        low = report.beaten_by_nothing()
        cells = report.cells.dropna(subset=["ours"])
        paired = cells[~cells["detector"].isin(REFERENCES)].merge(
            cells[cells["detector"] == "none"][["dataset", "regime"]], on=["dataset", "regime"])
        assert (f"{len(low)} of the {len(paired)} cells run beside a no-detector row are at or "
                "below it") in md, name


def test_the_gnb_references_in_prose_are_the_report():
    report = _report("table1_gnb.csv", 1, "gnb")
    if "none" not in set(report.cells["detector"]):
        pytest.skip("the committed GNB report has no reference rows")
    low = report.beaten_by_nothing()
    cells = report.cells.dropna(subset=["ours"])
    paired = cells[~cells["detector"].isin(REFERENCES)].merge(
        cells[cells["detector"] == "none"][["dataset", "regime"]], on=["dataset", "regime"])
    assert (f"Table 1 with GNB (`table1_gnb.md`, 10 seeds; the references' "
            f"{int(cells[cells['detector'].isin(REFERENCES)]['n_seeds'].sum())} runs") \
        in RESULTS_README
    assert (f"{len(low)} of the {len(paired)} cells run beside a no-detector row are at or "
            "below it") in RESULTS_README
    pudd = low[low["detector"].str.startswith("pudd")]
    assert len(pudd) == 1 and "the one PUDD cell is PUDD-5 -O on airline" in RESULTS_README
    assert pudd.iloc[0][["detector", "dataset", "regime"]].tolist() == [
        "pudd-5", "airline", "train-once"]
    oracle = report.cells[report.cells["detector"] == "oracle"]
    assert (oracle["alarms"] == 9).all() and (oracle["false_alarms"] == 0).all()


def test_the_table2_references_in_prose_are_the_report():
    report = _report("table2_dnn-ensemble.csv", 2, "dnn-ensemble")
    cells = report.cells.dropna(subset=["ours"]).set_index(["detector", "dataset"])
    if ("none", "sea0") not in cells.index:
        pytest.skip("the committed Table 2 report has no reference rows")
    low = report.beaten_by_nothing()
    ranked = report.cells.dropna(subset=["ours"])
    ranked = ranked[~ranked["detector"].isin(REFERENCES)]
    paired = ranked[ranked["dataset"].isin(set(cells.loc["none"].index))]
    assert (f"{len(low)} of the {len(paired)} cells run beside a no-detector row are at or "
            "below it") in RESULTS_README
    assert (f"no detector at all, a reference row of the report, is at or above {len(low)} of "
            f"the {len(paired)} cells run beside it") in README
    # ahead of every ranked row on exactly these streams, and of the oracle on these
    none = cells.loc["none", "ours"]
    best = ranked.groupby("dataset")["ours"].max()
    ahead = [d for d in ("airline", "elec2", "mixed", "powersupply", "sea0", "sine", "sea10",
                         "sea20") if none[d] >= best[d] - 1e-9]
    assert ahead == ["elec2", "sea10", "sea20"]
    above = ranked[(ranked["dataset"] == "sea0") & (ranked["ours"] > none["sea0"])]
    assert above["detector"].tolist() == ["mcd-dd"] and above["n_seeds"].tolist() == [1]
    assert cells.loc[("mcd-dd", "sea0"), "alarms"] == 0
    oracle = cells.loc["oracle", "ours"]
    assert [d for d in oracle.index if none[d] > oracle[d]] == ["sea0", "sea10", "sea20"]
    assert ("never adapts is ahead of every ranked row on elec2, sea10 and sea20 (on sea0 "
            "only MCD-DD's one seed, which raised no alarm, is above it), and even of the "
            "oracle on sea0, sea10 and sea20") in RESULTS_README
    # level with the oracle on mixed and sine: the best PUDD within 0.1 points of it
    for d in ("mixed", "sine"):
        pudd = ranked[(ranked["dataset"] == d) & ranked["detector"].str.startswith("pudd")]
        assert abs(pudd["ours"].max() - oracle[d]) < 0.1, d
    mcdd = cells.loc["mcd-dd"]
    assert [mcdd.loc[d, "alarms"] for d in ("mixed", "sea0", "sine", "sea10", "sea20")] == [
        0, 0, 0, 1, 1]
    assert ("MCD-DD raises 0 alarms on mixed, sea0 and sine and 1 on sea10 and sea20 (9 true "
            "drifts each)") in RESULTS_README


def test_the_cifar_references_in_prose_are_the_reports():
    cells = pd.read_csv(RESULTS / "cifar10_cd.csv", dtype={"seeds": str, "seed_accuracy": str})
    if "none" not in set(cells["detector"]):
        pytest.skip("the committed CIFAR-10-CD report has no reference rows")
    none = float(cells.set_index("detector").loc["none", "accuracy"])
    ranked = cells[~cells["detector"].isin(REFERENCES)]
    low = int((ranked["accuracy"] <= none + 1e-9).sum())
    phrase = re.search(r"no detector at all[^.]*?(\d+\.\d\d) %", RESULTS_README)
    assert phrase is not None and math.isclose(float(phrase.group(1)), round(none, 2))
    assert f"{low} of the {len(ranked)} ranked detectors" in RESULTS_README
    from pudd_core.experiments.cifar_comparison import paired_ranks

    first = paired_ranks(cells).ranks.index[0]
    assert f"the paired ranks among the detectors stand, {DISPLAY_NAMES[first]} first" \
        in RESULTS_README
