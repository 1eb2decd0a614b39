"""The threshold studies' computations: shared runs, intervals and injected changes."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from pudd_core._validation import ParameterError
from pudd_core.detector import ChunkPUDD
from pudd_core.experiments.studies import (
    STUDY_VARIANTS,
    clopper_pearson,
    false_alarm_rates,
    prediction_chunks,
    shift_delays,
)


def _chunks(n: int, size: int = 200, seed: int = 0, error: float = 0.05):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        wrong = rng.random(size) < error
        u = np.where(wrong, rng.uniform(0.5, 1.0, size), rng.beta(1, 8, size) * 0.5)
        out.append((u, ~wrong))
    return out


def _alarms_one_alpha(chunks, alpha, options, seed):
    """A plain run at one α, resetting after each alarm as a monitor does."""
    det = ChunkPUDD(alpha, seed=seed, **options)
    hits = []
    for t, (u, ok) in enumerate(chunks):
        det.update(u, ok)
        if det.drift_detected:
            hits.append(t)
    return hits


@pytest.mark.parametrize("variant", ["calibrated, skip rule", "authors, no skip"])
def test_the_shared_run_gives_each_alpha_what_its_own_run_gives(variant):
    chunks = _chunks(80, seed=3)
    alphas = (0.3, 0.1, 1e-2, 1e-3)
    options = STUDY_VARIANTS[variant]
    df = false_alarm_rates(chunks, {variant: options}, alphas, seed=5)
    for alpha in alphas:
        own = len(_alarms_one_alpha(chunks, alpha, options, 5))
        assert int(df.loc[np.isclose(df["alpha"], alpha), "alarms"].iloc[0]) == own
    assert (df["chunks"] == 79).all()
    assert df["alarms"].is_monotonic_decreasing  # a smaller α never alarms more


def test_the_interval_is_clopper_pearsons_by_the_beta_quantiles():
    k, n = 7, 400
    low, high = clopper_pearson(k, n)
    assert low == pytest.approx(stats.beta.ppf(0.025, k, n - k + 1))
    assert high == pytest.approx(stats.beta.ppf(0.975, k + 1, n - k))
    assert clopper_pearson(0, 50)[0] == 0.0
    assert clopper_pearson(0, 0) == (0.0, 1.0)


def test_a_change_of_size_zero_gives_the_first_false_alarm_after_the_start():
    chunks = _chunks(60, seed=1)
    options = STUDY_VARIANTS["calibrated, no skip"]
    df = shift_delays(chunks, {"v": options}, (0.3,), episode=20, after=10, size=0.0, seed=2)
    for e in range(3):
        part = chunks[e * 20:(e + 1) * 20]
        hits = _alarms_one_alpha(part, 0.3, options, 2 + e)
        late = [t for t in hits if t >= 10]
        delay = float(late[0] - 10) if late else math.inf
        row = df[df["episode"] == e].iloc[0]
        assert row["delay"] == delay
        assert row["early"] == sum(t < 10 for t in hits)


def test_a_confidence_shift_is_caught_at_once_without_the_skip_rule():
    chunks = _chunks(40, size=500, seed=4)
    df = shift_delays(chunks, {"no skip": STUDY_VARIANTS["calibrated, no skip"]}, (1e-3,),
                      episode=20, after=10, change="confidence", size=0.5, seed=0)
    assert df["delay"].tolist() == [0.0, 0.0]


def test_bad_episodes_are_refused_by_name():
    with pytest.raises(ParameterError, match="after"):
        shift_delays(_chunks(10), episode=10, after=10)
    with pytest.raises(ParameterError, match="episode"):
        shift_delays(_chunks(10), episode=2, after=1)


def test_a_stream_that_still_drifts_is_refused_for_a_stationary_study():
    with pytest.raises(ParameterError, match="synthetic stream"):
        prediction_chunks("elec2", "gnb", n_chunks=3)
