r"""The PU-index $u_i = 1 - f_{y_i}(x_i)$ and the correct / misclassified split (paper, eq. 7)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from pudd_core._validation import ParameterError, check_numeric_dtype

__all__ = ["is_correct", "pu_index"]

_ROW_SUM_TOL = 1e-4  # float32 softmax rows sum to 1 within ~1e-6; GNB within 1e-12


def _check(proba: ArrayLike, y: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    try:
        raw = np.asarray(proba)
    except ValueError:  # numpy's "inhomogeneous shape": rows of different lengths
        rows: Any = proba
        lengths = sorted({len(row) for row in rows})
        raise ParameterError("proba", "proba rows have different lengths "
                                      f"({', '.join(map(str, lengths))}): pass one probability "
                                      "per class in every row") from None
    check_numeric_dtype("proba", raw, "real class probabilities")
    p = raw.astype(np.float64, copy=False)
    if p.ndim != 2:
        raise ParameterError("proba",
            f"proba must be a 2-D array (n_samples, n_classes) of class probabilities, "
            f"got shape {p.shape}"
        )
    labels = np.asarray(y)
    if labels.ndim != 1:
        raise ParameterError("y", f"y must be a 1-D array of class indices, got shape "
                                  f"{labels.shape}")
    if labels.shape[0] != p.shape[0]:
        raise ParameterError(
            "y", f"proba has {p.shape[0]} rows but y has {labels.shape[0]} labels: pass one "
            "probability row per label"
        )
    if p.size and not np.isfinite(p).all():
        row = int(np.flatnonzero(~np.isfinite(p).all(axis=1))[0])
        raise ParameterError("proba", f"proba contains NaN or infinity (first in row {row})")
    if p.size and (p.min() < 0.0 or p.max() > 1.0):
        row = int(np.flatnonzero(((p < 0.0) | (p > 1.0)).any(axis=1))[0])
        raise ParameterError("proba", f"proba must lie in [0, 1]; row {row} is {p[row].tolist()}")
    if p.size:
        sums = p.sum(axis=1)
        bad = np.flatnonzero(np.abs(sums - 1.0) > _ROW_SUM_TOL)
        if bad.size:
            row = int(bad[0])
            raise ParameterError(
                "proba",
                f"each row of proba must sum to 1 (within {_ROW_SUM_TOL}); row {row} sums to "
                f"{sums[row]:.6g}: pass probabilities (e.g. a softmax), not scores or logits"
            )
    if labels.size and not np.issubdtype(labels.dtype, np.integer):
        if not np.issubdtype(labels.dtype, np.floating):
            raise ParameterError("y", f"y must hold integer class indices, got dtype "
                                      f"{labels.dtype}")
        finite = np.isfinite(labels)
        if not finite.all():
            pos = int(np.flatnonzero(~finite)[0])
            raise ParameterError("y", f"y must hold integer class indices; y[{pos}] is "
                                      f"{labels[pos]} (NaN or infinity is no class)")
        if not np.all(labels == np.round(labels)):
            pos = int(np.flatnonzero(labels != np.round(labels))[0])
            raise ParameterError("y", f"y must hold integer class indices; y[{pos}] is "
                                      f"{labels[pos]}")
        outside = (labels < 0) | (labels >= p.shape[1])
        if outside.any():  # before the cast: 1e20 is no index and casts to garbage
            pos = int(np.flatnonzero(outside)[0])
            raise ParameterError(
                "y", f"labels must be class indices in 0..{p.shape[1] - 1} (one per proba "
                     f"column); y[{pos}] = {labels[pos]:g}")
        labels = labels.astype(np.intp)
    labels = labels.astype(np.intp, copy=False)
    if labels.size and (labels.min() < 0 or labels.max() >= p.shape[1]):
        pos = int(np.flatnonzero((labels < 0) | (labels >= p.shape[1]))[0])
        raise ParameterError(
            "y", f"labels must be class indices in 0..{p.shape[1] - 1} (one per proba column); "
            f"y[{pos}] = {labels[pos]}"
        )
    return p, labels


def pu_index(proba: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
    r"""Prediction-uncertainty index of each instance: one minus the true class's probability.

    $u_i = 1 - f_{y_i}(x_i)$ (paper, eq. 7). A confident correct prediction has $u$ near 0,
    a confident error $u$ near 1.

    Parameters
    ----------
    proba
        Class probabilities, shape ``(n_samples, n_classes)``, rows summing to 1.
    y
        True class indices in ``0..n_classes-1``.

    Raises
    ------
    ValueError
        If ``proba`` is not 2-D, holds NaN, infinity or values outside [0, 1], or has a row
        not summing to 1 (within 1e-4); if ``y`` is not 1-D, has a different length, or holds
        anything but integer class indices in ``0..n_classes-1``.

    Examples
    --------
    >>> proba = [[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.5, 0.5, 0.0]]
    >>> pu_index(proba, [0, 1, 1]).round(3).tolist()
    [0.3, 0.7, 0.5]
    """
    p, labels = _check(proba, y)
    return 1.0 - p[np.arange(labels.shape[0]), labels]


def is_correct(proba: ArrayLike, y: ArrayLike) -> NDArray[np.bool_]:
    """Whether the arg-max prediction equals the true label (ties go to the lowest class index).

    Parameters
    ----------
    proba
        Class probabilities, shape ``(n_samples, n_classes)``, rows summing to 1.
    y
        True class indices in ``0..n_classes-1``.

    Raises
    ------
    ValueError
        If ``proba`` is not 2-D, holds NaN, infinity or values outside [0, 1], or has a row
        not summing to 1 (within 1e-4); if ``y`` is not 1-D, has a different length, or holds
        anything but integer class indices in ``0..n_classes-1``.

    Examples
    --------
    >>> is_correct([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.5, 0.5, 0.0]], [0, 1, 1]).tolist()
    [True, False, False]
    """
    p, labels = _check(proba, y)
    return np.asarray(np.argmax(p, axis=1) == labels, dtype=np.bool_)
