"""What the scan engine is set with and returns: its settings, the cut points, a scan's result.

:class:`ScanSettings` configures a :class:`~pudd_core._scan.History`; :class:`ScanResult`
(one :class:`CutResult` per cut) is what a test step concludes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from pudd_core import _validation
from pudd_core.bucketing import (
    check_bucket_options,
)
from pudd_core.chi2 import PUTestResult

__all__ = [
    "MAX_POW2",
    "CutPoints",
    "CutResult",
    "Partition",
    "ReferenceSplit",
    "Refit",
    "ScanResult",
    "ScanSettings",
    "SkipRule",
    "cut_points",
    "fitted_length",
]


CutPoints = Literal["pow2", "all"]


SkipRule = Literal["accuracy", "pu_mean"]


Partition = Literal["pu", "ek"]


ReferenceSplit = Literal["argmax", "pu_lt_0.5"]


Refit = Literal["every", "doubling"]


MAX_POW2 = 10  # the authors' cuts: 2^j for j < 10, at most 512 chunks back


def cut_points(n: int, mode: CutPoints = "pow2", max_pow2: int = MAX_POW2) -> list[int]:
    r"""Recent-window lengths (in chunks) tested with ``n`` chunks since the last alarm.

    ``"pow2"`` is the authors' set $\{2^j : j < $ ``max_pow2``$, 2^j < n\}$ (spec section 1.3);
    ``"all"`` is the paper's every cut $1, \ldots, n - 1$ (Algorithm 1, line 2).

    Examples
    --------
    >>> cut_points(5), cut_points(99), cut_points(5, "all")
    ([1, 2, 4], [1, 2, 4, 8, 16, 32, 64], [1, 2, 3, 4])
    """
    if mode == "all":
        return list(range(1, n))
    return [1 << j for j in range(max_pow2) if (1 << j) < n]


def fitted_length(m: int) -> int:
    """The reference prefix whose buckets test old window ``chunks[:m]`` with ``refit="doubling"``.

    The longest prefix of 1, 2, 4, 8, ... chunks not longer than ``m``.

    Examples
    --------
    >>> [fitted_length(m) for m in (1, 2, 3, 4, 7, 8, 127, 128)]
    [1, 2, 2, 4, 4, 8, 64, 128]
    """
    return 1 << (m.bit_length() - 1)


@dataclass(frozen=True)
class CutResult:
    """One tested (or skipped) cut point of a scan.

    Examples
    --------
    >>> CutResult(cut=2, p_value=1.0, skipped=True)
    CutResult(cut=2, p_value=1.0, skipped=True)

    Attributes
    ----------
    cut
        Length of the recent window in chunks (the old window is the rest of the history).
    p_value
        The cut's p-value; 1 when skipped.
    skipped
        Whether the skip rule spared the test.
    test
        The full test (table, buckets, expected counts); ``None`` when skipped.
    """

    cut: int
    p_value: float
    skipped: bool
    test: PUTestResult | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class ScanResult:
    """What :meth:`ChunkPUDD.update <pudd_core.ChunkPUDD.update>` found for one chunk.

    Examples
    --------
    >>> from pudd_core import ChunkPUDD
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> det = ChunkPUDD(skip_rule=None)
    >>> for a in (1, 1, 4):
    ...     u = rng.beta(a, 8, 500)
    ...     det.update(u, u < 0.5)
    >>> scan = det.last_scan
    >>> [c.cut for c in scan.cuts], scan.winner.cut, scan.drift_detected
    ([1, 2], 1, True)

    Attributes
    ----------
    chunk_index
        0-based index of the chunk among all chunks the detector has seen.
    n_chunks
        Chunks in the history since the last alarm, this one included.
    accuracy
        Accuracy of this chunk's predictions.
    p_value
        Minimum p-value over the cuts (1 with fewer than two chunks).
    cut_point
        Recent-window length of the winning cut, in chunks (``None`` before any test).
    drift_detected
        Whether ``p_value < alpha``.
    cuts
        Every cut of the scan, in increasing cut order.
    shortcut
        Why no scan ran, if it did not (spec sections 1.2 and 1.5).
    """

    chunk_index: int
    n_chunks: int
    accuracy: float
    p_value: float
    cut_point: int | None
    drift_detected: bool
    cuts: tuple[CutResult, ...] = ()
    shortcut: str | None = None

    @property
    def no_test(self) -> str | None:
        """Why no chi-square test decided this chunk's p-value, or None when one did.

        A shortcut (spec sections 1.2 and 1.5: too few chunks, a chunk accuracy below
        ``min_accuracy``), or every cut point spared by the skip rule. Where this is not None,
        ``p_value`` is a convention (1, or 0 for the accuracy shortcut), not a test's outcome:
        logs and exports show it as missing, with this reason.

        Examples
        --------
        >>> from pudd_core import ChunkPUDD
        >>> det = ChunkPUDD()
        >>> det.update([0.1, 0.2], [True, True])
        >>> det.p_value, det.last_scan.no_test
        (1.0, 'fewer than two chunks since the last alarm')
        """
        if self.shortcut is not None:
            return self.shortcut
        if self.cuts and all(c.skipped for c in self.cuts):
            return "every cut point skipped by the skip rule"
        return None

    @property
    def winner(self) -> CutResult | None:
        """The cut that gave the minimum p-value, if a test ran.

        Examples
        --------
        >>> from pudd_core import ChunkPUDD
        >>> import numpy as np
        >>> old, new = np.linspace(0.0, 0.4, 100), np.linspace(0.1, 0.9, 100)
        >>> det = ChunkPUDD(seed=0)
        >>> det.update(old, old < 0.5)
        >>> det.last_scan.winner is None  # one chunk: no cut to test
        True
        >>> for u in (old, new):
        ...     det.update(u, u < 0.5)
        >>> det.last_scan.winner
        CutResult(cut=1, p_value=8.13...e-24, skipped=False)
        >>> det.last_scan.winner.test.table.tolist()  # K = 3 buckets, then the errors
        [[70, 66, 64, 5], [29, 17, 5, 50]]
        """
        for c in self.cuts:
            if c.cut == self.cut_point:
                return c
        return None


@dataclass(frozen=True)
class ScanSettings:
    """The detector parameters the engine reads, checked once; fields as the detectors name them.

    Examples
    --------
    >>> from pudd_core import PUDD
    >>> s = ScanSettings.from_params(PUDD(alpha=0.01, n_buckets=3)._get_params())
    >>> s.alpha, s.n_buckets, s.cache_buckets, s.partition
    (0.01, 3, True, 'pu')
    >>> import dataclasses
    >>> dataclasses.replace(s, n_buckets=0)
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: n_buckets must be an integer >= 1, got 0
    """

    alpha: float
    cut_points: CutPoints
    skip_rule: SkipRule | None
    n_buckets: int
    min_bucket_size: int
    sample_size: int
    clamp_min: int
    min_expected: float
    yates: bool
    min_accuracy: float
    # ChunkPUDD's alone; Algorithm 2 (PUDD) always works as these defaults
    reference_split: ReferenceSplit = "argmax"
    cache_buckets: bool = True
    partition: Partition = "pu"
    refit: Refit = "every"

    def __post_init__(self) -> None:
        _validation.check_open_unit("alpha", self.alpha)
        _validation.check_choice("partition", self.partition, ("pu", "ek"))
        _validation.check_choice("cut_points", self.cut_points, ("pow2", "all"))
        _validation.check_choice("skip_rule", self.skip_rule, ("accuracy", "pu_mean", None))
        _validation.check_choice("reference_split", self.reference_split,
                                 ("argmax", "pu_lt_0.5"))
        check_bucket_options(self.n_buckets, self.min_bucket_size, self.sample_size)
        _validation.check_positive_int("clamp_min", self.clamp_min, minimum=0)
        _validation.check_bool("yates", self.yates)
        if _validation.finite_float("min_expected", self.min_expected) < 0:
            raise _validation.ParameterError(
                "min_expected", f"min_expected must be >= 0, got {self.min_expected!r}")
        _validation.check_bool("cache_buckets", self.cache_buckets)
        _validation.check_choice("refit", self.refit, ("every", "doubling"))
        if self.refit == "doubling" and not self.cache_buckets:
            raise _validation.ParameterError(
                "refit", "refit='doubling' reuses fitted buckets: it needs cache_buckets=True",
                ("every",))
        if not 0.0 <= _validation.finite_float("min_accuracy", self.min_accuracy) <= 1.0:
            raise _validation.ParameterError(
                "min_accuracy", f"min_accuracy must lie in [0, 1], got {self.min_accuracy!r}")

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> ScanSettings:
        """The settings among a detector's parameters (river's ``_get_params()``); others go."""
        return cls(**{f.name: params[f.name] for f in fields(cls) if f.name in params})
