"""MCD-DD, the label-free SOTA detector of Table 2: maximum concept discrepancy of embeddings.

Wan, Liang and Yoon, "Online drift detection with maximum concept discrepancy", Proceedings
of the 30th ACM SIGKDD Conference on Knowledge Discovery and Data Mining (KDD '24), 2024,
doi:10.1145/3637528.3672016. MCD-DD looks at the features only, never at labels or errors:
a *sample-set encoder* (an MLP applied to each point, mean-pooled) maps a random set of points
of a sub-window to a *concept embedding*; it is trained contrastively, sets of the same
sub-window being positives and sets of the other sub-window negatives; the *maximum concept
discrepancy* (MCD) of two sub-windows is the largest distance between the embeddings of their
sets, and a drift is signalled when it exceeds a dynamic threshold.

Our reading for chunks (the paper works on sliding windows of instances): the two
sub-windows are the previous chunk and the current one; the encoder keeps learning from chunk
to chunk; the threshold is the mean plus ``k`` standard deviations of the MCDs seen since the
last alarm (at least ``min_history`` of them). In Table 2 it resets the same 5-DNN ensemble
as PUDD (``RunConfig(dataset, "dnn-ensemble", "mcd-dd")``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from pudd_core import _validation

__all__ = ["MCDDD"]


class MCDDD:
    """Maximum-concept-discrepancy drift detector on a chunk's features (label-free).

    Parameters
    ----------
    n_sets
        Sample sets drawn from each chunk per training step and per test.
    set_size
        Points per sample set (capped at the chunk size).
    embed_dim, hidden
        Width of the concept embedding and of the encoder's hidden layer.
    epochs
        Contrastive training steps per chunk.
    lr
        Adam's learning rate.
    temperature
        Temperature of the InfoNCE loss.
    k
        Threshold: the mean plus ``k`` standard deviations of the MCDs since the last alarm.
    min_history
        MCDs needed before the first test after a reset.
    seed
        Seeds the encoder's weights and the sampling.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> det = MCDDD(seed=0)
    >>> for t in range(8):
    ...     det.update(rng.normal(size=(500, 3)))
    >>> det.drift_detected, len(det.history)
    (False, 7)
    >>> det.update(rng.normal(loc=3.0, size=(500, 3)))      # the features move: an alarm
    >>> det.drift_detected, det.mcd > det.threshold
    (True, True)
    """

    def __init__(self, *, n_sets: int = 16, set_size: int = 64, embed_dim: int = 16,
                 hidden: int = 64, epochs: int = 10, lr: float = 1e-3,
                 temperature: float = 0.5, k: float = 3.0, min_history: int = 3,
                 seed: int | None = None) -> None:
        for name, value, low in (("n_sets", n_sets, 2), ("set_size", set_size, 1),
                                 ("embed_dim", embed_dim, 1), ("hidden", hidden, 1),
                                 ("epochs", epochs, 0), ("min_history", min_history, 2)):
            _validation.check_positive_int(name, value, minimum=low)
        for real_name, real in (("lr", lr), ("temperature", temperature)):
            if isinstance(real, bool) or not isinstance(real, int | float) or not (
                    math.isfinite(real) and real > 0):
                raise _validation.ParameterError(
                    real_name, f"{real_name} must be a positive number, got {real!r}")
        if isinstance(k, bool) or not isinstance(k, int | float) or not (
                math.isfinite(k) and k >= 0):
            raise _validation.ParameterError("k", f"k must be a number >= 0, got {k!r}")
        self.n_sets, self.set_size = n_sets, set_size
        self.embed_dim, self.hidden = embed_dim, hidden
        self.epochs, self.lr, self.temperature = epochs, float(lr), float(temperature)
        self.k, self.min_history, self.seed = float(k), min_history, seed
        self._rng = np.random.default_rng(seed)
        self._net: Any = None
        self._opt: Any = None
        self._ref: NDArray[np.float32] | None = None
        self._scale: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None
        self.history: list[float] = []
        self.mcd = float("nan")
        self.threshold = float("nan")
        self._drift_detected = False

    @property
    def drift_detected(self) -> bool:
        """Whether the last :meth:`update` signalled a drift."""
        return self._drift_detected

    def _reset(self) -> None:
        """After an alarm: the current chunk becomes the reference, the history restarts."""
        self.history = []
        self._drift_detected = False

    def _build(self, d: int) -> None:
        import torch

        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(int(self._rng.integers(2**31 - 1)))
            self._net = torch.nn.Sequential(
                torch.nn.Linear(d, self.hidden), torch.nn.ReLU(),
                torch.nn.Linear(self.hidden, self.embed_dim))
        self._opt = torch.optim.Adam(self._net.parameters(), lr=self.lr)

    def _sets(self, X: NDArray[np.float32]) -> NDArray[np.float32]:
        m = min(self.set_size, X.shape[0])
        idx = np.stack([self._rng.choice(X.shape[0], m, replace=False)
                        for _ in range(self.n_sets)])
        sets: NDArray[np.float32] = X[idx]  # (n_sets, m, d)
        return sets

    def _embed(self, sets: Any) -> Any:
        return self._net(sets).mean(dim=1)  # mean pooling: one embedding per set

    def _train(self, old: NDArray[np.float32], new: NDArray[np.float32]) -> None:
        import torch

        n = self.n_sets
        labels = torch.arange(2 * n) // n  # 0: old chunk's sets, 1: the new chunk's
        same = labels[:, None] == labels[None, :]
        eye = torch.eye(2 * n, dtype=torch.bool)
        for _ in range(self.epochs):
            sets = torch.from_numpy(np.concatenate([self._sets(old), self._sets(new)]))
            z = torch.nn.functional.normalize(self._embed(sets), dim=1)
            logits = (z @ z.T / self.temperature).masked_fill(eye, -1e9)
            log_prob = logits.log_softmax(dim=1)
            # InfoNCE with several positives: sets of the same chunk attract, others repel
            loss = -(log_prob.masked_fill(~same | eye, 0.0).sum(1) / (n - 1)).mean()
            self._opt.zero_grad()
            torch.autograd.backward(loss)
            self._opt.step()

    def _discrepancy(self, old: NDArray[np.float32], new: NDArray[np.float32]) -> float:
        import torch

        with torch.no_grad():
            a = self._embed(torch.from_numpy(self._sets(old)))
            b = self._embed(torch.from_numpy(self._sets(new)))
            return float(torch.cdist(a, b).max())

    def update(self, X: ArrayLike) -> None:
        """Test the chunk ``X`` (features only, ``(n, ...)``) against the previous chunk."""
        import torch

        if self._drift_detected:
            self._reset()
        arr = np.asarray(X, dtype=np.float64)
        if arr.ndim < 2 or arr.shape[0] < 2:
            raise _validation.ParameterError(
                "X", f"MCD-DD needs a chunk of at least 2 rows of features, got {arr.shape}")
        arr = arr.reshape(arr.shape[0], -1)
        if self._scale is None:  # standardise by the first chunk, so that sizes compare
            sd = arr.std(axis=0)
            self._scale = (arr.mean(axis=0), np.where(sd > 0, sd, 1.0))
        new = ((arr - self._scale[0]) / self._scale[1]).astype(np.float32)
        old, self._ref = self._ref, new
        if old is None:
            return
        if self._net is None:
            self._build(new.shape[1])
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # a tiny network: one thread is fastest, on a busy machine too
        try:
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(int(self._rng.integers(2**31 - 1)))
                self._train(old, new)
            self.mcd = self._discrepancy(old, new)
        finally:
            torch.set_num_threads(threads)
        if len(self.history) >= self.min_history:
            h = np.asarray(self.history)
            self.threshold = float(h.mean() + self.k * h.std(ddof=1))
            self._drift_detected = self.mcd > self.threshold
        else:
            self.threshold = float("nan")
        if not self._drift_detected:
            self.history.append(self.mcd)
