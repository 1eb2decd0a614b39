"""ChunkPUDD(refit="doubling"): buckets fitted on old windows of 1, 2, 4, ... chunks only.

Each old window is tested with the buckets of the longest fitted prefix not longer than it;
the oracle below fits those buckets with the public ``fit_buckets`` on the same draws of the
same generator, counts both windows with ``Buckets.counts`` and tests with ``evaluate_table``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pudd_core import ChunkPUDD, fit_buckets
from pudd_core._validation import ParameterError
from pudd_core.bucketing import Buckets
from pudd_core.chi2 import evaluate_table
from pudd_core.detector import cut_points

Chunks = list[tuple[np.ndarray, np.ndarray]]


def _chunks(n: int, size: int = 300, seed: int = 0, drift_at: int | None = None) -> Chunks:
    rng = np.random.default_rng(seed)
    out = []
    for t in range(n):
        a = 3 if drift_at is not None and t >= drift_at else 1
        u = rng.beta(a, 6, size)
        out.append((u, rng.random(size) < 1 - u))
    return out


def _row(buckets: Buckets, chunks: Chunks, ek: bool) -> np.ndarray:
    u = np.concatenate([c[0] for c in chunks])
    ok = np.concatenate([c[1] for c in chunks])
    if ek:
        return buckets.counts(u)
    return np.append(buckets.counts(u[ok]), np.count_nonzero(~ok))


def _oracle(chunks: Chunks, *, seed: int, max_chunks: int | None = None,
            **opts: Any) -> list[tuple[float, list[list[list[int]]]]]:
    """Per chunk: the minimum p-value and each tested cut's table, computed directly."""
    rng = np.random.default_rng(seed)
    ek = opts.get("partition") == "ek"
    clamp_min, min_expected = opts.get("clamp_min", 5), opts.get("min_expected", 0.0)
    hist: Chunks = []
    fitted: dict[int, Buckets] = {}

    def fit(f: int) -> None:
        if f & (f - 1) == 0:  # only prefixes of 1, 2, 4, ... chunks, drawn in order
            u = np.concatenate([c[0] for c in hist[:f]])
            ok = np.concatenate([c[1] for c in hist[:f]])
            if ek:  # the EK ablation: the first values, no draw
                from pudd_core.bucketing import ek_buckets
                fitted[f] = ek_buckets(u)
            else:
                fitted[f] = fit_buckets(u, ok, n_test=hist[-1][0].size, seed=rng)

    out = []
    for u, ok in chunks:
        if max_chunks is not None and len(hist) >= max_chunks:
            hist, fitted = hist[len(hist) - max_chunks // 2:], {}
            for m in range(1, len(hist)):
                fit(m)
        hist.append((u, ok))
        n = len(hist)
        if n >= 2:
            fit(n - 1)
        best, tables = 1.0, []
        for cut in cut_points(n, opts.get("cut_points", "pow2")):
            m = n - cut
            buckets = fitted[1 << (m.bit_length() - 1)]
            table = np.array([_row(buckets, hist[:m], ek), _row(buckets, hist[m:], ek)])
            res = evaluate_table(table, buckets, clamp_min=clamp_min, yates=True,
                                 min_expected=min_expected, errors_column=not ek)
            tables.append(table.tolist())
            best = min(best, res.p_value)
        out.append((best, tables))
    return out


def _run(det: ChunkPUDD, chunks: Chunks) -> list[tuple[float, list[list[list[int]]]]]:
    out = []
    for u, ok in chunks:
        det.update(u, ok)
        scan = det.last_scan
        assert scan is not None
        out.append((det.p_value, [c.test.observed.tolist() for c in scan.cuts if c.test]))
    return out


@pytest.mark.parametrize("opts", [
    {},
    {"clamp_min": 0, "min_expected": 5.0},
    {"max_chunks": 12},
    {"max_chunks": 9, "cut_points": "all", "clamp_min": 0},
    {"partition": "ek", "clamp_min": 0},
])
def test_doubling_equals_a_direct_fit_count_and_test_chunk_for_chunk(opts: dict[str, Any]
                                                                      ) -> None:
    chunks = _chunks(40, seed=len(opts))
    det = ChunkPUDD(alpha=1e-300, skip_rule=None, refit="doubling", seed=5, **opts)
    assert _run(det, chunks) == _oracle(chunks, seed=5, **opts)


def test_doubling_with_the_reference_split_counts_the_old_window_by_it() -> None:
    rng = np.random.default_rng(3)
    chunks = [(u, rng.random(u.size) < 0.9) for u in rng.beta(1, 4, (20, 200))]
    det = ChunkPUDD(alpha=1e-300, skip_rule=None, refit="doubling",
                    reference_split="pu_lt_0.5", seed=1)
    det_tables = _run(det, chunks)
    # the old row counts the correct of u < 0.5 and the errors of u >= 0.5; recent by `correct`
    split = [(u, u < 0.5) for u, _ in chunks]
    direct = _oracle(split, seed=1)
    for n, ((_, got), (_, ref)) in enumerate(zip(det_tables, direct, strict=True), start=1):
        for cut, g, r in zip(cut_points(n), got, ref, strict=True):
            assert g[0] == r[0], (n, cut)


def test_doubling_skips_the_cuts_the_skip_rule_spares_and_tests_the_rest_as_the_oracle() -> None:
    chunks = _chunks(30, seed=2)
    full = _oracle(chunks, seed=4)
    det = ChunkPUDD(alpha=1e-300, refit="doubling", seed=4)  # accuracy skip rule
    for (u, ok), (_, tables) in zip(chunks, full, strict=True):
        det.update(u, ok)
        scan = det.last_scan
        assert scan is not None
        for c, table in zip(scan.cuts, tables, strict=True):
            assert c.skipped or c.test is not None and c.test.observed.tolist() == table


def test_the_drift_is_caught_at_once_and_the_history_starts_over() -> None:
    det = ChunkPUDD(refit="doubling", clamp_min=0, min_expected=5.0, max_chunks=16, seed=0)
    alarms = []
    for t, (u, ok) in enumerate(_chunks(60, size=1000, seed=1, drift_at=45)):
        det.update(u, ok)
        if det.drift_detected:
            alarms.append(t)
    assert alarms[0] == 45
    assert det.n_chunks < 16


def test_doubling_is_deterministic_under_a_seed_and_clone_starts_fresh() -> None:
    chunks = _chunks(25, seed=9)
    det = ChunkPUDD(refit="doubling", seed=11)
    first = _run(det, chunks)
    assert _run(det.clone(), chunks) == first
    assert _run(ChunkPUDD(refit="doubling", seed=11), chunks) == first
    assert det.clone().refit == "doubling"


def test_doubling_fits_once_per_doubling_of_the_history() -> None:
    det = ChunkPUDD(alpha=1e-300, skip_rule=None, refit="doubling", seed=0)
    for u, ok in _chunks(70, size=100):
        det.update(u, ok)
    assert sorted(det._history.fitted) == [1, 2, 4, 8, 16, 32, 64]


@pytest.mark.parametrize("bad", ["never", "Doubling", None, 1, True])
def test_a_bad_refit_is_refused_by_name(bad: object) -> None:
    with pytest.raises(ParameterError, match="refit") as info:
        ChunkPUDD(refit=bad)  # type: ignore[arg-type]
    assert info.value.param == "refit"


def test_doubling_without_cached_buckets_is_refused() -> None:
    with pytest.raises(ParameterError, match="cache_buckets") as info:
        ChunkPUDD(refit="doubling", cache_buckets=False)
    assert info.value.param == "refit"


@settings(max_examples=50, deadline=None)
@given(st.one_of(st.text(max_size=12), st.integers(), st.floats(), st.booleans(), st.none()))
def test_refit_accepts_only_its_two_values(value: object) -> None:
    if value in ("every", "doubling") and isinstance(value, str):
        assert ChunkPUDD(refit=value).refit == value  # type: ignore[arg-type]
    else:
        with pytest.raises(ParameterError, match="refit"):
            ChunkPUDD(refit=value)  # type: ignore[arg-type]
