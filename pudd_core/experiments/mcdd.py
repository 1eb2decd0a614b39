"""MCD-DD, the label-free SOTA detector of Table 2: maximum concept discrepancy of embeddings.

Wan, Liang and Yoon, "Online drift detection with maximum concept discrepancy", Proceedings
of the 30th ACM SIGKDD Conference on Knowledge Discovery and Data Mining (KDD '24), 2024,
doi:10.1145/3637528.3672016. MCD-DD looks at the features only, never at labels or errors.

The procedure follows the authors' published code (github.com/LiangYiAnita/mcd-dd, MIT,
commit 1139b29, ``mcd.py`` and ``main.py``; written here, not copied; the point-by-point
comparison is in ``docs/sota-procedures.md``):

- A sliding **window** of the last ``window`` instances is cut into ``sub_windows`` equal
  sub-windows and slides by one sub-window at a time.
- A **sample-set encoder** (an MLP ``d -> hidden -> embed_dim`` with a sigmoid output,
  applied to each point and mean-pooled over a set) maps a *set* of ``set_size`` points drawn
  with replacement from a sub-window to a concept embedding; ``n_sets`` sets per sub-window.
- Each slide is **tested before the encoder trains on it**: the drift statistic is the *mean*
  distance between the sets of the newest sub-window and those of the one before it (pairs
  of the same index left out, as the authors do), and an alarm is raised when it exceeds the
  threshold the previous training step left.
- **Training** (one Adam step per slide, ``epochs``): positives are the sets of one
  sub-window (their mean pairwise distance is pulled down); *weak negatives* are half of a
  sub-window's sets against the other half with Gaussian noise of s.d. ``eps_small``;
  the *strong negative* is the first sub-window's sets against the last's with noise of s.d.
  ``eps_big``; the loss is the InfoNCE-like ``log(P / (P + N))`` of the exponentiated
  distances over ``temperature`` plus ``gp_weight`` times a gradient penalty on the last
  sub-window's sets. The encoder is never told which sub-windows differ: it learns what
  "the same concept" looks like from noise, not from the pair it will test.
- The **threshold** after training is the ``percentile`` quantile of all pairwise set
  distances within each sub-window of the window.

For chunks: every chunk's rows enter the window in order; the first ``window`` rows only
train; each later slide is tested, then trained on; a chunk raises an alarm when any of
its slides does. After an alarm the model resets (the runner) and the detector goes on
sliding, as the authors' loop does. With the defaults (a window of 5000 rows in 10
sub-windows of 500, the authors' real-data configuration file) a chunk of 1000 is two
slides, and the first five chunks the detector sees fill the window (no test yet).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from pudd_core import _validation

__all__ = ["MCDDD"]


def _check_real(name: str, value: Any, *, low: float, open_low: bool, high: float | None = None,
                open_high: bool = False) -> float:
    ok = (isinstance(value, int | float | np.integer | np.floating)
          and not isinstance(value, bool | np.bool_) and math.isfinite(float(value)))
    if ok:
        v = float(value)
        ok = (v > low if open_low else v >= low) and (
            high is None or (v < high if open_high else v <= high))
    if not ok:
        lo = f"> {low:g}" if open_low else f">= {low:g}"
        hi = "" if high is None else f" and {'<' if open_high else '<='} {high:g}"
        raise _validation.ParameterError(name, f"{name} must be a number {lo}{hi}, got {value!r}")
    return float(value)


class MCDDD:
    """Maximum-concept-discrepancy drift detector on a chunk's features (label-free).

    Parameters
    ----------
    window
        Instances in the sliding window (the authors: 1000 to 5000 on real data, 3000 on
        their synthetic sets). Rounded down to a multiple of ``sub_windows``.
    sub_windows
        Sub-windows per window; the window slides by one sub-window (10).
    n_sets
        Sample sets per sub-window, *k* (10); at least 4, so that each half has two sets.
    set_size
        Points per sample set, *m*, drawn with replacement (100 on real data).
    hidden, embed_dim
        Widths of the encoder's hidden layer and of the concept embedding (200, 150).
    lr, epochs
        Adam's learning rate (0.005) and training steps per slide (1).
    temperature
        Temperature of the contrastive loss (0.1).
    eps_small, eps_big
        Standard deviations of the noise that makes weak and strong negatives (1, 10), in
        the features' own units (the authors do not rescale the data).
    gp_weight
        Weight of the gradient penalty, lambda (1).
    percentile
        Quantile of the within-sub-window set distances that sets the threshold (0.95).
    standardize
        Rescale every feature by the mean and s.d. of the first chunk (not the authors'
        procedure: for features whose scale dwarfs or drowns the noise).
    seed
        Seeds the encoder's weights, the sets and the noise.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> det = MCDDD(seed=0)
    >>> det.update(rng.normal(size=(5000, 3)))   # the first window only trains
    >>> det.tests, det.drift_detected
    ([], False)
    >>> for t in range(5):
    ...     det.update(rng.normal(size=(1000, 3)))
    ...     assert not det.drift_detected
    >>> len(det.tests), det.tests[-1][0] < det.tests[-1][1]   # two slides of 500, below
    (2, True)
    >>> det.update(rng.normal(loc=3.0, size=(1000, 3)))   # the features move: an alarm
    >>> det.drift_detected, det.tests[0][0] > det.tests[0][1]
    (True, True)
    """

    def __init__(self, *, window: int = 5000, sub_windows: int = 10, n_sets: int = 10,
                 set_size: int = 100, hidden: int = 200, embed_dim: int = 150,
                 lr: float = 0.005, epochs: int = 1, temperature: float = 0.1,
                 eps_small: float = 1.0, eps_big: float = 10.0, gp_weight: float = 1.0,
                 percentile: float = 0.95, standardize: bool = False,
                 seed: int | None = None) -> None:
        for name, value, low in (("sub_windows", sub_windows, 2), ("n_sets", n_sets, 4),
                                 ("set_size", set_size, 1), ("hidden", hidden, 1),
                                 ("embed_dim", embed_dim, 1), ("epochs", epochs, 1)):
            _validation.check_positive_int(name, value, minimum=low)
        _validation.check_positive_int(
            "window", window, minimum=2 * sub_windows,
            why=f" (two rows for each of the {sub_windows} sub-windows)")
        self.lr = _check_real("lr", lr, low=0.0, open_low=True)
        self.temperature = _check_real("temperature", temperature, low=0.0, open_low=True)
        self.eps_small = _check_real("eps_small", eps_small, low=0.0, open_low=False)
        self.eps_big = _check_real("eps_big", eps_big, low=0.0, open_low=False)
        self.gp_weight = _check_real("gp_weight", gp_weight, low=0.0, open_low=False)
        self.percentile = _check_real("percentile", percentile, low=0.0, open_low=False,
                                      high=1.0)
        _validation.check_bool("standardize", standardize)
        _validation.check_seed("seed", seed)
        self.window, self.sub_windows = int(window), int(sub_windows)
        self.n_sets, self.set_size = int(n_sets), int(set_size)
        self.hidden, self.embed_dim, self.epochs = int(hidden), int(embed_dim), int(epochs)
        self.standardize, self.seed = bool(standardize), seed
        self._slide = self.window // self.sub_windows
        self._rng = np.random.default_rng(seed)
        self._net: Any = None
        self._opt: Any = None
        self._d: int | None = None
        self._scale: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None
        self._win: NDArray[np.float32] | None = None  # the current window, once full
        self._pending: NDArray[np.float32] = np.empty((0, 0), np.float32)
        #: The threshold the last training step left (NaN before the first window is full).
        self.threshold = float("nan")
        #: ``(distance, threshold)`` of each slide tested in the last :meth:`update`.
        self.tests: list[tuple[float, float]] = []
        self._drift_detected = False

    @property
    def drift_detected(self) -> bool:
        """Whether a slide of the last :meth:`update` exceeded its threshold."""
        return self._drift_detected

    # --- the encoder --------------------------------------------------------------------
    def _build(self, d: int) -> None:
        import torch

        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(int(self._rng.integers(2**31 - 1)))
            self._net = torch.nn.Sequential(
                torch.nn.Linear(d, self.hidden), torch.nn.ReLU(),
                torch.nn.Linear(self.hidden, self.embed_dim), torch.nn.Sigmoid())
        self._opt = torch.optim.Adam(self._net.parameters(), lr=self.lr)

    def _sets(self, sub: NDArray[np.float32]) -> Any:
        """``(n_sets, set_size, d)``: sets of ``sub``'s rows, drawn with replacement."""
        import torch

        idx = self._rng.integers(0, sub.shape[0], size=(self.n_sets, self.set_size))
        return torch.from_numpy(sub[idx])

    def _noise(self, shape: tuple[int, ...], sd: float) -> Any:
        import torch

        return torch.from_numpy(self._rng.normal(0.0, sd, size=shape).astype(np.float32))

    def _embed(self, sets: Any) -> Any:
        return self._net(sets).mean(dim=1)  # mean pooling: one embedding per set

    @staticmethod
    def _within(emb: Any) -> Any:
        """Distances of every pair of one sub-window's embeddings (``i < j``)."""
        import torch

        return torch.nn.functional.pdist(emb)

    @staticmethod
    def _between(a: Any, b: Any) -> Any:
        """Mean distance of ``a``'s sets to ``b``'s, pairs of the same index left out."""
        import torch

        dist = torch.cdist(a, b)
        same = torch.eye(dist.shape[0], dist.shape[1], dtype=torch.bool)
        return dist[~same].mean()

    # --- one slide ----------------------------------------------------------------------
    def _split(self, win: NDArray[np.float32]) -> list[NDArray[np.float32]]:
        return np.split(win, self.sub_windows)

    def _test(self, win: NDArray[np.float32]) -> float:
        """The mean set distance of the newest sub-window to the one before it."""
        import torch

        subs = self._split(win)
        with torch.no_grad():
            before, newest = self._embed(self._sets(subs[-2])), self._embed(self._sets(subs[-1]))
            return float(self._between(before, newest))

    def _train(self, win: NDArray[np.float32]) -> float:
        """One contrastive step per epoch on the window; return the new threshold."""
        import torch

        subs = self._split(win)
        sets = torch.stack([self._sets(s) for s in subs])  # (sub_windows, n_sets, m, d)
        half, n_sub = self.n_sets // 2, self.sub_windows
        for _ in range(self.epochs):
            altered = sets[:, half:] + self._noise(tuple(sets[:, half:].shape), self.eps_small)
            far = sets[-1] + self._noise(tuple(sets[-1].shape), self.eps_big)
            points = sets[-1].clone().requires_grad_(True)
            emb = self._embed(torch.cat([sets.flatten(0, 1), altered.flatten(0, 1), far]))
            own = emb[:n_sub * self.n_sets].unflatten(0, (n_sub, self.n_sets))
            moved = emb[n_sub * self.n_sets:-self.n_sets].unflatten(0, (n_sub, -1))
            # positives: the sets of one sub-window; weak negatives: half of them against
            # the other half with small noise; the strong one: the first sub-window's sets
            # against the last's with big noise
            pos = [self._within(own[j]).mean() for j in range(n_sub)]
            neg = [self._between(own[j, :half], moved[j]) for j in range(n_sub)]
            neg.append(self._between(own[0], emb[-self.n_sets:]))
            (grad,) = torch.autograd.grad(self._net(points).sum(), points, create_graph=True)
            # the authors' penalty: the gradient's norm over a set's points, per feature
            penalty = ((grad.pow(2).sum(dim=1) + 1e-12).sqrt() - 1.0).pow(2).mean()
            p = torch.stack(pos) / self.temperature
            n = torch.stack(neg) / self.temperature
            # log(P / (P + N)) with P, N sums of exp: written with logsumexp (no overflow)
            loss = (torch.logsumexp(p, 0) - torch.logsumexp(torch.cat([p, n]), 0)
                    + self.gp_weight * penalty)
            self._opt.zero_grad()
            torch.autograd.backward(loss)
            self._opt.step()
        with torch.no_grad():
            fresh = torch.stack([self._sets(s) for s in subs])
            emb = self._embed(fresh.flatten(0, 1)).unflatten(0, (n_sub, self.n_sets))
            within = torch.cat([self._within(emb[j]) for j in range(n_sub)])
        return float(np.quantile(within.numpy().astype(np.float64), self.percentile))

    # --- the stream ---------------------------------------------------------------------
    def _rows(self, X: ArrayLike) -> NDArray[np.float32]:
        arr = np.asarray(X)
        _validation.check_numeric_dtype("X", arr, "numbers (a chunk's features)")
        if arr.ndim < 2 or arr.shape[0] < 1:
            raise _validation.ParameterError(
                "X", f"MCD-DD needs a chunk of rows of features, shape (n, ...), got {arr.shape}")
        arr = arr.reshape(arr.shape[0], -1).astype(np.float64)
        if not np.isfinite(arr).all():
            raise _validation.ParameterError(
                "X", "MCD-DD needs finite features; the chunk has NaN or infinite values in "
                     f"row(s) {np.flatnonzero(~np.isfinite(arr).all(axis=1))[:5].tolist()}")
        if self._d is None:
            self._d = arr.shape[1]
        elif arr.shape[1] != self._d:
            raise _validation.ParameterError(
                "X", f"MCD-DD learned {self._d} features per row; this chunk has {arr.shape[1]}")
        if self.standardize:
            if self._scale is None:
                sd = arr.std(axis=0)
                self._scale = (arr.mean(axis=0), np.where(sd > 0, sd, 1.0))
            arr = (arr - self._scale[0]) / self._scale[1]
        return arr.astype(np.float32)

    def update(self, X: ArrayLike) -> None:
        """Slide the window over the chunk ``X`` (features only, ``(n, ...)``), in order."""
        import torch

        rows = self._rows(X)
        pending = rows if self._pending.size == 0 else np.concatenate([self._pending, rows])
        self._drift_detected = False
        self.tests = []
        size = self._slide * self.sub_windows
        if self._net is None:
            self._build(rows.shape[1])
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # a small network: one thread is fastest, on a busy machine too
        try:
            if self._win is None and pending.shape[0] >= size:  # the first window: train only
                self._win, pending = pending[:size], pending[size:]
                self.threshold = self._train(self._win)
            while self._win is not None and pending.shape[0] >= self._slide:
                self._win = np.concatenate([self._win[self._slide:], pending[:self._slide]])
                pending = pending[self._slide:]
                distance = self._test(self._win)  # before training on it, as the authors
                self.tests.append((distance, self.threshold))
                self._drift_detected |= distance > self.threshold
                self.threshold = self._train(self._win)
        finally:
            torch.set_num_threads(threads)
        self._pending = pending
