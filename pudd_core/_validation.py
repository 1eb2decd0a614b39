"""Argument checks shared by the public API: each raises :class:`ParameterError` naming the problem.

:class:`ParameterError` is a ``ValueError`` that carries the parameter's name (and its valid
choices where there are some), so callers can route an error to its control without parsing
the message.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray


class ParameterError(ValueError):
    """A bad value for one named parameter; a ``ValueError``, so existing callers still work.

    Parameters
    ----------
    param
        The parameter's name, as the caller spelt it (``"alpha"``, ``"chunk_size"``, ``"u"``).
    message
        What is wrong and what to do; shown as is.
    choices
        The valid values, where there is a finite set of them.

    Examples
    --------
    >>> err = ParameterError("cut_points", "cut_points must be 'pow2' or 'all'", ("pow2", "all"))
    >>> isinstance(err, ValueError), err.param, err.choices, str(err)
    (True, 'cut_points', ('pow2', 'all'), "cut_points must be 'pow2' or 'all'")
    """

    def __init__(self, param: str, message: str, choices: Sequence[Any] | None = None) -> None:
        super().__init__(message)
        self.param = param
        self.choices = tuple(choices) if choices is not None else None

    def __reduce__(self) -> tuple[Any, ...]:  # picklable across worker processes
        return (type(self), (self.param, str(self), self.choices))


def _is_real(value: Any) -> bool:
    """A real number: Python's or numpy's int or float, not a bool, complex or string."""
    return (isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_))


def check_open_unit(name: str, value: float) -> None:
    """Require ``0 < value < 1`` (a significance level)."""
    if not _is_real(value) or not 0.0 < float(value) < 1.0:
        raise ParameterError(name, f"{name} must be a number strictly between 0 and 1, "
                                   f"got {value!r}")


def check_positive_int(
    name: str, value: Any, *, minimum: int = 1, optional: bool = False, why: str = ""
) -> Any:
    """Require an integer ``>= minimum`` (Python's or numpy's, not a bool); return it as an int.

    The one integer check of the library. With ``optional``, ``None`` passes (and is
    returned); ``why`` is added to the message after the bound.

    Examples
    --------
    >>> check_positive_int("n_chunks", np.int64(3), minimum=2)
    3
    >>> check_positive_int("chunk_size", None, optional=True) is None
    True
    >>> check_positive_int("n_chunks", 1, minimum=2, optional=True, why=" (one to test)")
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: n_chunks must be None or an integer >= 2 (one to ...
    """
    if optional and value is None:
        return None
    if (isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer)
            or value < minimum):
        what = "None or an integer" if optional else "an integer"
        raise ParameterError(name, f"{name} must be {what} >= {minimum}{why}, got {value!r}")
    return int(value)


def check_bool(name: str, value: Any) -> None:
    """Require ``True`` or ``False`` (numpy's too); a string such as ``"False"`` is refused.

    Examples
    --------
    >>> check_bool("yates", "no")
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: yates must be True or False, got 'no' (a str)
    """
    if not isinstance(value, bool | np.bool_):
        raise ParameterError(name, f"{name} must be True or False, got {value!r} "
                                   f"(a {type(value).__name__})", (True, False))


def check_seed(name: str, value: Any) -> None:
    """Require ``None`` or an integer ``>= 0`` (what ``numpy.random.default_rng`` takes)."""
    check_positive_int(name, value, minimum=0, optional=True)


def check_choice(name: str, value: Any, choices: tuple[Any, ...]) -> None:
    """Require ``value`` to be one of ``choices``."""
    # ``in`` alone would let 1 stand for True and np.str_ for str: compare types too
    if not any(value == c and (c is None or isinstance(value, type(c))) for c in choices
               if not isinstance(value, np.ndarray)):
        options = ", ".join(repr(c) for c in choices)
        raise ParameterError(name, f"{name} must be one of {options}; got {value!r}", choices)


def check_numeric_dtype(name: str, arr: NDArray[Any], what: str) -> None:
    """Refuse text, complex, object and date arrays before any cast could hide them."""
    if arr.dtype.kind not in "biuf":
        kind = {"c": "complex numbers", "U": "text", "S": "bytes", "O": "Python objects",
                "M": "dates", "m": "time spans"}.get(arr.dtype.kind, str(arr.dtype))
        raise ParameterError(name, f"{name} must hold {what}, got {kind} (dtype {arr.dtype})")


def as_pu_array(name: str, values: ArrayLike) -> NDArray[np.float64]:
    """Return a 1-D float64 copy-free view of PU-index values, all finite and in [0, 1].

    Text (``"0.3"``), complex numbers and objects are refused, not cast.

    Examples
    --------
    >>> as_pu_array("u", ["0.3"])
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: u must hold real numbers in [0, 1], got text (dtype <U3)
    """
    raw = np.asarray(values)
    check_numeric_dtype(name, raw, "real numbers in [0, 1]")
    arr = raw.astype(np.float64, copy=False)
    if arr.ndim != 1:
        raise ParameterError(name, f"{name} must be one-dimensional, got shape {arr.shape}")
    # one min and one max pass: NaN propagates through both, so valid input costs no more
    if arr.size and not (0.0 <= arr.min() and arr.max() <= 1.0):
        if not np.isfinite(arr).all():
            bad = int(np.flatnonzero(~np.isfinite(arr))[0])
            raise ParameterError(name, f"{name} contains NaN or infinity (first at position {bad})")
        bad = int(np.flatnonzero((arr < 0.0) | (arr > 1.0))[0])
        raise ParameterError(
            name,
            f"{name} must lie in [0, 1] (PU-index = 1 - p(true class)); "
            f"position {bad} is {arr[bad]!r}",
        )
    return arr


def as_pu_value(name: str, value: Any) -> float:
    """Return one PU-index value as a float in [0, 1]; text, complex, arrays and NaN are refused.

    Examples
    --------
    >>> as_pu_value("x", np.float32(0.25))
    0.25
    >>> as_pu_value("x", np.array([0.1]))
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: x must be one number in [0, 1], got an array of shape (1,)
    """
    if isinstance(value, np.ndarray):
        raise ParameterError(name, f"{name} must be one number in [0, 1], got an array of shape "
                                   f"{value.shape}")
    if isinstance(value, bool | np.bool_):  # a correctness flag: True would read as u = 1
        raise ParameterError(name, f"{name} must be one number in [0, 1] (the PU-index, "
                                   f"1 - p(true class)), got {value!r}, a truth value: give "
                                   "whether the prediction was right as correct=, and 0/1 "
                                   "errors as the numbers 0 and 1")
    if not _is_real(value):
        raise ParameterError(name, f"{name} must be one number in [0, 1], got {value!r} "
                                   f"(a {type(value).__name__})")
    u = float(value)
    if not 0.0 <= u <= 1.0:  # also rejects NaN
        raise ParameterError(name, f"{name} must be a PU-index in [0, 1], got {value!r}")
    return u


def as_mask(name: str, values: ArrayLike, length: int, length_name: str) -> NDArray[np.bool_]:
    """Return a 1-D boolean mask of the given length (0/1 integers are accepted)."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ParameterError(name, f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.shape[0] != length:
        raise ParameterError(
            name,
            f"{name} has {arr.shape[0]} values but {length_name} has {length}: "
            "pass one correctness flag per PU-index value",
        )
    if arr.dtype != np.bool_:
        if arr.dtype.kind not in "biuf":
            raise ParameterError(name, f"{name} must be boolean (or 0/1), got values like "
                                       f"{arr[:3]!r}")
        if arr.size and not np.isin(arr, (0, 1)).all():
            raise ParameterError(name, f"{name} must be boolean (or 0/1), got values like "
                                       f"{arr[:3]!r}")
        arr = arr.astype(np.bool_)
    return arr


def check_option_names(param: str, owner: str, given: Iterable[str],
                       valid: Sequence[str]) -> None:
    """Raise unless every name in ``given`` is one of ``valid``: the options of ``owner``.

    Examples
    --------
    >>> check_option_names("detector_options", "detector 'ek'", ["alpha"], ["alpha", "seed"])
    >>> check_option_names("options", "classifier 'gnb'", ["lr", "arch"], ["var_smoothing"])
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: unknown classifier 'gnb' option(s) 'arch', 'lr'; valid ...
    """
    unknown = sorted(set(given) - set(valid))
    if unknown:
        raise ParameterError(
            param,
            f"unknown {owner} option(s) {', '.join(map(repr, unknown))}; "
            f"valid options: {', '.join(valid) or 'none'}",
            valid,
        )


def correct_mask(name: str, values: ArrayLike | None, u: NDArray[np.float64],
                 u_name: str) -> NDArray[np.bool_]:
    """``values`` as a mask over the PU-index values ``u`` (``as_mask``); None: ``u < 0.5``.

    ``u < 0.5`` is the arg-max prediction's correctness for two classes (ties at 0.5 aside)
    and the authors' split of the reference window.
    """
    return u < 0.5 if values is None else as_mask(name, values, u.size, u_name)


def as_flag(name: str, value: Any) -> bool:
    """Return one correctness flag as a bool: ``True``/``False`` (numpy's too), 0 or 1 only.

    Anything else (a string, 2, NaN, None) raises rather than being truth-tested, as
    :func:`as_mask` does for arrays.
    """
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | float | np.integer | np.floating) and (value == 0 or value == 1):
        return bool(value)
    raise ParameterError(name, f"{name} must be a bool (or 0/1), got {value!r}")


def finite_float(name: str, value: Any) -> float:
    """Return ``value`` as a float, rejecting NaN, infinity, text, complex and bools."""
    if not _is_real(value):
        raise ParameterError(name, f"{name} must be a real number, got {value!r}")
    out = float(value)
    if not math.isfinite(out):
        raise ParameterError(name, f"{name} must be finite, got {value!r}")
    return out


def check_column_names(names: list[str], source_name: str) -> None:
    """Refuse duplicate column names (a CSV's, a Parquet file's, a DataFrame's).

    Examples
    --------
    >>> check_column_names(["y", "p", "p"], "log.csv")
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: log.csv has duplicate column names 'p': ...
    """
    seen: dict[str, int] = {}
    for n in names:
        seen[n] = seen.get(n, 0) + 1
    dup = [n for n, c in seen.items() if c > 1]
    if dup:
        raise ParameterError(
            "upload", f"{source_name} has duplicate column names {', '.join(map(repr, dup))}: "
                      "every column needs its own name, or the wrong one could be used")
