"""ChunkPUDD's bounded history (``max_chunks``): flat cost, and the same tests as a fresh start."""

from __future__ import annotations

import numpy as np
import pytest

from pudd_core import ChunkPUDD
from pudd_core._validation import ParameterError


def _chunks(n: int, size: int = 100, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        u = rng.beta(1, 6, size)
        out.append((u, rng.random(size) < 1 - u))
    return out


def _p_values(det: ChunkPUDD, chunks: list[tuple[np.ndarray, np.ndarray]]) -> list[float]:
    out = []
    for u, c in chunks:
        det.update(u, c)
        out.append(det.p_value)
    return out


def test_below_the_bound_the_detector_is_the_unbounded_one() -> None:
    chunks = _chunks(40)
    assert _p_values(ChunkPUDD(alpha=1e-30, max_chunks=40, seed=3), chunks) == \
        _p_values(ChunkPUDD(alpha=1e-30, seed=3), chunks)


@pytest.mark.parametrize("max_chunks", [2, 3, 8, 11])
def test_a_full_history_continues_as_a_fresh_detector_fed_its_newest_half(max_chunks: int
                                                                          ) -> None:
    # 100-value chunks and a 1000-value sample: no subsampling, so no random draw differs
    chunks = _chunks(3 * max_chunks + 5, seed=max_chunks)
    bounded = ChunkPUDD(alpha=1e-30, max_chunks=max_chunks, seed=0)
    got = _p_values(bounded, chunks)
    # the first trim happens before chunk max_chunks is added: it keeps chunks
    # max_chunks - max_chunks // 2 .. max_chunks - 1, then grows to max_chunks again
    start, kept = 0, max_chunks // 2
    expected: list[float] = _p_values(ChunkPUDD(alpha=1e-30, seed=0), chunks[:max_chunks])
    start = max_chunks - kept
    while len(expected) < len(chunks):
        fresh = ChunkPUDD(alpha=1e-30, seed=0)
        _p_values(fresh, chunks[start : len(expected)])  # the kept chunks, already reported
        stop = min(len(chunks), start + max_chunks)
        expected += _p_values(fresh, chunks[len(expected) : stop])
        start = stop - kept
    assert got == pytest.approx(expected, rel=0, abs=0, nan_ok=True)
    assert bounded.n_chunks <= max_chunks


def test_the_history_never_exceeds_the_bound_and_a_drift_is_still_caught() -> None:
    det = ChunkPUDD(max_chunks=10, seed=0)
    rng = np.random.default_rng(1)
    alarms, sizes = [], []
    for t in range(120):
        u = rng.beta(1 if t < 100 else 4, 8, 500)
        det.update(u, u < 0.5)
        sizes.append(det.n_chunks)
        if det.drift_detected:
            alarms.append(t)
    assert max(sizes) == 10 and min(sizes[10:100]) == 6  # full, then its newest half + 1
    assert alarms and alarms[-1] >= 100 and 100 in alarms


def test_clone_keeps_the_bound() -> None:
    assert ChunkPUDD(max_chunks=50).clone().max_chunks == 50


@pytest.mark.parametrize("bad", [0, 1, -5, 2.5, True, "10", np.nan])
def test_a_bad_bound_is_refused_by_name(bad: object) -> None:
    with pytest.raises(ParameterError, match="max_chunks") as info:
        ChunkPUDD(max_chunks=bad)  # type: ignore[arg-type]
    assert info.value.param == "max_chunks"
