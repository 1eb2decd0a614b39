"""Fig. 5 of the paper: PUDD's Adaptive PU-index Bucketing against plain Ei-kMeans (EK).

PUDD-x and EK-x (``alpha = 10**-x``, x = 1, 3, 5) run on the same streams, seeds,
classifiers and regimes; the only difference is the partition of the PU-index values
(``ChunkPUDD(partition="ek")``: Ei-kMeans on all values, the misclassified ones not held in
their own bucket). The paper prints Fig. 5 as an image, so there are no published numbers to
compare with: the report puts the two partitions side by side and tests the difference
(:mod:`pudd_core.reproduction.significance`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

from pudd_core.experiments.detectors import needs_drifts
from pudd_core.experiments.runner import RunConfig
from pudd_core.paper import DATASETS, DISPLAY_NAMES, REFERENCES, REGIMES, Regime
from pudd_core.reproduction import (
    ACCEPTANCE_DATASETS,
    ALARM_COLUMNS,
    alarm_stats,
    alarm_text,
    checked_numbers,
    detector_label,
    seed_text,
)
from pudd_core.streams import drifts_known

if TYPE_CHECKING:
    import os

    import pandas as pd

__all__ = [
    "EK_ALPHAS",
    "EK_CLASSIFIERS",
    "EK_DATASETS",
    "ek_ablation_cells",
    "ek_ablation_configs",
    "ek_ablation_markdown",
    "ek_ablation_rows",
    "merge_ek_cells",
    "read_ek_ablation",
    "save_ek_ablation",
]

#: The thresholds of Fig. 5: 10⁻¹, 10⁻³, 10⁻⁵.
EK_ALPHAS = (1e-1, 1e-3, 1e-5)
#: The classifiers of Fig. 5 ("3 classifiers"); DNN is the slow one.
EK_CLASSIFIERS = ("gnb", "vfdt", "dnn")
#: Our default datasets: the paper's, less airline (substitute data, see ``results/README.md``).
EK_DATASETS = ACCEPTANCE_DATASETS
#: The two partitions compared: PUDD's Adaptive PU-index Bucketing and plain Ei-kMeans.
_DETECTORS = ("pudd", "ek")


def ek_ablation_configs(
    classifier: str,
    seeds: int | Sequence[int],
    *,
    datasets: Sequence[str] = EK_DATASETS,
    regimes: Sequence[str] = REGIMES,
    alphas: Sequence[float] = EK_ALPHAS,
    n_chunks: int | None = None,
    references: bool = True,
) -> list[RunConfig]:
    """The runs of the EK ablation for one classifier: PUDD and EK at each alpha.

    With ``references``, also the reference rows (:data:`~pudd_core.paper.REFERENCES`): the
    classifier with no detector and, on streams whose drifts are known, the oracle; the
    same runs (the same keys) as the references of Table 1.

    Examples
    --------
    >>> cfgs = ek_ablation_configs("gnb", 2, datasets=["sea0"])
    >>> len(cfgs)
    32
    >>> sorted({(c.detector, c.alpha) for c in cfgs})[:2]
    [('ek', 1e-05), ('ek', 0.001)]
    >>> sorted({c.detector for c in cfgs} - {"pudd", "ek"})
    ['none', 'oracle']
    """
    if isinstance(seeds, bool) or (isinstance(seeds, int) and seeds < 1):
        raise ValueError(f"seeds must be a positive count or a list of seeds, got {seeds!r}")
    seed_list = list(range(seeds)) if isinstance(seeds, int) else [int(s) for s in seeds]
    out = []
    for dataset in datasets:
        for regime in regimes:
            for detector in _DETECTORS:
                for alpha in alphas:
                    cfgs = [RunConfig(dataset, classifier, detector, alpha=float(alpha),
                                      regime=cast(Regime, regime),
                                      seed=s, n_chunks=n_chunks) for s in seed_list]
                    cfgs[0].validate()
                    out.extend(cfgs)
            for reference in REFERENCES if references else ():
                if needs_drifts(reference) and not drifts_known(dataset):
                    continue
                out.extend(RunConfig(dataset, classifier, reference, regime=cast(Regime, regime),
                                     seed=s, n_chunks=n_chunks) for s in seed_list)
    return out


_CELL = ["classifier", "detector", "dataset", "regime"]
_ROWS = ("pudd-1", "ek-1", "pudd-3", "ek-3", "pudd-5", "ek-5", *REFERENCES)


def ek_ablation_cells(summaries: pd.DataFrame,
                      configs: Sequence[RunConfig] | None = None) -> pd.DataFrame:
    """Mean accuracy (%) over seeds of each PUDD-x / EK-x cell of the runs in ``summaries``.

    ``summaries`` are stored run rows (``ResultStore.load()``, ``run_grid``'s result);
    ``configs`` keeps only those runs (by ``key``); without it, only runs on the paper's
    stream lengths are kept. Columns: ``classifier, detector, dataset,
    regime, ours, std, n_seeds, n_errors, seeds`` (``seeds``: e.g. ``"0-4"``), then the alarm
    counts (:data:`~pudd_core.reproduction.ALARM_COLUMNS`); the reference rows
    ``none`` and ``oracle`` where they ran.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"dataset": "sea0", "classifier": "gnb",
    ...     "detector": ["pudd", "pudd", "ek", "ek"], "alpha": 1e-3, "regime": "incremental",
    ...     "seed": [0, 1, 0, 1], "accuracy": [0.95, 0.93, 0.90, None],
    ...     "status": ["ok", "ok", "ok", "error"]})
    >>> ek_ablation_cells(rows)[["detector", "ours", "n_seeds", "n_errors"]]
      detector  ours  n_seeds  n_errors
    0   pudd-3  94.0        2         0
    1     ek-3  90.0        1         1
    """
    import pandas as pd

    df = summaries[summaries["detector"].isin((*_DETECTORS, *REFERENCES))].copy()
    if configs is not None:  # these runs, whatever their stream length
        df = df[df["key"].isin({c.key() for c in configs})]
    elif "n_chunks" in df:  # the paper's stream lengths only: a shorter run is another protocol
        df = df[df["n_chunks"].isna()]
    df["detector"] = [detector_label(d, float(a)) for d, a in zip(df["detector"], df["alpha"],
                                                                  strict=True)]
    df = df[df["detector"].isin(_ROWS)]
    ok = df[df["status"] == "ok"].drop_duplicates([*_CELL, "seed"], keep="last")
    ok = ok.assign(accuracy=pd.to_numeric(ok["accuracy"]) * 100)
    stats = ok.groupby(_CELL)["accuracy"].agg(["mean", "std", "size"])
    seeds = ok.groupby(_CELL)["seed"].agg(lambda s: seed_text(sorted(int(x) for x in s)))
    err = df[df["status"] != "ok"].groupby(_CELL).size().rename("n_errors")
    cells = pd.DataFrame({"ours": stats["mean"], "std": stats["std"], "n_seeds": stats["size"],
                          "seeds": seeds}).join(err, how="outer").reset_index()
    if len(ok):
        cells = cells.merge(alarm_stats(ok.sort_values("seed"), by=_CELL), on=_CELL, how="left")
    for name in ALARM_COLUMNS:
        if name not in cells:
            cells[name] = float("nan")
    cells["n_seeds"] = cells["n_seeds"].fillna(0).astype(int)
    cells["n_errors"] = cells["n_errors"].fillna(0).astype(int)
    return _in_order(cells)


_COLS = ["classifier", "detector", "dataset", "regime", "ours", "std", "n_seeds", "n_errors",
         "seeds", *ALARM_COLUMNS]


def ek_ablation_rows() -> tuple[str, ...]:
    """The rows a Fig. 5 report may hold: PUDD-x and EK-x, then the references.

    Examples
    --------
    >>> ek_ablation_rows()[-3:]
    ('ek-5', 'none', 'oracle')
    """
    return _ROWS


def _in_order(cells: pd.DataFrame) -> pd.DataFrame:
    """The report's columns, its rows by classifier, regime, dataset and detector."""
    order = {c: {v: i for i, v in enumerate(o)} for c, o in
             (("classifier", EK_CLASSIFIERS), ("detector", _ROWS), ("dataset", DATASETS),
              ("regime", REGIMES))}
    cells = cells.sort_values(["classifier", "regime", "dataset", "detector"],
                              key=lambda s: s.map(order[str(s.name)]))
    return cells[_COLS].reset_index(drop=True)


def read_ek_ablation(csv: str | os.PathLike[str]) -> tuple[pd.DataFrame, list[str]]:
    """The cells and notes of a report :func:`save_ek_ablation` wrote (for ``--fig5 --add``).

    Floats come back exact; a report written before reports counted alarms has NaN counts.

    Raises
    ------
    FileNotFoundError
        No file at ``csv``.
    ValueError
        Not such a report: a column missing, or a row of no classifier or detector of Fig. 5.

    Examples
    --------
    >>> import tempfile, pandas as pd
    >>> cells = pd.DataFrame({"classifier": "gnb", "detector": ["pudd-3", "ek-3"],
    ...     "dataset": "sea0", "regime": "incremental", "ours": [94.0, 90.0], "std": 0.5,
    ...     "n_seeds": 2, "n_errors": 0, "seeds": "0-1"})
    >>> _, csv = save_ek_ablation(cells, tempfile.mkdtemp(), notes=["GNB seeds 0-1"])
    >>> back, notes = read_ek_ablation(csv)
    >>> back[["detector", "ours", "seeds"]].to_dict("list")
    {'detector': ['pudd-3', 'ek-3'], 'ours': [94.0, 90.0], 'seeds': ['0-1', '0-1']}
    >>> notes
    ['GNB seeds 0-1']
    """
    import pandas as pd

    path = Path(csv)
    if not path.is_file():
        raise FileNotFoundError(f"no report at {path}: write one first (without --add)")
    what = f"{path} is not a Fig. 5 report as `reproduce --fig5` writes it"
    try:
        cells = pd.read_csv(path, dtype={"seeds": str}, float_precision="round_trip")
    except (ValueError, UnicodeDecodeError) as err:
        raise ValueError(f"{what}: {' '.join(str(err).split())}") from None
    missing = [c for c in _COLS[:9] if c not in cells]
    if missing:
        raise ValueError(f"{what}: no column {', '.join(missing)}")
    for name, allowed in (("classifier", EK_CLASSIFIERS), ("detector", _ROWS),
                          ("dataset", EK_DATASETS), ("regime", REGIMES)):
        other = sorted(set(map(str, cells[name])) - set(allowed))
        if other:
            raise ValueError(f"{what}: {name} {', '.join(other)} is not one of Fig. 5's")
    if cells.duplicated(_CELL).any():
        dup = cells[cells.duplicated(_CELL)].iloc[0]
        raise ValueError(f"{what}: the cell {' / '.join(map(str, dup[_CELL]))} appears twice")
    try:
        cells = checked_numbers(cells, path, ("ours", "std", *ALARM_COLUMNS))
    except ValueError as err:
        raise ValueError(f"{what}: {str(err).split(': ', 1)[1]}") from None
    for name in ALARM_COLUMNS:
        if name not in cells:
            cells[name] = float("nan")
    cells["seeds"] = cells["seeds"].fillna("").astype(str)
    for row in cells.itertuples(index=False):
        # "0-2, 5" (every report since); "0,3" (Fig. 5 reports written before)
        if row.seeds and not re.fullmatch(r"\d+(-\d+)?(, ?\d+(-\d+)?)*", row.seeds):
            raise ValueError(f"{what}: cell {row.classifier} / {row.detector} / {row.dataset} / "
                             f"{row.regime}: seeds {row.seeds!r} are not like '0-2, 5'")
    md = path.with_suffix(".md")
    notes: list[str] = []
    if md.is_file():
        head = md.read_text(encoding="utf-8", errors="replace").split("\n## ")[0]
        notes = [line[2:] for line in head.splitlines() if line.startswith("- ")]
    return _in_order(cells), notes


def merge_ek_cells(base: pd.DataFrame, added: pd.DataFrame) -> pd.DataFrame:
    """``base``'s cells with ``added``'s put in: a cell of both is ``added``'s.

    Examples
    --------
    >>> import pandas as pd
    >>> one = pd.DataFrame({"classifier": "gnb", "detector": ["pudd-3", "ek-3"],
    ...     "dataset": "sea0", "regime": "incremental", "ours": [94.0, 90.0], "std": 0.5,
    ...     "n_seeds": 2, "n_errors": 0, "seeds": "0-1"})
    >>> refs = one.iloc[:1].assign(detector="none", ours=93.0)
    >>> merge_ek_cells(one, refs)[["detector", "ours"]].to_dict("list")
    {'detector': ['pudd-3', 'ek-3', 'none'], 'ours': [94.0, 90.0, 93.0]}
    """
    import pandas as pd

    key = ["classifier", "detector", "dataset", "regime"]
    base, added = (c.reindex(columns=_COLS) for c in (base, added))
    new = pd.MultiIndex.from_frame(added[key])
    kept = base[~pd.MultiIndex.from_frame(base[key]).isin(new)]
    return _in_order(pd.concat([kept, added], ignore_index=True))


def ek_ablation_markdown(cells: pd.DataFrame, *, notes: Sequence[str] = ()) -> str:
    """The ablation as Markdown: PUDD-x beside EK-x for each classifier and regime.

    Examples
    --------
    >>> import pandas as pd
    >>> cells = pd.DataFrame({"classifier": "gnb", "detector": ["pudd-3", "ek-3"],
    ...     "dataset": "sea0", "regime": "incremental", "ours": [94.0, 90.0], "std": 0.5,
    ...     "n_seeds": 2, "n_errors": 0, "seeds": "0-1"})
    >>> [line for line in ek_ablation_markdown(cells).splitlines() if line.startswith("| EK-3")]
    ['| EK-3 | 90.00 | 90.00 |']
    """
    lines = ["# Fig. 5: Adaptive PU-index Bucketing (PUDD) against Ei-kMeans (EK)", "",
             "Mean accuracy (%) over seeds; PUDD-x and EK-x use α = 10⁻ˣ and differ only "
             "in the partition of the PU-index values. The paper prints Fig. 5 as an image, "
             "so there is no published number to compare with. Rows marked (ref.) are "
             "references, not ranked: the same classifier with no detector, and the oracle "
             "adapting at the true drifts (synthetic streams only).", "",
             *(f"- {n}" for n in notes)]
    for (clf, regime), part in cells.groupby(["classifier", "regime"], sort=False):
        cols = [d for d in DATASETS if d in set(part["dataset"])]
        seeds = sorted(set(part["seeds"].astype(str)))
        lines += ["", f"## {DISPLAY_NAMES.get(str(clf), clf)} {DISPLAY_NAMES[str(regime)]} "
                      f"(seeds {', '.join(seeds)})", "",
                  "| detector | " + " | ".join(DISPLAY_NAMES.get(c, c) for c in cols)
                  + " | mean |", "| --- |" + " ---: |" * (len(cols) + 1)]
        rows = [d for d in _ROWS if d in set(part["detector"])]
        for det in rows:
            row = part[part["detector"] == det].set_index("dataset")["ours"]
            vals = [row.get(c, math.nan) for c in cols]
            texts = ["–" if math.isnan(v) else f"{v:.2f}" for v in vals]
            mean = "–" if any(map(math.isnan, vals)) else f"{sum(vals) / len(vals):.2f}"
            lines.append(f"| {_row_name(det)} | " + " | ".join(texts) + f" | {mean} |")
        if "alarms" in part and part["alarms"].notna().any():
            by_key = {(r.detector, r.dataset): r for r in part.itertuples(index=False)}
            lines += ["", "Alarms per run (drifts detected, false alarms, mean delay where "
                          "the drifts are known):", "",
                      "| detector | " + " | ".join(DISPLAY_NAMES.get(c, c) for c in cols) + " |",
                      "| --- |" + " ---: |" * len(cols)]
            lines += [f"| {_row_name(d)} | " + " | ".join(
                alarm_text(by_key.get((d, c))) for c in cols) + " |" for d in rows]
    return "\n".join(lines) + "\n"


def _row_name(detector: str) -> str:
    return DISPLAY_NAMES.get(detector, detector.upper())


def save_ek_ablation(cells: pd.DataFrame, directory: str | os.PathLike[str], *,
                     notes: Sequence[str] = ()) -> tuple[Path, Path]:
    """Write ``fig5_ek.md`` and ``fig5_ek.csv`` into ``directory``; return both paths."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    md, csv = folder / "fig5_ek.md", folder / "fig5_ek.csv"
    md.write_text(ek_ablation_markdown(cells, notes=notes), encoding="utf-8")
    cells.to_csv(csv, index=False)
    return md, csv
