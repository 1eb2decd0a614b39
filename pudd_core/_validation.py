"""Argument checks shared by the public API: each raises ValueError naming the problem."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray


def check_open_unit(name: str, value: float) -> None:
    """Require ``0 < value < 1`` (a significance level)."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0.0 < value < 1.0:
        raise ValueError(f"{name} must be a number strictly between 0 and 1, got {value!r}")


def check_positive_int(name: str, value: Any, *, minimum: int = 1) -> None:
    """Require an integer ``>= minimum``."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")


def check_choice(name: str, value: Any, choices: tuple[Any, ...]) -> None:
    """Require ``value`` to be one of ``choices``."""
    if value not in choices:
        options = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {options}; got {value!r}")


def as_pu_array(name: str, values: ArrayLike) -> NDArray[np.float64]:
    """Return a 1-D float64 copy-free view of PU-index values, all finite and in [0, 1]."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    # one min and one max pass: NaN propagates through both, so valid input costs no more
    if arr.size and not (0.0 <= arr.min() and arr.max() <= 1.0):
        if not np.isfinite(arr).all():
            bad = int(np.flatnonzero(~np.isfinite(arr))[0])
            raise ValueError(f"{name} contains NaN or infinity (first at position {bad})")
        bad = int(np.flatnonzero((arr < 0.0) | (arr > 1.0))[0])
        raise ValueError(
            f"{name} must lie in [0, 1] (PU-index = 1 - p(true class)); "
            f"position {bad} is {arr[bad]!r}"
        )
    return arr


def as_mask(name: str, values: ArrayLike, length: int, length_name: str) -> NDArray[np.bool_]:
    """Return a 1-D boolean mask of the given length (0/1 integers are accepted)."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.shape[0] != length:
        raise ValueError(
            f"{name} has {arr.shape[0]} values but {length_name} has {length}: "
            "pass one correctness flag per PU-index value"
        )
    if arr.dtype != np.bool_:
        if arr.size and not np.isin(arr, (0, 1)).all():
            raise ValueError(f"{name} must be boolean (or 0/1), got values like {arr[:3]!r}")
        arr = arr.astype(np.bool_)
    return arr


def as_flag(name: str, value: Any) -> bool:
    """Return one correctness flag as a bool: ``True``/``False`` (numpy's too), 0 or 1 only.

    Anything else (a string, 2, NaN, None) raises rather than being truth-tested, as
    :func:`as_mask` does for arrays.
    """
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | float | np.integer | np.floating) and (value == 0 or value == 1):
        return bool(value)
    raise ValueError(f"{name} must be a bool (or 0/1), got {value!r}")


def finite_float(name: str, value: float) -> float:
    """Return ``value`` as a float, rejecting NaN and infinity."""
    out = float(value)
    if not math.isfinite(out):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return out
