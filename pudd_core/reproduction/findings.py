r"""The findings the README and ``results/README.md`` state, written from the committed reports.

Prose that states a number of a report goes stale when the report grows (more seeds, a
re-run row). So every such passage is generated: a Markdown file holds it between two
HTML comments, which a reader of the rendered page does not see::

    <!-- finding: table2-ranks -->
    ...the generated text...
    <!-- /finding -->

:func:`fill_findings` writes each block from the reports in a results folder (``python
scripts/write_findings.py`` runs it on both files after a report changed), and
:func:`stale_findings` names the blocks whose text is not what the reports give: a test
runs it, so a report that changes fails CI until its prose is written again.

Examples
--------
>>> text = "Before.\n<!-- finding: table2-paper-statistics -->\nstale\n<!-- /finding -->\n"
>>> print(fill_findings(text, Reports()))  # doctest: +ELLIPSIS
Before.
<!-- finding: table2-paper-statistics -->
On the paper's own Table 2 (8 datasets × 8 methods, α = 0.05): Friedman p = 1.8e-6, ...
<!-- /finding -->
<BLANKLINE>
"""

from __future__ import annotations

import math
import os
import re
import textwrap
from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pudd_core.paper import (
    CLASSIC_DETECTORS,
    DISPLAY_NAMES,
    PUDD_DETECTORS,
    REFERENCES,
    SOTA_METHODS,
    paper_table,
)
from pudd_core.reproduction import ACCEPTANCE_DATASETS
from pudd_core.reproduction.studies import REPORT_FINDINGS

if TYPE_CHECKING:
    import pandas as pd

    from pudd_core.reproduction import ReproductionReport

__all__ = ["FINDINGS", "Reports", "fill_findings", "render", "stale_findings", "without_markers"]

_BLOCK = re.compile(r"(<!-- finding: ([a-z0-9-]+) -->\n)(.*?)(\n?<!-- /finding -->)", re.S)
_OPEN = re.compile(r"<!-- finding: (\S*) -->\n")
_REAL = ("elec2", "powersupply")
_SYNTHETIC = ("sea0", "sea10", "sea20", "sine", "mixed")
_REGIME_LETTER = {"incremental": "I", "train-once": "O"}
#: The river baselines but KSWIN, which the findings count apart (added to the tables later).
_RIVER = tuple(d for d in CLASSIC_DETECTORS if d != "kswin")


def _name(x: str) -> str:
    return DISPLAY_NAMES.get(x, x)


def _where(row: Any) -> str:
    """``elec2-I``: a cell's stream and regime."""
    return f"{_name(row.dataset)}-{_REGIME_LETTER[row.regime]}"


def _cell(row: Any, *, detector: bool = True) -> str:
    """``elec2-I PUDD-1 (+1.72)``: a cell and its difference from the paper."""
    return (f"{_where(row)} {_name(row.detector)}" if detector else _where(row)) + \
        f" ({row.difference:+.2f})"


def _listing(rows: pd.DataFrame, *, detector: bool = True, empty: str = "none") -> str:
    return ", ".join(_cell(r, detector=detector) for r in rows.itertuples(index=False)) or empty


def _words(names: Sequence[str]) -> str:
    names = list(names)
    return (", ".join(names[:-1]) + " and " + names[-1]) if len(names) > 1 else "".join(names)


def _committed(file: str, table: int, classifier: str,
               doc: str) -> cached_property[ReproductionReport]:
    """A :class:`Reports` attribute: the committed report ``file``, read once when asked for."""

    def read(self: Reports) -> ReproductionReport:
        from pudd_core.reproduction import read_report

        return read_report(self.folder / file, table, classifier)

    read.__doc__ = doc
    return cached_property(read)


class Reports:
    """The committed reports of a results folder, each read once when first asked for."""

    def __init__(self, folder: str | os.PathLike[str] | None = None) -> None:
        from pudd_core.reproduction.committed import results_dir

        self.folder = Path(folder) if folder is not None else results_dir()

    gnb = _committed("table1_gnb.csv", 1, "gnb",
                     "Table 1 with GNB, 10 seeds, the baselines and the references.")
    gnb100 = _committed("table1_gnb_acceptance_100seeds.csv", 1, "gnb",
                        "Table 1 with GNB: the 100-seed acceptance run.")
    vfdt = _committed("table1_vfdt.csv", 1, "vfdt", "Table 1 with VFDT.")
    dnn = _committed("table1_dnn.csv", 1, "dnn",
                     "Table 1 with the DNN and the authors' frozen-head bug.")
    dnn_fixed = _committed("table1_dnn_fixed_head.csv", 1, "dnn",
                           "Table 1 with the DNN, the head fixed.")
    table2 = _committed("table2_dnn-ensemble.csv", 2, "dnn-ensemble",
                        "Table 2, the 5-DNN ensemble and the SOTA methods.")

    @cached_property
    def earlier_sota(self) -> pd.DataFrame:
        """The SOTA cells of the earlier procedures (``table2_earlier_procedures.csv``)."""
        import pandas as pd

        return pd.read_csv(self.folder / "table2_earlier_procedures.csv")

    @cached_property
    def cifar(self) -> pd.DataFrame:
        """The CIFAR-10-CD comparison's cells."""
        from pudd_core.reproduction.cifar import read_comparison

        return read_comparison(self.folder / "cifar10_cd.csv")[0].cells

    @cached_property
    def ours(self) -> pd.DataFrame:
        """Every committed cell, long form (the claims' input)."""
        from pudd_core.reproduction.committed import committed_cells

        return committed_cells(self.folder)

    @cached_property
    def claims(self) -> tuple[list[Any], list[Any]]:
        """The claims checked on the paper's tables and on ours."""
        from pudd_core.reproduction.claims import check_claims, paper_cells

        return check_claims(paper_cells(), "paper"), check_claims(self.ours, "ours")


def _run(report: ReproductionReport, detectors: Sequence[str],
         datasets: Sequence[str] = ACCEPTANCE_DATASETS) -> pd.DataFrame:
    """The report's cells of ``detectors`` on ``datasets`` with ours and the paper's number."""
    c = report.cells
    return c[c["detector"].isin(detectors) & c["dataset"].isin(datasets) & c["ours"].notna()
             & c["paper"].notna()]


def _outside(cells: pd.DataFrame, tolerance: float) -> pd.DataFrame:
    return cells[cells["difference"].abs() > tolerance + 1e-9]


#: The fixed tolerance of a fidelity count, in accuracy points.
TOLERANCE = 1.5


def spread_tolerance(cells: pd.DataFrame, floor: float = TOLERANCE) -> pd.Series:
    r"""Each cell's tolerance by its seed spread: ``max(floor, 2 × SE)``, SE = std / √(seeds).

    The issue's fidelity criterion: a cell matches the paper when |ours − paper| is at most
    this. ``std`` is the report's sample standard deviation over the cell's seeds; with one
    seed it is unknown (NaN) and the tolerance is ``floor`` alone.

    Examples
    --------
    >>> import pandas as pd
    >>> cells = pd.DataFrame({"std": [2.0, 6.0, float("nan"), 0.0], "n_seeds": [4, 9, 1, 3]})
    >>> spread_tolerance(cells).tolist()  # 2·2/√4 = 2; 2·6/√9 = 4; one seed, std 0: 1.5
    [2.0, 4.0, 1.5, 1.5]
    """
    import numpy as np

    twice_se = 2 * cells["std"].astype(float) / np.sqrt(cells["n_seeds"].astype(float))
    return twice_se.fillna(0.0).clip(lower=floor)


def _outside_spread(cells: pd.DataFrame) -> pd.DataFrame:
    """The cells outside their seed-spread tolerance (:func:`spread_tolerance`)."""
    return cells[cells["difference"].abs() > spread_tolerance(cells) + 1e-9]


def _spread_text(cells: pd.DataFrame) -> str:
    """``with the seed spread (|ours − paper| ≤ max(1.5, 2 SE)) 40 of the 42 match; ...``.

    Then the cells outside both tolerances, or ``the same`` where the seed spread admits no
    cell the ±1.5 count leaves out.
    """
    out = _outside_spread(cells)
    same = len(out) == len(_outside(cells, TOLERANCE))
    tail = "" if same or not len(out) else f"; outside both: {_listing(out)}"
    return (f"with the seed spread (|ours − paper| ≤ max({TOLERANCE:g}, 2 SE)) "
            f"{'the same ' if same else ''}{len(cells) - len(out)} of the {len(cells)} "
            f"match{tail}")


def _within_text(cells: pd.DataFrame, tolerance: float, what: str) -> str:
    """``38 of the 42 PUDD-1/3/5 cells are within ±1.5 points; outside: ...``.

    At the fidelity tolerance (±1.5) the count by the seed spread follows (:func:`_spread_text`).
    """
    out = _outside(cells, tolerance)
    tail = f"; outside: {_listing(out)}" if len(out) else ""
    spread = f"; {_spread_text(cells)}" if tolerance == TOLERANCE else ""
    return (f"{len(cells) - len(out)} of the {len(cells)} {what} are within ±{tolerance:g} "
            f"points{tail}{spread}")


def _seeds(report: ReproductionReport) -> str:
    return f"{len(report.seeds)} seed{'s' * (len(report.seeds) != 1)}"


# -- Table 1 -----------------------------------------------------------------------------


def gnb_acceptance(r: Reports) -> str:
    """The acceptance paragraph: the 100-seed report, then the 10-seed full table."""
    from pudd_core.reproduction.report import acceptance_headline

    head = acceptance_headline(r.gnb100)
    run = _run(r.gnb100, PUDD_DETECTORS)
    worst = run.loc[run["difference"].abs().idxmax()]
    ten = _run(r.gnb, PUDD_DETECTORS)
    out10 = _outside(ten, 1.5)
    again = out10[["detector", "dataset", "regime"]].merge(
        _outside(run, 1.5)[["detector", "dataset", "regime"]])
    verdict = "met" if head.within == head.total else "not met"
    text = (f"**PUDD-1/3/5 of GNB-I and GNB-O on {', '.join(ACCEPTANCE_DATASETS)} within ±1.5 "
            f"accuracy points of the paper: {verdict} for {head.within} of the "
            f"{head.total} cells in one report, `table1_gnb_acceptance_100seeds.md`, with "
            f"{_seeds(r.gnb100)}: the largest gap is {head.largest_gap:.2f} points, "
            f"{_cell(worst)}, and {head.largest_gap_real:.2f} on elec2 and powersupply.** "
            f"With {_seeds(r.gnb)} (`table1_gnb.md`, the full table with the baselines) "
            f"{len(ten) - len(out10)} of {len(ten)} are within")
    if len(out10):
        text += (f"; outside: {_listing(out10)}, " + (
            f"{'within' if len(out10) == 1 else 'all within'} with {len(r.gnb100.seeds)} "
            "seeds (seed noise)" if again.empty else
            f"and {len(again)} of them outside with {len(r.gnb100.seeds)} seeds too"))
    return (text + f"; {_spread_text(ten)} (with 100 seeds: "
            f"{len(run) - len(_outside_spread(run))} of {len(run)}).")


def gnb_real_streams(r: Reports) -> str:
    """How exact the real streams are, and how much the seeded subsample moves them."""
    run = _run(r.gnb100, PUDD_DETECTORS, _REAL)
    equal = run[(run["ours"].round(2) - run["paper"]).abs() < 0.005]
    examples = ", ".join(f"{_where(x)} {_name(x.detector)} "
                         f"{x.ours:.2f} = {x.paper:.2f}"
                         for x in equal.head(3).itertuples(index=False))
    moving = run[run["std"] > 0]
    widest = run.loc[run["std"].idxmax()]
    return (f"In the {len(r.gnb100.seeds)}-seed report, {len(equal)} of the {len(run)} PUDD "
            f"cells on elec2 and powersupply equal the paper's to the second decimal "
            f"(e.g. {examples}); "
            f"{len(moving)} of the {len(run)} vary across seeds at all, the most "
            f"{_where(widest)} "
            f"{_name(widest.detector)} (std {widest['std']:.2f} points).")


def gnb_baselines(r: Reports) -> str:
    """The river baselines against the paper: the synthetic streams, EDDM airline, KSWIN."""
    synthetic = _run(r.gnb, _RIVER, _SYNTHETIC)
    out = _outside(synthetic, 1.0)
    paper = paper_table(1)
    air = paper[(paper["classifier"] == "gnb") & (paper["dataset"] == "airline")
                & (paper["regime"] == "incremental")].set_index("detector")["accuracy"]
    eddm = float(air["eddm"])
    gap = eddm - float(air.drop("eddm").max())
    kswin = _run(r.gnb, ["kswin"])
    return (f"The river baselines are within ±1 point of the paper on "
            f"{len(synthetic) - len(out)} of their {len(synthetic)} cells on the synthetic "
            f"streams (outside: {_listing(out)}). On airline the paper's EDDM-I "
            f"({eddm:.2f}) is {gap:.1f} points above every other GNB airline-I entry of its own "
            f"table. KSWIN (the exact FastKSWIN): {_within_text(kswin, 1.5, 'comparable cells')}.")


def vfdt(r: Reports) -> str:
    """VFDT against the paper: PUDD, the baselines, KSWIN."""
    pudd = _within_text(_run(r.vfdt, PUDD_DETECTORS), 1.5, "PUDD-1/3/5 cells")
    return (f"With {_seeds(r.vfdt)}, {pudd}. "
            f"The river baselines: {_within_text(_run(r.vfdt, _RIVER), 1.5, 'cells')}. "
            f"KSWIN: {_within_text(_run(r.vfdt, ['kswin']), 1.5, 'cells')}.")


def _gaps_by_dataset(cells: pd.DataFrame) -> str:
    parts = []
    for dataset, rows in cells.groupby("dataset", sort=False):
        lo, hi = rows["difference"].min(), rows["difference"].max()
        span = f"{lo:+.1f}" if len(rows) == 1 else f"{lo:+.1f} to {hi:+.1f}"
        parts.append(f"{_name(dataset)} ({len(rows)} cell{'s' * (len(rows) != 1)}, {span})")
    return _words(parts)


def dnn_frozen(r: Reports) -> str:
    """The DNN with the authors' frozen-head bug against the paper."""
    run = _run(r.dnn, PUDD_DETECTORS)
    out = _outside(run, 1.5)
    spread = _outside_spread(run)
    return (f"With the bug and {_seeds(r.dnn)}, {len(run) - len(out)} of the {len(run)} PUDD "
            f"cells are within ±1.5 points, {len(run) - len(spread)} with the seed spread "
            f"(|ours − paper| ≤ max(1.5, 2 SE)). Outside ±1.5, by stream: "
            f"{_gaps_by_dataset(out)}" + (f"; outside both: {_gaps_by_dataset(spread)}."
                                          if len(spread) else "."))


def dnn_fixed(r: Reports) -> str:
    """The fixed DNN: what train-once gains over the paper's frozen-head numbers."""
    run = _run(r.dnn_fixed, PUDD_DETECTORS)
    out = _outside(run, 1.5)
    once = run[run["regime"] == "train-once"].groupby("dataset", sort=False)["difference"]
    gains = ", ".join(f"{_name(d)} {m:+.1f}" for d, m in once.mean().items())
    return (f"Fixed ({_seeds(r.dnn_fixed)}), {len(run) - len(out)} of the {len(run)} PUDD cells "
            f"are within ±1.5 points, {len(run) - len(_outside_spread(run))} with the seed "
            f"spread; the mean difference from the paper on train-once (-O), "
            f"by stream: {gains}.")


# -- Table 2 -----------------------------------------------------------------------------


def _seed_note(rows: pd.DataFrame) -> str:
    n = sorted(set(rows["n_seeds"].astype(int)))
    return f"{n[0]} seed{'s' * (n[0] != 1)}" if len(n) == 1 else \
        f"{n[0]}-{n[-1]} seeds"


def table2_sota(r: Reports) -> str:
    """Each SOTA method against the paper's number, on the seven comparable streams."""
    parts = []
    for method in (m for m in SOTA_METHODS if m in set(r.table2.cells["detector"])):
        run = _run(r.table2, [method])
        if run.empty:
            continue
        out = _outside(run, 2.0)
        parts.append(f"{_name(method)} ({_seed_note(run)}) within ±2 points of the paper on "
                     f"{len(run) - len(out)} of {len(run)} streams"
                     + (f" (outside: {_listing(out, detector=False)})" if len(out) else ""))
    return "Ours against the paper's SOTA numbers: " + "; ".join(parts) + "."


def table2_moves(r: Reports) -> str:
    """A Markdown table: each SOTA cell of the earlier procedures against the current one."""
    old = r.earlier_sota
    now = r.table2.cells
    rows = ["| method | stream | earlier procedure ± std (seeds) | now ± std (seeds) | move "
            "| alarms now |", "| --- | --- | ---: | ---: | ---: | ---: |"]
    for o in old.itertuples(index=False):
        match = now[(now["detector"] == o.detector) & (now["dataset"] == o.dataset)]
        if match.empty or math.isnan(match["ours"].iloc[0]):
            continue
        m = match.iloc[0]
        alarms = m.get("alarms", math.nan)
        rows.append(f"| {_name(o.detector)} | {_name(o.dataset)} | {o.ours:.2f} ± {o.std:.2f} "
                    f"({o.n_seeds}) "
                    f"| {m['ours']:.2f}" + ("" if m["std"] != m["std"] else f" ± {m['std']:.2f}")
                    + f" ({int(m['n_seeds'])}) | {m['ours'] - o.ours:+.2f} | "
                    + ("—" if alarms != alarms else f"{alarms:.1f}") + " |")
    return "\n".join(rows)


def table2_ranks(r: Reports) -> str:
    """Average ranks on our Table 2 and who is first on each stream."""
    from pudd_core.reproduction.claims import comparison_table
    from pudd_core.reproduction.significance import friedman_nemenyi

    table, blocks = comparison_table(r.ours, "table2")
    res = friedman_nemenyi(table, blocks=f"the {blocks} of Table 2")
    ranks = ", ".join(f"{_name(m)} {v:.2f}" for m, v in res.ranks.items())
    better = {p: [m for m in table.columns if res.differs(p, m) and res.ranks[p] < res.ranks[m]]
              for p in PUDD_DETECTORS if p in table}
    sig = "; ".join(f"{_name(p)} than {_words([_name(m) for m in v]) or 'no method'}"
                    for p, v in better.items())
    first = table.idxmax(axis=1)
    by_first: dict[str, list[str]] = {}
    for dataset, method in first.items():
        key = "a PUDD row" if str(method).startswith("pudd") else _name(str(method))
        by_first.setdefault(key, []).append(_name(str(dataset)))
    firsts = "; ".join(f"{k} on {_words(v)}" for k, v in by_first.items())
    return (f"Average ranks over the {len(table)} comparable streams: {ranks}. "
            f"Significantly better (rank difference above the CD): {sig}. First: {firsts}. "
            f"Test: {res.caption()}")


def table2_pudd(r: Reports) -> str:
    """PUDD's Table 2 cells against the paper, and the spread of the paper's sine cells."""
    run = _run(r.table2, PUDD_DETECTORS)
    sine = r.table2.cells[r.table2.cells["detector"].isin(PUDD_DETECTORS)
                          & (r.table2.cells["dataset"] == "sine")].set_index("detector")
    paper = " / ".join(f"{sine.loc[d, 'paper']:.2f}" for d in PUDD_DETECTORS)
    ours = " / ".join(f"{sine.loc[d, 'ours']:.2f}" for d in PUDD_DETECTORS)
    air = r.table2.cells[r.table2.cells["detector"].isin(PUDD_DETECTORS)
                         & (r.table2.cells["dataset"] == "airline")]["difference"].dropna()
    within = _within_text(run, 1.5, "PUDD cells on the seven comparable streams")
    text = (f"With {_seeds(r.table2)}, {within}. "
            f"On sine the paper's PUDD-1/3/5 read {paper}, ours {ours}: the paper's spread across "
            f"α is {sine['paper'].max() - sine['paper'].min():.2f} points, ours "
            f"{sine['ours'].max() - sine['ours'].min():.2f}.")
    if len(air):
        text += (f" airline (substitute data, not comparable): {air.min():+.1f} to "
                 f"{air.max():+.1f} points.")
    return text


# -- the references ----------------------------------------------------------------------


def _paired(report: ReproductionReport) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(ranked cells run beside a no-detector row, those at or below it)."""
    cells = report.cells.dropna(subset=["ours"])
    ranked = cells[~cells["detector"].isin(REFERENCES)]
    paired = ranked.merge(cells[cells["detector"] == "none"][["dataset", "regime"]],
                          on=["dataset", "regime"])
    return paired, report.beaten_by_nothing()


def _references_table1(report: ReproductionReport, file: str, label: str) -> str:
    """What the references of a Table 1 report show: cells at or below doing nothing."""
    paired, low = _paired(report)
    if paired.empty:
        return f"{label} (`{file}`): no reference rows run yet."
    refs = report.cells[report.cells["detector"].isin(REFERENCES)]
    pudd = low[low["detector"].isin(PUDD_DETECTORS)]
    by_data = low["dataset"].value_counts()
    oracle = report.cells[report.cells["detector"] == "oracle"].dropna(subset=["alarms"])
    exact = bool(len(oracle)) and bool((oracle["alarms"] == oracle["drifts"]).all()
                                       and (oracle["false_alarms"] == 0).all())
    cells = ", ".join(f"{_name(x.detector)} {_where(x)}"
                      for x in pudd.itertuples(index=False))
    return (f"{label} (`{file}`, {_seeds(report)}; the references' "
            f"{int(refs['n_seeds'].sum())} runs): {len(low)} of the {len(paired)} cells run "
            f"beside a no-detector row are at or below it, {len(pudd)} of them PUDD's"
            + (f" ({cells})" if len(pudd) else "")
            + (f"; by stream: {', '.join(f'{_name(d)} {n}' for d, n in by_data.items())}. "
               if len(low) else ". ")
            + ("The oracle alarms exactly at the true drifts of each synthetic stream, with no "
               "false alarm." if exact else ""))


def references_gnb(r: Reports) -> str:
    """The references of Table 1 with GNB."""
    return _references_table1(r.gnb, "table1_gnb.md", "Table 1 with GNB")


def references_vfdt(r: Reports) -> str:
    """The references of Table 1 with VFDT."""
    return _references_table1(r.vfdt, "table1_vfdt.md", "Table 1 with VFDT")


def references_dnn(r: Reports) -> str:
    """The references of Table 1 with the DNN, frozen head and fixed."""
    return (_references_table1(r.dnn, "table1_dnn.md",
                               "Table 1 with the DNN and the authors' frozen-head bug")
            + " " + _references_table1(r.dnn_fixed, "table1_dnn_fixed_head.md",
                                       "With the head fixed"))


def references_acceptance(r: Reports) -> str:
    """The references of the 100-seed GNB acceptance run."""
    return _references_table1(r.gnb100, "table1_gnb_acceptance_100seeds.md",
                              "The 100-seed GNB acceptance run")


def references_table2(r: Reports) -> str:
    """The references of Table 2: where never adapting wins, and the alarms of MCD-DD."""
    paired, low = _paired(r.table2)
    cells = r.table2.cells.dropna(subset=["ours"])
    ranked = cells[~cells["detector"].isin(REFERENCES)]
    none = cells[cells["detector"] == "none"].set_index("dataset")["ours"]
    oracle = cells[cells["detector"] == "oracle"].set_index("dataset")["ours"]
    best = ranked.groupby("dataset")["ours"].max()
    ahead = [d for d in none.index if none[d] >= best.get(d, math.inf) - 1e-9]
    above_oracle = [d for d in oracle.index if none[d] > oracle[d]]
    level = [d for d in oracle.index if abs(
        ranked[(ranked["dataset"] == d) & ranked["detector"].isin(PUDD_DETECTORS)]["ours"].max()
        - oracle[d]) < 0.1]
    text = (f"Table 2 with the 5-DNN ensemble (`table2_dnn-ensemble.md`): {len(low)} of the "
            f"{len(paired)} cells run beside a no-detector row are at or below it. The ensemble "
            f"that never adapts is ahead of every ranked row on "
            f"{_words([_name(d) for d in ahead]) or 'no stream'}, and of the oracle on "
            f"{_words([_name(d) for d in above_oracle]) or 'no stream'}")
    text += (f"; the best PUDD is level with the oracle (within 0.1 points) on "
             f"{_words([_name(d) for d in level])}." if level else ".")
    mcdd = cells[(cells["detector"] == "mcd-dd") & cells["dataset"].isin(_SYNTHETIC)]
    if len(mcdd) and mcdd["alarms"].notna().all():
        drifts = sorted(set(mcdd["drifts"].dropna().astype(int)))
        text += (" MCD-DD's mean alarms per run: " + ", ".join(
            f"{_name(x.dataset)} {x.alarms:.1f}" for x in mcdd.itertuples(index=False))
            + f" (against {_words([str(d) for d in drifts])} true drifts).")
    return text


def references_cifar(r: Reports) -> str:
    """The references of the CIFAR-10-CD comparison."""
    from pudd_core.reproduction.cifar import paired_ranks

    cells = r.cifar
    by = cells.set_index("detector")["accuracy"]
    ranked = cells[~cells["detector"].isin(REFERENCES)]
    low = int((ranked["accuracy"] <= by["none"] + 1e-9).sum())
    ranks = paired_ranks(cells)
    lead = (f" The paired ranks among the detectors put {_name(str(ranks.ranks.index[0]))} first."
            if ranks is not None else "")
    return (f"CIFAR-10-CD (`cifar10_cd.md`): with no detector at all the frozen-backbone CNN "
            f"scores {by['none']:.2f} %, and {low} of the {len(ranked)} ranked detectors are "
            f"at or below it; the oracle scores {by['oracle']:.2f} %.{lead}")


def cifar_frontier(r: Reports) -> str:
    """Detection against false alarms on the CIFAR-10-CD comparison's shared seeds."""
    cells = r.cifar[~r.cifar["detector"].isin(REFERENCES)].set_index("detector")
    drifts = int(cells["drifts"].iloc[0])
    points = cells[["early", "false_alarms"]].astype(float)
    front = [d for d in points.index if not any(
        (points.loc[o, "early"] >= points.loc[d, "early"])
        and (points.loc[o, "false_alarms"] <= points.loc[d, "false_alarms"])
        and tuple(points.loc[o]) != tuple(points.loc[d]) for o in points.index)]
    front.sort(key=lambda d: points.loc[d, "false_alarms"])
    seeds = str(r.cifar["seeds"].iloc[0]).split()
    return (f"Detection on the same {len(seeds)} seeds ({drifts} true interest changes, each "
            f"detector on the same streams), the front of drifts detected within two chunks "
            f"against false alarms per run: "
            + _words([f"{_name(d)} ({int(points.loc[d, 'early'])} of {drifts}, "
                      f"{points.loc[d, 'false_alarms']:.1f} false alarms per run)"
                      for d in front]) + "; each of the others detects no more drifts early and "
            "raises no fewer false alarms than one of them.")


# -- the claims, Fig. 5 -------------------------------------------------------------------


def claims(r: Reports) -> str:
    """The verdict table of the claims check (``claims.md`` has each finding and test)."""
    from pudd_core.reproduction.verdicts import verdict_text

    paper, ours = r.claims
    by = {c.claim: c for c in ours}
    rows = ["| claim | the paper says | its own tables | our runs |", "| --- | --- | --- | --- |"]
    for c in paper:
        o = by.get(c.claim)
        rows.append(f"| {c.claim} | {c.statement} | {verdict_text(c)} | "
                    f"{verdict_text(o) if o else '–'} |")
    return "\n".join(rows)


def claims_details(r: Reports) -> str:
    """What the paper's own numbers give, claim by claim (``finding`` of each check)."""
    paper, _ = r.claims
    return "\n".join(f"- {c.claim}: {c.finding}." for c in paper
                     if c.claim in ("1a", "1c", "1e", "2b", "2c", "3b", "3d", "5b", "6a"))


def table1_ours(r: Reports) -> str:
    """Claims 1a, 1c, 1e on our runs, as their findings say."""
    _, ours = r.claims
    by = {c.claim: c for c in ours}
    return (f"On our runs (GNB and VFDT, KSWIN included): PUDD first in {by['1a'].finding} (-I) "
            f"and {by['1c'].finding} (-O); {by['1e'].finding}.")


# -- fidelity ----------------------------------------------------------------------------


def fidelity_table(groups: Sequence[tuple[str, ReproductionReport, str, Sequence[str]]]) -> str:
    """A Markdown table: per report and rows, the cells within ±1.5 and within the seed spread.

    ``groups`` holds (file, report, label of the rows, detectors); a group with no cell that
    has both ours and the paper's number on the seven comparable streams is left out.
    """
    import numpy as np

    rows = ["| report | rows | seeds per cell | cells | within ±1.5 | within max(1.5, 2 SE) "
            "| largest 2 SE |", "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    for file, report, label, detectors in groups:
        run = _run(report, detectors)
        if run.empty:
            continue
        twice_se = 2 * run["std"].astype(float) / np.sqrt(run["n_seeds"].astype(float))
        largest = "—" if twice_se.isna().all() else f"{twice_se.max():.2f}"
        rows.append(f"| `{file}` | {label} | {_seed_note(run)} | {len(run)} "
                    f"| {len(run) - len(_outside(run, TOLERANCE))} "
                    f"| {len(run) - len(_outside_spread(run))} | {largest} |")
    return "\n".join(rows)


def fidelity(r: Reports) -> str:
    """Every committed Table 1/2 report against the paper by both criteria."""
    pudd, classic = "PUDD-1/3/5", "river baselines (KSWIN included)"
    return fidelity_table([
        ("table1_gnb_acceptance_100seeds.md", r.gnb100, pudd, PUDD_DETECTORS),
        ("table1_gnb.md", r.gnb, pudd, PUDD_DETECTORS),
        ("table1_gnb.md", r.gnb, classic, CLASSIC_DETECTORS),
        ("table1_vfdt.md", r.vfdt, pudd, PUDD_DETECTORS),
        ("table1_vfdt.md", r.vfdt, classic, CLASSIC_DETECTORS),
        ("table1_dnn.md", r.dnn, pudd, PUDD_DETECTORS),
        ("table1_dnn.md", r.dnn, classic, CLASSIC_DETECTORS),
        ("table1_dnn_fixed_head.md", r.dnn_fixed, pudd, PUDD_DETECTORS),
        ("table2_dnn-ensemble.md", r.table2, pudd, PUDD_DETECTORS),
        ("table2_dnn-ensemble.md", r.table2, "SOTA methods", SOTA_METHODS),
    ])


# -- README ------------------------------------------------------------------------------


def readme_acceptance(r: Reports) -> str:
    """The README's one-paragraph summary of the acceptance and the within-tolerance counts."""
    from pudd_core.reproduction.report import acceptance_headline

    head = acceptance_headline(r.gnb100)
    counts = []
    for label, report, detectors in (
            (f"VFDT ({_seeds(r.vfdt)})", r.vfdt, PUDD_DETECTORS),
            (f"the DNN ensemble of Table 2 ({_seeds(r.table2)})", r.table2, PUDD_DETECTORS),
            (f"the DNN ({_seeds(r.dnn)}, with the authors' frozen-head bug)", r.dnn,
             PUDD_DETECTORS)):
        run = _run(report, detectors)
        counts.append(f"{label}: {len(run) - len(_outside(run, 1.5))} of {len(run)} "
                      f"({len(run) - len(_outside_spread(run))} with the seed spread)")
    return (f"**GNB, Table 1: {head.within} of the {head.total} acceptance cells (PUDD-1/3/5 of "
            f"GNB-I and GNB-O on {', '.join(ACCEPTANCE_DATASETS)}) are within ±1.5 points of "
            f"the paper with {_seeds(r.gnb100)} (largest gap {head.largest_gap:.2f} points; on "
            f"the real streams elec2 and powersupply at most {head.largest_gap_real:.2f}).** "
            f"PUDD cells within ±1.5 (and within max(1.5, 2 × the cell's standard error over "
            f"its seeds)): " + "; ".join(counts) + ".")


def table2_paper_statistics(r: Reports) -> str:
    """The Friedman/Nemenyi test on the paper's own Table 2."""
    from pudd_core.reproduction.claims import comparison_table, paper_cells
    from pudd_core.reproduction.significance import friedman_nemenyi, one_generator_note

    table, _ = comparison_table(paper_cells(), "table2")
    res = friedman_nemenyi(table, blocks="datasets")
    ranks = res.ranks
    better = {m for p in PUDD_DETECTORS for m in table.columns
              if res.differs(p, m) and ranks[p] < ranks[m]}
    rest = [m for m in SOTA_METHODS if m in table and m not in better]
    p = f"{res.p_value:.2g}".replace("e-0", "e-")
    return (f"On the paper's own Table 2 ({len(table)} datasets × {len(table.columns)} methods, "
            f"α = 0.05): Friedman p = {p}, CD = {res.critical_difference:.3f}, average ranks "
            + ", ".join(f"{_name(m)} {v:.3f}" for m, v in ranks.items())
            + f", so PUDD is significantly better than {_words(sorted(map(_name, better)))} "
            f"only, not than {_words([_name(m) for m in rest])}."
            + one_generator_note(res.one_generator, res.n_blocks))


def readme_table2(r: Reports) -> str:
    """The README's paragraph on what the committed Table 2 holds and finds."""
    from pudd_core.reproduction.claims import comparison_table
    from pudd_core.reproduction.significance import friedman_nemenyi

    cells = r.table2.cells.dropna(subset=["ours"])
    seeds: dict[str, list[str]] = {}
    for det, rows in cells[~cells["detector"].isin(REFERENCES)].groupby("detector", sort=False):
        seeds.setdefault(_seed_note(rows), []).append(_name(str(det)))
    held = "; ".join(f"{_words(v)} at {k}" for k, v in seeds.items())
    table, _ = comparison_table(r.ours, "table2")
    res = friedman_nemenyi(table, blocks="datasets")
    top = str(res.ranks.index[0])
    first = table.idxmax(axis=1)
    n_pudd = int(first.astype(str).str.startswith("pudd").sum())
    better = sorted({m for p in PUDD_DETECTORS for m in table.columns
                     if res.differs(p, m) and res.ranks[p] < res.ranks[m]})
    mcdd = cells[(cells["detector"] == "mcd-dd") & cells["dataset"].isin(_SYNTHETIC)]
    paired, low = _paired(r.table2)
    text = (f"The committed `results/table2_dnn-ensemble.md` holds {held} (a cell's seeds are in "
            f"the report). What it finds: on our runs {_name(top)} ranks first on average over "
            f"the {len(table)} comparable streams and a PUDD row is first on {n_pudd} of "
            f"{len(table)}, but PUDD is significantly better than "
            f"{_words([_name(m) for m in better]) or 'no method'} only")
    if len(mcdd):
        sine = cells[(cells["detector"] == "mcd-dd") & (cells["dataset"] == "sine")]["ours"]
        text += (f"; MCD-DD, which reads the features alone, raises at most "
                 f"{mcdd['alarms'].max():.1f} alarms per run on the synthetic streams, where "
                 f"only the labels' concept drifts, and scores "
                 f"{float(sine.iloc[0]):.2f} % on sine")
    return text + (f". And the same ensemble with no detector at all, a reference row of the "
                   f"report, is at or above {len(low)} of the {len(paired)} cells run beside it.")


#: Every generated passage by its block name.
FINDINGS: dict[str, Callable[[Reports], str]] = {
    "gnb-acceptance": gnb_acceptance,
    "gnb-real-streams": gnb_real_streams,
    "gnb-baselines": gnb_baselines,
    "vfdt": vfdt,
    "dnn-frozen": dnn_frozen,
    "dnn-fixed": dnn_fixed,
    "table2-sota": table2_sota,
    "table2-moves": table2_moves,
    "table2-ranks": table2_ranks,
    "table2-pudd": table2_pudd,
    "references-gnb": references_gnb,
    "references-vfdt": references_vfdt,
    "references-dnn": references_dnn,
    "references-acceptance": references_acceptance,
    "references-table2": references_table2,
    "references-cifar": references_cifar,
    "cifar-frontier": cifar_frontier,
    "claims": claims,
    "claims-details": claims_details,
    "table1-ours": table1_ours,
    "readme-acceptance": readme_acceptance,
    "table2-paper-statistics": table2_paper_statistics,
    "readme-table2": readme_table2,
    "fidelity": fidelity,
    # the threshold studies (issue 35), read from the folder's results/*.csv
    **REPORT_FINDINGS,
}
FINDINGS.update(__import__("pudd_core.reproduction.findings_more", fromlist=["MORE"]).MORE)


def _check_names(text: str) -> None:
    opened = _OPEN.findall(text)
    unknown = sorted(set(opened) - set(FINDINGS))
    if unknown:
        raise ValueError(f"unknown finding block(s) {', '.join(unknown)}; known: "
                         f"{', '.join(FINDINGS)}")
    if len(opened) != len(_BLOCK.findall(text)):
        raise ValueError("a finding block is not closed: each '<!-- finding: NAME -->' line "
                         "needs a '<!-- /finding -->' after it")


def render(name: str, reports: Reports) -> str:
    """The text of finding ``name``: prose wrapped at 92 characters, a table as it is."""
    text = FINDINGS[name](reports)
    if text.startswith("|"):
        return text
    return textwrap.fill(text, 92, break_long_words=False, break_on_hyphens=False)


def fill_findings(text: str, reports: Reports) -> str:
    """``text`` with every finding block written again from ``reports``."""
    _check_names(text)
    return _BLOCK.sub(lambda m: m.group(1) + render(m.group(2), reports) + m.group(4), text)


def stale_findings(text: str, reports: Reports) -> list[str]:
    """The names of the blocks of ``text`` whose text is not what ``reports`` give."""
    _check_names(text)
    return [m.group(2) for m in _BLOCK.finditer(text)
            if m.group(3) != render(m.group(2), reports)]


def without_markers(text: str) -> str:
    r"""``text`` without the blocks' comment lines, for a renderer that would show them.

    Examples
    --------
    >>> without_markers("Lead. <!-- finding: claims -->\nthe text<!-- /finding --> More.")
    'Lead. the text More.'
    """
    return re.sub(r"\n?<!-- /finding -->", "", re.sub(r"<!-- finding: \S+ -->\n", "", text))
