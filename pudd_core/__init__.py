"""PUDD Lab core: early concept-drift detection by prediction uncertainty.

The PU-index and the PUDD detector of Lu, Lu, Liu and Zhang, "Early Concept Drift
Detection via Prediction Uncertainty" (AAAI 2025), with the authors' code as the
default behaviour and each paper variant one option away.

Where the paper lives: ``pu_index`` (eq. 7), ``bucketing`` (Adaptive PU-index Bucketing),
``chi2`` (eqs. 12-14), ``detector`` (Algorithm 1, chunk-based), ``online`` (the appendix's
Algorithm 2, a river detector) and ``theorems`` (Theorems 1 and 2) sit at the top; the
paper's published numbers are ``paper``. Around them: ``experiments`` (runs, grids, the
reproduction, threshold studies), ``monitoring`` (PUDD on your own model's prediction log:
:func:`monitor`), ``streams``, ``classifiers``, ``views`` (the app's pure view
models) and ``plots`` (plotly figures). See ``docs/architecture.md``.
"""

from __future__ import annotations

from typing import Any

from pudd_core.bucketing import Buckets, ek_buckets, fit_buckets, greedy_init, kmeans_1d
from pudd_core.chi2 import (
    Chi2Result,
    PUTestResult,
    chi2_test,
    clamp_table,
    contingency_table,
    pu_chi2_test,
)
from pudd_core.detector import ChunkPUDD, CutResult, ScanResult, cut_points
from pudd_core.online import PUDD, PUDDClassifier
from pudd_core.pu_index import is_correct, pu_index
from pudd_core.theorems import (
    ErrorStats,
    Theorem1Check,
    TheoremWindows,
    error_rate_test,
    error_stats,
    pu_histogram,
    theorem1_check,
    theorem2_windows,
)

__version__ = "0.1.0"

#: Re-exported lazily (PEP 562): ``monitoring`` runs the experiments layer's runner and river
#: baselines, which importing the paper's method must not load.
_LAZY = {"MonitorResult": "pudd_core.monitoring", "monitor": "pudd_core.monitoring"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'pudd_core' has no attribute {name!r}")

__all__ = [
    "Buckets",
    "Chi2Result",
    "ChunkPUDD",
    "CutResult",
    "ErrorStats",
    "MonitorResult",
    "PUDD",
    "PUDDClassifier",
    "PUTestResult",
    "ScanResult",
    "Theorem1Check",
    "TheoremWindows",
    "__version__",
    "chi2_test",
    "clamp_table",
    "contingency_table",
    "cut_points",
    "ek_buckets",
    "error_rate_test",
    "error_stats",
    "fit_buckets",
    "greedy_init",
    "is_correct",
    "kmeans_1d",
    "monitor",
    "pu_chi2_test",
    "pu_histogram",
    "pu_index",
    "theorem1_check",
    "theorem2_windows",
]
