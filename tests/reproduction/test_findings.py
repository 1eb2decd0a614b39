"""The findings the README and results/README.md state: generated from the reports, and current.

Every number or verdict those pages state about a committed report stands in a
``<!-- finding: NAME -->`` block written by :mod:`pudd_core.reproduction.findings`. These tests

- fail while a block's text differs from what its report gives (a report that grows fails
  here until ``scripts/write_findings.py`` writes its prose again);
- fail when an accuracy or a count is typed outside a block;
- compute the key numbers a second, independent way and compare them with the findings;
- check the block mechanism on constructed text.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from pudd_core.paper import CLASSIC_DETECTORS, DISPLAY_NAMES, PUDD_DETECTORS, REFERENCES
from pudd_core.reproduction import findings, read_report
from pudd_core.reproduction.claims import comparison_table, paper_cells
from pudd_core.reproduction.findings import FINDINGS, Reports, fill_findings, render, stale_findings
from pudd_core.reproduction.significance import friedman_nemenyi

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "results"
ACCEPTANCE = ("sea0", "sea10", "sea20", "sine", "mixed", "elec2", "powersupply")
PAGES = (ROOT / "README.md", RESULTS / "README.md")


@pytest.fixture(scope="module")
def reports() -> Reports:
    return Reports(RESULTS)


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_finding_block_is_what_its_report_gives(page, reports):
    stale = stale_findings(page.read_text(encoding="utf-8"), reports)
    assert stale == [], (f"{page.name}: stale finding block(s) {stale}; run "
                         "`.venv/bin/python scripts/write_findings.py`")


def test_every_finding_is_used_and_renders(reports):
    used = set()
    for page in PAGES:
        used |= set(re.findall(r"<!-- finding: (\S+) -->\n", page.read_text(encoding="utf-8")))
    assert used == set(FINDINGS)
    for name in FINDINGS:
        assert render(name, reports).strip(), name


def test_no_finding_writes_a_power_of_ten_with_a_caret(reports):
    # the studies', Fig. 5's and claim 4b's prose wrote "10^-3" where the app writes 10⁻³
    carets = [name for name in FINDINGS if "10^" in render(name, reports)]
    assert carets == []
    assert "10⁻³" in render("fig5", reports) and "10⁻³" in render("claims", reports)


def _outside_blocks(text: str) -> str:
    text = re.sub(r"<!-- finding: \S+ -->\n.*?<!-- /finding -->", " ", text, flags=re.S)
    return re.sub(r"`[^`]*`", " ", text)


#: Decimals outside the blocks that are not results: versions, spec sections, thresholds.
_ALLOWED_DECIMALS = {"0.26", "10.12", "8.1", "0.001"}


def test_no_result_is_typed_outside_a_block():
    """An accuracy, a difference or an 'n of m' count about a report stands in a block."""
    results = _outside_blocks((RESULTS / "README.md").read_text(encoding="utf-8"))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Reproducing the paper"):readme.index("## Speed")]
    prose = "\n".join(line for line in (results + _outside_blocks(section)).splitlines()
                      if not line.startswith("|"))  # the command table: commands and times
    decimals = set(re.findall(r"(?<![\w.^-])\d+\.\d+(?![\w.])", prose)) - _ALLOWED_DECIMALS
    counts = re.findall(r"\b\d+ of (?:the )?\d+\b", prose)
    assert not decimals and not counts, (decimals, counts)


# -- the same numbers, computed a second way ---------------------------------------------


def _report(name: str, table: int, classifier: str):
    return read_report(RESULTS / name, table, classifier)


def _within(cells: pd.DataFrame, detectors, tolerance: float = 1.5) -> tuple[int, int]:
    part = cells[cells["detector"].isin(detectors) & cells["dataset"].isin(ACCEPTANCE)
                 & cells["ours"].notna() & cells["paper"].notna()]
    return int((part["difference"].abs() <= tolerance + 1e-9).sum()), len(part)


def _within_spread(cells: pd.DataFrame, detectors) -> tuple[int, int]:
    """The seed-spread count a second way: row by row, |ours − paper| ≤ max(1.5, 2·std/√n)."""
    k = n = 0
    for c in cells.itertuples(index=False):
        if c.detector not in detectors or c.dataset not in ACCEPTANCE or pd.isna(c.ours) \
                or pd.isna(c.paper):
            continue
        twice_se = 0.0 if pd.isna(c.std) else 2 * c.std / c.n_seeds ** 0.5
        n += 1
        k += abs(c.ours - c.paper) <= max(1.5, twice_se) + 1e-9
    return k, n


def test_the_within_counts_are_the_reports(reports):
    text = _flat(render("readme-acceptance", reports))
    for name, table, classifier in (("table1_vfdt.csv", 1, "vfdt"),
                                    ("table2_dnn-ensemble.csv", 2, "dnn-ensemble"),
                                    ("table1_dnn.csv", 1, "dnn")):
        k, n = _within(_report(name, table, classifier).cells, PUDD_DETECTORS)
        k_spread, _ = _within_spread(_report(name, table, classifier).cells, PUDD_DETECTORS)
        assert f"{k} of {n} ({k_spread} with the seed spread)" in text, name
    k, n = _within(_report("table1_vfdt.csv", 1, "vfdt").cells,
                   [b for b in CLASSIC_DETECTORS if b != "kswin"])
    assert f"The river baselines: {k} of the {n} cells" in _flat(render("vfdt", reports))
    gnb100 = _report("table1_gnb_acceptance_100seeds.csv", 1, "gnb").cells
    k, n = _within(gnb100, PUDD_DETECTORS)
    gap = gnb100[gnb100["detector"].isin(PUDD_DETECTORS)]["difference"].abs().max()
    assert f"met for {k} of the {n} cells" in _flat(render("gnb-acceptance", reports))
    assert f"the largest gap is {gap:.2f} points" in _flat(render("gnb-acceptance", reports))


def test_the_fidelity_table_counts_both_criteria_as_the_reports_give(reports):
    rows = {tuple(c.strip() for c in line.strip("|").split("|")[:2]): line
            for line in render("fidelity", reports).splitlines()[2:]}
    for name, table, classifier in (("table1_gnb_acceptance_100seeds.csv", 1, "gnb"),
                                    ("table1_vfdt.csv", 1, "vfdt"),
                                    ("table1_dnn.csv", 1, "dnn"),
                                    ("table1_dnn_fixed_head.csv", 1, "dnn"),
                                    ("table2_dnn-ensemble.csv", 2, "dnn-ensemble")):
        cells = _report(name, table, classifier).cells
        k, n = _within(cells, PUDD_DETECTORS)
        k_spread, _ = _within_spread(cells, PUDD_DETECTORS)
        cols = [c.strip() for c in rows[(f"`{name[:-4]}.md`", "PUDD-1/3/5")].split("|")[4:7]]
        assert cols == [str(n), str(k), str(k_spread)], name
        assert k <= k_spread <= n  # the seed spread only ever widens the ±1.5 tolerance


def test_the_papers_own_table2_statistics_are_computed(reports):
    table, blocks = comparison_table(paper_cells(), "table2")
    res = friedman_nemenyi(table, blocks=blocks)
    text = _flat(render("table2-paper-statistics", reports))
    assert f"CD = {res.critical_difference:.3f}" in text
    assert f"PUDD-3 {res.ranks['pudd-3']:.3f}, PUDD-5 {res.ranks['pudd-5']:.3f}" in text
    # the paper's Table 2 as the issue recomputed it independently
    assert "Friedman p = 1.8e-6, CD = 3.712" in text
    assert "significantly better than AMF and IWE only" in text


def test_every_reference_count_is_the_reports_own(reports):
    """The findings count the same cells as each report's generated 'Against the references'."""
    for name, table, classifier, finding in (
            ("table1_gnb.csv", 1, "gnb", "references-gnb"),
            ("table2_dnn-ensemble.csv", 2, "dnn-ensemble", "references-table2")):
        report = _report(name, table, classifier)
        cells = report.cells.dropna(subset=["ours"])
        ranked = cells[~cells["detector"].isin(REFERENCES)]
        none = cells[cells["detector"] == "none"].set_index(["dataset", "regime"])["ours"]
        paired = ranked.join(none.rename("none"), on=["dataset", "regime"], how="inner")
        low = int((paired["ours"] <= paired["none"] + 1e-9).sum())
        phrase = f"{low} of the {len(paired)} cells run beside a no-detector row are at or below"
        assert phrase in _flat(render(finding, reports)), name
        assert phrase in _flat((RESULTS / name.replace(".csv", ".md")).read_text()), name


def test_the_cifar_references_are_the_report(reports):
    cells = pd.read_csv(RESULTS / "cifar10_cd.csv", dtype={"seeds": str, "seed_accuracy": str})
    by = cells.set_index("detector")["accuracy"]
    ranked = cells[~cells["detector"].isin(REFERENCES)]
    low = int((ranked["accuracy"] <= by["none"] + 1e-9).sum())
    text = _flat(render("references-cifar", reports))
    assert f"scores {by['none']:.2f} %, and {low} of the {len(ranked)} ranked" in text
    best = ranked.sort_values("accuracy", ascending=False)["detector"].iloc[0]
    assert DISPLAY_NAMES[best].startswith("PUDD") == ("put PUDD" in text)


def test_the_moves_table_has_every_earlier_cell_once(reports):
    earlier = pd.read_csv(RESULTS / "table2_earlier_procedures.csv")
    rows = render("table2-moves", reports).splitlines()[2:]
    assert len(rows) == len(earlier)
    for row, old in zip(rows, earlier.itertuples(index=False), strict=True):
        cols = [c.strip() for c in row.strip("|").split("|")]
        assert cols[0] == DISPLAY_NAMES[old.detector] and f"{old.ours:.2f}" in cols[2]
        before, now = float(cols[2].split()[0]), float(cols[3].split()[0])
        assert float(cols[4]) == pytest.approx(now - before, abs=0.011)


# -- the mechanism, on constructed text ---------------------------------------------------


def _report_frame(rows):
    return pd.DataFrame(rows, columns=["detector", "dataset", "regime", "paper", "ours",
                                       "difference", "std", "n_seeds"])


def test_within_text_counts_and_lists_by_hand():
    cells = _report_frame([
        ("pudd-1", "sea0", "incremental", 90.0, 91.0, 1.0, 0.1, 3),
        ("pudd-3", "sea0", "incremental", 90.0, 92.0, 2.0, 0.1, 3),
        ("pudd-5", "elec2", "train-once", 70.0, 68.5, -1.5, 0.0, 3),  # on the edge: within
    ])
    assert findings._within_text(cells, 1.5, "cells") == (
        "2 of the 3 cells are within ±1.5 points; outside: sea0-I PUDD-3 (+2.00); with the "
        "seed spread (|ours − paper| ≤ max(1.5, 2 SE)) the same 2 of the 3 match")
    # another tolerance than the fidelity one: no seed-spread count
    assert findings._within_text(cells, 1.0, "cells") == (
        "1 of the 3 cells are within ±1 points; outside: sea0-I PUDD-3 (+2.00), "
        "elec2-O PUDD-5 (-1.50)")


#: Five cells whose two criteria differ, tolerance by hand: max(1.5, 2·std/√n).
_SPREAD_CELLS = [
    ("pudd-1", "sea0", "incremental", 90.0, 91.0, 1.0, 0.1, 3),    # 2 SE 0.12: 1.5, within
    ("pudd-3", "sea0", "incremental", 90.0, 92.0, 2.0, 3.0, 4),    # 2·3/2 = 3.0: within
    ("pudd-5", "elec2", "train-once", 70.0, 68.5, -1.5, 0.0, 3),   # std 0: 1.5, on the edge
    ("pudd-1", "sine", "train-once", 80.0, 82.5, 2.5, 1.0, 4),     # 2·1/2 = 1.0: 1.5, outside
    ("pudd-3", "mixed", "incremental", 80.0, 81.6, 1.6, None, 1),  # one seed: 1.5, outside
]


def test_the_seed_spread_criterion_by_hand():
    cells = _report_frame(_SPREAD_CELLS)
    assert findings.spread_tolerance(cells).round(4).tolist() == [1.5, 3.0, 1.5, 1.5, 1.5]
    assert findings._within_text(cells, 1.5, "cells") == (
        "2 of the 5 cells are within ±1.5 points; outside: sea0-I PUDD-3 (+2.00), sine-O PUDD-1 "
        "(+2.50), mixed-I PUDD-3 (+1.60); with the seed spread (|ours − paper| ≤ max(1.5, 2 SE)) "
        "3 of the 5 match; outside both: sine-O PUDD-1 (+2.50), mixed-I PUDD-3 (+1.60)")


def test_the_fidelity_table_by_hand():
    from types import SimpleNamespace

    report = SimpleNamespace(cells=_report_frame([
        *_SPREAD_CELLS,
        ("pudd-5", "airline", "incremental", 60.0, 50.0, -10.0, 1.0, 4),  # not comparable
        ("ddm", "sea0", "incremental", float("nan"), 90.0, float("nan"), 1.0, 4),  # no paper
    ]))
    table = findings.fidelity_table([("x.md", report, "PUDD", PUDD_DETECTORS),
                                     ("x.md", report, "DDM", ["ddm"])])  # no cell: left out
    assert table.splitlines()[2:] == ["| `x.md` | PUDD | 1-4 seeds | 5 | 2 | 3 | 3.00 |"]


def test_fill_writes_each_block_and_keeps_the_rest(reports):
    text = ("# Title\n\nLead. <!-- finding: table2-paper-statistics -->\nSTALE TEXT"
            "<!-- /finding --> after.\n\n<!-- finding: claims -->\nSTALE\n<!-- /finding -->"
            "\nEnd.\n")
    filled = fill_findings(text, reports)
    assert filled.startswith("# Title\n\nLead. <!-- finding: table2-paper-statistics -->\n")
    assert "<!-- /finding --> after.\n" in filled and filled.endswith("<!-- /finding -->\nEnd.\n")
    assert "STALE" not in filled
    assert stale_findings(text, reports) == ["table2-paper-statistics", "claims"]
    assert stale_findings(filled, reports) == []
    assert fill_findings(filled, reports) == filled


@pytest.mark.parametrize("text, message", [
    ("<!-- finding: no-such-thing -->\nx<!-- /finding -->", "unknown finding block"),
    ("<!-- finding: claims -->\nx\n", "not closed"),
])
def test_a_bad_block_is_named(text, message, reports):
    with pytest.raises(ValueError, match=message):
        fill_findings(text, reports)


def test_the_findings_are_read_from_the_folder_given(tmp_path):
    """A folder without the reports gives a clear error, not another folder's numbers."""
    with pytest.raises(FileNotFoundError):
        render("vfdt", Reports(tmp_path))


def test_the_cifar_frontier_keeps_exactly_the_undominated_detectors_by_hand():
    class Constructed(Reports):
        cifar = pd.DataFrame({
            "detector": ["pudd-5", "pudd-3", "ddm", "adwin", "eddm", "none"],
            "early": [50, 60, 55, 90, 90, 0], "false_alarms": [1.0, 2.0, 3.0, 40.0, 50.0, 0.0],
            "drifts": 97, "seeds": "0 1"})

    text = _flat(findings.cifar_frontier(Constructed(RESULTS)))
    # DDM (55, 3.0) is dominated by PUDD-3 (60, 2.0); EDDM (90, 50) by ADWIN (90, 40);
    # the no-detector reference is not ranked, so not on the front
    assert "front of drifts detected within two chunks against false alarms per run: PUDD-5 " \
        "(50 of 97, 1.0 false alarms per run), PUDD-3 (60 of 97, 2.0 false alarms per run) " \
        "and ADWIN (90 of 97, 40.0 false alarms per run);" in text
    assert "same 2 seeds" in text
