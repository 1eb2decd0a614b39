"""The scan engine of both PUDD detectors: history, cached buckets, skip rule, one test step.

:class:`~pudd_core.ChunkPUDD` (Algorithm 1) and :class:`~pudd_core.PUDD` (Algorithm 2) keep
their chunks (blocks) in a :class:`History` configured by a frozen :class:`ScanSettings`, and
end every test step with :func:`conclude`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from pudd_core._scan.settings import (
    MAX_POW2,
    CutPoints,
    CutResult,
    Partition,
    ReferenceSplit,
    Refit,
    ScanResult,
    ScanSettings,
    SkipRule,
    cut_points,
    fitted_length,
)
from pudd_core.bucketing import (
    Buckets,
    build_buckets,
    counts_from_below,
    fitting_sample,
)
from pudd_core.chi2 import evaluate_table, pairwise_sum

__all__ = [
    "MAX_POW2",
    "CutPoints",
    "Partition",
    "ReferenceSplit",
    "Refit",
    "SkipRule",
    "Chunk",
    "Cumulative",
    "CutResult",
    "Draw",
    "History",
    "LastScan",
    "Prefix",
    "ScanResult",
    "ScanSettings",
    "Stats",
    "conclude",
    "cut_points",
    "fitted_length",
]


_FEW = 32  # up to this many values, a sum in plain Python beats numpy's call overhead


T = TypeVar("T")


T_arr = TypeVar("T_arr", bound=np.generic)


@dataclass
class Stats:
    """What the skip rules read of a chunk (or of an online detector's partial block)."""

    accuracy: float
    n_errors: int
    err_sum: float  # sum of misclassified PU values (the paper's skip rule)


@dataclass
class Chunk:
    """One chunk (or online block) of the history, with what every later test needs."""

    u: NDArray[np.float64]
    correct: NDArray[np.bool_]
    ref_mask: NDArray[np.bool_]  # correctness as the old window counts it (reference_split)
    n_errors: int
    accuracy: float
    err_sum: float

    @classmethod
    def of(cls, u: NDArray[np.float64], correct: NDArray[np.bool_], split: str) -> Chunk:
        """The chunk of PU values ``u`` with correctness ``correct``, split as ``split`` says."""
        n_ok = int(np.count_nonzero(correct))
        return cls(
            u=u,
            correct=correct,
            ref_mask=u < 0.5 if split == "pu_lt_0.5" else correct,
            n_errors=u.size - n_ok,
            accuracy=n_ok / u.size,
            err_sum=float(u[~correct].sum()),
        )


@dataclass
class Prefix:
    """Buckets fitted on the first ``m`` chunks, with the counts of the chunks after them.

    Algorithm 2's cache: a later test against this reference counts chunks ``m .. n - 1``;
    ``n`` only grows, so the row of ``m .. stop - 1`` is kept and only new chunks are counted.
    """

    m: int
    buckets: Buckets
    old_row: NDArray[np.int64]
    ek: bool = False  # the EK ablation buckets every value and has no error column
    stop: int = -1  # recent_row covers chunks m .. stop - 1 (-1: nothing counted yet)
    recent: NDArray[np.int64] | None = None

    def recent_row(self, history: History, stop: int) -> NDArray[np.int64]:
        """Bucket counts of the correct values of chunks ``m .. stop - 1``, then their errors."""
        if self.recent is None or stop < self.stop:
            self.recent, self.stop = np.zeros(self.old_row.size, dtype=np.int64), self.m
        if stop > self.stop:
            self.recent = self.recent + history.count(self.buckets, self.stop, stop, self.ek)
            self.stop = stop
        return self.recent


@dataclass(frozen=True)
class Draw:
    """A reference prefix's fitting sample, drawn in order but fitted only when first tested.

    The generator's draws happen at the same points as an eager fit's, so a prefix fitted
    late (or never, when the skip rule spares every cut that would test it) leaves every
    other prefix's sample, and so every result, unchanged.
    """

    sample: NDArray[np.float64]
    n_ref: int  # values in the reference window (caps K with n_test, spec section 1.6 step 2)
    n_test: int


def _grown(a: NDArray[T_arr], n: int, size: int) -> NDArray[T_arr]:
    """A zeroed buffer of ``size`` holding ``a[:n]`` (np.resize would copy ``a`` to fill it).

    Zeroed, not ``np.empty``: the buffers are pickled with a saved monitor state, whose
    unused tail then holds zeros, never stray bytes of the process's memory.
    """
    out = np.zeros(size, dtype=a.dtype)
    out[:n] = a[:n]
    return out


class _Sorted:
    """The values of every chunk, each chunk's sorted, as one array of keys ``chunk + i * u``.

    numpy orders complex numbers lexicographically (real part, then imaginary part), so one
    ``searchsorted`` of the keys ``j + i * edge`` for every chunk ``j`` and bucket edge counts
    each chunk's values below each edge: a window of any number of chunks is counted into
    buckets in time logarithmic in its size, and each value is sorted once, when it arrives.
    """

    def __init__(self) -> None:
        self.keys = np.empty(0, dtype=np.complex128)
        self.starts: list[int] = [0]  # chunk j's keys are keys[starts[j] : starts[j + 1]]

    def add(self, values: NDArray[np.float64]) -> None:
        n, k = self.starts[-1], values.size
        if n + k > self.keys.size:
            self.keys = _grown(self.keys, n, max(2 * self.keys.size, n + k, 1024))
        seg = self.keys[n : n + k]
        seg.real = len(self.starts) - 1
        seg.imag = np.sort(values)
        self.starts.append(n + k)

    def tail(self, first: int, *, reuse: bool = False) -> _Sorted:
        """The chunks from ``first`` on, renumbered from 0.

        ``reuse``: move them to the front of this buffer and hand it over (this object is
        spent): a history that forgets its oldest half grows back into the same memory,
        with no new allocation, no page faults and no regrowth.
        """
        out = _Sorted()
        a, b = self.starts[first], self.starts[-1]
        if reuse:
            keys = self.keys
            keys[: b - a] = keys[a:b]  # numpy copies overlapping slices as if buffered
            keys[: b - a].real -= first  # exact: small integers
            out.keys = keys
        else:
            out.keys = self.keys[a:b] - first  # exact: small integers
        out.starts = [s - a for s in self.starts[first:]]
        return out

    def counts(self, buckets: Buckets, start: int, stop: int) -> NDArray[np.int64]:
        """Bucket counts of the values of chunks ``start .. stop - 1``."""
        a, b = self.starts[start], self.starts[stop]
        total = b - a
        edges = buckets.search_edges
        if edges.size == 0 or total == 0:
            out = np.zeros(buckets.k, dtype=np.int64)
            out[int(buckets.interval_bins[0])] = total
            return out
        if stop - start == 1:  # one chunk (a test's newest): its sorted values, searched
            below = self.keys[a:b].imag.searchsorted(edges)
        else:
            q = np.empty((stop - start, edges.size), dtype=np.complex128)
            q.real = np.arange(start, stop)[:, None]
            q.imag = edges
            # only these chunks' keys: every key before them is smaller than each query, every
            # key after them larger
            found = np.searchsorted(self.keys[a:b], q.ravel())
            below = found.reshape(q.shape).sum(axis=0) - (sum(self.starts[start:stop])
                                                          - a * (stop - start))
        return np.array(counts_from_below(below.tolist(), total, buckets), dtype=np.int64)

    def chunk_counts(self, buckets: Buckets, start: int, stop: int) -> NDArray[np.int64]:
        """Bucket counts of each of chunks ``start .. stop - 1``, one row per chunk."""
        if stop - start == 1:
            return self.counts(buckets, start, stop)[None, :]
        a, b = self.starts[start], self.starts[stop]
        sizes = np.diff(np.array(self.starts[start : stop + 1]))
        edges = buckets.search_edges
        q = np.empty((stop - start, edges.size), dtype=np.complex128)
        q.real = np.arange(start, stop)[:, None]
        q.imag = edges
        found = np.searchsorted(self.keys[a:b], q.ravel()).reshape(q.shape)
        below = found - (np.array(self.starts[start:stop]) - a)[:, None]
        bounds = np.concatenate((np.zeros((stop - start, 1), dtype=np.int64), below,
                                 sizes[:, None]), axis=1)
        # values per interval, then summed into the bucket owning each interval
        owner = np.zeros((buckets.interval_bins.size, buckets.k), dtype=np.int64)
        owner[np.arange(buckets.interval_bins.size), buckets.interval_bins] = 1
        out: NDArray[np.int64] = np.diff(bounds, axis=1) @ owner
        return out


@dataclass
class Cumulative:
    """Buckets fitted on the first ``f`` chunks, with cumulative per-chunk counts in them.

    ``refit="doubling"``'s cache: ``rows[j]`` holds the bucket counts of the correct values of
    ``chunks[:j]`` (``ref_rows[j]`` the same by the reference split, when it differs), so
    any window's row is a difference of two of them; each chunk is counted once. Rows are
    lists of Python ints: a handful of buckets costs less so than in numpy calls.
    """

    f: int
    buckets: Buckets
    ek: bool = False
    rows: list[list[int]] = field(init=False)
    ref_rows: list[list[int]] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.rows = [[0] * self.buckets.k]  # row 0: no chunk

    def extend(self, history: History, stop: int) -> None:
        """Count chunks up to ``stop - 1`` into the cumulative rows."""
        first = len(self.rows) - 1
        if stop <= first:
            return
        if self.ref_rows is None and history._ref is not history._ok and not self.ek:
            self.ref_rows = [[0] * self.buckets.k]
        sorted_ = history._all if self.ek else history._ok
        assert sorted_ is not None
        _accumulate(self.rows, sorted_, self.buckets, first, stop)
        if self.ref_rows is not None:
            _accumulate(self.ref_rows, history._ref, self.buckets, first, stop)

    def table(self, history: History, m: int, n: int) -> list[list[int]]:
        """The observed table of old window ``chunks[:m]`` against ``chunks[m:n]`` (its rows)."""
        if n >= len(self.rows):
            self.extend(history, n)
        rows = self.rows
        old = (rows if self.ref_rows is None else self.ref_rows)[m]
        recent = [b - a for a, b in zip(rows[m], rows[n], strict=True)]
        if self.ek:
            return [old, recent]
        return [[*old, history._ref_err_cum[m]],
                [*recent, history._err_cum[n] - history._err_cum[m]]]


def _accumulate(rows: list[list[int]], sorted_: _Sorted, buckets: Buckets, first: int,
                stop: int) -> None:
    """Append ``rows[j] + (counts of chunk j)`` for chunks ``first .. stop - 1``."""
    if stop - first == 1:  # the usual step: one new chunk
        counts = sorted_.counts(buckets, first, stop).tolist()
        rows.append([a + b for a, b in zip(rows[-1], counts, strict=True)])
        return
    cum = np.cumsum(sorted_.chunk_counts(buckets, first, stop), axis=0) + rows[-1]
    rows.extend(cum.tolist())


class History:
    """Chunks since the last alarm and the cached buckets of each reference prefix.

    Examples
    --------
    >>> from pudd_core import ChunkPUDD, pu_chi2_test
    >>> settings = ScanSettings.from_params(ChunkPUDD(skip_rule=None)._get_params())
    >>> hist = History(settings, np.random.default_rng(0))
    >>> old, new = np.linspace(0.0, 0.4, 100), np.linspace(0.1, 0.9, 100)
    >>> for u in (old, new):
    ...     _ = hist.add(u, u < 0.5)
    >>> res = hist.test_chunks(2, 1)  # cut 1 of 2 chunks: the same test as pu_chi2_test's
    >>> res.cut, f"{res.p_value:.3g}", res.test.table.tolist()
    (1, '7.64e-14', [[50, 50, 5], [37, 13, 50]])
    >>> res.p_value == pu_chi2_test(old, None, new, None).p_value
    True
    """

    def __init__(self, settings: ScanSettings, rng: np.random.Generator) -> None:
        self.settings = settings
        self.rng = rng
        self.chunks: list[Chunk] = []
        self.prefixes: dict[int, Prefix] = {}
        self.drawn: dict[int, Draw] = {}  # samples drawn, prefixes not fitted yet
        self.fitted: dict[int, Cumulative] = {}  # refit="doubling": prefix length -> buckets
        self.old_means: dict[int, float] = {}  # mean chunk accuracy of chunks[:m]
        # every value so far, in order, in growable buffers: no re-concatenation per test
        self._u = np.empty(0)
        self._mask = np.empty(0, dtype=bool)
        self._ends: list[int] = [0]
        self._acc = np.empty(0)  # chunk accuracies, for the skip rule's means
        self._err_cum: list[int] = [0]  # errors of chunks[:j], by correct
        self._ref_err_cum: list[int] = [0]  # the same by the reference split
        # each chunk's values sorted, for counting: the correct ones, the reference split's,
        # and (EK ablation) all of them
        self._ok = _Sorted()
        self._ref = self._ok if settings.reference_split == "argmax" else _Sorted()
        self._all = _Sorted() if settings.partition == "ek" else None

    def add(self, u: NDArray[np.float64], correct: NDArray[np.bool_]) -> Chunk:
        """Add a chunk (the history keeps these arrays) and return it."""
        chunk = Chunk.of(u, correct, self.settings.reference_split)
        self._append(chunk)
        self._ok.add(chunk.u[chunk.correct])
        if self._ref is not self._ok:
            self._ref.add(chunk.u[chunk.ref_mask])
        if self._all is not None:
            self._all.add(chunk.u)
        return chunk

    def _append(self, chunk: Chunk) -> None:
        j = len(self.chunks)
        self.chunks.append(chunk)
        n, k = self._ends[-1], chunk.u.size
        if n + k > self._u.size:
            cap = max(2 * self._u.size, n + k)
            self._u = _grown(self._u, n, cap)
            self._mask = _grown(self._mask, n, cap)
        self._u[n : n + k] = chunk.u
        self._mask[n : n + k] = chunk.ref_mask
        self._ends.append(n + k)
        if j >= self._acc.size:
            self._acc = _grown(self._acc, j, max(2 * self._acc.size, 64))
        self._acc[j] = chunk.accuracy
        self._err_cum.append(self._err_cum[-1] + chunk.n_errors)
        ref_errors = chunk.n_errors if chunk.ref_mask is chunk.correct else (
            k - int(np.count_nonzero(chunk.ref_mask)))
        self._ref_err_cum.append(self._ref_err_cum[-1] + ref_errors)

    def tail(self, first: int, *, reuse: bool = False) -> History:
        """A history of the chunks from ``first`` on (nothing drawn or fitted; same generator).

        ``reuse``: the tail takes over this history's buffers, which is then spent (a detector
        forgetting its oldest half): no new allocation, and room to grow back without a copy.
        """
        out = History(self.settings, self.rng)
        if reuse:  # the chunks keep their own arrays: filling the buffers from 0 is safe
            out._u, out._mask, out._acc = self._u, self._mask, self._acc
        for chunk in self.chunks[first:]:
            out._append(chunk)
        out._ok = self._ok.tail(first, reuse=reuse)
        out._ref = out._ok if self._ref is self._ok else self._ref.tail(first, reuse=reuse)
        out._all = None if self._all is None else self._all.tail(first, reuse=reuse)
        return out

    def count(self, buckets: Buckets, start: int, stop: int, ek: bool) -> NDArray[np.int64]:
        """The table row of chunks ``start .. stop - 1``.

        Bucket counts of the correct values (of every value for the EK ablation), then the
        number of errors.
        """
        if ek:
            assert self._all is not None
            return self._all.counts(buckets, start, stop)
        counts = self._ok.counts(buckets, start, stop)
        return np.concatenate((counts, [self._err_cum[stop] - self._err_cum[start]]))

    def sample(self, m: int, n_test: int) -> Draw:
        """The fitting sample of the first ``m`` chunks (a draw of the generator)."""
        s = self.settings
        end = self._ends[m]
        if s.partition == "ek":
            # spec section 2 row 24: Ei-kMeans on the first values, every value bucketed
            return Draw(self._u[: min(s.sample_size, end)], end, n_test)
        return Draw(fitting_sample(self._u[:end], self._mask[:end], sample_size=s.sample_size,
                                   rng=self.rng), end, n_test)

    def draw(self, m: int, n_test: int) -> None:
        """Draw the fitting sample of the first ``m`` chunks now; fit it when first tested.

        With ``refit="doubling"`` only prefixes of 1, 2, 4, ... chunks are ever fitted, so
        only theirs are drawn.
        """
        if self.settings.refit == "doubling" and m & (m - 1):
            return
        if m not in self.prefixes and m not in self.drawn and m not in self.fitted:
            self.drawn[m] = self.sample(m, n_test)

    def prefix(self, m: int, n_test: int) -> Prefix:
        """Buckets and reference row of the first ``m`` chunks (fitted once if cached)."""
        if not self.settings.cache_buckets:
            return self.fit(m, n_test)
        prefix = self.prefixes.get(m)
        if prefix is None:
            draw = self.drawn.pop(m, None) or self.sample(m, n_test)
            prefix = self.prefixes[m] = self._fit_drawn(m, draw)
        return prefix

    def evict(self, n: int) -> None:
        """Forget prefixes no later test can use.

        With power-of-two cuts, a prefix more than the largest cut (512 chunks) behind the
        history's end is never tested again.
        """
        if self.settings.cut_points == "pow2":
            oldest = n - (1 << (MAX_POW2 - 1))  # later steps reach back at most this far
            caches: tuple[dict[int, Any], ...] = (self.prefixes, self.drawn)
            if self.settings.refit == "doubling":  # old windows from `oldest` on use these
                oldest = fitted_length(oldest) if oldest >= 1 else 0
                caches = (self.fitted, self.drawn)
            for cache in caches:
                for m in [m for m in cache if m < oldest]:
                    del cache[m]

    def fit(self, m: int, n_test: int) -> Prefix:
        """Fit the buckets of the first ``m`` chunks and count their reference row."""
        return self._fit_drawn(m, self.sample(m, n_test))

    def _fit_drawn(self, m: int, draw: Draw) -> Prefix:
        s = self.settings
        buckets = build_buckets(draw.sample, draw.n_ref, draw.n_test, s.n_buckets,
                                s.min_bucket_size)
        if s.partition == "ek":
            assert self._all is not None
            return Prefix(m, buckets, self._all.counts(buckets, 0, m), ek=True)
        counts = self._ref.counts(buckets, 0, m)
        return Prefix(m, buckets, np.concatenate((counts, [self._ref_err_cum[m]])))

    def cumulative(self, f: int, n_test: int) -> Cumulative:
        """The buckets of the first ``f`` chunks (fitted when first asked for), counted."""
        cum = self.fitted.get(f)
        if cum is None:
            draw = self.drawn.pop(f, None) or self.sample(f, n_test)
            s = self.settings
            buckets = build_buckets(draw.sample, draw.n_ref, draw.n_test, s.n_buckets,
                                    s.min_bucket_size)
            cum = self.fitted[f] = Cumulative(f, buckets, ek=s.partition == "ek")
        return cum

    def skip(self, m: int, partial: Stats | None = None) -> bool:
        """The skip rule for old window ``chunks[:m]`` against the rest (plus ``partial``)."""
        rule = self.settings.skip_rule
        if rule == "accuracy":
            # spec section 1.4: unweighted mean of per-chunk accuracies; a tie is tested
            old_mean = self.old_means.get(m)
            if old_mean is None:
                old_mean = self.old_means[m] = float(self._acc[:m].mean())
            n = len(self.chunks)
            if n - m <= _FEW:  # numpy's mean, bit for bit, without its per-call overhead
                recent = self._acc[m:n].tolist()
                if partial is not None:
                    recent.append(partial.accuracy)
                if recent:
                    return old_mean < pairwise_sum(recent) / len(recent)
            new_mean = (self._acc[m:n].mean() if partial is None
                        else np.mean([*self._acc[m:n].tolist(), partial.accuracy]))
            return bool(old_mean < new_mean)
        old: list[Stats] | list[Chunk] = self.chunks[:m]
        new: list[Stats | Chunk] = [*self.chunks[m:], *([partial] if partial else [])]
        if rule == "pu_mean":
            old_n = sum(c.n_errors for c in old)
            new_n = sum(c.n_errors for c in new)
            if old_n == 0 or new_n == 0:
                return False  # no misclassified mean to compare: test
            old_mean = sum(c.err_sum for c in old) / old_n
            return old_mean < sum(c.err_sum for c in new) / new_n
        return False

    def test(self, cut: int, prefix: Prefix, recent: NDArray[np.int64]) -> CutResult:
        """Test the reference row of ``prefix`` against the ``recent`` row, as cut ``cut``."""
        s = self.settings
        observed = np.array((prefix.old_row, recent))
        test = evaluate_table(observed, prefix.buckets, clamp_min=s.clamp_min, yates=s.yates,
                              min_expected=s.min_expected, errors_column=not prefix.ek)
        return CutResult(cut, test.p_value, False, test)

    def test_chunks(self, n: int, cut: int) -> CutResult:
        """Cut ``cut`` of the first ``n`` complete chunks: skipped, or tested."""
        m = n - cut
        if self.skip(m):
            return CutResult(cut, 1.0, True)
        if self.settings.refit == "doubling":
            cum = self.cumulative(fitted_length(m), self.chunks[-1].u.size)
            s = self.settings
            test = evaluate_table(cum.table(self, m, n), cum.buckets, clamp_min=s.clamp_min,
                                  yates=s.yates, min_expected=s.min_expected,
                                  errors_column=not cum.ek)
            return CutResult(cut, test.p_value, False, test)
        prefix = self.prefix(m, self.chunks[-1].u.size)
        return self.test(cut, prefix, prefix.recent_row(self, n))


def conclude(
    settings: ScanSettings,
    *,
    index: int,
    n: int,
    accuracy: float,
    previous_cut: int | None,
    cuts: Sequence[T],
    test: Callable[[T], CutResult],
    unit: str,
    no_cut: str,
    accuracy_counts: bool = True,
) -> ScanResult:
    """End a test step: the accuracy shortcut, no cut to test, or the minimum p-value.

    ``test`` runs on each of ``cuts`` only when neither shortcut applies; ``accuracy_counts``
    says whether the accuracy is yet based on enough values to trigger its shortcut.

    Examples
    --------
    >>> from pudd_core import ChunkPUDD
    >>> s = ScanSettings.from_params(ChunkPUDD(alpha=0.05)._get_params())
    >>> step = dict(index=4, n=3, previous_cut=2, unit="chunk", no_cut="none")
    >>> p = {1: 0.2, 2: 0.01}
    >>> conclude(s, accuracy=0.9, cuts=[1, 2], test=lambda c: CutResult(c, p[c], False), **step)
    ScanResult(chunk_index=4, n_chunks=3, accuracy=0.9, p_value=0.01, cut_point=2,
               drift_detected=True, cuts=(CutResult(cut=1, p_value=0.2, skipped=False),
                                          CutResult(cut=2, p_value=0.01, skipped=False)),
               shortcut=None)
    >>> conclude(s, accuracy=0.0, cuts=[1, 2], test=print, **step).shortcut
    'chunk accuracy below 0.01'
    """
    if accuracy_counts and accuracy < settings.min_accuracy:
        # spec section 1.2: p = 0 at once; the split point keeps its last value, guarded
        # (spec 8.1.5) so the recent window never reaches back before the last alarm
        return ScanResult(index, n, accuracy, 0.0, min(previous_cut or 1, n), True,
                          shortcut=f"{unit} accuracy below {settings.min_accuracy}")
    if not cuts:
        return ScanResult(index, n, accuracy, 1.0, None, False, shortcut=no_cut)
    results = tuple(test(c) for c in cuts)
    best = min(results, key=lambda r: r.p_value)  # first cut on ties, as the authors
    return ScanResult(index, n, accuracy, best.p_value, best.cut, best.p_value < settings.alpha,
                      results)


class LastScan:
    """What a detector's last test step found, read through three properties.

    Both detectors inherit them; a test step stores its :class:`ScanResult` in ``_last_scan``
    (``None`` before the first one). Alarms do not clear it.
    """

    _last_scan: ScanResult | None

    @property
    def p_value(self) -> float:
        """Minimum p-value over the cut points at the last test (NaN before the first test).

        Examples
        --------
        >>> from pudd_core import PUDD, ChunkPUDD
        >>> old, new = np.linspace(0.0, 0.4, 100), np.linspace(0.1, 0.9, 100)
        >>> det = ChunkPUDD(seed=0)
        >>> det.p_value
        nan
        >>> for u in (old, old, new):  # two chunks of correct predictions, then a shift
        ...     det.update(u, u < 0.5)
        >>> f"{det.p_value:.3g}", det.drift_detected
        ('8.13e-24', True)
        >>> online = PUDD(cut_every=100, clock=100, seed=0)  # the same, one value at a time
        >>> for u in [*old, *old, *new]:
        ...     online.update(u)
        >>> online.p_value == det.p_value, online.drift_detected
        (True, True)
        """
        return float("nan") if self._last_scan is None else self._last_scan.p_value

    @property
    def cut_point(self) -> int | None:
        """Recent-window length, in chunks (``PUDD``: blocks), of the winning cut at the last test.

        The authors retrain on this window after an alarm.

        Examples
        --------
        >>> from pudd_core import ChunkPUDD
        >>> det = ChunkPUDD(seed=0)
        >>> for u in (np.full(100, 0.1), np.full(100, 0.1), np.linspace(0.1, 0.9, 100)):
        ...     det.update(u, u < 0.5)
        ...     print(det.cut_point, det.drift_detected)
        None False
        1 False
        1 True
        """
        return None if self._last_scan is None else self._last_scan.cut_point

    @property
    def last_scan(self) -> ScanResult | None:
        """Everything the last test computed: per-cut p-values, tables, buckets.

        For ``PUDD``, ``chunk_index`` and ``n_chunks`` count blocks.

        Examples
        --------
        >>> from pudd_core import PUDD
        >>> online = PUDD(cut_every=100, clock=50, seed=0)
        >>> for u in [*np.linspace(0.0, 0.4, 100)] * 2 + [*np.linspace(0.1, 0.9, 50)]:
        ...     online.update(u)
        >>> scan = online.last_scan  # half of block 2 seen: cuts of 1 and 2 blocks
        >>> scan.chunk_index, scan.n_chunks, scan.accuracy, scan.cut_point
        (2, 3, 0.5, 2)
        >>> [(c.cut, c.skipped) for c in scan.cuts]  # 50 values are too few for a window
        [(1, True), (2, False)]
        >>> scan.winner.test.table.tolist(), scan.winner.test.buckets.k
        ([[50, 50, 5], [68, 57, 25]], 2)
        """
        return self._last_scan
