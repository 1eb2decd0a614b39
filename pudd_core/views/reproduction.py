"""The results store for display: which reproductions it holds, and the report of one of them.

A store may hold runs of several classifiers and stream lengths (the app's quick runs use
shorter streams); a reproduction report must not mix them, so runs are grouped by
classifier and ``n_chunks`` first.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pudd_core.paper import DISPLAY_NAMES, LAYOUTS, REFERENCES
from pudd_core.reproduction import (
    ReproductionReport,
    read_report,
    reproduction_report,
)
from pudd_core.reproduction.committed import (
    CIFAR_REPORT,
    COMMITTED_REPORTS,
    FIG5_REPORT,
    CommittedReport,
    results_dir,
)
from pudd_core.streams.locate import project_root

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "NOT_COMPARABLE_DATASETS",
    "ReportSummary",
    "StoreGroup",
    "available_reports",
    "committed_sources",
    "comparability_note",
    "default_store",
    "group_key",
    "group_report",
    "results_stamp",
    "store_groups",
    "store_problem",
    "stored_keys",
    "summarise",
    "table_of",
]


def default_store(value: str | None = None) -> Path:
    """The results store the CLI writes to: ``$PUDD_RESULTS_STORE``, else ``results/store``.

    ``value`` stands in for the variable's text where given (empty: unset), so the examples
    hold whatever the environment says.

    Examples
    --------
    >>> default_store("").parts[-2:]
    ('results', 'store')
    >>> default_store("/data/pudd-runs")
    PosixPath('/data/pudd-runs')
    >>> default_store("~/runs") == Path.home() / "runs"
    True
    """
    env = os.environ.get("PUDD_RESULTS_STORE") if value is None else value
    if env:
        return Path(env).expanduser()
    return (project_root() or Path.cwd()) / "results" / "store"


def store_problem(store: Path) -> str | None:
    """Why the app can neither read nor keep runs in the results store ``store``, or None.

    A store that does not exist yet is fine (the first run creates it); one that is a file,
    lies under a file, or sits in a folder that cannot be written is said, with the fix.

    Examples
    --------
    >>> import tempfile
    >>> store_problem(Path(tempfile.mkdtemp()) / "store") is None
    True
    """
    existing = next(p for p in (store, *store.parents) if p.exists())
    fix = ("Set `$PUDD_RESULTS_STORE` to a writable folder (unset: `results/store` of the "
           "project) and restart the app.")
    if not existing.is_dir():
        where = "is a file" if existing == store else f"lies under the file `{existing}`"
        return f"The results store `{store}` {where}, not a folder: no runs can be read or " \
               f"kept there. {fix}"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"The results store `{store}` cannot be written (`{existing}` is read-only): " \
               f"the runs below would not be kept. {fix}"
    return None


def table_of(classifier: str) -> int:
    """The paper's table of a classifier: 2 for the DNN ensemble, else 1.

    Examples
    --------
    >>> table_of("gnb"), table_of("dnn-ensemble")
    (1, 2)
    """
    return 2 if classifier in LAYOUTS[2].classifiers else 1


def _n_chunks(value: Any) -> int | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return int(value)


@dataclass(frozen=True)
class StoreGroup:
    """Runs of one classifier at one stream length: one reproduction report.

    ``n_chunks`` is ``None`` for the paper's stream lengths.

    Examples
    --------
    >>> group = StoreGroup("gnb", None, 1440, 10)
    >>> group.key, group.label
    ('gnb:full', "gnb, paper's stream lengths: 1440 runs, 10 seeds")
    """

    classifier: str
    n_chunks: int | None
    runs: int
    seeds: int

    @property
    def key(self) -> str:
        """``"gnb:full"``: see :func:`group_key`."""
        return group_key(self.classifier, self.n_chunks)

    @property
    def label(self) -> str:
        """E.g. ``gnb, paper's stream lengths: 2520 runs, 100 seeds``."""
        length = "paper's stream lengths" if self.n_chunks is None else f"{self.n_chunks} chunks"
        return f"{self.classifier}, {length}: {self.runs} runs, {self.seeds} seeds"


def store_groups(summaries: pd.DataFrame) -> list[StoreGroup]:
    """The reproductions a store holds: paper classifiers × stream lengths, most runs first.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"classifier": ["gnb", "gnb", "gnb", "mlp"], "seed": [0, 1, 0, 0],
    ...                      "n_chunks": [None, None, 20, None], "status": "ok"})
    >>> [g.label for g in store_groups(rows)]
    ["gnb, paper's stream lengths: 2 runs, 2 seeds", 'gnb, 20 chunks: 1 runs, 1 seeds']
    """
    if summaries.empty or not {"classifier", "seed"} <= set(summaries.columns):
        return []
    paper = {c for layout in LAYOUTS.values() for c in layout.classifiers}
    df = summaries[summaries["classifier"].isin(paper)]
    lengths = df["n_chunks"] if "n_chunks" in df else [None] * len(df)
    keys = [(c, _n_chunks(n)) for c, n in zip(df["classifier"], lengths, strict=True)]
    groups: dict[tuple[str, int | None], tuple[int, set[int]]] = {}
    for key, seed in zip(keys, df["seed"], strict=True):
        runs, seeds = groups.get(key, (0, set()))
        groups[key] = (runs + 1, seeds | {int(seed)})
    out = [StoreGroup(c, n, runs, len(seeds)) for (c, n), (runs, seeds) in groups.items()]
    return sorted(out, key=lambda g: (-g.runs, g.classifier, g.n_chunks or 0))


def group_report(summaries: pd.DataFrame, classifier: str,
                 n_chunks: int | None) -> ReproductionReport:
    """The reproduction report of the runs of one group (see :func:`store_groups`).

    Raises
    ------
    ValueError
        No runs of the group, or a cell mixing runs of other differing settings.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({
    ...     "dataset": "sea0", "classifier": "gnb", "detector": "pudd", "alpha": 1e-3,
    ...     "regime": "incremental", "seed": [0, 1, 0], "n_chunks": [None, None, 20],
    ...     "accuracy": [0.95, 0.94, 0.5], "status": "ok"})
    >>> group_report(rows, "gnb", None).cells.query("detector == 'pudd-3'")[["paper", "ours"]]
       paper  ours
    8  94.81  94.5
    """
    lengths = summaries["n_chunks"] if "n_chunks" in summaries else [None] * len(summaries)
    keep = [_n_chunks(n) == n_chunks for n in lengths]
    return reproduction_report(summaries[keep], table_of(classifier), classifier)


def stored_keys(summaries: pd.DataFrame) -> frozenset[str]:
    """Config keys of the runs stored with status "ok" (``run_grid`` skips these).

    Examples
    --------
    >>> import pandas as pd
    >>> sorted(stored_keys(pd.DataFrame({"key": ["a", "b"], "status": ["ok", "error"]})))
    ['a']
    """
    if summaries.empty or "key" not in summaries:
        return frozenset()
    ok = summaries["status"] == "ok" if "status" in summaries else True
    return frozenset(summaries.loc[ok, "key"].astype(str))


def group_key(classifier: str, n_chunks: int | None) -> str:
    """The text form of a group: ``"gnb:full"``, ``"gnb:20"``.

    Examples
    --------
    >>> group_key("gnb", None), group_key("vfdt", 20)
    ('gnb:full', 'vfdt:20')
    """
    return f"{classifier}:{'full' if n_chunks is None else n_chunks}"


@dataclass(frozen=True)
class ReportSummary:
    """Counts for a report's headline: cells run, within tolerance, the acceptance check.

    Examples
    --------
    >>> ReportSummary(cells=160, run=144, within=127, acceptance_outside=0,
    ...               acceptance_not_run=0).acceptance_outside
    0
    """

    cells: int
    run: int
    within: int
    acceptance_outside: int
    acceptance_not_run: int


def summarise(report: ReproductionReport, tolerance: float = 1.5) -> ReportSummary:
    """How many cells were run, how many are within ``tolerance``, and the acceptance check.

    The acceptance check is :meth:`ReproductionReport.within`: PUDD-1/3/5 on the seven
    acceptance datasets (all but airline), both regimes.

    Examples
    --------
    >>> from pudd_core.reproduction.report import _example_runs
    >>> summarise(reproduction_report(_example_runs(), 1, "gnb"))
    ReportSummary(cells=10, run=2, within=2, acceptance_outside=0, acceptance_not_run=41)
    """
    cells = report.cells[~report.cells["detector"].isin(REFERENCES)]  # the paper's rows
    ran = cells[cells["ours"].notna() & cells["paper"].notna()]
    check = report.within(tolerance)
    return ReportSummary(
        len(cells), len(ran), int((ran["difference"].abs() <= tolerance + 1e-9).sum()),
        int((check["problem"] == "outside").sum()), int((check["problem"] == "not run").sum()),
    )


def report_contents(cells: pd.DataFrame) -> str:
    r"""What a report's cells hold, read from them: each row's seeds and datasets run.

    Rows alike (same seeds, same datasets) are named together; rows with no cell run last.

    Examples
    --------
    >>> import pandas as pd
    >>> cells = pd.DataFrame({
    ...     "detector": ["pudd-3", "pudd-3", "ddm", "ddm", "kswin", "kswin"],
    ...     "dataset": ["sea0", "elec2"] * 3, "n_seeds": [3, 3, 3, 3, 0, 0]})
    >>> report_contents(cells)
    'PUDD-3, DDM: 3 seeds on all 2 datasets; not run: KSWIN'
    >>> two = cells.assign(regime=["incremental", "train-once"] * 3,
    ...                    n_seeds=[3, 0, 3, 3, 0, 0])
    >>> print(report_contents(two).replace("; ", "\n"))
    PUDD-3: 3 seeds on 1 of 2 datasets (sea0) (-I only)
    DDM: 3 seeds on all 2 datasets
    not run: KSWIN
    >>> print(report_contents(cells.assign(n_seeds=[3, 1, 3, 3, 0, 1])).replace("; ", "\n"))
    PUDD-3: 1-3 seeds on all 2 datasets
    DDM: 3 seeds on all 2 datasets
    KSWIN: 1 seed on 1 of 2 datasets (elec2)
    """
    datasets = list(dict.fromkeys(cells["dataset"]))
    parts: dict[str, list[str]] = {}
    idle = []
    for det, rows in cells.groupby("detector", sort=False):
        run = rows[rows["n_seeds"] > 0]
        if run.empty:
            idle.append(DISPLAY_NAMES.get(str(det), str(det)))
            continue
        lo, hi = int(run["n_seeds"].min()), int(run["n_seeds"].max())
        seeds = f"{lo} seed{'s' * (hi > 1)}" if lo == hi else f"{lo}-{hi} seeds"
        on = list(dict.fromkeys(run["dataset"]))
        where = (f"all {len(datasets)} datasets" if len(on) == len(datasets)
                 else f"{len(on)} of {len(datasets)} datasets ({', '.join(on)})")
        if "regime" in cells and set(run["regime"]) != set(cells["regime"]):
            where += " (" + ", ".join(DISPLAY_NAMES.get(str(r), str(r))
                                      for r in dict.fromkeys(run["regime"])) + " only)"
        parts.setdefault(f"{seeds} on {where}", []).append(DISPLAY_NAMES.get(str(det),
                                                                            str(det)))
    out = [f"{', '.join(names)}: {what}" for what, names in parts.items()]
    if idle:
        out.append(f"not run: {', '.join(idle)}")
    return "; ".join(out)


def committed_sources(folder: str | os.PathLike[str] | None = None) -> list[str]:
    """One line per committed report the claims check reads: file, what it is, what it holds.

    What it holds is read from its cells (:func:`report_contents`), never typed.

    Examples
    --------
    >>> committed_sources()[0].startswith("`table1_gnb.csv`: Table 1, GNB — ")
    True
    """
    base = Path(folder) if folder is not None else results_dir()
    out = []
    for r in COMMITTED_REPORTS:
        if r.claims and (base / r.file).is_file():
            report = read_report(base / r.file, r.table, r.classifier)
            out.append(f"`{r.file}`: {r.label} — {report_contents(report.cells)}")
    if (base / FIG5_REPORT).is_file():
        out.append(f"`{FIG5_REPORT}`: Fig. 5, the EK ablation (PUDD-x and EK-x, same runs)")
    if (base / CIFAR_REPORT).is_file():
        out.append(f"`{CIFAR_REPORT}`: the CIFAR-10-CD comparison (each seed's accuracy)")
    out.append("airline left out of our cells: its file is a substitute (results/README.md).")
    return out


def available_reports(folder: str | os.PathLike[str] | None = None
                      ) -> list[CommittedReport]:
    """The :data:`COMMITTED_REPORTS` whose CSV is in ``folder`` (default ``results/``).

    Examples
    --------
    >>> [r.file for r in available_reports()][:2]
    ['table1_gnb_acceptance_100seeds.csv', 'table1_gnb.csv']
    >>> available_reports("/no/such/folder")
    []
    """
    base = Path(folder) if folder is not None else results_dir()
    return [r for r in COMMITTED_REPORTS if (base / r.file).is_file()]


def results_stamp(folder: str | os.PathLike[str] | None = None) -> tuple[tuple[str, int], ...]:
    """(name, modification time in ns) of every CSV in ``folder``: a cache key.

    It changes when a report is rewritten.

    Examples
    --------
    >>> any(name == "table1_gnb.csv" for name, _ in results_stamp())
    True
    """
    base = Path(folder) if folder is not None else results_dir()
    if not base.is_dir():
        return ()
    return tuple(sorted((p.name, p.stat().st_mtime_ns) for p in base.glob("*.csv")))


#: Datasets whose committed cells are never comparable with the paper's, and why.
NOT_COMPARABLE_DATASETS = {"airline": "substitute data (2007 flights, 601 dims, 50 chunks)"}


def comparability_note(n_chunks: int | None) -> str | None:
    """Why a store group's cells are not comparable with the paper's, or None if they are.

    Examples
    --------
    >>> comparability_note(None) is None
    True
    >>> comparability_note(20).split(":")[0]
    'Not comparable with the paper'
    >>> "20-chunk streams" in comparability_note(20)
    True
    """
    if n_chunks is None:
        return None
    return (f"Not comparable with the paper: these runs use {n_chunks}-chunk streams, the "
            "paper's numbers come from the full streams (100 chunks for the synthetic ones, "
            "the whole file for the real ones). Use them to check the pipeline, not to judge "
            "the reproduction.")
