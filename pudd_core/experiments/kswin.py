"""river's KSWIN with the same alarms, several times faster: memoised Kolmogorov-Smirnov p-values.

KSWIN (Raab, Heusinger and Schleif, "Reactive soft prototype computing for concept drift
streams", Neurocomputing 416, 2020) runs a two-sample KS test at every instance between
``stat_size`` values sampled from the older part of its window and the ``stat_size`` newest.
river calls ``scipy.stats.ks_2samp(method="auto")``, whose exact p-value dominates the cost.
That p-value (and the returned statistic) depends only on the raw statistic and the two
sample sizes, which are fixed here, and the statistic takes at most ``stat_size + 1``
distinct values with equal sizes, so :class:`FastKSWIN` computes the statistic with numpy
exactly as scipy does and asks scipy only the first time a value appears. Everything else
(the window, river's ``random.Random`` sampling, the reset) is river's own code path.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import numpy as np
from river.drift import KSWIN
from scipy import stats

__all__ = ["FastKSWIN"]

#: (raw statistic, n1, n2) -> scipy's (statistic, p-value) for ``method="auto"``.
_KS_MEMO: dict[tuple[float, int, int], tuple[float, float]] = {}


def _raw_statistic(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> float:
    """Scipy's two-sided statistic before its exact-mode rounding, computed the same way."""
    data1, data2 = np.sort(a), np.sort(b)
    data_all = np.concatenate([data1, data2])
    cddiffs = (np.searchsorted(data1, data_all, side="right") / data1.shape[0]
               - np.searchsorted(data2, data_all, side="right") / data2.shape[0])
    min_s = float(np.clip(-cddiffs[np.argmin(cddiffs)], 0, 1))
    max_s = float(cddiffs[np.argmax(cddiffs)])
    return min_s if min_s > max_s else max_s


def ks_2samp_memo(a: list[Any], b: list[Any]) -> tuple[float, float]:
    """``scipy.stats.ks_2samp(a, b, method="auto")``'s statistic and p-value, memoised.

    Examples
    --------
    >>> a, b = [0, 0, 1, 1, 0, 1], [1, 1, 1, 1, 0, 1]
    >>> ks_2samp_memo(a, b) == tuple(stats.ks_2samp(a, b, method="auto"))[:2]
    True
    """
    key = (_raw_statistic(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)),
           len(a), len(b))
    hit = _KS_MEMO.get(key)
    if hit is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category=RuntimeWarning)
            res = stats.ks_2samp(a, b, method="auto")
        hit = _KS_MEMO[key] = (float(res.statistic), float(res.pvalue))
    return hit


class FastKSWIN(KSWIN):
    """river's ``KSWIN``, giving the same alarms and p-values from memoised KS tests.

    Same parameters as :class:`river.drift.KSWIN` (river's defaults: ``alpha=0.005``,
    ``window_size=100``, ``stat_size=30``); ``tests/experiments/test_kswin.py`` checks that
    both give identical alarms and p-values on seeded streams.

    Examples
    --------
    >>> import random
    >>> rng = random.Random(1)
    >>> stream = [int(rng.random() < (0.1 if i < 600 else 0.6)) for i in range(1200)]
    >>> def alarms(det):
    ...     out = []
    ...     for i, x in enumerate(stream):
    ...         det.update(x)
    ...         if det.drift_detected:
    ...             out.append(i)
    ...     return out
    >>> alarms(FastKSWIN(seed=7)) == alarms(KSWIN(seed=7)) != []
    True
    """

    def update(self, x: Any) -> None:
        """Add ``x`` to the window, then test (river's ``KSWIN.update``, memoised)."""
        if self.drift_detected:
            self._reset()  # type: ignore[no-untyped-call]
        self.n += 1
        self.window.append(x)
        if len(self.window) >= self.window_size:
            values = list(self.window)
            rnd_window = [values[r] for r in self._rng.sample(
                range(self.window_size - self.stat_size), self.stat_size)]
            most_recent = values[self.window_size - self.stat_size:self.window_size]
            st, p_value = ks_2samp_memo(rnd_window, most_recent)
            self.p_value = p_value  # type: ignore[assignment]  # river declares it int (0)
            if p_value <= self.alpha and st > 0.1:
                self._drift_detected = True
                self.window = type(self.window)(
                    itertools.islice(most_recent, None), maxlen=self.window_size)
            else:
                self._drift_detected = False
        else:
            self._drift_detected = False
