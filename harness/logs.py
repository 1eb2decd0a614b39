"""Prediction logs the monitor's tests and benchmarks share (a 3-class model, worse half-way)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def three_class_log(n: int, seed: int = 0) -> pd.DataFrame:
    """``n`` predictions (``label``, ``proba_0`` .. ``proba_2``), sharper before row n // 2.

    Examples
    --------
    >>> log = three_class_log(4)
    >>> list(log.columns), bool(np.allclose(log.iloc[:, 1:].sum(axis=1), 1))
    (['label', 'proba_0', 'proba_1', 'proba_2'], True)
    """
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    shape = np.ones((n, 3))
    shape[np.arange(n), y] += np.where(np.arange(n) < n // 2, 12.0, 3.0)
    g = rng.gamma(shape)
    frame = pd.DataFrame(g / g.sum(axis=1, keepdims=True),
                         columns=["proba_0", "proba_1", "proba_2"])
    frame.insert(0, "label", y)
    return frame
