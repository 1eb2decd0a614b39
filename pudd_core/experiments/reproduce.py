"""Reproduce the paper's Tables 1 and 2: the runs behind each table and a report against it.

:func:`reproduction_configs` lists the runs; any executor runs them (``experiments.grid``);
:func:`reproduction_report` puts the mean accuracy over seeds beside the published number.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pudd_core import _options, _validation
from pudd_core.experiments.baselines import ALIASES
from pudd_core.experiments.detectors import DETECTORS, needs_drifts, takes_alpha
from pudd_core.experiments.runner import RunConfig
from pudd_core.experiments.significance import at_reported_precision
from pudd_core.paper import (
    DATASETS,
    DISPLAY_NAMES,
    LAYOUTS,
    PUDD_DETECTORS,
    REFERENCES,
    SOTA_DETECTORS,
    SOTA_LEARNERS,
    SOTA_METHODS,
    SOTA_NOT_RUN,
    Regime,
    TableLayout,
    paper_table,
    row_role,
)
from pudd_core.streams import drifts_known

if TYPE_CHECKING:
    import os

    import pandas as pd

__all__ = [
    "ACCEPTANCE_DATASETS",
    "ALARM_COLUMNS",
    "ReproductionReport",
    "SETTING_COLUMNS",
    "alarm_stats",
    "alarm_text",
    "check_addition",
    "checked_numbers",
    "detector_label",
    "merge_reports",
    "read_report",
    "reproduction_configs",
    "reproduction_report",
    "seed_text",
]

#: Datasets of the acceptance check: all but airline, whose file is a substitute.
ACCEPTANCE_DATASETS = ("sea0", "sea10", "sea20", "sine", "mixed", "elec2", "powersupply")
_REQUIRED = ("dataset", "classifier", "detector", "alpha", "regime", "seed", "accuracy", "status")
_CELL = ["detector", "dataset", "regime"]
# RunConfig fields besides the cell and the seed: one cell must not mix two values of any.
_SETTINGS = {"adaptation": "window", "chunk_size": "default", "n_chunks": "default",
             "double_initial_fit": "True", "detector_options": "{}",
             "classifier_options": "{}", "stream_options": "{}"}
#: The settings a report records for each cell it ran (``""`` for a cell not run): what makes
#: two runs of a cell comparable. ``reproduce --add`` refuses runs of other settings.
SETTING_COLUMNS = tuple(_SETTINGS)
# a report written before reports recorded their settings, whose Markdown does not tell them
_UNKNOWN = "unknown"
#: A report's cells; a saved CSV adds ``table`` and ``classifier`` (what the report is).
_COLUMNS = ["detector", "dataset", "regime", "paper", "ours", "difference", "std", "n_seeds",
            "n_errors", "seeds", "alarms", "drifts", "detected", "false_alarms", "delay",
            *SETTING_COLUMNS]
#: A cell's alarm counts, means over its seeds (NaN where not known: a learner raises no
#: alarms, a real stream's drifts are unknown, a report written before reports counted them).
_ALARMS = ["alarms", "drifts", "detected", "false_alarms", "delay"]
#: A cell's alarm columns, as every comparison's report writes them (:func:`alarm_stats`).
ALARM_COLUMNS = tuple(_ALARMS)
_FROZEN = '"reproduce_frozen_head": true'


def _layout(table: int, classifier: str) -> TableLayout:
    layout = LAYOUTS.get(table) if isinstance(table, int) else None
    if layout is None:
        raise ValueError(f"unknown table {table!r}; choose 1 (classic detectors) or 2 (SOTA)")
    if classifier not in layout.classifiers:
        raise ValueError(f"table {table} has classifier(s) {', '.join(layout.classifiers)}, "
                         f"not {classifier!r}")
    return layout


def _choose(kind: str, chosen: str | Sequence[str] | None, allowed: Sequence[str]) -> list[str]:
    if chosen is None:
        return list(allowed)
    names = [chosen] if isinstance(chosen, str) else list(chosen)
    unknown = [n for n in names if n not in allowed]
    if unknown or not names:
        raise _validation.ParameterError(
            f"{kind}s", f"{kind}s must be among {', '.join(allowed)}; got {names!r}", allowed)
    return [n for n in allowed if n in names]  # the table's order, duplicates dropped


def reproduction_configs(
    table: int,
    classifier: str,
    seeds: int | Sequence[int],
    *,
    datasets: Sequence[str] | None = None,
    detectors: Sequence[str] | None = None,
    regimes: Sequence[str] | None = None,
    n_chunks: int | None = None,
    reproduce_frozen_head: bool = False,
) -> list[RunConfig]:
    """The runs behind one of the paper's tables, for one classifier.

    Table 1 (with the appendix's sea10/sea20): every dataset × regime × detector × seed,
    PUDD-x as ``RunConfig(detector="pudd", alpha=10**-x)``, each baseline by name with river's
    defaults. Table 2, incremental only (the readme's command): the 5-DNN ensemble
    (``"dnn-ensemble"``) with PUDD-1/3/5 and with the SOTA detectors (MCD-DD), and the SOTA
    learners (AMF, NS, ADLTER) as ``RunConfig(dataset, name, detector="none")``; IWE is not
    run (``pudd_core.paper.SOTA_NOT_RUN`` says why). Both tables add the reference rows
    ``none`` (the same model with no detector: it never adapts) and ``oracle`` (it adapts
    exactly at the true drifts, on synthetic streams only).

    Parameters
    ----------
    table
        1 or 2.
    classifier
        ``"dnn"``, ``"gnb"`` or ``"vfdt"`` for table 1; ``"dnn-ensemble"`` for table 2.
    seeds
        A count *n* (seeds ``0 .. n - 1``; the paper uses 100) or the seeds themselves.
    datasets, detectors, regimes
        Subsets in our names (default: all of the table, and both reference rows). KSWIN,
        river's per-instance KS test, costs about 60 s per 100-chunk GNB episode;
        ``detectors=`` can leave it out.
    n_chunks
        Shorter streams for a quick look (default: the paper's lengths).
    reproduce_frozen_head
        DNN only: reproduce the authors' frozen-head bug, which produced the published DNN
        numbers (spec §8.1); off by default, the fixed adaptation.

    Examples
    --------
    >>> cfgs = reproduction_configs(1, "gnb", 10, detectors=["ddm", "pudd-3"])
    >>> len(cfgs), cfgs[0].dataset, cfgs[-1].dataset
    (320, 'airline', 'sea20')
    >>> sorted({(c.detector, c.alpha) for c in cfgs})
    [('ddm', 0.001), ('pudd', 0.001)]
    >>> [(c.classifier, c.detector, c.alpha) for c in reproduction_configs(
    ...     2, "dnn-ensemble", [7], datasets=["sine"], detectors=["amf", "ns", "pudd-3"])]
    [('amf', 'none', 0.001), ('ns', 'none', 0.001), ('dnn-ensemble', 'pudd', 0.001)]

    The reference rows (:data:`~pudd_core.paper.REFERENCES`), run by default: the same model
    with no detector, and the oracle, only on streams whose drifts are known:

    >>> [(c.dataset, c.classifier, c.detector) for c in reproduction_configs(
    ...     1, "gnb", [0], datasets=["elec2", "sea0"], regimes=["incremental"],
    ...     detectors=["none", "oracle"])]
    [('elec2', 'gnb', 'none'), ('sea0', 'gnb', 'none'), ('sea0', 'gnb', 'oracle')]
    """
    layout = _layout(table, classifier)
    if isinstance(seeds, bool) or (isinstance(seeds, int) and seeds < 1):
        raise ValueError(f"seeds must be a positive count or a list of seeds, got {seeds!r}")
    seed_list = list(range(seeds)) if isinstance(seeds, int) else [int(s) for s in seeds]
    if not seed_list or min(seed_list) < 0 or len(set(seed_list)) != len(seed_list):
        raise ValueError(f"seeds must be distinct non-negative integers, got {seeds!r}")
    if reproduce_frozen_head and classifier != "dnn":
        raise ValueError("reproduce_frozen_head applies to classifier 'dnn' only")
    runnable = [d for d in layout.detectors
                if d not in SOTA_NOT_RUN and (d not in SOTA_DETECTORS or d in DETECTORS)]
    options = (("reproduce_frozen_head", True),) if reproduce_frozen_head else ()
    out = []
    for dataset in _choose("dataset", datasets, layout.datasets):
        for regime in _choose("regime", regimes, layout.regimes):
            for name in _choose("detector", detectors, [*runnable, *REFERENCES]):
                if needs_drifts(name) and not drifts_known(dataset):
                    continue  # a real stream: no true drifts to adapt at
                pudd = name in PUDD_DETECTORS
                learner = name in SOTA_LEARNERS
                cfgs = [RunConfig(
                    dataset, name if learner else classifier,
                    "none" if learner else "pudd" if pudd else name,
                    alpha=float(f"1e-{name[5:]}") if pudd else RunConfig.alpha,
                    regime=cast(Regime, regime),
                    seed=seed, n_chunks=n_chunks, classifier_options=options,
                ) for seed in seed_list]
                cfgs[0].validate()  # the seed changes nothing that validate() checks
                out.extend(cfgs)
    if not out:
        raise _validation.ParameterError(
            "detectors", "nothing to run: the oracle adapts at a stream's true drifts, and "
                         f"{', '.join(datasets or ())} has none known; add a synthetic "
                         "dataset or another detector")
    return out


def detector_label(detector: str, alpha: float) -> str:
    """The paper's row name of a run: PUDD-x for PUDD with ``alpha = 10**-x``, else the name.

    Examples
    --------
    >>> detector_label("pudd", 1e-3), detector_label("ph", 1e-3), detector_label("pudd", 0.05)
    ('pudd-3', 'pagehinkley', 'pudd@0.05')
    """
    detector = ALIASES.get(detector, detector)
    if detector not in DETECTORS or not takes_alpha(detector):
        return detector
    x = -math.log10(alpha)
    return f"{detector}-{round(x)}" if abs(x - round(x)) < 1e-9 else f"{detector}@{alpha:g}"


def _setting_text(name: str, value: Any) -> str:
    """One canonical string per setting value, whatever the store's encoding."""
    import pandas as pd

    if not isinstance(value, str | tuple | list | dict) and pd.isna(value):
        return "default"  # None, NaN or pd.NA: Parquet's null for "the stream's default"
    if name.endswith("_options"):
        if isinstance(value, str):
            parsed = _options.read_options_json(value)  # older stores: str(dict) in error rows
            if parsed is None:
                return value
            value = parsed
        return _options.options_json(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value.item() if hasattr(value, "item") else value)


def seed_text(seeds: Sequence[int]) -> str:
    """``[0, 1, 2, 5]`` -> ``"0-2, 5"``: seeds as every report writes them (none: "none").

    Examples
    --------
    >>> seed_text([5, 0, 1, 2]), seed_text([0, 3]), seed_text([])
    ('0-2, 5', '0, 3', 'none')
    """
    parts: list[str] = []
    for s in sorted(seeds):
        if parts and parts[-1].split("-")[-1] == str(s - 1):
            parts[-1] = f"{parts[-1].split('-')[0]}-{s}"
        else:
            parts.append(str(s))
    return ", ".join(parts) if parts else "none"


def _parse_seed_text(text: str) -> frozenset[int]:
    """``"0-2, 5"`` -> ``{0, 1, 2, 5}``: the inverse of :func:`seed_text` (``""``: none).

    Examples
    --------
    >>> sorted(_parse_seed_text("0-2, 5")), _parse_seed_text("")
    ([0, 1, 2, 5], frozenset())
    """
    seeds: set[int] = set()
    for part in (p.strip() for p in text.split(",")):
        if not part or part == "none":
            continue
        first, _, last = part.partition("-")
        if not first.isdigit() or not (last.isdigit() or not last):
            raise ValueError(f"seeds {text!r} are not like '0-2, 5'")
        seeds.update(range(int(first), int(last or first) + 1))
    return frozenset(seeds)


@dataclass(frozen=True, eq=False)
class ReproductionReport:
    """Our mean accuracies beside the paper's, one row per (detector, dataset, regime).

    ``cells`` columns: ``detector, dataset, regime, paper, ours, difference`` (ours − paper),
    ``std`` (over seeds), ``n_seeds`` (runs behind ``ours``), ``n_errors`` (failed runs, left
    out), ``seeds`` (the seeds behind ``ours``, e.g. ``"0-2, 5"``; ``""`` for a cell not run,
    and for a cell of a report written before reports recorded them, whose seeds its header
    does not tell); accuracies in percent. Paper cells appear for each dataset and regime we
    ran. ``seeds`` is the union of the cells' seeds.

    Examples
    --------
    >>> report = reproduction_report(_example_runs(), 1, "gnb")
    >>> report.table, report.classifier, report.seeds, report.n_errors
    (1, 'gnb', (0, 1), 1)
    >>> report.cells.query("n_seeds > 0")[["detector", "paper", "ours", "n_seeds", "n_errors"]]
      detector  paper  ours  n_seeds  n_errors
    1      ddm  93.97  93.0        1         1
    8   pudd-3  94.81  95.1        2         0
    """

    table: int
    classifier: str
    cells: pd.DataFrame
    seeds: tuple[int, ...]
    n_errors: int
    caveats: tuple[str, ...]
    run_seconds: float = float("nan")  # the ok runs' summed wall time (``elapsed_s``), if known

    def within(
        self,
        tolerance: float = 1.5,
        *,
        detectors: Sequence[str] = PUDD_DETECTORS,
        datasets: Sequence[str] = ACCEPTANCE_DATASETS,
        regimes: Sequence[str] | None = None,
        include_missing: bool = True,
    ) -> pd.DataFrame:
        """The acceptance check: cells more than ``tolerance`` points from the paper.

        Every published cell of ``detectors × datasets × regimes`` (default regimes: the
        table's) is checked. Returned rows carry ``problem``: ``"outside"`` or, with
        ``include_missing``, ``"not run"``, so a check over no runs cannot pass. Empty: pass.

        Examples
        --------
        >>> report = reproduction_report(_example_runs(), 1, "gnb")
        >>> report.within(datasets=["sea0"], regimes=["incremental"])[["detector", "problem"]]
          detector  problem
        0   pudd-1  not run
        1   pudd-5  not run
        >>> report.within(0.1, datasets=["sea0"], include_missing=False)[
        ...     ["detector", "ours", "paper", "problem"]]
          detector  ours  paper  problem
        0   pudd-3  95.1  94.81  outside
        """
        if not tolerance >= 0:
            raise ValueError(f"tolerance must be >= 0, got {tolerance!r}")
        expected = paper_table(self.table)
        expected = expected[(expected["classifier"] == self.classifier)
                            & expected["detector"].isin(detectors)
                            & expected["dataset"].isin(datasets)
                            & (expected["regime"].isin(regimes) if regimes is not None else True)]
        expected = expected[_CELL + ["accuracy"]].rename(columns={"accuracy": "paper"})
        merged = expected.merge(self.cells.drop(columns="paper"), on=_CELL, how="left")
        merged["difference"] = merged["ours"] - merged["paper"]
        merged[["n_seeds", "n_errors"]] = merged[["n_seeds", "n_errors"]].fillna(0).astype(int)
        outside = merged["difference"].abs() > tolerance + 1e-9  # float noise at the edge
        missing = merged["ours"].isna() & include_missing
        merged["problem"] = outside.map({True: "outside", False: "not run"})
        return merged[outside | missing].reset_index(drop=True)

    def markdown(self) -> str:
        """The report as Markdown: header, caveats, one table per regime, the acceptance check.

        Examples
        --------
        >>> text = reproduction_report(_example_runs(), 1, "gnb").markdown()
        >>> print(text.splitlines()[0])
        # Table 1: classic drift detectors (appendix: sea10, sea20): reproduction with GNB
        >>> [line for line in text.splitlines() if line.startswith("| PUDD-3")]
        ['| PUDD-3 | 95.10 / 94.81 (+0.29) |']
        """
        name = DISPLAY_NAMES.get(self.classifier, self.classifier)
        n_ok = int(self.cells["n_seeds"].sum())
        lines = [
            f"# {LAYOUTS[self.table].title}: reproduction with {name}",
            "",
            f"- Classifier: `{self.classifier}`.",
            f"- Seeds: {seed_text(self.seeds)} ({len(self.seeds)} seeds; the paper averages "
            f"100). Runs: {n_ok} ok, {self.n_errors} failed (left out)."
            if self.seeds or not n_ok else
            f"- Seeds: not recorded (up to {self._most_seeds()} per cell; the paper averages "
            f"100). Runs: {n_ok} ok, {self.n_errors} failed (left out).",
            "- Cell: ours / paper (ours − paper), accuracy in %: per run the mean per-chunk "
            "accuracy over the tested chunks, then the mean over seeds. "
            "`[n=k]` marks a cell with fewer seeds, `[e err]` failed runs. Rows marked (ref.) "
            "are references, not ranked: the same model with no detector, and the oracle "
            "adapting at the true drifts (synthetic streams only).",
            "- Alarms: per run the number of alarms, then the mean over seeds; where the true "
            "drifts are known, also the drifts detected (an alarm within a drift's segment; "
            "of those there), the false alarms (the others) and the mean delay in chunks over "
            "all detected drifts (0: on the drift's first chunk). — : a learner (it adapts by "
            "itself and raises no alarms), or runs that did not count their alarms.",
            *([f"- Run time: {self.run_seconds / 60:.1f} min summed over the {n_ok} runs "
               f"({self.run_seconds / max(n_ok, 1):.1f} s per run on one core); "
               f"{_versions()}."] if not math.isnan(self.run_seconds) else []),
            "",
            "## Caveats",
            "",
            *(f"- {c}" for c in self.caveats),
        ]
        for regime in self._regimes():
            part = self.cells[self.cells["regime"] == regime]
            cols = _ordered(part["dataset"], DATASETS)
            rows = _ordered(part["detector"], (*LAYOUTS[self.table].detectors, *REFERENCES))
            by_key = {(r.detector, r.dataset): r for r in part.itertuples(index=False)}
            header = ["| detector | " + " | ".join(DISPLAY_NAMES.get(c, c) for c in cols) + " |",
                      "| --- |" + " ---: |" * len(cols)]
            lines += ["", f"## {_REGIME_TITLES[regime]}", "", *header]
            for det in rows:
                texts = [self._cell_text(by_key.get((det, c))) if not needs_drifts(det)
                         or drifts_known(c) else "drifts unknown" for c in cols]
                lines.append(f"| {DISPLAY_NAMES.get(det, det)} | " + " | ".join(texts) + " |")
            counted = [d for d in rows if any(
                (r := by_key.get((d, c))) is not None and r.n_seeds > 0 for c in cols)]
            if any(_counted(by_key.get((d, c))) for d in counted for c in cols):
                lines += ["", f"### {_REGIME_TITLES[regime]}: alarms", "", *header]
                lines += [f"| {DISPLAY_NAMES.get(d, d)} | " + " | ".join(
                    alarm_text(by_key.get((d, c))) for c in cols) + " |" for d in counted]
        lines += self._reference_lines()
        bad = self.within()
        lines += ["", "## Acceptance: PUDD-1/3/5 within ±1.5 points", "",
                  f"Datasets {', '.join(ACCEPTANCE_DATASETS)} (airline excluded: substitute "
                  f"data). {int((bad['problem'] == 'outside').sum())} cell(s) outside, "
                  f"{int((bad['problem'] == 'not run').sum())} not run."]
        lines += [f"- {DISPLAY_NAMES[r.detector]} {r.dataset} {DISPLAY_NAMES[r.regime]}: "
                  f"{r.ours:.2f} vs {r.paper:.2f} ({r.difference:+.2f})"
                  for r in bad[bad["problem"] == "outside"].itertuples(index=False)]
        return "\n".join(lines) + "\n"

    def _regimes(self) -> list[str]:
        return [r for r in LAYOUTS[self.table].regimes if r in set(self.cells["regime"])]

    def beaten_by_nothing(self) -> pd.DataFrame:
        """The ranked rows' cells at or below the no-detector reference of their dataset.

        Columns ``detector, dataset, regime, ours, none`` (accuracies in %), ``margin``
        (``ours − none``); one row per such cell, in the report's order. The references are
        the same model never adapted (``none``) and adapted at the true drifts (``oracle``):
        a detector is worth its alarms on a stream only where it beats the first.

        Examples
        --------
        >>> import pandas as pd
        >>> runs = pd.concat([_example_runs(), pd.DataFrame({
        ...     "dataset": "sea0", "classifier": "gnb", "detector": "none", "alpha": 1e-3,
        ...     "regime": "incremental", "seed": [0, 1], "accuracy": [0.94, 0.94],
        ...     "status": "ok"})])
        >>> reproduction_report(runs, 1, "gnb").beaten_by_nothing()[["detector", "margin"]]
          detector  margin
        0      ddm    -1.0
        """
        cells = self.cells.dropna(subset=["ours"])
        none = cells[cells["detector"] == "none"][["dataset", "regime", "ours"]]
        ranked = cells[cells["detector"].map(row_role) != "reference"]
        both = ranked.merge(none.rename(columns={"ours": "none"}), on=["dataset", "regime"])
        both["margin"] = both["ours"] - both["none"]
        # at or below as printed: float noise never makes a cell "above"
        at = at_reported_precision
        out = both[at(at(both["ours"].to_numpy()) - at(both["none"].to_numpy())) <= 0]
        return out[["detector", "dataset", "regime", "ours", "none", "margin"]].reset_index(
            drop=True)

    def reference_text(self) -> str:
        """What the reference rows say, in Markdown, generated from the cells (``""``: none).

        A paragraph counting the cells at or below the no-detector row, then one line per
        dataset and regime naming them (:meth:`beaten_by_nothing`).
        """
        return "\n".join(self._reference_lines()[3:])

    def _reference_lines(self) -> list[str]:
        cells = self.cells.dropna(subset=["ours"])
        if "none" not in set(cells["detector"]):
            return []
        ranked = cells[cells["detector"].map(row_role) != "reference"]
        paired = ranked.merge(cells[cells["detector"] == "none"][["dataset", "regime"]],
                              on=["dataset", "regime"])
        low = self.beaten_by_nothing()
        lines = ["", "## Against the references", "",
                 "The reference rows are not ranked: the same model with no detector (it never "
                 "adapts) and, where the true drifts are known, the oracle (it adapts exactly "
                 "at them). A detector pays for its alarms only where it beats the first. "
                 f"{len(low)} of the {len(paired)} cells run beside a no-detector row are at "
                 "or below it" + (":" if len(low) else ".")]
        for regime in self._regimes():
            part = low[low["regime"] == regime]
            for dataset, rows in part.groupby("dataset", sort=False):
                lines.append(
                    f"- {DISPLAY_NAMES.get(regime, regime)} {DISPLAY_NAMES.get(dataset, dataset)}"
                    f" (no detector {rows['none'].iloc[0]:.2f}): " + ", ".join(
                        f"{DISPLAY_NAMES.get(r.detector, r.detector)} {r.ours:.2f}"
                        for r in rows.itertuples(index=False)))
        return lines

    def _most_seeds(self) -> int:
        return max(len(self.seeds), int(self.cells["n_seeds"].max()) if len(self.cells) else 0)

    def _cell_text(self, row: Any) -> str:
        if row is None:
            return ""
        ours = "—" if math.isnan(row.ours) else f"{row.ours:.2f}"
        paper = "—" if math.isnan(row.paper) else f"{row.paper:.2f}"
        text = f"{ours} / {paper}"
        if not math.isnan(row.difference):
            text += f" ({row.difference:+.2f})"
        if 0 < row.n_seeds < self._most_seeds():
            text += f" [n={row.n_seeds}]"
        if row.n_errors:
            text += f" [{row.n_errors} err]"
        return text

    def save(self, directory: str | os.PathLike[str]) -> tuple[Path, Path]:
        """Write ``table<k>_<classifier>.md`` and the cells as ``.csv``; return both paths.

        Examples
        --------
        >>> import tempfile
        >>> paths = reproduction_report(_example_runs(), 1, "gnb").save(tempfile.mkdtemp())
        >>> [p.name for p in paths]
        ['table1_gnb.md', 'table1_gnb.csv']
        """
        folder = Path(directory)
        folder.mkdir(parents=True, exist_ok=True)
        stem = folder / f"table{self.table}_{self.classifier}"
        md, csv = stem.with_suffix(".md"), stem.with_suffix(".csv")
        md.write_text(self.markdown(), encoding="utf-8")
        # what the report is travels with its cells: read_report and --add check it
        self.cells.assign(table=self.table, classifier=self.classifier).to_csv(csv, index=False)
        return md, csv


_REGIME_TITLES = {"incremental": "Incremental (-I)", "train-once": "Train once until alarm (-O)"}


def _counted(row: Any) -> bool:
    return row is not None and row.n_seeds > 0 and not math.isnan(row.alarms)


def alarm_text(row: Any) -> str:
    """A cell's alarm counts as ``"4.3 (3.7/9 detected, 0.7 false, delay 1.2)"``.

    The mean alarms per run and, where the drifts are known, the mean drifts detected of
    those there, false alarms and the mean delay (chunks); ``"—"`` where the row raises no
    alarms (a learner).
    """
    if row is None or row.n_seeds == 0:
        return ""
    if math.isnan(row.alarms):
        return "—"
    text = f"{row.alarms:.1f}"
    if not math.isnan(row.drifts):
        text += (f" ({row.detected:.1f}/{row.drifts:g} detected, {row.false_alarms:.1f} false"
                 + (f", delay {row.delay:.1f}" if not math.isnan(row.delay) else "") + ")")
    return text


def _ordered(values: Any, order: Sequence[str]) -> list[str]:
    present = set(values)
    return [v for v in order if v in present] + sorted(present - set(order))


_SOTA_CAVEAT = "PUDD-1/3/5 reset the 5-DNN soft-vote ensemble"


def _sota_caveat(ran: set[str]) -> str:
    """Table 2's caveat naming the SOTA rows run and those with the paper's numbers only."""
    run_sota = [DISPLAY_NAMES[d] for d in SOTA_METHODS if d in ran]
    paper_only = [DISPLAY_NAMES[d] for d in SOTA_METHODS if d not in ran]
    return (
        f"{_SOTA_CAVEAT}, incrementally (the readme's command; the authors' main_ensemble.py "
        "crashes at episode 30, spec §7). "
        + (f"SOTA rows run here: {', '.join(run_sota)} (AMF, NS and ADLTER are learners run "
           "without a detector; MCD-DD resets the same ensemble as PUDD). " if run_sota else "")
        + (f"SOTA rows with the paper's numbers only: {', '.join(paper_only)}."
           if paper_only else "")
    ).strip()


def _caveats(table: int, classifier: str, runs: pd.DataFrame) -> tuple[str, ...]:
    out = [
        "airline runs on a SUBSTITUTE: the first 50,482 flights of 2007 in the same 14-column "
        "schema (one-hot encoded to 601 dims), 50 chunks of 1000, not the paper's 58-chunk, "
        "679-dim DriftSurf file (unless a path= stream option points at it); its cells are not "
        "comparable to the paper's.",
    ]
    if table == 1:
        out.append(
            "The river baselines (ADWIN, DDM, EDDM, HDDM-A, HDDM-W, KSWIN, PH) get the "
            "per-instance 0/1 errors of each tested chunk, with river's default parameters; any "
            "detection in a chunk is an alarm, after which the detector is reset (a fresh one) "
            "and the model retrains on the current chunk. This is our reading of the paper: "
            "the authors published no baseline code (spec §3.8, §10.17). PUDD retrains on the "
            "recent window of its winning cut, as the authors' code does."
        )
    else:
        ran = set(runs["detector"])
        out.append(_sota_caveat(ran))
        out += [why for name, why in SOTA_NOT_RUN.items() if name not in ran]
        if {"ns", "adlter", "mcd-dd"} & ran:
            out.append("NS, ADLTER and MCD-DD follow their authors' published code "
                       "(docs/sota-procedures.md compares them point by point): NS prunes by "
                       "a two-sample KS test at p < 0.001 and fits new trees to the unpruned "
                       "scores; ADLTER caps trees at 1000 on the real streams and 10000 on "
                       "the synthetic ones; MCD-DD slides a 5000-row window in sub-windows of "
                       "500, each tested before its encoder trains on it.")
        if "mcd-dd" in ran:
            out.append("MCD-DD on chunks: a chunk of 1000 rows is two slides of its window, "
                       "and an alarm on either is the chunk's alarm; it sees the features "
                       "from chunk 1 on (chunk 0 trains the model), so chunks 1-5 only fill "
                       "its first window and cannot raise an alarm.")
        if "ns" in ran:
            out.append("NS switches between its naive- and statistical-pruning models by "
                       "their accuracy on the previous chunk; the authors' script picks, on "
                       "each chunk, the better of the two on that chunk's own labels, which "
                       "flatters its number.")
    if classifier == "dnn":
        frozen = int(runs["classifier_options"].str.contains(_FROZEN, regex=False).sum()) \
            if "classifier_options" in runs else 0
        ours = ("ours use the fixed adaptation (new head and a rebuilt Adam optimizer)"
                if frozen == 0 else "ours reproduce it (reproduce_frozen_head=True)"
                if frozen == len(runs) else f"{frozen} of {len(runs)} of our runs reproduce it")
        out.append("The paper's DNN numbers were produced with the authors' frozen-head bug "
                   f"(after an alarm the new output layer is never trained, spec §8.1); {ours}.")
    changed = [f"{k}={', '.join(sorted(set(runs[k])))}" for k, default in _SETTINGS.items()
               if k in runs and set(runs[k]) != {default}]
    if changed:
        out.append("Non-default settings, so cells may differ from the paper's protocol: "
                   + "; ".join(changed) + ".")
    return tuple(out)


def reproduction_report(
    summaries: pd.DataFrame,
    table: int,
    classifier: str,
    *,
    configs: Sequence[RunConfig] | None = None,
) -> ReproductionReport:
    """Compare run summaries with one of the paper's tables, for one classifier.

    Parameters
    ----------
    summaries
        One row per run, with at least the columns ``dataset, classifier, detector, alpha,
        regime, seed, accuracy, status`` (``"ok"`` or ``"error"``), e.g. ``ResultStore.load()``
        or rows of ``RunResult.summary()``. Rows of other classifiers are ignored; an ok run
        supersedes a failed one of the same cell and seed.
    table
        1 or 2.
    classifier
        The classifier whose rows are compared.
    configs
        Keep only these runs (matched on the ``key`` column), e.g. the output of
        :func:`reproduction_configs`, when the store also holds other experiments.

    Raises
    ------
    ValueError
        For missing columns, no runs of ``classifier``, or a cell mixing runs of different
        settings (``n_chunks``, options...): filter the rows, or pass ``configs``.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({
    ...     "dataset": "sea0", "classifier": "gnb", "detector": ["pudd", "pudd", "ddm", "ddm"],
    ...     "alpha": 1e-3, "regime": "incremental", "seed": [0, 1, 0, 1],
    ...     "accuracy": [0.953, 0.949, 0.93, None], "status": ["ok", "ok", "ok", "error"]})
    >>> report = reproduction_report(runs, 1, "gnb")
    >>> report.cells.query("detector == 'pudd-3'")[["paper", "ours", "n_seeds"]].to_dict("records")
    [{'paper': 94.81, 'ours': 95.1, 'n_seeds': 2}]
    """
    import pandas as pd

    _layout(table, classifier)
    missing = [c for c in _REQUIRED if c not in summaries.columns]
    if missing:
        raise ValueError(f"summaries lack column(s) {', '.join(missing)}")
    if table == 2:  # a SOTA learner without a detector is its own row of Table 2
        learner = summaries["classifier"].isin(SOTA_LEARNERS) & (summaries["detector"] == "none")
        summaries = summaries.copy()
        summaries.loc[learner, "detector"] = summaries.loc[learner, "classifier"]
        summaries.loc[learner, "classifier"] = classifier
    df = summaries[summaries["classifier"] == classifier].copy()
    if configs is not None:
        if "key" not in df:
            raise ValueError("configs= matches runs by the 'key' column, which is missing")
        df = df[df["key"].isin({c.key() for c in configs})]
    if df.empty:
        raise ValueError(f"no runs of classifier {classifier!r} in the summaries")
    if "key" in df:  # the newest row of a config; rows without a key are kept
        df = df[df["key"].isna() | ~df["key"].duplicated(keep="last")]
    df["detector"] = [detector_label(d, float(a)) for d, a in zip(df["detector"], df["alpha"],
                                                                  strict=True)]
    df["accuracy"] = pd.to_numeric(df["accuracy"], errors="coerce")
    for name, default in _SETTINGS.items():  # a summary without the column: the default
        df[name] = [_setting_text(name, v) for v in df[name]] if name in df else default
    ok = df[df["status"] == "ok"].drop_duplicates([*_CELL, "seed"], keep="last")
    ok_keys = pd.MultiIndex.from_frame(ok[[*_CELL, "seed"]])
    err = df[df["status"] != "ok"].drop_duplicates([*_CELL, "seed"])
    err = err[~pd.MultiIndex.from_frame(err[[*_CELL, "seed"]]).isin(ok_keys)]
    runs = pd.concat([ok, err], ignore_index=True)
    for name in (s for s in _SETTINGS if s in runs):
        mixed = runs.groupby(_CELL)[name].nunique()
        if (mixed > 1).any():
            cell = mixed[mixed > 1].index[0]
            raise ValueError(f"cell {cell} mixes runs with different {name}; filter the "
                             "summaries or pass configs=")

    # in seed order: the store's row order depends on which worker finished first, and float
    # sums in another order differ in the last bits
    stats = ok.sort_values("seed").groupby(_CELL)["accuracy"].agg(["mean", "std", "size"])
    seeds = ok.groupby(_CELL)["seed"].agg(lambda s: seed_text([int(v) for v in s]))
    ours = pd.DataFrame({"ours": stats["mean"] * 100, "std": stats["std"] * 100,
                         "n_seeds": stats["size"], "seeds": seeds}).reset_index()
    ours = ours.merge(alarm_stats(ok.sort_values("seed")), on=_CELL, how="left")
    errors = err.groupby(_CELL).size().rename("n_errors").reset_index()
    paper = paper_table(table)
    ran = runs[["dataset", "regime"]].drop_duplicates()
    paper = paper[paper["classifier"] == classifier].merge(ran, on=["dataset", "regime"])
    paper = paper[_CELL + ["accuracy"]].rename(columns={"accuracy": "paper"})
    settings = runs.groupby(_CELL)[list(_SETTINGS)].first().reset_index()
    cells = paper.merge(ours, on=_CELL, how="outer").merge(errors, on=_CELL, how="left")
    cells = cells.merge(settings, on=_CELL, how="left")
    cells[list(_SETTINGS)] = cells[list(_SETTINGS)].fillna("")  # not run: no settings
    cells["difference"] = cells["ours"] - cells["paper"]
    cells["n_seeds"] = cells["n_seeds"].fillna(0).astype(int)
    cells["n_errors"] = cells["n_errors"].fillna(0).astype(int)
    cells["seeds"] = cells["seeds"].fillna("")
    layout = LAYOUTS[table]
    ranks = [{v: i for i, v in enumerate(_ordered(cells[c], order))}
             for c, order in zip(_CELL, (layout.detectors, DATASETS, layout.regimes),
                                 strict=True)]
    cells = cells.sort_values(_CELL, key=lambda s: s.map(ranks[_CELL.index(str(s.name))]))
    return ReproductionReport(
        table, classifier, cells[_COLUMNS].reset_index(drop=True),
        tuple(sorted(int(s) for s in set(ok["seed"]))), len(err),
        _caveats(table, classifier, runs),
        float(pd.to_numeric(ok["elapsed_s"]).sum()) if "elapsed_s" in ok else float("nan"),
    )


def alarm_stats(ok: pd.DataFrame, by: Sequence[str] = tuple(_CELL)) -> pd.DataFrame:
    """Each cell's alarm counts from its ok runs (one cell per value of the ``by`` columns).

    The means over seeds of the alarms, the true drifts, the drifts detected and the false
    alarms, and the mean delay over all detected drifts (in chunks). NaN where a run does
    not tell: a learner (it raises no alarms), a stream whose drifts are unknown (drifts,
    detected, false alarms, delay), a store written before runs counted alarms.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"detector": ["ddm", "ddm", "amf"], "dataset": "sea0",
    ...     "regime": "incremental", "n_alarms": [3, 5, 0], "false_alarms": [1, 1, 0],
    ...     "missed": [7, 5, 9], "mean_delay": [1.0, 2.5, None]})
    >>> alarm_stats(runs).round(3).to_dict("records")[1]  # doctest: +NORMALIZE_WHITESPACE
    {'detector': 'ddm', 'dataset': 'sea0', 'regime': 'incremental', 'alarms': 4.0,
     'drifts': 9.0, 'detected': 3.0, 'false_alarms': 1.0, 'delay': 2.0}
    """
    import numpy as np
    import pandas as pd

    def column(name: str) -> pd.Series:
        if name not in ok:
            return pd.Series(np.nan, index=ok.index)
        return pd.to_numeric(ok[name], errors="coerce").astype(float)

    alarms, false = column("n_alarms"), column("false_alarms")
    detected = alarms - false
    per_run = pd.DataFrame({
        **{c: ok[c] for c in by}, "alarms": alarms, "drifts": detected + column("missed"),
        "detected": detected, "false_alarms": false,
        # a run's mean delay times its detections: summed, then over all detections
        "delay_sum": column("mean_delay").where(detected > 0, 0.0) * detected})
    per_run.loc[ok["detector"].isin(SOTA_LEARNERS), ["alarms", *_ALARMS[1:], "delay_sum"]] = np.nan
    groups = per_run.groupby(list(by))
    counts = ["alarms", "drifts", "detected", "false_alarms"]
    out = groups[counts].mean().where(~groups[counts].agg(lambda s: s.isna().any()).astype(bool))
    total = groups["detected"].sum(min_count=1)
    out["delay"] = (groups["delay_sum"].sum(min_count=1) / total).where(total > 0)
    return out.reset_index()


def _report_error(path: Path, what: str) -> ValueError:
    return ValueError(f"{path} is not a reproduction report as `reproduce` writes it: {what}")


def _read_report_markdown(
        md: Path) -> tuple[tuple[str, ...], float, frozenset[int] | None]:
    """A report's Markdown, if there: its caveats, run time (s) and the seeds its header names.

    Without the file: no caveats, an unknown (NaN) run time and no seeds.
    """
    import re

    caveats: tuple[str, ...] = ()
    run_seconds = float("nan")
    header_seeds: frozenset[int] | None = None
    if md.is_file():
        text = md.read_text(encoding="utf-8", errors="replace")
        found_caveats = re.search(r"## Caveats\n\n(.*?)(?:\n\n## |\Z)", text, re.S)
        if found_caveats:
            caveats = tuple(line[2:] for line in found_caveats.group(1).splitlines()
                            if line.startswith("- "))
        timed = re.search(r"^- Run time: ([0-9.]+) min summed", text, re.M)
        if timed:
            run_seconds = 60 * float(timed.group(1))
        named = re.search(r"^- Seeds: ([0-9, -]+) \(", text, re.M)
        if named:
            header_seeds = _parse_seed_text(named.group(1))
    return caveats, run_seconds, header_seeds


def read_report(csv: str | os.PathLike[str], table: int,
                classifier: str) -> ReproductionReport:
    """A report as :meth:`ReproductionReport.save` wrote it, checked to be ``table``'s.

    The cells come from the CSV with their floats exact; the caveats from the Markdown beside
    it, if there, with its run time (to 0.1 min). A report names its table and classifier
    and each cell's seeds; one written before reports did is recognised by its published
    numbers (the ``paper`` column must be ``table``'s for ``classifier``) and its seeds are
    those its Markdown's header names, for the cells run with all of them.

    Raises
    ------
    FileNotFoundError
        No file at ``csv``.
    ValueError
        The file is not a report of ``table`` and ``classifier`` (another table's or
        classifier's, renamed), or a value in it is not what ``save`` writes.

    Examples
    --------
    >>> import tempfile
    >>> report = reproduction_report(_example_runs(), 1, "gnb")
    >>> _, csv = report.save(tempfile.mkdtemp())
    >>> back = read_report(csv, 1, "gnb")
    >>> back.cells.equals(report.cells), back.caveats == report.caveats, back.seeds
    (True, True, (0, 1))
    >>> read_report(csv, 1, "vfdt")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ...table1_gnb.csv is a report of Table 1 with gnb, not of Table 1 with vfdt
    """
    import pandas as pd

    layout = _layout(table, classifier)
    path = Path(csv)
    if not path.is_file():
        raise FileNotFoundError(f"no report at {path}: write one first (without --add)")
    try:
        cells = pd.read_csv(path, float_precision="round_trip",
                            dtype={c: str for c in (*_CELL, "seeds", "classifier",
                                                    *_SETTINGS)},
                            keep_default_na=False, na_values={
                                c: [""] for c in ("paper", "ours", "difference", "std",
                                                  *_ALARMS)})
    except (ValueError, UnicodeDecodeError) as err:  # pandas' parser and empty-file errors
        raise _report_error(path, " ".join(str(err).split())) from None
    missing = [c for c in ("detector", "dataset", "regime", "paper", "ours", "n_seeds")
               if c not in cells]
    if missing:
        raise _report_error(path, f"no column {', '.join(missing)}")
    extra = [c for c in cells if c not in (*_COLUMNS, "table", "classifier")]
    if extra:  # --add would write the report again without them
        raise _report_error(path, f"column(s) {', '.join(map(repr, extra))} are not ones "
                                  "`reproduce` writes (and writing it again would drop them): "
                                  "keep them in another file")
    if {"table", "classifier"} <= set(cells):
        found = {(str(t), str(c)) for t, c in zip(cells["table"], cells["classifier"],
                                                    strict=True)}
        if found != {(str(table), classifier)}:
            what = ", ".join(f"Table {t} with {c}" for t, c in sorted(found))
            raise ValueError(f"{path} is a report of {what}, not of Table {table} with "
                             f"{classifier}")
        cells = cells.drop(columns=["table", "classifier"])
    for name in _ALARMS:  # a report written before reports counted alarms
        if name not in cells:
            cells[name] = float("nan")
    cells = checked_numbers(cells, path, ("paper", "ours", "difference", "std", *_ALARMS))
    rows = {"detector": (*layout.detectors, *REFERENCES), "dataset": layout.datasets,
            "regime": layout.regimes}
    for name, allowed in rows.items():
        other = sorted(set(cells[name]) - set(allowed))
        if other:
            raise _report_error(path, f"{name} {', '.join(map(repr, other))} is not one of "
                                      f"Table {table}'s")
    if cells.duplicated(_CELL).any():
        dup = cells[cells.duplicated(_CELL)].iloc[0]
        raise _report_error(path, f"the cell {dup.detector} / {dup.dataset} / {dup.regime} "
                                  "appears twice")
    published = paper_table(table)
    published = published[published["classifier"] == classifier].set_index(_CELL)["accuracy"]
    mine = cells.set_index(_CELL)["paper"]
    expected = published.reindex(mine.index)
    wrong = ~((mine - expected).abs() < 1e-9) & ~(mine.isna() & expected.isna())
    if wrong.any():
        cell = wrong[wrong].index[0]
        raise ValueError(
            f"{path} is not a report of Table {table} with {classifier}: its paper number for "
            f"{' / '.join(cell)} is {mine[cell]}, the paper's is {expected[cell]} (a report "
            "of another table or classifier, renamed?)")
    caveats, run_seconds, header_seeds = _read_report_markdown(path.with_suffix(".md"))
    cells = _read_settings(cells, path, caveats if path.with_suffix(".md").is_file() else None)
    if "seeds" not in cells:  # written before reports named each cell's seeds
        known = (header_seeds is not None) & (cells["n_seeds"] == len(header_seeds or ()))
        cells["seeds"] = [seed_text(sorted(header_seeds or ())) if k and n else ""
                          for k, n in zip(known, cells["n_seeds"], strict=True)]
    else:
        cells["seeds"] = cells["seeds"].fillna("").astype(str)
    seeds: set[int] = set()
    for row in cells.itertuples(index=False):
        try:
            cell_seeds = _parse_seed_text(row.seeds)
        except ValueError as err:
            raise _report_error(path, f"cell {row.detector} / {row.dataset} / {row.regime}: "
                                      f"{err}") from None
        if row.seeds and len(cell_seeds) != row.n_seeds:
            raise _report_error(path, f"cell {row.detector} / {row.dataset} / {row.regime} has "
                                      f"n_seeds {row.n_seeds} but seeds {row.seeds}")
        seeds |= cell_seeds
    return ReproductionReport(table, classifier, cells[_COLUMNS].reset_index(drop=True),
                              tuple(sorted(seeds)), int(cells["n_errors"].sum()), caveats,
                              run_seconds)


_PERCENT = ("paper", "ours")
_NON_DEFAULT = "Non-default settings, so cells may differ from the paper's protocol: "


def _caveat_settings(caveats: Sequence[str] | None) -> dict[str, str]:
    """The settings of every cell of a report written before reports recorded them.

    Its Markdown's caveats name the settings that were not the defaults
    (:func:`_caveats`); a setting named with several values, or a report without its
    Markdown (``caveats`` None), is :data:`_UNKNOWN`.

    Examples
    --------
    >>> _caveat_settings([])["n_chunks"], _caveat_settings(None)["n_chunks"]
    ('default', 'unknown')
    >>> found = _caveat_settings([_NON_DEFAULT + 'classifier_options={"a": 1, "b": 2}; '
    ...                           'n_chunks=20, default.'])
    >>> found["classifier_options"], found["n_chunks"], found["chunk_size"]
    ('{"a": 1, "b": 2}', 'unknown', 'default')
    """
    import re

    if caveats is None:
        return dict.fromkeys(_SETTINGS, _UNKNOWN)
    found = dict(_SETTINGS)
    line = next((c for c in caveats if c.startswith(_NON_DEFAULT)), None)
    if line is None:
        return found
    names = "|".join(_SETTINGS)
    for part in re.split(f"; (?=(?:{names})=)", line[len(_NON_DEFAULT):].removesuffix(".")):
        name, _, value = part.partition("=")
        if name not in found:
            return dict.fromkeys(_SETTINGS, _UNKNOWN)
        several = (_options.read_options_json(value) is None if name.endswith("_options")
                   else ", " in value)
        found[name] = _UNKNOWN if several else value
    return found


def _read_settings(cells: pd.DataFrame, path: Path,
                   caveats: Sequence[str] | None) -> pd.DataFrame:
    """``cells`` with each setting column: read and checked, or from an older report's caveats.

    A cell run (seeds or errors) has a value for every setting; a cell not run has none.
    """
    have = [c for c in _SETTINGS if c in cells]
    ran = (cells["n_seeds"] > 0) | (cells["n_errors"] > 0)
    if not have:  # written before reports recorded their settings
        for name, value in _caveat_settings(caveats).items():
            cells[name] = [value if r else "" for r in ran]
        return cells
    if len(have) < len(_SETTINGS):
        raise _report_error(path, "no column " + ", ".join(c for c in _SETTINGS
                                                           if c not in have))
    for name in _SETTINGS:
        values = cells[name].fillna("").astype(str)
        blank = ran & (values == "")
        if blank.any():
            raise _report_error(path, f"column {name} row {int(blank.idxmax()) + 2} is empty, "
                                      "but its cell ran: a cell records its settings")
        cells[name] = values
    return cells


def checked_numbers(cells: pd.DataFrame, path: Path, floats: Sequence[str],
                    counts: Sequence[str] = ("n_seeds", "n_errors"),
                    percent: Sequence[str] = _PERCENT) -> pd.DataFrame:
    """``cells`` with ``floats`` as floats and ``counts`` as ints, each value checked.

    A float is a number or empty (NaN), an accuracy (``percent``: ``paper``, ``ours``) within
    0-100, any other but ``difference`` (a std, an alarm count) not negative; a count is a
    whole number >= 0 (0 where the column is absent). Anything else is refused naming the
    file, the column and the row.

    Examples
    --------
    >>> import pandas as pd
    >>> cells = pd.DataFrame({"ours": ["94.5", None], "n_seeds": ["3", "0"]})
    >>> checked_numbers(cells, Path("r.csv"), ["ours"]).dtypes.tolist()
    [dtype('float64'), dtype('int64'), dtype('int64')]
    >>> checked_numbers(pd.DataFrame({"ours": ["101"]}), Path("r.csv"), ["ours"])
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: r.csv is not a reproduction report ...: column ours row 2 holds '101', not ...
    """
    import pandas as pd

    cells = cells.copy()
    for name in floats:
        if name in cells:
            values = pd.to_numeric(cells[name], errors="coerce")
            low = -math.inf if name == "difference" else 0
            high = 100 if name in percent else math.inf
            bad = (cells[name].notna() & values.isna()) | (values < low) | (values > high) | (
                values.abs() == math.inf)
            if bad.any():
                what = (" from 0 to 100" if name in percent else
                        "" if name == "difference" else " >= 0")
                raise _report_error(path, f"column {name} row {int(bad.idxmax()) + 2} holds "
                                          f"{cells[name][bad].iloc[0]!r}, not "
                                          + ("an accuracy" if name in percent else "a number")
                                          + what)
            cells[name] = values.astype(float)
    for name in counts:
        if name not in cells:
            cells[name] = 0
            continue
        values = pd.to_numeric(cells[name], errors="coerce")
        bad = values.isna() | (values < 0) | (values % 1 != 0) | (values.abs() == math.inf)
        if bad.any():
            raise _report_error(path, f"column {name} row {int(bad.idxmax()) + 2} holds "
                                      f"{cells[name][bad].iloc[0]!r}, not a count")
        cells[name] = values.astype(int)
    return cells


def _cell_name(cell: tuple[str, ...]) -> str:
    return " / ".join(cell)


def _addition(base_seeds: frozenset[int] | None, n_base: int, added: frozenset[int],
              cell: tuple[str, ...]) -> str:
    """How a cell run with seeds ``added`` goes into a cell with ``base_seeds``.

    ``"new"`` (the report has no runs of it), ``"replace"`` (``added`` covers its seeds),
    ``"keep"`` (its seeds cover ``added``'s), ``"pool"`` (other seeds: the mean over both);
    a :class:`ParameterError` for seeds that overlap in part, or a cell whose seeds the
    report does not tell.
    """
    if n_base == 0:
        return "new"
    if base_seeds is None:
        raise _validation.ParameterError(
            "add", f"--add: the report's cell {_cell_name(cell)} has {n_base} seed(s) but does "
                   "not say which (a report written before reports named them): its seeds "
                   "cannot be pooled with others; write the report again without --add")
    if added >= base_seeds:
        return "replace"
    if added <= base_seeds:
        return "keep"
    if not added & base_seeds:
        return "pool"
    raise _validation.ParameterError(
        "add", f"--add: the report's cell {_cell_name(cell)} has seeds "
               f"{seed_text(sorted(base_seeds))} and this command's "
               f"{seed_text(sorted(added))} overlap them in part: add only other seeds "
               f"(e.g. --seeds {seed_text(sorted(added - base_seeds)).replace(' ', '')}) or "
               "all of them")


def _base_seeds(row: Any) -> frozenset[int] | None:
    return _parse_seed_text(row.seeds) if row.seeds else None


# what sets each setting on the command line, for the message that refuses a mismatch
_SETTING_OPTIONS = {"n_chunks": "--n-chunks", "classifier_options": "--reproduce-frozen-head"}


def _setting_values(values: set[str]) -> str:
    return " and ".join(sorted(values))


def _check_settings(base: ReproductionReport, added: dict[str, set[str]]) -> None:
    """Raise a ``ParameterError`` (``add``) unless runs of ``added`` settings fit ``base``.

    ``added``: each setting's values among the runs to add. Every cell of a report must be
    run with the same settings (a cell's mean over episodes of two lengths is no cell of
    the paper's table, and two rows of different lengths are not comparable).
    """
    ran = base.cells[(base.cells["n_seeds"] > 0) | (base.cells["n_errors"] > 0)]
    for name in _SETTINGS:
        have = {str(v) for v in ran[name]} if name in ran else set()
        want = added.get(name, set())
        if not have or not want or have == want == {next(iter(have))}:
            continue
        if _UNKNOWN in have:
            raise _validation.ParameterError(
                "add", f"--add: the report in --out does not say with which {name} its cells "
                       "ran (a report written before reports recorded their settings, "
                       "without the Markdown that names them): runs of other settings would "
                       "go into its cells unseen; write the report again without --add")
        option = _SETTING_OPTIONS.get(name)
        raise _validation.ParameterError(
            "add", f"--add: the report in --out ran its cells with {name}="
                   f"{_setting_values(have)}; these runs have {name}="
                   f"{_setting_values(want)}: a cell's mean must not mix runs of two "
                   "settings (episode lengths, chunk sizes, options); "
                   + (f"give {option} as the report's command did, " if option else "give the "
                      "report's settings, ")
                   + "or write a new report into another --out")


def _config_settings(configs: Sequence[RunConfig]) -> dict[str, set[str]]:
    return {name: {_setting_text(name, getattr(cfg, name)) for cfg in configs}
            for name in _SETTINGS}


def check_addition(base: ReproductionReport, configs: Sequence[RunConfig], *,
                   replace: bool = False) -> None:
    """Raise a ``ParameterError`` (``add``) unless ``configs``' cells can go into ``base``.

    Called before any run: ``configs`` must be of ``base``'s table and classifier, run with
    the settings the report records for its cells (:data:`SETTING_COLUMNS`: stream length,
    chunk size, options), and, unless ``replace``, each cell's seeds either cover the
    report's seeds of that cell, lie inside them, or miss them all (then the cell becomes
    the mean over both).

    Examples
    --------
    >>> runs = _example_runs()
    >>> base = reproduction_report(runs[runs["seed"] == 0], 1, "gnb")
    >>> check_addition(base, reproduction_configs(1, "gnb", [1, 2], datasets=["sea0"],
    ...                                           detectors=["pudd-3"]))
    >>> check_addition(base, reproduction_configs(1, "gnb", [0, 1], datasets=["sea0"],
    ...                                           detectors=["pudd-3"]))
    >>> check_addition(base, reproduction_configs(1, "vfdt", [1], datasets=["sea0"]))
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: --add: the report in --out is of Table 1 with gnb; ...
    runs are of vfdt
    >>> check_addition(base, reproduction_configs(1, "gnb", [1], datasets=["sea0"],
    ...                                           n_chunks=20))
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: --add: the report in --out ran its cells with
    n_chunks=default; these runs have n_chunks=20: ...
    """
    planned: dict[tuple[str, ...], set[int]] = {}
    classifiers = set()
    for cfg in configs:
        learner = cfg.detector == "none" and cfg.classifier in SOTA_LEARNERS
        classifiers.add(base.classifier if learner else cfg.classifier)
        label = cfg.classifier if learner else detector_label(cfg.detector, cfg.alpha)
        planned.setdefault((label, cfg.dataset, cfg.regime), set()).add(cfg.seed)
    if classifiers - {base.classifier}:
        raise _validation.ParameterError(
            "add", f"--add: the report in --out is of Table {base.table} with "
                   f"{base.classifier}; these runs are of {', '.join(sorted(classifiers))}")
    _check_settings(base, _config_settings(configs))
    if replace:  # the cells go in whatever their seeds
        return
    rows = {tuple(str(v) for v in key): row for key, row in zip(
        base.cells[_CELL].itertuples(index=False, name=None),
        base.cells.itertuples(index=False), strict=True)}
    for cell, seeds in planned.items():
        row = rows.get(cell)
        if row is not None:
            _addition(_base_seeds(row), int(row.n_seeds), frozenset(seeds), cell)


def _pool(a: Any, b: Any) -> tuple[float, float]:
    """Mean and sample std (percent) of two cells' runs together, from each one's n, mean, std.

    Chan et al.'s parallel formula: exact up to rounding, so a cell pooled from seeds 0-1 and
    2-3 equals, to about 1e-13, the cell of seeds 0-3 run at once.
    """
    n = a.n_seeds + b.n_seeds
    mean = (a.n_seeds * a.ours + b.n_seeds * b.ours) / n

    def squares(c: Any) -> float:
        return 0.0 if c.n_seeds < 2 else float(c.std) ** 2 * (c.n_seeds - 1)

    m2 = squares(a) + squares(b) + (a.ours - b.ours) ** 2 * a.n_seeds * b.n_seeds / n
    return mean, math.sqrt(m2 / (n - 1)) if n > 1 else float("nan")


def _pool_alarms(a: Any, b: Any) -> list[float]:
    """Two cells' alarm counts (:data:`_ALARMS`) over their runs together.

    The counts weighted by seeds, the delay by detections; NaN where either cell does not
    know a count.
    """
    n = a.n_seeds + b.n_seeds
    out = [(getattr(a, c) * a.n_seeds + getattr(b, c) * b.n_seeds) / n for c in _ALARMS[:-1]]
    hits_a, hits_b = a.detected * a.n_seeds, b.detected * b.n_seeds
    hits = hits_a + hits_b
    delay = ((a.delay * hits_a if hits_a else 0.0) + (b.delay * hits_b if hits_b else 0.0)) / hits \
        if hits > 0 else float("nan")
    return [*out, delay]


def merge_reports(base: ReproductionReport, added: ReproductionReport, *,
                  note: str | None = None, replace: bool = False) -> ReproductionReport:
    """``base`` with the cells ``added`` ran put in, e.g. a new row or more seeds of one.

    Per cell, by seeds: a cell ``base`` did not run is ``added``'s; ``added``'s replaces one
    whose seeds it covers and leaves one that covers its own; seeds new to a cell are pooled
    with the report's into the mean over all of them (seeds 0-1, then 2-3: the 4-seed mean).
    Cells ``added`` did not run stay as in ``base``. The caveats are ``base``'s, then
    ``added``'s new ones, then ``note`` (say which command added what). With ``replace`` (a
    method whose procedure changed: its old cells are void), ``added``'s cells replace
    ``base``'s whatever their seeds.

    Raises
    ------
    ValueError
        Reports of different tables or classifiers, cells run with other settings (a
        ``ParameterError``, ``add``), or a cell whose seeds overlap in part
        (:func:`check_addition` says both before the runs).

    Examples
    --------
    >>> runs = _example_runs()
    >>> base = reproduction_report(runs[runs["seed"] == 0], 1, "gnb")   # seed 0 only
    >>> more = reproduction_report(runs[runs["seed"] == 1], 1, "gnb")   # seed 1
    >>> merged = merge_reports(base, more, note="seed 1 added")
    >>> merged.cells.query("n_seeds > 0")[["detector", "ours", "n_seeds", "n_errors", "seeds"]]
      detector  ours  n_seeds  n_errors seeds
    1      ddm  93.0        1         1     0
    8   pudd-3  95.1        2         0   0-1
    >>> merged.seeds, merged.caveats[-1]
    ((0, 1), 'seed 1 added')
    >>> redone = reproduction_report(runs[(runs["detector"] == "pudd") & (runs["seed"] == 1)],
    ...                              1, "gnb")
    >>> merge_reports(merged, redone).cells.query("n_seeds > 0")["n_seeds"].tolist()
    [1, 2]
    >>> merge_reports(merged, redone, replace=True).cells.query("n_seeds > 0")["n_seeds"].tolist()
    [1, 1]
    """
    import pandas as pd

    if (base.table, base.classifier) != (added.table, added.classifier):
        raise ValueError(f"cannot merge table {added.table} ({added.classifier}) into table "
                         f"{base.table} ({base.classifier})")
    ran = (added.cells["n_seeds"] > 0) | (added.cells["n_errors"] > 0)
    _check_settings(base, {name: set(added.cells.loc[ran, name]) for name in _SETTINGS})
    cells = base.cells.set_index(_CELL)
    new_rows = []
    for row in added.cells[ran].itertuples(index=False):
        cell = (row.detector, row.dataset, row.regime)
        if cell not in cells.index:
            new_rows.append(row)
            continue
        old = next(cells.loc[[cell]].reset_index().itertuples(index=False))
        if row.n_seeds == 0:  # only failed runs: counted, nothing else changes
            cells.loc[cell, "n_errors"] = old.n_errors + row.n_errors
            cells.loc[cell, list(_SETTINGS)] = [getattr(row, c) for c in _SETTINGS]
            continue
        how = "replace" if replace else _addition(_base_seeds(old), int(old.n_seeds),
                                                    _parse_seed_text(row.seeds), cell)
        if how in ("new", "replace"):
            cells.loc[cell, ["ours", "std", "n_seeds", "n_errors", "seeds", *_ALARMS,
                             *_SETTINGS]] = [
                row.ours, row.std, row.n_seeds, row.n_errors, row.seeds,
                *(getattr(row, c) for c in _ALARMS), *(getattr(row, c) for c in _SETTINGS)]
        elif how == "pool":
            mean, std = _pool(old, row)
            cells.loc[cell, ["ours", "std", "n_seeds", "n_errors", "seeds", *_ALARMS]] = [
                mean, std, old.n_seeds + row.n_seeds, old.n_errors + row.n_errors,
                seed_text(sorted(_parse_seed_text(old.seeds) | _parse_seed_text(row.seeds))),
                *_pool_alarms(old, row)]
    merged = cells.reset_index()
    if new_rows:
        merged = pd.concat([merged, pd.DataFrame(new_rows, columns=added.cells.columns)],
                           ignore_index=True)
    merged = merged[_COLUMNS]
    merged["difference"] = merged["ours"] - merged["paper"]
    merged[["n_seeds", "n_errors"]] = merged[["n_seeds", "n_errors"]].astype(int)
    caveats = [*base.caveats, *(c for c in added.caveats if c not in base.caveats)]
    if base.table == 2:  # which rows ran: the merged report's, not either part's
        at = next((i for i, c in enumerate(caveats) if c.startswith(_SOTA_CAVEAT)), 1)
        caveats = [c for c in caveats if not c.startswith(_SOTA_CAVEAT)]
        caveats.insert(at, _sota_caveat(set(merged.loc[merged["n_seeds"] > 0, "detector"])))
    if note:
        caveats.append(note)
    seeds = set().union(*(_parse_seed_text(s) for s in merged["seeds"]))
    # both runs' time, when both are known (a report read back may not say it)
    return ReproductionReport(base.table, base.classifier, merged, tuple(sorted(seeds)),
                              int(merged["n_errors"].sum()), tuple(caveats),
                              base.run_seconds + added.run_seconds)


def _versions() -> str:
    """``python 3.11.7, numpy 2.4.6, …``: what the runs were computed with."""
    import platform
    from importlib import metadata

    names = ("numpy", "scipy", "scikit-learn", "river", "torch")
    found = []
    for name in names:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            continue
    return ", ".join([f"Python {platform.python_version()}", *found])


def _example_runs() -> pd.DataFrame:
    """Four hand-made run summaries for the doctests: PUDD-3 and DDM on sea0, one failure."""
    import pandas as pd

    return pd.DataFrame({
        "dataset": "sea0", "classifier": "gnb", "detector": ["pudd", "pudd", "ddm", "ddm"],
        "alpha": 1e-3, "regime": "incremental", "seed": [0, 1, 0, 1],
        "accuracy": [0.953, 0.949, 0.93, None], "status": ["ok", "ok", "ok", "error"],
    })
