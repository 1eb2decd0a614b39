"""Adding seeds or cells to a saved report (``reproduce --add``): what may be added, the merge.

:func:`check_addition` refuses runs that cannot join a report's cells; :func:`merge_reports`
pools the seeds of both.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pudd_core import _validation
from pudd_core.experiments.runner import RunConfig
from pudd_core.paper import (
    SOTA_LEARNERS,
)
from pudd_core.reproduction.configs import detector_label, parse_seed_text, seed_text, setting_text
from pudd_core.reproduction.report import (
    ALARMS,
    CELL,
    COLUMNS,
    SETTINGS,
    SOTA_CAVEAT,
    UNKNOWN_SETTING,
    ReproductionReport,
    sota_caveat,
)

if TYPE_CHECKING:

    pass

__all__ = [
    "check_addition",
    "merge_reports",
]

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
    return parse_seed_text(row.seeds) if row.seeds else None


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
    for name in SETTINGS:
        have = {str(v) for v in ran[name]} if name in ran else set()
        want = added.get(name, set())
        if not have or not want or have == want == {next(iter(have))}:
            continue
        if UNKNOWN_SETTING in have:
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
    return {name: {setting_text(name, getattr(cfg, name)) for cfg in configs}
            for name in SETTINGS}


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
    >>> from pudd_core.reproduction.report import _example_runs, reproduction_report
    >>> from pudd_core.reproduction.configs import reproduction_configs
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
        base.cells[CELL].itertuples(index=False, name=None),
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
    """Two cells' alarm counts (:data:`ALARMS`) over their runs together.

    The counts weighted by seeds, the delay by detections; NaN where either cell does not
    know a count.
    """
    n = a.n_seeds + b.n_seeds
    out = [(getattr(a, c) * a.n_seeds + getattr(b, c) * b.n_seeds) / n for c in ALARMS[:-1]]
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
    >>> from pudd_core.reproduction.report import _example_runs, reproduction_report
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
    _check_settings(base, {name: set(added.cells.loc[ran, name]) for name in SETTINGS})
    cells = base.cells.set_index(CELL)
    new_rows = []
    for row in added.cells[ran].itertuples(index=False):
        cell = (row.detector, row.dataset, row.regime)
        if cell not in cells.index:
            new_rows.append(row)
            continue
        old = next(cells.loc[[cell]].reset_index().itertuples(index=False))
        if row.n_seeds == 0:  # only failed runs: counted, nothing else changes
            cells.loc[cell, "n_errors"] = old.n_errors + row.n_errors
            cells.loc[cell, list(SETTINGS)] = [getattr(row, c) for c in SETTINGS]
            continue
        how = "replace" if replace else _addition(_base_seeds(old), int(old.n_seeds),
                                                    parse_seed_text(row.seeds), cell)
        if how in ("new", "replace"):
            cells.loc[cell, ["ours", "std", "n_seeds", "n_errors", "seeds", *ALARMS,
                             *SETTINGS]] = [
                row.ours, row.std, row.n_seeds, row.n_errors, row.seeds,
                *(getattr(row, c) for c in ALARMS), *(getattr(row, c) for c in SETTINGS)]
        elif how == "pool":
            mean, std = _pool(old, row)
            cells.loc[cell, ["ours", "std", "n_seeds", "n_errors", "seeds", *ALARMS]] = [
                mean, std, old.n_seeds + row.n_seeds, old.n_errors + row.n_errors,
                seed_text(sorted(parse_seed_text(old.seeds) | parse_seed_text(row.seeds))),
                *_pool_alarms(old, row)]
    merged = cells.reset_index()
    if new_rows:
        merged = pd.concat([merged, pd.DataFrame(new_rows, columns=added.cells.columns)],
                           ignore_index=True)
    merged = merged[COLUMNS]
    merged["difference"] = merged["ours"] - merged["paper"]
    merged[["n_seeds", "n_errors"]] = merged[["n_seeds", "n_errors"]].astype(int)
    caveats = [*base.caveats, *(c for c in added.caveats if c not in base.caveats)]
    if base.table == 2:  # which rows ran: the merged report's, not either part's
        at = next((i for i, c in enumerate(caveats) if c.startswith(SOTA_CAVEAT)), 1)
        caveats = [c for c in caveats if not c.startswith(SOTA_CAVEAT)]
        caveats.insert(at, sota_caveat(set(merged.loc[merged["n_seeds"] > 0, "detector"])))
    if note:
        caveats.append(note)
    seeds = set().union(*(parse_seed_text(s) for s in merged["seeds"]))
    # both runs' time, when both are known (a report read back may not say it)
    return ReproductionReport(base.table, base.classifier, merged, tuple(sorted(seeds)),
                              int(merged["n_errors"].sum()), tuple(caveats),
                              base.run_seconds + added.run_seconds)
