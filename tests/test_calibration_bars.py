"""Issue 35's bars for choosing α on a log: the calibrated rate holds after the reference.

A stationary log with two-decimal probabilities and few errors (about 1 in 8,000 rows: the
authors' count floor invents errors in both windows of nearly every test), in chunks of 100
rows. α is calibrated on the first 100 chunks; the next 400 are monitored at it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pudd_core.experiments.studies import clopper_pearson
from pudd_core.monitoring import calibrate_log, monitor

CHUNK, REFERENCE, AFTER = 100, 100, 400
TARGET = 0.05
#: Down to 10^-29: the authors' floor needs far smaller α than the default grid holds.
GRID = tuple(10.0 ** -k for k in range(1, 31, 2))


def _log(n_chunks: int, *, shift_at: int | None = None, size: float = 0.5,
         seed: int = 0) -> pd.DataFrame:
    """A healthy binary log; from chunk ``shift_at`` on, every correct prediction's
    confidence moves ``size`` of the way down to 0.5 (accuracy unchanged)."""
    rng = np.random.default_rng(seed)
    n = n_chunks * CHUNK
    y = rng.integers(0, 2, n)
    p_true = rng.beta(12, 1, n)  # P(wrong) = 0.5 ** 12
    if shift_at is not None:
        tail = np.arange(n) >= shift_at * CHUNK
        sure = tail & (p_true > 0.5)
        p_true[sure] -= size * (p_true[sure] - 0.5)
    p1 = np.round(np.where(y == 1, p_true, 1 - p_true), 2)
    return pd.DataFrame({"label": y, "proba_0": np.round(1 - p1, 2), "proba_1": p1})


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


@pytest.mark.parametrize("variant", [
    "calibrated",
    "authors",
])
def test_the_calibrated_rate_holds_on_the_next_400_chunks(variant: str) -> None:
    log = _log(REFERENCE + AFTER)
    cal, result = calibrate_log(log, label="label", proba_prefix="proba_", chunk_size=CHUNK,
                                calibrate_on=REFERENCE * CHUNK, false_alarm_rate=TARGET,
                                alphas=GRID, n_resamples=5, change=None, variant=variant)
    chosen = cal.recommended
    assert chosen is not None and chosen.ci[1] <= TARGET
    assert len(result.records) == AFTER
    seen = clopper_pearson(len(result.alarms), AFTER)
    # two estimates of one rate: the reference's resamples and the next 400 chunks agree
    assert _overlap(seen, chosen.ci), (chosen.alpha, chosen.ci, len(result.alarms))
    # and the monitor's α = 10^-3 on the same rows, uncalibrated, is what the bar is about:
    # the authors' floor raises far more than the target there; the calibrated floor does not
    plain = monitor(log.iloc[REFERENCE * CHUNK:], label="label", proba_prefix="proba_",
                    chunk_size=CHUNK, alpha=1e-3, variant=variant)
    if variant == "authors":
        assert not _overlap(clopper_pearson(len(plain.alarms), AFTER), chosen.ci)
        assert chosen.alpha < 1e-3
    else:
        assert chosen.alpha >= 1e-3


def test_the_calibrated_alpha_alarms_no_later_than_the_default_on_a_confidence_shift() -> None:
    shift = REFERENCE + 50
    log = _log(REFERENCE + 100, shift_at=shift)
    cal, result = calibrate_log(log, label="label", proba_prefix="proba_", chunk_size=CHUNK,
                                calibrate_on=REFERENCE * CHUNK, false_alarm_rate=TARGET,
                                n_resamples=5, change=None)
    plain = monitor(log.iloc[REFERENCE * CHUNK:], label="label", proba_prefix="proba_",
                    chunk_size=CHUNK)  # the monitor's defaults: α = 10^-3
    first = [min((c for c in r.alarms if c >= shift - REFERENCE), default=np.inf)
             for r in (result, plain)]
    assert np.isfinite(first[0]), cal.recommended
    assert first[0] <= first[1]
