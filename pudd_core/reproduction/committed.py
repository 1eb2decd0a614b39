"""The reproduction's reports committed under ``results/``: which there are, and their cells.

:data:`COMMITTED_REPORTS` lists them; :func:`committed_cells` reads them into one table (the
app's and the findings' source); :func:`committed_report` reads one back.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pudd_core.reproduction.claims import CIFAR_FIG
from pudd_core.reproduction.configs import ACCEPTANCE_DATASETS
from pudd_core.reproduction.report import ReproductionReport
from pudd_core.reproduction.store import read_report
from pudd_core.streams.locate import project_root

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CIFAR_REPORT",
    "COMMITTED_REPORTS",
    "CommittedReport",
    "FIG5_REPORT",
    "committed_cells",
    "committed_report",
    "results_dir",
]


def committed_report(path: str | os.PathLike[str], table: int = 1,
                     classifier: str = "gnb") -> ReproductionReport | None:
    """A report as committed (``results/table1_gnb*.csv``), or None if not there.

    :func:`~pudd_core.reproduction.read_report` of the CSV (its caveats from the
    Markdown beside it).

    Examples
    --------
    >>> import tempfile
    >>> from pudd_core.reproduction.report import _example_runs, reproduction_report
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _, csv = reproduction_report(_example_runs(), 1, "gnb").save(d)
    ...     report = committed_report(csv)
    >>> len(report.cells), sorted(report.cells["detector"].unique())[:2]
    (10, ['adwin', 'ddm'])
    >>> committed_report("no/such/file.csv") is None
    True
    """
    file = Path(path)
    if not file.is_file():
        return None
    return read_report(file, table, classifier)


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


#: The EK ablation's committed cells (``pudd_core.reproduction.ablation``).
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

    Table :data:`~pudd_core.reproduction.claims.CIFAR_FIG`, dataset ``cifar10-cd seed <s>``.
    """
    import pandas as pd

    from pudd_core.reproduction.cifar import seed_accuracies

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
