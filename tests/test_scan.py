"""The scan engine both detectors share: explicit settings, one test step, river parameters."""

from __future__ import annotations

import ast
import dataclasses
import inspect
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pudd_core import PUDD, ChunkPUDD, clamp_table, pu_chi2_test
from pudd_core._scan import History, ScanSettings, conclude
from pudd_core._validation import ParameterError
from pudd_core.bucketing import Buckets, counts_from_unsorted
from pudd_core.chi2 import chi2_test, evaluate_table

ROOT = Path(__file__).resolve().parents[1]


def _settings(**params: object) -> ScanSettings:
    return ScanSettings.from_params(ChunkPUDD(**params)._get_params())


@pytest.mark.parametrize("cls", [ChunkPUDD, PUDD], ids=["ChunkPUDD", "PUDD"])
def test_river_parameters_are_exactly_the_constructor_signature(cls):
    """river derives clone, _get_params and repr from __init__: no attribute outside it."""
    det = cls(alpha=0.01, n_buckets=3, seed=4)
    params = det._get_params()
    assert list(params) == list(inspect.signature(cls).parameters)
    assert params["alpha"] == 0.01 and params["n_buckets"] == 3 and params["seed"] == 4
    public = {k for k in vars(det) if not k.startswith("_")}
    assert public == set(params)


def test_online_pudd_carries_no_chunk_only_setting():
    det = PUDD()
    assert not hasattr(det, "cache_buckets") and not hasattr(det, "partition")
    assert det._settings.cache_buckets and det._settings.partition == "pu"


def test_chunk_pudd_clone_repr_and_params_come_from_river():
    det = ChunkPUDD(alpha=1e-5, cut_points="all", skip_rule=None, min_expected=5.0, seed=3)
    rng = np.random.default_rng(0)
    for _ in range(4):
        u = rng.beta(1, 6, 200)
        det.update(u, u < 0.5)
    clone = det.clone()
    assert clone._get_params() == det._get_params() and clone is not det
    assert clone.n_chunks == 0 and clone.last_scan is None and det.n_chunks == 4
    assert repr(clone) == repr(det)
    assert repr(det).startswith("ChunkPUDD (") and 'cut_points="all"' in repr(det)
    changed = det.clone({"alpha": 0.1})  # river's clone takes new parameters too
    assert changed.alpha == 0.1 and changed.cut_points == "all"


def test_settings_ignore_parameters_they_do_not_hold_and_default_to_algorithm_2():
    s = ScanSettings.from_params(PUDD(cut_every=7, clock=3, clamp_min=0)._get_params())
    assert s.clamp_min == 0 and not hasattr(s, "cut_every")
    assert (s.reference_split, s.cache_buckets, s.partition) == ("argmax", True, "pu")
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.alpha = 0.5  # type: ignore[misc]


@pytest.mark.parametrize("name, value", [("n_buckets", 0), ("alpha", 1.0), ("yates", "no"),
                                         ("partition", "x"), ("min_accuracy", 2.0)])
def test_settings_check_their_values(name, value):
    with pytest.raises(ParameterError) as info:
        dataclasses.replace(_settings(), **{name: value})
    assert info.value.param == name


def test_one_chunk_cut_is_the_two_sample_test_on_the_same_windows():
    """Oracle: with reference windows below sample_size no sample is drawn, so each cut of the
    history is exactly pu_chi2_test on the concatenated old and recent chunks."""
    rng = np.random.default_rng(5)
    chunks = [rng.beta(a, 6, 150) for a in (1, 1, 2, 3)]
    hist = History(_settings(skip_rule=None), np.random.default_rng(0))
    for u in chunks:
        hist.add(u, u < 0.5)
    for cut in (1, 2, 3):
        res = hist.test_chunks(4, cut)
        old, new = np.concatenate(chunks[: 4 - cut]), np.concatenate(chunks[4 - cut :])
        ref = pu_chi2_test(old, old < 0.5, new, new < 0.5, sample_size=1000)
        assert res.cut == cut and not res.skipped
        assert res.p_value == ref.p_value
        assert res.test.table.tolist() == ref.table.tolist()


def test_the_accuracy_skip_rule_spares_a_cut_without_testing_it():
    hist = History(_settings(), np.random.default_rng(0))
    worse, better = np.full(100, 0.6), np.full(100, 0.1)  # accuracy 0, then 1
    hist.add(worse, worse < 0.5)
    hist.add(better, better < 0.5)
    res = hist.test_chunks(2, 1)
    assert res.skipped and res.p_value == 1.0 and res.test is None and not hist.prefixes


def test_conclude_runs_no_test_when_a_shortcut_applies():
    def never(cut: int) -> None:
        raise AssertionError("tested despite a shortcut")

    s = _settings(min_accuracy=0.5)
    low = conclude(s, index=7, n=5, accuracy=0.2, previous_cut=8, cuts=[1, 2, 4], test=never,
                   unit="block", no_cut="-")
    assert (low.p_value, low.cut_point, low.drift_detected) == (0.0, 5, True)  # guarded
    assert low.shortcut == "block accuracy below 0.5"
    few = conclude(s, index=0, n=1, accuracy=0.2, previous_cut=None, cuts=[], test=never,
                   unit="chunk", no_cut="nothing to cut", accuracy_counts=False)
    assert (few.p_value, few.cut_point, few.drift_detected, few.shortcut) == (
        1.0, None, False, "nothing to cut")


def test_conclude_takes_the_first_cut_of_the_smallest_p_value():
    from pudd_core import CutResult

    p = {1: 0.03, 2: 0.01, 4: 0.01}
    scan = conclude(_settings(alpha=0.01), index=3, n=5, accuracy=0.9, previous_cut=None,
                    cuts=[1, 2, 4], test=lambda c: CutResult(c, p[c], False), unit="chunk",
                    no_cut="-")
    assert scan.cut_point == 2 and scan.p_value == 0.01
    assert not scan.drift_detected  # alarm iff strictly below alpha
    assert [c.cut for c in scan.cuts] == [1, 2, 4]


@pytest.mark.parametrize("clamp_min, min_expected", [(5, 0.0), (0, 0.0), (5, 5.0), (0, 5.0)])
def test_evaluate_table_tests_the_clamped_table_once(clamp_min, min_expected):
    """The table it reports is the floor of the observed one, and its p-value is that table's
    Pearson test (the floor is idempotent, so this pins the order: clamp, then test)."""
    b = Buckets(centres=(0.1, 0.3), coef=(1.0, 1.0), sample_counts=(2, 2), n_sample=4)
    observed = np.array([[40, 3, 0], [25, 9, 2]], dtype=np.int64)
    res = evaluate_table(observed, b, clamp_min=clamp_min, yates=True,
                         min_expected=min_expected)
    assert res.table.tolist() == clamp_table(observed, clamp_min).tolist()
    assert res.observed.tolist() == observed.tolist()
    if min_expected == 0:
        ref = chi2_test(res.table)
        assert (res.p_value, res.statistic, res.dof) == (ref.p_value, ref.statistic, ref.dof)


@pytest.mark.parametrize("module", ["detector", "online", "_scan/__init__", "_scan/settings"])
def test_the_detectors_import_no_private_name_of_another_module(module):
    tree = ast.parse((ROOT / "pudd_core" / f"{module}.py").read_text())
    private = [a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
               for a in node.names if a.name.startswith("_") and a.name != "_validation"]
    assert private == []


# --- counting windows from each chunk's sorted values --------------------------------------------
_EDGE_VALUES = (0.0, 0.1, 0.2, 0.25, 0.3, 0.5, 0.7, 1.0)


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 40), min_size=1, max_size=6),
    seed=st.integers(0, 2**16),
    centres=st.lists(st.sampled_from((0.05, 0.1, 0.2, 0.3, 0.45, 0.6)), min_size=1,
                     max_size=4, unique=True),
    coef=st.lists(st.sampled_from((0.5, 1.0, 2.0)), min_size=4, max_size=4),
    split=st.sampled_from(("argmax", "pu_lt_0.5")),
)
def test_history_counts_a_window_as_counting_its_values_does(sizes, seed, centres, coef, split):
    """Oracle: ``counts_from_unsorted`` on the window's values put together (a pass per bucket
    edge); values sit on the bucket edges and centres too (ties)."""
    rng = np.random.default_rng(seed)
    b = Buckets(tuple(sorted(centres)), tuple(coef[: len(centres)]), (1,) * len(centres), 1)
    pool = np.r_[_EDGE_VALUES, b.edges, b.centres]
    hist = History(_settings(reference_split=split), rng)
    ek = History(_settings(partition="ek"), rng)
    chunks = []
    for n in sizes:
        u = rng.choice(pool, n) if rng.random() < 0.5 else rng.random(n)
        ok = rng.random(n) < 0.8
        chunks.append((u, ok))
        hist.add(u, ok)
        ek.add(u, ok)

    def brute(values):
        return counts_from_unsorted(values, b).tolist()

    for a in range(len(sizes)):
        for z in range(a + 1, len(sizes) + 1):
            u = np.concatenate([c[0] for c in chunks[a:z]])
            ok = np.concatenate([c[1] for c in chunks[a:z]])
            assert hist.count(b, a, z, ek=False).tolist() == [*brute(u[ok]), int((~ok).sum())]
            assert ek.count(b, a, z, ek=True).tolist() == brute(u)
    # the reference row of a prefix counts by the reference split
    u = np.concatenate([c[0] for c in chunks])
    ok = np.concatenate([c[1] for c in chunks])
    ref = u < 0.5 if split == "pu_lt_0.5" else ok
    prefix = hist.prefix(len(sizes), 10)
    assert prefix.old_row.tolist() == [*counts_from_unsorted(u[ref], prefix.buckets).tolist(),
                                       int((~ref).sum())]


def test_a_tail_of_the_history_counts_every_window_as_the_history_does():
    """After an alarm the detector keeps a tail of its history: one chunk is counted from its
    sorted values, more from the keys renumbered from the tail's first chunk."""
    rng = np.random.default_rng(3)
    hist = History(_settings(), rng)
    for n in (30, 1, 45, 20):
        u = rng.random(n)
        hist.add(u, rng.random(n) < 0.7)
    b = Buckets((0.1, 0.4, 0.7), (1.0, 2.0, 1.0), (1, 1, 1), 3)
    tail = hist.tail(1)
    for a in range(1, 4):
        for z in range(a + 1, 5):
            assert (tail.count(b, a - 1, z - 1, ek=False).tolist()
                    == hist.count(b, a, z, ek=False).tolist())


@pytest.mark.parametrize("split,partition", [("argmax", "pu"), ("pu_lt_0.5", "pu"),
                                             ("argmax", "ek")])
def test_a_tail_that_takes_over_the_buffers_equals_a_copied_tail(split, partition):
    """``tail(first, reuse=True)`` (a detector forgetting its oldest half) moves the kept
    chunks to the front of the same buffers: every count, sample and later chunk is as with
    a tail copied into new buffers, and the buffers are the same objects (no allocation)."""
    settings = _settings(reference_split=split, partition=partition)
    rng = np.random.default_rng(11)
    chunks = [(rng.random(n), rng.random(n) < 0.7) for n in (300, 7, 450, 200, 1, 90)]
    copied, moved = History(settings, np.random.default_rng(0)), History(
        settings, np.random.default_rng(0))
    for u, ok in chunks:
        copied.add(u, ok)
        moved.add(u, ok)
    keys = moved._ok.keys
    copied, moved = copied.tail(2), moved.tail(2, reuse=True)
    assert moved._ok.keys is keys
    for u, ok in [(rng.random(n), rng.random(n) < 0.6) for n in (500, 3000)]:  # grow back
        copied.add(u, ok)
        moved.add(u, ok)
    b = Buckets((0.1, 0.4, 0.7), (1.0, 2.0, 1.0), (1, 1, 1), 3)
    n = len(copied.chunks)
    ek = partition == "ek"
    for a in range(n):
        for z in range(a + 1, n + 1):
            assert moved.count(b, a, z, ek).tolist() == copied.count(b, a, z, ek).tolist()
    for m in range(1, n):
        assert moved.sample(m, 100).sample.tolist() == copied.sample(m, 100).sample.tolist()
        assert moved.test_chunks(n, n - m) == copied.test_chunks(n, n - m)


def _fit_every_drawn_prefix(det: ChunkPUDD) -> None:
    hist = det._history
    for m in sorted(hist.drawn):
        hist.prefix(m, 0)


@pytest.mark.parametrize("opts", [{}, {"max_chunks": 6}, {"clamp_min": 0, "min_expected": 5.0}])
def test_fitting_a_prefix_only_when_a_cut_tests_it_changes_no_result(opts):
    """Two ways to the same scans: every reference prefix fitted as soon as its sample is
    drawn, or only when a cut first tests it. Their samples are drawn at the same points, so
    the generator's sequence, and every bucket and p-value, is the same."""
    rng = np.random.default_rng(8)
    lazy, eager = ChunkPUDD(seed=4, **opts), ChunkPUDD(seed=4, **opts)
    never_fitted = 0
    for t in range(40):
        u = rng.beta(1 + (t >= 25), 6, 400)
        ok = (u < 0.5) & (rng.random(400) > 0.05)
        before = set(lazy._history.drawn)
        lazy.update(u, ok)
        eager.update(u, ok)
        _fit_every_drawn_prefix(eager)
        never_fitted += len(before - set(lazy._history.drawn) - set(lazy._history.prefixes))
        a, b = lazy.last_scan, eager.last_scan
        assert (a.p_value, a.cut_point, a.drift_detected, a.shortcut) == (
            b.p_value, b.cut_point, b.drift_detected, b.shortcut)
        for ca, cb in zip(a.cuts, b.cuts, strict=True):
            assert (ca.cut, ca.p_value, ca.skipped) == (cb.cut, cb.p_value, cb.skipped)
            if ca.test is not None:
                assert ca.test.buckets == cb.test.buckets
                assert ca.test.table.tolist() == cb.test.table.tolist()
    assert lazy._history.drawn  # the skip rule spared some prefixes every test so far
