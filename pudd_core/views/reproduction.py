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

from pudd_core.experiments.claims import CIFAR_FIG
from pudd_core.experiments.reproduce import (
    ACCEPTANCE_DATASETS,
    ReproductionReport,
    read_report,
    reproduction_report,
)
from pudd_core.paper import DISPLAY_NAMES, LAYOUTS, PUDD_DETECTORS, REFERENCES
from pudd_core.streams.locate import project_root

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "COMMITTED_REPORTS",
    "FIG5_REPORT",
    "NOT_COMPARABLE_DATASETS",
    "AcceptanceHeadline",
    "CommittedReport",
    "ReportSummary",
    "StoreGroup",
    "acceptance_headline",
    "available_reports",
    "committed_cells",
    "committed_report",
    "committed_sources",
    "comparability_note",
    "default_store",
    "group_key",
    "group_report",
    "results_dir",
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
    >>> from pudd_core.experiments.reproduce import _example_runs
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


def committed_report(path: str | os.PathLike[str], table: int = 1,
                     classifier: str = "gnb") -> ReproductionReport | None:
    """A report as committed (``results/table1_gnb*.csv``), or None if not there.

    :func:`~pudd_core.experiments.reproduce.read_report` of the CSV (its caveats from the
    Markdown beside it).

    Examples
    --------
    >>> import tempfile
    >>> from pudd_core.experiments.reproduce import _example_runs
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _, csv = reproduction_report(_example_runs(), 1, "gnb").save(d)
    ...     report = committed_report(csv)
    >>> summarise(report)
    ReportSummary(cells=10, run=2, within=2, acceptance_outside=0, acceptance_not_run=41)
    >>> committed_report("no/such/file.csv") is None
    True
    """
    file = Path(path)
    if not file.is_file():
        return None
    return read_report(file, table, classifier)


@dataclass(frozen=True)
class AcceptanceHeadline:
    """The acceptance cells of a report at a glance (the Reproduction page's headline).

    ``within`` of ``total`` PUDD-1/3/5 cells on the acceptance datasets, both regimes, are
    within the tolerance; ``largest_gap`` is the largest |ours − paper| among those run,
    ``largest_gap_real`` the same on elec2 and powersupply, ``runs`` the runs behind them.
    """

    within: int
    total: int
    largest_gap: float
    largest_gap_real: float
    runs: int


def acceptance_headline(report: ReproductionReport, tolerance: float = 1.5
                        ) -> AcceptanceHeadline:
    """Count and measure the acceptance cells of ``report`` (see :class:`AcceptanceHeadline`).

    Examples
    --------
    >>> from pudd_core.experiments.reproduce import _example_runs
    >>> acceptance_headline(reproduction_report(_example_runs(), 1, "gnb"))
    AcceptanceHeadline(within=1, total=42, largest_gap=0.29, largest_gap_real=nan, runs=2)
    """
    cells = report.cells
    ran = cells[cells["detector"].isin(PUDD_DETECTORS) & cells["dataset"].isin(ACCEPTANCE_DATASETS)
                & cells["paper"].notna() & cells["ours"].notna()]
    real = ran[ran["dataset"].isin(("elec2", "powersupply"))]
    total = len(ran) + len(report.within(math.inf))  # run + published but not run
    return AcceptanceHeadline(
        total - len(report.within(tolerance)), total,
        round(float(ran["difference"].abs().max()), 2) if len(ran) else math.nan,
        round(float(real["difference"].abs().max()), 2) if len(real) else math.nan,
        int(ran["n_seeds"].sum()),
    )


@dataclass(frozen=True)
class CommittedReport:
    """A report committed in ``results/``: its file, what it reproduces, and its caveat.

    ``claims`` says whether the claims check reads it (one report per classifier and table);
    ``comparable`` whether its cells may be set beside the paper's (same protocol and
    stream lengths), with ``note`` saying why not.
    """

    file: str
    table: int
    classifier: str
    label: str
    claims: bool = True
    comparable: bool = True
    note: str = ""


#: The committed reports the Reproduction page and the claims check read, in display order.
#: Table 5 is the paper's Fig. 5 (the EK ablation, no published numbers).
COMMITTED_REPORTS: tuple[CommittedReport, ...] = (
    CommittedReport("table1_gnb_acceptance_100seeds.csv", 1, "gnb",
                    "Table 1, GNB: the acceptance run (PUDD on the seven comparable datasets)",
                    claims=False),
    CommittedReport("table1_gnb.csv", 1, "gnb", "Table 1, GNB"),
    CommittedReport("table1_vfdt.csv", 1, "vfdt", "Table 1, VFDT"),
    CommittedReport("table1_dnn.csv", 1, "dnn",
                    "Table 1, DNN: the authors' frozen head (their protocol)"),
    CommittedReport("table1_dnn_fixed_head.csv", 1, "dnn",
                    "Table 1, DNN: our fixed adaptation", claims=False,
                    comparable=False,
                    note="not the paper's protocol: the published DNN numbers come from the "
                         "authors' frozen-head bug"),
    CommittedReport("table2_dnn-ensemble.csv", 2, "dnn-ensemble", "Table 2, 5-DNN ensemble"),
)

#: The EK ablation's committed cells (``pudd_core.experiments.ablation``).
FIG5_REPORT = "fig5_ek.csv"
#: The CIFAR-10-CD comparison, whose per-seed accuracies the claims check reads.
CIFAR_REPORT = "cifar10_cd.csv"


def results_dir() -> Path:
    """The folder of the committed reports: ``results/`` of the checkout.

    Examples
    --------
    >>> results_dir().name
    'results'
    """
    return (project_root() or Path.cwd()) / "results"


def _read_cells(file: Path) -> pd.DataFrame | None:
    import pandas as pd

    if not file.is_file():
        return None
    return pd.read_csv(file)


def committed_cells(folder: str | os.PathLike[str] | None = None, *,
                    datasets: tuple[str, ...] | None = ACCEPTANCE_DATASETS) -> pd.DataFrame:
    """Our mean accuracies from the committed reports, long form, for the claims check.

    Columns ``table, classifier, detector, dataset, regime, accuracy`` (percent), ``report``
    (file) and ``n_seeds``; one report per classifier and table (:data:`COMMITTED_REPORTS`
    with ``claims=True``), plus the EK ablation (table 5) and the CIFAR-10-CD comparison's
    runs, one row per seed (table ``claims.CIFAR_FIG``, datasets ``cifar10-cd seed <s>``).
    ``datasets`` keeps only those of Tables 1 and 2 (default: all but airline, whose file is
    a substitute); ``None`` keeps all.

    Examples
    --------
    >>> cells = committed_cells()
    >>> {"table1_gnb.csv", "table1_dnn.csv"} <= set(cells["report"])
    True
    >>> cells.query("table == 1 and classifier == 'gnb' and detector == 'pudd-3' and "
    ...             "dataset == 'elec2' and regime == 'incremental'")["accuracy"].round(2).tolist()
    [70.85]
    """
    import pandas as pd

    base = Path(folder) if folder is not None else results_dir()
    parts = []
    for rep in COMMITTED_REPORTS:
        cells = _read_cells(base / rep.file) if rep.claims else None
        if cells is None:
            continue
        cells = cells.dropna(subset=["ours"])
        parts.append(pd.DataFrame({
            "table": rep.table, "classifier": rep.classifier, "detector": cells["detector"],
            "dataset": cells["dataset"], "regime": cells["regime"], "accuracy": cells["ours"],
            "report": rep.file, "n_seeds": cells["n_seeds"]}))
    ek = _read_cells(base / FIG5_REPORT)
    if ek is not None:
        ek = ek.dropna(subset=["ours"])
        parts.append(pd.DataFrame({
            "table": 5, "classifier": ek["classifier"], "detector": ek["detector"],
            "dataset": ek["dataset"], "regime": ek["regime"], "accuracy": ek["ours"],
            "report": FIG5_REPORT, "n_seeds": ek["n_seeds"]}))
    cols = ["table", "classifier", "detector", "dataset", "regime", "accuracy", "report",
            "n_seeds"]
    out = pd.concat(parts, ignore_index=True)[cols] if parts else pd.DataFrame(columns=cols)
    if datasets is not None:
        out = out[out["dataset"].isin(datasets)]
    cifar = _cifar_cells(base / CIFAR_REPORT)
    if cifar is not None:
        out = pd.concat([out, cifar[cols]], ignore_index=True) if len(out) else cifar[cols]
    return out.reset_index(drop=True)


def _cifar_cells(path: Path) -> pd.DataFrame | None:
    """The CIFAR-10-CD comparison's accuracy of each seed's run, one row each.

    Table :data:`~pudd_core.experiments.claims.CIFAR_FIG`, dataset ``cifar10-cd seed <s>``.
    """
    import pandas as pd

    from pudd_core.experiments.cifar_comparison import seed_accuracies

    if not path.is_file():
        return None
    cells = pd.read_csv(path, dtype={"seeds": str, "seed_accuracy": str})
    if "seed_accuracy" not in cells.columns or cells.empty:
        return None
    wide = seed_accuracies(cells)
    long = wide.stack().rename("accuracy").reset_index()
    return pd.DataFrame({
        "table": CIFAR_FIG, "classifier": str(cells["classifier"].iloc[0]),
        "detector": long["detector"], "dataset": [f"cifar10-cd seed {s}" for s in long["seed"]],
        "regime": "incremental", "accuracy": long["accuracy"], "report": path.name,
        "n_seeds": 1})


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
