"""Baseline drift detectors: river's classes by name, fed the 0/1 errors of each tested chunk.

Our reading of the paper (spec §3.8, §10.17): each tested chunk's per-instance errors go to the
detector in stream order; any detection during the chunk is the chunk's alarm, after which the
runner replaces the detector with a fresh ``detector.clone()``.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple, TypeAlias

import numpy as np
from numpy.typing import ArrayLike
from river import drift
from river.base import BinaryDriftDetector, DriftDetector

from pudd_core import _validation
from pudd_core.experiments.kswin import FastKSWIN
from pudd_core.paper import DISPLAY_NAMES

__all__ = [
    "ALIASES", "BASELINES", "RANGES", "BaselineSpec", "Detector", "baseline_spec",
    "check_params", "feed_errors", "make", "option_names",
]

#: A river detector: ``river.drift.binary`` classes derive from ``BinaryDriftDetector``.
Detector: TypeAlias = DriftDetector | BinaryDriftDetector


class BaselineSpec(NamedTuple):
    """How one baseline is built and fed.

    Examples
    --------
    >>> BASELINES["hddma"]
    BaselineSpec(display_name='HDDM-A', detector_class=<class 'river.drift.binary.hddm_a.HDDMA'>,
                 consumes='0/1 errors', colour='vermillion')
    """

    display_name: str
    """Name used in tables and the app, as in the paper."""
    detector_class: type[Detector]
    """The river class, built with river's default parameters."""
    consumes: str
    """What the class accepts; every baseline is fed per-instance 0/1 errors here."""
    colour: str | None = None
    """Its colour in every figure (an Okabe-Ito colour name; None: a palette colour)."""


_BINARY = "0/1 errors"
_REAL = "real values (fed 0/1 errors)"

#: Baseline name -> spec, in the paper's order.
BASELINES: Mapping[str, BaselineSpec] = MappingProxyType(
    {
        "adwin": BaselineSpec(DISPLAY_NAMES["adwin"], drift.ADWIN, _REAL, "sky_blue"),
        "ddm": BaselineSpec(DISPLAY_NAMES["ddm"], drift.binary.DDM, _BINARY, "orange"),
        "eddm": BaselineSpec(DISPLAY_NAMES["eddm"], drift.binary.EDDM, _BINARY, "green"),
        # the other baselines: clear of the colours above (the error-rate test is never
        # beside them)
        "hddma": BaselineSpec(DISPLAY_NAMES["hddma"], drift.binary.HDDMA, _BINARY, "vermillion"),
        "hddmw": BaselineSpec(DISPLAY_NAMES["hddmw"], drift.binary.HDDMW, _BINARY, "#999933"),
        # river's KSWIN with memoised KS p-values: the same alarms, several times faster
        "kswin": BaselineSpec(DISPLAY_NAMES["kswin"], FastKSWIN, _REAL, "purple"),
        "pagehinkley": BaselineSpec(DISPLAY_NAMES["pagehinkley"], drift.PageHinkley, _REAL,
                                    "yellow"),
    }
)

#: Extra names accepted by :func:`make`.
ALIASES: Mapping[str, str] = MappingProxyType({"ph": "pagehinkley"})


def baseline_spec(name: str) -> BaselineSpec:
    """The registry entry of baseline ``name`` (an alias such as ``"ph"`` or any case).

    Examples
    --------
    >>> baseline_spec("PH").display_name
    'PH'
    """
    spec = BASELINES.get(ALIASES.get(name.lower(), name.lower()))
    if spec is None:
        valid = ", ".join(map(repr, [*BASELINES, *ALIASES]))
        raise ValueError(f"unknown baseline {name!r}; choose one of {valid}.")
    return spec


def option_names(name: str) -> list[str]:
    """Constructor parameters :func:`make` accepts for the baseline ``name`` (``seed`` aside).

    Examples
    --------
    >>> option_names("ph")
    ['min_instances', 'delta', 'threshold', 'alpha', 'mode']
    """
    params = inspect.signature(baseline_spec(name).detector_class).parameters
    return [p for p in params if p != "seed"]


def _real(low: float, high: float, *, low_open: bool = True,
          high_open: bool = True) -> Any:
    """A check of a number in an interval, for :data:`RANGES`."""
    def check(name: str, value: Any) -> None:
        x = _validation.finite_float(name, value)
        if (x <= low if low_open else x < low) or (x >= high if high_open else x > high):
            ends = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
            raise _validation.ParameterError(name, f"{name} must lie in {ends}, got {value!r}")
    return check


def _count(name: str, value: Any) -> None:
    _validation.check_positive_int(name, value)


def _mode(name: str, value: Any) -> None:
    _validation.check_choice(name, value, ("up", "down", "both"))


_UNIT = _real(0.0, 1.0)
_POSITIVE = _real(0.0, float("inf"))
#: Baseline -> option -> its check: river's constructors take any value (ADWIN's delta=-1,
#: a negative seed) and fail, or silently never alarm, later.
RANGES: Mapping[str, Mapping[str, Any]] = MappingProxyType({
    "adwin": {"delta": _UNIT, "clock": _count, "max_buckets": _count,
              "min_window_length": _count, "grace_period": _count},
    "ddm": {"warm_start": _count, "warning_threshold": _POSITIVE,
            "drift_threshold": _POSITIVE},
    "eddm": {"warm_start": _count, "alpha": _UNIT, "beta": _UNIT},
    "hddma": {"drift_confidence": _UNIT, "warning_confidence": _UNIT,
              "two_sided_test": _validation.check_bool},
    "hddmw": {"drift_confidence": _UNIT, "warning_confidence": _UNIT,
              "lambda_val": _real(0.0, 1.0, high_open=False),
              "two_sided_test": _validation.check_bool},
    "kswin": {"alpha": _UNIT, "window_size": _count, "stat_size": _count},
    "pagehinkley": {"min_instances": _count, "delta": _real(0.0, float("inf"), low_open=False),
                    "threshold": _POSITIVE, "alpha": _real(0.0, 1.0, high_open=False),
                    "mode": _mode},
})


def check_params(name: str, params: Mapping[str, Any], seed: Any = None) -> None:
    """Refuse an option of baseline ``name`` out of its range, or a seed that is not one.

    Examples
    --------
    >>> check_params("adwin", {"delta": -1})
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: delta must lie in (0, 1), got -1
    """
    key = ALIASES.get(name.lower(), name.lower())
    for option, value in params.items():
        check = RANGES.get(key, {}).get(option)
        if check is not None:
            check(option, value)
    _validation.check_seed("seed", seed)


def make(name: str, *, seed: int | None = None, **params: Any) -> Detector:
    """Build the river detector ``name`` with river's defaults, overridden by ``params``.

    Parameters
    ----------
    name
        A key of :data:`BASELINES` (``"adwin"``, ``"ddm"``, ``"eddm"``, ``"hddma"``, ``"hddmw"``,
        ``"kswin"``, ``"pagehinkley"``) or the alias ``"ph"``; case-insensitive.
    seed
        Passed to the stochastic detector (KSWIN's window sampling); the others are
        deterministic and ignore it, so a runner can pass a seed whatever the name.
    params
        Constructor parameters of the river class, e.g. ``delta=0.01`` for ADWIN.

    Raises
    ------
    ValueError
        For an unknown name or parameter (river's own checks raise ValueError too).

    Examples
    --------
    >>> make("ph")
    PageHinkley (
      min_instances=30
      delta=0.005
      threshold=50.
      alpha=0.9999
      mode="both"
    )
    >>> make("kswin", seed=42).seed
    42
    >>> make("cusum")
    Traceback (most recent call last):
    ...
    ValueError: unknown baseline 'cusum'; choose one of 'adwin', 'ddm', 'eddm', 'hddma', ...
    """
    spec = baseline_spec(name)
    _validation.check_option_names("params", f"baseline {spec.display_name}", params,
                                   option_names(name))
    check_params(name, params, seed)
    if "seed" in inspect.signature(spec.detector_class).parameters:
        params["seed"] = seed
    detector: Detector = spec.detector_class(**params)
    return detector


def feed_errors(detector: Detector, errors: ArrayLike) -> tuple[int, ...]:
    """Feed one chunk's per-instance errors in order; return where ``drift_detected`` was True.

    ``errors[i]`` is 1 when instance *i* was misclassified, else 0. The returned indices are
    0-based positions within the chunk. river detectors reset themselves on the update after a
    detection, so one chunk can yield several indices; the runner treats any as the chunk's
    alarm and then replaces the detector with ``detector.clone()``.

    Examples
    --------
    >>> rng = np.random.default_rng(7)
    >>> errors = np.r_[rng.random(1000) < 0.1, rng.random(1000) < 0.5]
    >>> feed_errors(make("ddm"), errors)
    (1022,)
    """
    arr = np.asarray(errors)
    if arr.ndim != 1:
        raise ValueError(f"errors must be 1-D (one 0/1 value per instance), got shape {arr.shape}.")
    values = arr.astype(np.int64)
    if not np.array_equal(values, arr) or np.any((values != 0) & (values != 1)):
        raise ValueError("errors must hold only 0 (correct) and 1 (misclassified).")
    hits: list[int] = []
    update = detector.update
    for i, error in enumerate(values.tolist()):
        update(error)
        if detector.drift_detected:
            hits.append(i)
    return tuple(hits)
