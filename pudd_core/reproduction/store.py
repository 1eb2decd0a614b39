"""A saved report read back (its CSV and the Markdown beside it), its numbers checked as read.

A file the project reads back is data: every number is checked, never evaluated.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pudd_core import _options
from pudd_core.paper import (
    REFERENCES,
    paper_table,
)
from pudd_core.reproduction.configs import parse_seed_text, seed_text, table_layout
from pudd_core.reproduction.report import (
    ALARMS,
    CELL,
    COLUMNS,
    SETTINGS,
    UNKNOWN_SETTING,
    ReproductionReport,
)

if TYPE_CHECKING:
    import os

    import pandas as pd

__all__ = [
    "checked_numbers",
    "read_report",
]

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
            header_seeds = parse_seed_text(named.group(1))
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
    >>> from pudd_core.reproduction.report import _example_runs, reproduction_report
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

    layout = table_layout(table, classifier)
    path = Path(csv)
    if not path.is_file():
        raise FileNotFoundError(f"no report at {path}: write one first (without --add)")
    try:
        cells = pd.read_csv(path, float_precision="round_trip",
                            dtype={c: str for c in (*CELL, "seeds", "classifier",
                                                    *SETTINGS)},
                            keep_default_na=False, na_values={
                                c: [""] for c in ("paper", "ours", "difference", "std",
                                                  *ALARMS)})
    except (ValueError, UnicodeDecodeError) as err:  # pandas' parser and empty-file errors
        raise _report_error(path, " ".join(str(err).split())) from None
    missing = [c for c in ("detector", "dataset", "regime", "paper", "ours", "n_seeds")
               if c not in cells]
    if missing:
        raise _report_error(path, f"no column {', '.join(missing)}")
    extra = [c for c in cells if c not in (*COLUMNS, "table", "classifier")]
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
    for name in ALARMS:  # a report written before reports counted alarms
        if name not in cells:
            cells[name] = float("nan")
    cells = checked_numbers(cells, path, ("paper", "ours", "difference", "std", *ALARMS))
    rows = {"detector": (*layout.detectors, *REFERENCES), "dataset": layout.datasets,
            "regime": layout.regimes}
    for name, allowed in rows.items():
        other = sorted(set(cells[name]) - set(allowed))
        if other:
            raise _report_error(path, f"{name} {', '.join(map(repr, other))} is not one of "
                                      f"Table {table}'s")
    if cells.duplicated(CELL).any():
        dup = cells[cells.duplicated(CELL)].iloc[0]
        raise _report_error(path, f"the cell {dup.detector} / {dup.dataset} / {dup.regime} "
                                  "appears twice")
    published = paper_table(table)
    published = published[published["classifier"] == classifier].set_index(CELL)["accuracy"]
    mine = cells.set_index(CELL)["paper"]
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
            cell_seeds = parse_seed_text(row.seeds)
        except ValueError as err:
            raise _report_error(path, f"cell {row.detector} / {row.dataset} / {row.regime}: "
                                      f"{err}") from None
        if row.seeds and len(cell_seeds) != row.n_seeds:
            raise _report_error(path, f"cell {row.detector} / {row.dataset} / {row.regime} has "
                                      f"n_seeds {row.n_seeds} but seeds {row.seeds}")
        seeds |= cell_seeds
    return ReproductionReport(table, classifier, cells[COLUMNS].reset_index(drop=True),
                              tuple(sorted(seeds)), int(cells["n_errors"].sum()), caveats,
                              run_seconds)


_PERCENT = ("paper", "ours")


_NON_DEFAULT = "Non-default settings, so cells may differ from the paper's protocol: "


def _caveat_settings(caveats: Sequence[str] | None) -> dict[str, str]:
    """The settings of every cell of a report written before reports recorded them.

    Its Markdown's caveats name the settings that were not the defaults
    (:func:`_caveats`); a setting named with several values, or a report without its
    Markdown (``caveats`` None), is :data:`UNKNOWN_SETTING`.

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
        return dict.fromkeys(SETTINGS, UNKNOWN_SETTING)
    found = dict(SETTINGS)
    line = next((c for c in caveats if c.startswith(_NON_DEFAULT)), None)
    if line is None:
        return found
    names = "|".join(SETTINGS)
    for part in re.split(f"; (?=(?:{names})=)", line[len(_NON_DEFAULT):].removesuffix(".")):
        name, _, value = part.partition("=")
        if name not in found:
            return dict.fromkeys(SETTINGS, UNKNOWN_SETTING)
        several = (_options.read_options_json(value) is None if name.endswith("_options")
                   else ", " in value)
        found[name] = UNKNOWN_SETTING if several else value
    return found


def _read_settings(cells: pd.DataFrame, path: Path,
                   caveats: Sequence[str] | None) -> pd.DataFrame:
    """``cells`` with each setting column: read and checked, or from an older report's caveats.

    A cell run (seeds or errors) has a value for every setting; a cell not run has none.
    """
    have = [c for c in SETTINGS if c in cells]
    ran = (cells["n_seeds"] > 0) | (cells["n_errors"] > 0)
    if not have:  # written before reports recorded their settings
        for name, value in _caveat_settings(caveats).items():
            cells[name] = [value if r else "" for r in ran]
        return cells
    if len(have) < len(SETTINGS):
        raise _report_error(path, "no column " + ", ".join(c for c in SETTINGS
                                                           if c not in have))
    for name in SETTINGS:
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
