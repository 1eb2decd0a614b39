"""Shared helpers of the benchmark scripts: timing and a machine description."""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable


def best_of(fn: Callable[[], object], repeat: int = 5, number: int = 1) -> float:
    """Best wall time of ``repeat`` rounds of ``number`` calls, per call, in seconds."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t) / number)
    return min(times)


def machine() -> str:
    """One line: CPU count, platform, Python and key package versions."""
    import numpy
    import river
    import scipy
    import sklearn

    return (
        f"{os.cpu_count()} CPUs, {platform.machine()}, Python {platform.python_version()}, "
        f"numpy {numpy.__version__}, scipy {scipy.__version__}, scikit-learn "
        f"{sklearn.__version__}, river {river.__version__}"
    )
