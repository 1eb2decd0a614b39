r"""Adaptive PU-index Bucketing: greedy seeding, 1-D k-means, amplify-shrink, k shrinking.

The bins of correct predictions' PU values, built exactly as the authors' code builds them
(spec section 1.6) with a specialised 1-D kernel; misclassified instances never enter a bucket.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from pudd_core import _validation

__all__ = ["Buckets", "ek_buckets", "fit_buckets", "greedy_init", "kmeans_1d"]

THETAS = np.arange(0.0, 1.0, 0.05)  # spec section 1.6 step 6: 0.00, 0.05, ..., 0.95
_KMEANS_TOL = 1e-4  # scikit-learn's default, relative to the sample variance
_KMEANS_MAX_ITER = 300


@dataclass(frozen=True)
class Buckets:
    r"""A partition of PU values into $K$ buckets by weighted distance to fixed centres.

    A value $u$ belongs to bucket $\arg\min_j a_j |u - C_j|$ (lowest index on ties), which
    splits $[0, 1]$ into intervals; ``edges`` are the interval boundaries and ``interval_bins``
    the bucket of each interval (a bucket may own more than one interval).

    Attributes
    ----------
    centres
        The k-means centres $C_j$ (never moved by amplify-shrink).
    coef
        The amplify-shrink coefficients $a_j$ of the last executed $\theta$.
    sample_counts
        How many fitting-sample values fell in each bucket.
    n_sample
        Size of the fitting sample (correct predictions only).

    Examples
    --------
    >>> b = Buckets(centres=(0.05, 0.3), coef=(1.0, 1.0), sample_counts=(60, 60), n_sample=120)
    >>> b.k, b.edges.round(3).tolist(), b.assign([0.0, 0.2, 0.4]).tolist()
    (2, [0.175], [0, 1, 1])
    """

    centres: tuple[float, ...]
    coef: tuple[float, ...]
    sample_counts: tuple[int, ...]
    n_sample: int
    edges: NDArray[np.float64] = field(init=False, repr=False, compare=False)
    interval_bins: NDArray[np.intp] = field(init=False, repr=False, compare=False)
    edge_left: NDArray[np.bool_] = field(init=False, repr=False, compare=False)
    #: ``edges``, each moved to the next float above where a value on it goes left: a value
    #: belongs to a later interval exactly when it is not below its search edge
    search_edges: NDArray[np.float64] = field(init=False, repr=False, compare=False)
    # the same partition as Python lists: (edge, goes left on a tie, bucket below it), the
    # bucket of the last interval; for counting a handful of values without numpy calls
    _cuts: tuple[tuple[float, bool, int], ...] = field(init=False, repr=False, compare=False)
    _last_bin: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        centres, coef = [float(c) for c in self.centres], [float(a) for a in self.coef]
        edges, bins = _intervals(centres, coef)
        # a value exactly on an edge goes where the brute-force arg-min sends it
        ties = [_argmin_one(e, centres, coef) == b for e, b in zip(edges, bins, strict=False)]
        search = [math.nextafter(e, math.inf) if t else e for e, t in zip(edges, ties, strict=True)]
        object.__setattr__(self, "edges", np.array(edges, dtype=np.float64))
        object.__setattr__(self, "interval_bins", np.array(bins, dtype=np.intp))
        object.__setattr__(self, "edge_left", np.array(ties, dtype=np.bool_))
        object.__setattr__(self, "search_edges", np.array(search, dtype=np.float64))
        object.__setattr__(self, "_cuts", tuple(zip(edges, ties, bins[:-1], strict=True)))
        object.__setattr__(self, "_last_bin", bins[-1])

    @property
    def k(self) -> int:
        """Number of buckets ($K$ in the paper)."""
        return len(self.centres)

    def assign(self, u: ArrayLike) -> NDArray[np.intp]:
        """Bucket index of each PU value (brute-force weighted arg-min, the definition).

        Examples
        --------
        >>> Buckets((0.1, 0.3), (2.0, 1.0), (1, 1), 2).assign([0.15, 0.2, 0.25]).tolist()
        [0, 1, 1]
        """
        vals = np.asarray(u, dtype=np.float64)
        return _weighted_argmin(vals, np.array(self.centres), np.array(self.coef))

    def counts(self, u: ArrayLike) -> NDArray[np.int64]:
        """Histogram of PU values over the buckets (fast: one comparison pass per edge).

        Examples
        --------
        >>> b = Buckets(centres=(0.1, 0.3), coef=(1.0, 1.0), sample_counts=(2, 2), n_sample=4)
        >>> b.counts([0.0, 0.15, 0.19, 0.25, 0.9]).tolist()
        [3, 2]
        """
        return counts_from_unsorted(np.asarray(u, dtype=np.float64), self)


def counts_from_unsorted(u: NDArray[np.float64], buckets: Buckets) -> NDArray[np.int64]:
    """Bucket counts of any array, one comparison pass per edge (no sort of ``u``).

    Examples
    --------
    >>> b = Buckets(centres=(0.1, 0.3), coef=(1.0, 1.0), sample_counts=(2, 2), n_sample=4)
    >>> u = np.tile([0.0, 0.15, 0.19, 0.25, 0.9], 200)  # 1,000 values: the pass per edge
    >>> counts_from_unsorted(u, b).tolist()
    [600, 400]
    """
    k = buckets.k
    if u.size < 512:  # small batches: sorting is cheaper than a pass per edge
        return counts_from_sorted(np.sort(u), buckets)
    out = np.zeros(k, dtype=np.int64)
    if buckets.edges.size == 0:
        out[int(buckets.interval_bins[0])] = u.size
        return out
    below = [
        int(np.count_nonzero(u <= e)) if left else int(np.count_nonzero(u < e))
        for e, left in zip(buckets.edges.tolist(), buckets.edge_left.tolist(), strict=True)
    ]
    sizes = np.diff(np.array([0, *below, u.size]))
    return np.bincount(buckets.interval_bins, weights=sizes, minlength=k).astype(np.int64)


def counts_from_sorted_list(sorted_u: list[float], buckets: Buckets) -> list[int]:
    """Bucket counts of an ascending list, by bisection in plain Python (for small batches).

    Equal to :func:`counts_from_sorted`; cheaper below a few hundred values, where numpy's
    per-call overhead dominates (the online detector counts ``clock`` values per test).

    Examples
    --------
    >>> b = Buckets(centres=(0.1, 0.3), coef=(1.0, 1.0), sample_counts=(2, 2), n_sample=4)
    >>> counts_from_sorted_list([0.0, 0.15, 0.19, 0.25, 0.9], b)
    [3, 2]
    """
    out = [0] * buckets.k
    below = 0
    for edge, left, bin_ in buckets._cuts:
        cut = bisect.bisect_right(sorted_u, edge) if left else bisect.bisect_left(sorted_u, edge)
        out[bin_] += cut - below
        below = cut
    out[buckets._last_bin] += len(sorted_u) - below
    return out


def counts_from_below(below: list[int], total: int, buckets: Buckets) -> list[int]:
    """Bucket counts of ``total`` values, ``below[i]`` of which lie below ``search_edges[i]``.

    Examples
    --------
    >>> b = Buckets(centres=(0.1, 0.3), coef=(1.0, 1.0), sample_counts=(2, 2), n_sample=4)
    >>> u = np.array([0.0, 0.15, 0.19, 0.25, 0.9])
    >>> counts_from_below(u.searchsorted(b.search_edges).tolist(), u.size, b)
    [3, 2]
    """
    out = [0] * buckets.k
    last = 0
    for cut, (_, _, bin_) in zip(below, buckets._cuts, strict=True):
        out[bin_] += cut - last
        last = cut
    out[buckets._last_bin] += total - last
    return out


def counts_from_sorted(sorted_u: NDArray[np.float64], buckets: Buckets) -> NDArray[np.int64]:
    """Bucket counts of an ascending array, via binary search of each interval edge.

    Examples
    --------
    >>> b = Buckets(centres=(0.1, 0.3), coef=(1.0, 1.0), sample_counts=(2, 2), n_sample=4)
    >>> counts_from_sorted(np.array([0.0, 0.15, 0.19, 0.25, 0.9]), b).tolist()
    [3, 2]
    >>> half = Buckets(centres=(0.25, 0.75), coef=(1.0, 1.0), sample_counts=(2, 2), n_sample=4)
    >>> counts_from_sorted(np.array([0.5, 0.5]), half).tolist()  # on the edge: the lower one
    [2, 0]
    """
    k = buckets.k
    if buckets.edges.size == 0:
        out = np.zeros(k, dtype=np.int64)
        out[int(buckets.interval_bins[0])] = sorted_u.size
        return out
    # a value equal to an edge goes where the brute-force arg-min sends it (lowest index)
    cuts = np.where(
        buckets.edge_left,
        np.searchsorted(sorted_u, buckets.edges, side="right"),
        np.searchsorted(sorted_u, buckets.edges, side="left"),
    )
    sizes = np.diff(np.concatenate(([0], cuts, [sorted_u.size])))
    return np.bincount(buckets.interval_bins, weights=sizes, minlength=k).astype(np.int64)


def _weighted_argmin(
    u: NDArray[np.float64], centres: NDArray[np.float64], coef: NDArray[np.float64]
) -> NDArray[np.intp]:
    if centres.size == 1:
        return np.zeros(u.shape[0], dtype=np.intp)
    out: NDArray[np.intp] = np.argmin(np.abs(u[:, None] - centres[None, :]) * coef[None, :], axis=1)
    return out


def _argmin_one(u: float, centres: list[float], coef: list[float]) -> int:
    """:func:`_weighted_argmin` of one value, in Python floats (the same IEEE arithmetic)."""
    best, arg = abs(u - centres[0]) * coef[0], 0
    for j in range(1, len(centres)):
        d = abs(u - centres[j]) * coef[j]
        if d < best:  # strict: the lowest index on ties, as np.argmin
            best, arg = d, j
    return arg


def _clip01(x: float) -> float:
    """``np.clip(x, 0.0, 1.0)`` of a number: numpy's rule, so -0.0 becomes 0.0."""
    x = x if x > 0.0 else 0.0
    return x if x < 1.0 else 1.0


def _intervals(centres: list[float], coef: list[float]) -> tuple[list[float], list[int]]:
    """Edges in (0, 1) where the weighted arg-min changes, and the bucket of each interval.

    In Python floats: a handful of candidate points cost less than the numpy calls.
    """
    k = len(centres)
    if k == 1:
        return [], [0]
    cand = [0.0, 1.0]
    a, c = coef, centres
    for i in range(k):
        for j in range(i + 1, k):
            ai, aj, ci, cj = a[i], a[j], c[i], c[j]
            cand.append((ai * ci + aj * cj) / (ai + aj))  # crossing between the centres
            if ai != aj:
                cand.append((ai * ci - aj * cj) / (ai - aj))  # crossing outside them
    if 0.0 in cand[2:]:  # a crossing at zero, maybe -0.0: numpy's sort decides which zero stays
        pts = np.unique(np.clip(np.array(cand), 0.0, 1.0)).tolist()
    else:
        pts = sorted({_clip01(x) for x in cand})  # np.unique(np.clip(cand, 0.0, 1.0))
    mids = [pts[0], *((x + y) / 2.0 for x, y in zip(pts[:-1], pts[1:], strict=True))]
    bins = [_argmin_one(u, c, a) for u in mids]
    # interval i spans (pts[i-1], pts[i]) for i >= 1; a bucket change between consecutive
    # midpoints happens at the candidate point separating them
    change = [i for i in range(len(bins) - 1) if bins[i + 1] != bins[i]]
    return [pts[i] for i in change], [bins[0], *(bins[i + 1] for i in change)]


def _kth_neighbour_windows(s: NDArray[np.float64], p: int) -> tuple[
    NDArray[np.float64], NDArray[np.intp]
]:
    """For ascending ``s``: distance from each point to its p-th nearest (self included).

    The p nearest points of ``s[i]`` form a window ``s[j : j + p]`` containing ``i``, at
    distance ``max(s[i] - s[j], s[j + p - 1] - s[i])``: a non-increasing and a non-decreasing
    function of ``j`` that cross where the window's midpoint passes ``s[i]``, so one binary
    search over the midpoints finds the best window. Returns the distances and window starts.
    """
    idx = np.arange(s.size)
    d_a, d_b, j_a, j_b = _window_pair(s, p, idx, np.maximum(idx - (p - 1), 0))
    use_a = d_a <= d_b
    return np.where(use_a, d_a, d_b), np.where(use_a, j_a, j_b)


def _window_pair(s: NDArray[np.float64], p: int, idx: NDArray[np.intp],
                 lo: NDArray[np.intp]) -> tuple[
    NDArray[np.float64], NDArray[np.float64], NDArray[np.intp], NDArray[np.intp]
]:
    """The two windows either side of each point's crossing, and their distances.

    The smaller distance wins; ``idx`` are the points' positions, ``lo`` the first window
    that holds each, ``max(0, i - p + 1)``.
    """
    n = s.size
    left, right = s[: n - p + 1], s[p - 1 :]
    hi = np.minimum(idx, n - p)  # the last window that holds each point
    first = np.searchsorted((left + right) / 2.0, s, side="right")  # never below lo
    # np.minimum/np.maximum: np.clip's Python-level dispatch costs more than the work here
    j_b = np.minimum(first, hi)
    first -= 1
    j_a = np.maximum(np.minimum(first, hi, out=first), lo, out=first)
    d_a = np.maximum(s - left[j_a], right[j_a] - s)
    d_b = np.maximum(s - left[j_b], right[j_b] - s)
    return d_a, d_b, j_a, j_b


def greedy_init(sample: ArrayLike, k: int) -> NDArray[np.float64]:
    r"""Ei-kMeans' greedy compact-partition seeds, as the authors' code computes them.

    With $p = \lfloor m / k \rfloor$, repeat $k - 1$ times: among the points not yet removed,
    pick the one whose distance to its $p$-th nearest neighbour (itself included) is largest
    (the sparsest neighbourhood), and remove it with its $p$ nearest points as one group; the
    rest is the last group. Each seed is the value of the group's lowest-index member (spec
    section 1.6 step 3; the paper says "largest 1-NN distance"). Ties between equal values
    are broken deterministically (by position), where the authors' ball tree is arbitrary.

    Examples
    --------
    >>> greedy_init([0.00, 0.01, 0.02, 0.40, 0.41, 0.42], 2).tolist()
    [0.0, 0.4]
    """
    x = np.asarray(sample, dtype=np.float64)
    _validation.check_positive_int("k", k)
    if x.size < k:
        raise ValueError(f"greedy_init needs at least k={k} values, got {x.size}")
    order = np.argsort(x, kind="stable")
    return _greedy_sorted(x[order], order, k)


def _greedy_sorted(
    vals: NDArray[np.float64], orig: NDArray[np.intp], k: int
) -> NDArray[np.float64]:
    """:func:`greedy_init` on ascending values ``vals`` with original positions ``orig``."""
    p = vals.size // k
    seeds = np.empty(k)
    size = vals.size
    idx = np.arange(size)  # a prefix of these serves every later size
    lo = np.maximum(idx - (p - 1), 0)
    for g in range(k - 1):
        n = vals.size
        d_a, d_b, j_a, j_b = _window_pair(vals, p, idx[:n], lo[:n])
        dist = np.minimum(d_a, d_b)
        chosen = int(dist.argmax())
        top = dist[chosen]
        if (dist[chosen + 1 :] == top).any():  # ties: last of an unstable argsort over the
            # points in original order (positions are distinct: a scatter sorts them)
            rank = np.zeros(size, dtype=bool)
            rank[orig] = True
            where = np.empty(size, dtype=np.intp)
            where[orig] = idx[:n]
            by_orig = where[rank]
            chosen = int(by_orig[np.argsort(dist[by_orig])[-1]])
        j = int(j_a[chosen] if d_a[chosen] <= d_b[chosen] else j_b[chosen])
        seeds[g] = vals[orig[j : j + p].argmin() + j]
        vals = np.concatenate((vals[:j], vals[j + p :]))
        orig = np.concatenate((orig[:j], orig[j + p :]))
    seeds[k - 1] = vals[orig.argmin()]
    return seeds


def kmeans_1d(
    sample: ArrayLike, init: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    """Lloyd's k-means on 1-D data, with scikit-learn's convergence rules.

    Equivalent to ``sklearn.cluster.KMeans(n_clusters=k, init=init, n_init=1,
    random_state=0).fit(sample[:, None])`` (max_iter 300, tol 1e-4 relative to the variance,
    stop on unchanged labels, a final assignment step when stopped by ``tol``), without its
    fixed overhead on tiny 1-D inputs: on sorted data every cluster is a run between the
    midpoints of adjacent centres. When a cluster empties, the call is delegated to
    scikit-learn, whose empty-cluster relocation is then reproduced exactly.

    Returns
    -------
    centres, labels

    Examples
    --------
    >>> centres, labels = kmeans_1d([0.0, 0.1, 0.2, 0.9, 1.0], [0.0, 1.0])
    >>> centres.round(3).tolist(), labels.tolist()
    ([0.1, 0.95], [0, 0, 0, 1, 1])
    """
    x = np.asarray(sample)
    _validation.check_numeric_dtype("sample", x, "numbers")
    x = x.astype(np.float64, copy=False)
    if x.ndim != 1 or x.size == 0 or not np.isfinite(x).all():
        raise _validation.ParameterError("sample", "sample must be a non-empty 1-D array of "
                                                   f"finite numbers, got shape {x.shape}")
    centres0 = np.asarray(init) if np.ndim(init) == 1 else None
    if centres0 is None or centres0.size == 0 or centres0.dtype.kind not in "iuf" or \
            not np.isfinite(centres0).all():
        raise _validation.ParameterError(
            "init", f"init must be the initial centres, a non-empty 1-D array of finite "
            f"numbers, got {init!r}; for k centres from the sample, pass "
            "greedy_init(sample, k)")
    order = np.argsort(x, kind="stable")
    centres, sorted_labels = _kmeans_sorted(x[order], centres0.astype(np.float64))
    labels = np.empty_like(sorted_labels)
    labels[order] = sorted_labels
    return centres, labels


def _kmeans_sorted(
    s: NDArray[np.float64], init: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    """:func:`kmeans_1d` on ascending ``s``; labels are returned in the same (sorted) order."""
    fit = _lloyd_sorted(s, init)
    if fit is None:
        return _sklearn_kmeans(s, init)
    centres, order, bounds = fit
    labels = np.repeat(order, np.diff(bounds))
    return centres, labels.astype(np.intp)


def _kmeans_counts(
    s: NDArray[np.float64], init: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """:func:`_kmeans_sorted`'s centres and the size of each cluster (no labels built)."""
    fit = _lloyd_sorted(s, init)
    if fit is None:
        centres, labels = _sklearn_kmeans(s, init)
        return centres, np.bincount(labels, minlength=init.size)
    centres, order, bounds = fit
    counts = [0] * len(order)
    for j, label in enumerate(order):
        counts[label] = bounds[j + 1] - bounds[j]
    return centres, np.array(counts, dtype=np.int64)


def _lloyd_sorted(
    s: NDArray[np.float64], init: NDArray[np.float64]
) -> tuple[NDArray[np.float64], list[int], list[int]] | None:
    """Lloyd's iterations of :func:`kmeans_1d` on ascending ``s``, or None to delegate.

    In 1-D, Lloyd's iterations keep the centres' order, so each iteration is one search of the
    k - 1 midpoints and k means from prefix sums, in plain Python floats. Returns
    the centres, the labels in the centres' ascending order and each label's run
    ``bounds[j] .. bounds[j + 1]`` of ``s``; None when the seeds repeat or a cluster empties
    (scikit-learn's relocation then decides).
    """
    k = init.size
    n = s.size
    if n < k:
        raise ValueError(f"kmeans_1d needs at least {k} values, got {n}")
    seeds = init.tolist()
    if len(set(seeds)) < k:
        return None
    # scikit-learn centres the data first, for numerical accuracy; the mean and variance are
    # numpy's (``s.mean()``, ``np.var(s)``), computed once
    mean = float(s.sum() / n)
    sc = s - mean
    tol = float((sc * sc).sum() / n) * _KMEANS_TOL
    order = sorted(range(k), key=seeds.__getitem__)  # stable, as the seeds are distinct
    c = [seeds[j] - mean for j in order]
    # a value on a midpoint belongs to the lower-index centre (arg-min takes the first): to
    # the upper run where that is the upper centre, so the run ends before the values equal
    # to the midpoint, i.e. after those at most the float below it
    below = [a > b for a, b in zip(order[:-1], order[1:], strict=False)]
    # prefix sums of the centred values (np.cumsum's sequential sums), 0 first
    prefix = np.empty(n + 1)
    prefix[0] = 0.0
    np.cumsum(sc, out=prefix[1:])
    bounds_old: list[int] | None = None
    bounds: list[int] = []
    strict = False
    for _ in range(_KMEANS_MAX_ITER):
        bounds = _runs(sc, c, below, n)
        sums = prefix.take(bounds).tolist()
        new = []
        for j in range(k):
            size = bounds[j + 1] - bounds[j]
            if size == 0:
                return None
            new.append((sums[j + 1] - sums[j]) / size)
        shift = sum([(a - b) ** 2 for a, b in zip(new, c, strict=True)])
        c = new
        if bounds == bounds_old:
            strict = True
            break
        if shift <= tol:
            break
        bounds_old = bounds
    if not strict:
        bounds = _runs(sc, c, below, n)
    centres = np.empty(k)
    centres[order] = np.array(c) + mean
    return centres, order, bounds


def _runs(sc: NDArray[np.float64], c: list[float], below: list[bool], n: int) -> list[int]:
    """Where each centre's run of the ascending ``sc`` begins, then ``n`` (one searchsorted).

    The run of centre ``j + 1`` begins after the values up to the midpoint of centres ``j``
    and ``j + 1`` (``bisect_right``), or below it (``bisect_left``, which counts the values
    up to the float before the midpoint) where ``below[j]``.
    """
    mids = [(a + b) / 2.0 for a, b in zip(c[:-1], c[1:], strict=True)]
    keys = [math.nextafter(x, -math.inf) if low else x
            for x, low in zip(mids, below, strict=True)]
    return [0, *sc.searchsorted(keys, side="right").tolist(), n]


def _sklearn_kmeans(
    x: NDArray[np.float64], init: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    import warnings

    from sklearn.cluster import KMeans

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        km = KMeans(n_clusters=init.size, init=init[:, None], n_init=1, random_state=0)
        km.fit(x[:, None])
    return km.cluster_centers_[:, 0].astype(np.float64), km.labels_.astype(np.intp)


def _amplify_shrink(
    s: NDArray[np.float64],
    centres: NDArray[np.float64],
    counts: NDArray[np.int64],
    min_bucket_size: int,
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    r"""Reweight fixed centres until every bucket holds more than ``min_bucket_size`` values.

    Spec section 1.6 step 6: $a_j = \exp(\theta (c_j k / m - 1))$ for
    $\theta = 0, 0.05, \ldots, 0.95$; oversized buckets get inflated distances and lose
    points. ``counts`` are the k-means cluster sizes. Returns the last coefficients and the
    sample counts they give.
    """
    k = centres.size
    m = s.size
    coef = np.ones(k)
    if not counts.all():  # the authors' loop breaks before setting any coefficient
        return coef, counts.astype(np.int64)
    dist = np.abs(s[:, None] - centres[None, :])  # centres never move: compute once
    ratio = counts / (m / k)
    for theta in THETAS:
        if theta == 0.0:  # exp(0 * x) is exactly 1 for a finite x: the distances as they are
            counts = np.bincount(np.argmin(dist, axis=1), minlength=k)
        else:
            coef = np.exp(theta * (ratio - 1.0))
            counts = np.bincount(np.argmin(dist * coef, axis=1), minlength=k)
        ratio = counts / (m // k)
        if counts.min() > min_bucket_size:
            break
    return coef, counts.astype(np.int64)


def _build(s: NDArray[np.float64], k: int, stored_k: int, min_bucket_size: int) -> Buckets:
    """Steps 3-7 of spec section 1.6 on the fitting sample ``s`` (correct values only)."""
    m = s.size
    if m == 0:  # no correct value to fit: one bucket at 0 (fit_buckets, Notes)
        return Buckets(centres=(0.0,), coef=(1.0,), sample_counts=(0,), n_sample=0)
    order = np.argsort(s, kind="stable")
    ss = s[order]
    k = min(k, m)
    stored_k = min(stored_k, m)
    while True:
        if k <= 1:
            # fallback: greedy init and k-means with the stored k, no size constraint
            centres, counts = _kmeans_counts(ss, _greedy_sorted(ss, order, stored_k))
            return _make(centres, np.ones(stored_k), counts, m)
        seeds = _greedy_sorted(ss, order, k)
        # distinct-seed guard: discrete PU values (e.g. VFDT leaves). The distinct values of
        # np.round(seeds, 4), which is rint(x * 10^4) / 10^4: distinct exactly when the rint are
        distinct = len({round(x * 10000.0) for x in seeds.tolist()})
        if distinct < k:
            k = stored_k = distinct
            continue
        centres, counts = _kmeans_counts(ss, seeds)
        coef, counts = _amplify_shrink(ss, centres, counts, min_bucket_size)
        if counts.min() >= min_bucket_size:
            return _make(centres, coef, counts, m)
        k -= 1


def _make(
    centres: NDArray[np.float64],
    coef: NDArray[np.float64],
    counts: NDArray[np.int64],
    m: int,
) -> Buckets:
    return Buckets(
        centres=tuple(centres.tolist()),
        coef=tuple(coef.tolist()),
        sample_counts=tuple(counts.tolist()),
        n_sample=m,
    )


def fitting_sample(
    u_ref: NDArray[np.float64],
    correct_ref: NDArray[np.bool_],
    *,
    sample_size: int,
    rng: np.random.Generator,
) -> NDArray[np.float64]:
    """Correct-instance PU values the buckets are fitted on (spec section 1.6 step 1).

    A reference window larger than ``sample_size`` is subsampled uniformly WITH replacement
    (the authors' ``np.random.choice``, here from the caller's generator); the correct values
    of the (sub)sample are kept.

    Examples
    --------
    >>> u = np.array([0.1, 0.9, 0.2, 0.8])
    >>> fitting_sample(u, u < 0.5, sample_size=10, rng=np.random.default_rng(0)).tolist()
    [0.1, 0.2]
    >>> fitting_sample(np.zeros(50), np.ones(50, bool), sample_size=20,
    ...                rng=np.random.default_rng(0)).size  # drawn with replacement
    20
    """
    m = u_ref.size
    if m > sample_size:
        idx = rng.integers(0, m, size=sample_size)
        return u_ref[idx][correct_ref[idx]]
    return u_ref[correct_ref]


def check_bucket_options(n_buckets: int, min_bucket_size: int, sample_size: int) -> None:
    """Raise unless ``n_buckets`` and ``sample_size`` are integers >= 1, ``min_bucket_size`` >= 0.

    Examples
    --------
    >>> check_bucket_options(5, 0, 1000)
    >>> check_bucket_options(0, 50, 1000)
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: n_buckets must be an integer >= 1, got 0
    """
    _validation.check_positive_int("n_buckets", n_buckets)
    _validation.check_positive_int("min_bucket_size", min_bucket_size, minimum=0)
    _validation.check_positive_int("sample_size", sample_size)


def _reference_window(u_ref: ArrayLike, n_buckets: int, min_bucket_size: int,
                      sample_size: int) -> NDArray[np.float64]:
    """The checked reference window of a bucketing, after its options are checked."""
    u = _validation.as_pu_array("u_ref", u_ref)
    if u.size == 0:
        raise ValueError("u_ref is empty: the reference window needs at least one PU-index value")
    check_bucket_options(n_buckets, min_bucket_size, sample_size)
    return u


def fit_buckets(
    u_ref: ArrayLike,
    correct_ref: ArrayLike | None = None,
    *,
    n_buckets: int = 5,
    min_bucket_size: int = 50,
    sample_size: int = 1000,
    n_test: int | None = None,
    seed: int | np.random.Generator | None = None,
) -> Buckets:
    r"""Adaptive PU-index Bucketing of a reference window's correct predictions.

    Builds the buckets exactly as the authors' code (spec section 1.6): a fitting sample of
    at most ``sample_size`` correct-instance PU values (drawn with replacement when the window
    is larger); Ei-kMeans greedy seeding; 1-D Lloyd k-means; amplify-shrink of fixed centres
    over $\theta = 0, 0.05, \ldots, 0.95$; and, starting from $K$ = ``n_buckets``, shrinking $K$
    until every bucket holds at least ``min_bucket_size`` sample values, with the
    distinct-seed guard and the $K = 1$ fallback.

    Parameters
    ----------
    u_ref
        PU-index values of the reference (old) window.
    correct_ref
        Whether each reference prediction was correct; ``None`` means ``u_ref < 0.5``
        (exact for binary tasks except ties).
    n_buckets
        Starting number of buckets, *K* in the paper (5).
    min_bucket_size
        Minimum sample values per bucket (50, the paper's Box-Hunter "observed > 50").
    sample_size
        Largest fitting sample (1000).
    n_test
        Size of the window to be compared; caps $K$ at $\lfloor\min(n_{test}/5, m/50)\rfloor$
        as the authors do (never binding for chunks of 500 or more).
    seed
        Seed or generator for the fitting sample.

    Raises
    ------
    ValueError
        If ``u_ref`` is empty, not one-dimensional, or holds NaN, infinity or values outside
        [0, 1]; if ``correct_ref`` is not a boolean (or 0/1) mask of the same length; if
        ``n_buckets``, ``sample_size`` or ``n_test`` (when given) is not an integer >= 1, or
        ``min_bucket_size`` not an integer >= 0.

    Notes
    -----
    A reference window without a single correct prediction leaves an empty fitting sample;
    the authors' code then crashes (spec section 8.1 item 6). Here it gives one bucket
    centred at 0.0 with ``n_sample = 0``, so every correct value of a compared window falls
    in it and the PU test reduces to the 2 x 2 correct / misclassified table. When no
    $K \geq 2$ gives every bucket ``min_bucket_size`` values, the $K = 1$ fallback returns
    k-means buckets for the stored $K$ (``n_buckets`` unless the distinct-seed guard lowered
    it) with all coefficients 1 and no size constraint (spec section 1.6 step 7), so buckets
    below ``min_bucket_size`` can occur.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> u = rng.beta(1, 6, size=800)
    >>> b = fit_buckets(u, u < 0.5, seed=1)
    >>> b.k, sum(b.sample_counts) == b.n_sample, min(b.sample_counts) >= 50
    (5, True, True)
    >>> fit_buckets([0.7, 0.9])  # no correct prediction: one bucket at 0, nothing fitted
    Buckets(centres=(0.0,), coef=(1.0,), sample_counts=(0,), n_sample=0)
    """
    u = _reference_window(u_ref, n_buckets, min_bucket_size, sample_size)
    correct = _validation.correct_mask("correct_ref", correct_ref, u, "u_ref")
    if n_test is not None:
        _validation.check_positive_int("n_test", n_test)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    sample = fitting_sample(u, correct, sample_size=sample_size, rng=rng)
    return build_buckets(sample, u.size, n_test, n_buckets, min_bucket_size)


def build_buckets(
    sample: NDArray[np.float64],
    m_ref: int,
    n_test: int | None,
    n_buckets: int,
    min_bucket_size: int,
) -> Buckets:
    """Kernel of :func:`fit_buckets` on an already drawn fitting sample (no validation).

    Examples
    --------
    >>> sample = np.random.default_rng(0).uniform(0, 1, 1000)
    >>> build_buckets(sample, 1000, None, 5, 50).k  # five buckets of enough values
    5
    >>> build_buckets(sample, 1000, 10, 5, 50).k  # a 10-value test window: k <= 10 / 5
    2
    """
    k = n_buckets
    if n_test is not None:
        # spec section 1.6 step 2: k <= floor(min(m_test / 5, m / 50)), at least 1
        k = max(1, min(n_buckets, int(min(n_test / 5, m_ref / 50))))
    return _build(sample, k, n_buckets, min_bucket_size)


def ek_buckets(
    u_ref: ArrayLike,
    *,
    n_buckets: int = 5,
    min_bucket_size: int = 50,
    sample_size: int = 1000,
) -> Buckets:
    """Plain Ei-kMeans partition of all PU values: the paper's "EK" ablation (Fig. 5).

    Unlike :func:`fit_buckets`, correct and misclassified values are not separated: the
    partition is fitted on the first ``sample_size`` PU values of the reference window (the
    authors' unused ``build_partition``, spec section 2 row 24), and every value is bucketed.

    Parameters
    ----------
    u_ref
        PU-index values of the reference (old) window, correct and misclassified alike.
    n_buckets
        Starting number of buckets, *K* in the paper (5).
    min_bucket_size
        Minimum fitting-sample values per bucket (50).
    sample_size
        How many of the first values the partition is fitted on (1000).

    Raises
    ------
    ValueError
        If ``u_ref`` is empty, not one-dimensional, or holds NaN, infinity or values outside
        [0, 1]; if ``n_buckets`` or ``sample_size`` is not an integer >= 1, or
        ``min_bucket_size`` not an integer >= 0.

    Examples
    --------
    >>> u = np.linspace(0.0, 1.0, 600)
    >>> b = ek_buckets(u)
    >>> b.k, int(b.counts(u).sum())
    (5, 600)
    """
    u = _reference_window(u_ref, n_buckets, min_bucket_size, sample_size)
    return _build(u[:sample_size], n_buckets, n_buckets, min_bucket_size)
