"""What a PUDD test leaves for plots and exports: the winning cut's windows, every cut's test.

Plain data (numpy and the detector only): the runner's ``ChunkLog`` and the monitor's records
(both a ``ChunkTest``) hold these, and the app draws them without rerunning anything.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from pudd_core.detector import ChunkPUDD, ScanResult

__all__ = ["HIST_EDGES", "ChunkTest", "CutTest", "WindowRecord", "cut_tests", "window_record"]

#: PU histograms for plots: 40 bins of width 0.025.
HIST_EDGES = np.linspace(0.0, 1.0, 41)


@dataclass(frozen=True)
class ChunkTest:
    """A tested chunk: its accuracy and PU-index, and the detector's verdict on it.

    The fields the runner's ``ChunkLog`` and the monitor's ``ChunkRecord`` share, first in both.

    Examples
    --------
    >>> from dataclasses import fields
    >>> [f.name for f in fields(ChunkTest)][:4]
    ['chunk_index', 'accuracy', 'pu_mean', 'pu_median']
    """

    chunk_index: int
    accuracy: float
    pu_mean: float
    pu_median: float
    #: NaN for detectors that give none; for PUDD where ``no_test`` is set, the detector's
    #: convention (1, or 0 for the accuracy shortcut), which exports write as missing
    p_value: float
    #: (cut, p) of every cut; NaN for a cut the skip rule spared (no test ran)
    cut_p_values: tuple[tuple[int, float], ...]
    alarm: bool
    cut_point: int | None


@dataclass(frozen=True)
class WindowRecord:
    """The winning cut of a PUDD test, for plots: histograms, table, buckets.

    Examples
    --------
    >>> from pudd_core import ChunkPUDD
    >>> det, rng = ChunkPUDD(alpha=1e-3, seed=0), np.random.default_rng(0)
    >>> for shift in (0.0, 0.0, 0.3):  # two chunks, then one whose PU-index moved up
    ...     u = np.clip(rng.uniform(0, 0.5, 500) + shift, 0, 1)
    ...     det.update(u, u < 0.5)
    >>> w = window_record(det)
    >>> sum(w.ref_correct), sum(w.new_correct) + sum(w.new_wrong), w.table[1][-1]
    (1000, 500, 286)
    """

    ref_correct: tuple[int, ...]
    ref_wrong: tuple[int, ...]
    new_correct: tuple[int, ...]
    new_wrong: tuple[int, ...]
    bucket_edges: tuple[float, ...]
    bucket_centres: tuple[float, ...]
    table: tuple[tuple[int, ...], ...]
    expected: tuple[tuple[float, ...], ...]

    def by_centre(self) -> WindowRecord:
        """The record with its buckets (table and expected columns) in ascending PU order.

        Examples
        --------
        >>> rec = WindowRecord((), (), (), (), (0.2,), (0.4, 0.1), ((1, 2, 3), (4, 5, 6)),
        ...                    ((1.0, 2.0, 3.0), (4.0, 5.0, 6.0)))
        >>> r = rec.by_centre()
        >>> r.bucket_centres, r.table
        ((0.1, 0.4), ((2, 1, 3), (5, 4, 6)))
        """
        k = len(self.bucket_centres)
        errors = [k] if self.table and len(self.table[0]) > k else []  # EK: no such column
        order = sorted(range(k), key=self.bucket_centres.__getitem__) + errors
        return replace(
            self,
            bucket_centres=tuple(self.bucket_centres[j] for j in order[:k]),
            table=tuple(tuple(row[j] for j in order) for row in self.table),
            expected=tuple(tuple(row[j] for j in order) for row in self.expected),
        )


@dataclass(frozen=True)
class CutTest:
    """One cut of a PUDD scan, as the explorer reads it: the test's numbers, or why none ran.

    ``skipped``: the skip rule spared the cut (p = 1, no test); ``shortcut``: a rule of the
    detector decided p without a χ² test (statistic NaN, dof 0); ``floored_cells``: cells the
    count floor (``clamp_min``) raised before the test.

    Examples
    --------
    >>> CutTest(2, 0.01, 6.6, 1, False, 0, None).dof
    1
    """

    cut: int
    p_value: float
    statistic: float
    dof: int
    skipped: bool
    floored_cells: int
    shortcut: str | None


def cut_tests(scan: ScanResult) -> tuple[CutTest, ...]:
    """Every cut of a ChunkPUDD scan (``detector.last_scan``) as a :class:`CutTest`.

    Examples
    --------
    >>> from pudd_core import ChunkPUDD
    >>> det, rng = ChunkPUDD(alpha=1e-3, seed=0), np.random.default_rng(0)
    >>> for shift in (0.0, 0.0, 0.3):
    ...     u = np.clip(rng.uniform(0, 0.5, 500) + shift, 0, 1)
    ...     det.update(u, u < 0.5)
    >>> [(t.cut, t.dof, t.skipped) for t in cut_tests(det.last_scan)]
    [(1, 5, False), (2, 5, False)]
    """
    out = []
    for c in scan.cuts:
        t = c.test
        out.append(CutTest(
            int(c.cut), float(c.p_value), float(t.statistic) if t is not None else float("nan"),
            int(t.dof) if t is not None else 0, bool(c.skipped),
            t.floored_cells if t is not None else 0, t.shortcut if t is not None else None))
    return tuple(out)


def window_record(det: ChunkPUDD) -> WindowRecord | None:
    """The winning cut of the detector's last scan as a :class:`WindowRecord`; None untested.

    Examples
    --------
    >>> from pudd_core import ChunkPUDD
    >>> window_record(ChunkPUDD()) is None  # no chunk yet
    True
    """
    scan = det.last_scan
    win = scan.winner if scan is not None else None
    if win is None or win.test is None:
        return None
    u_old, ok_old, u_new, ok_new = det.windows(win.cut)

    def hist(v: NDArray[np.float64]) -> tuple[int, ...]:
        return tuple(int(c) for c in np.histogram(v, bins=HIST_EDGES)[0])

    t = win.test
    return WindowRecord(
        ref_correct=hist(u_old[ok_old]), ref_wrong=hist(u_old[~ok_old]),
        new_correct=hist(u_new[ok_new]), new_wrong=hist(u_new[~ok_new]),
        bucket_edges=tuple(float(e) for e in t.buckets.edges),
        bucket_centres=t.buckets.centres,
        table=tuple(tuple(int(v) for v in row) for row in t.table),
        expected=tuple(tuple(float(v) for v in row) for row in t.expected),
    )
