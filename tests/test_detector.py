from __future__ import annotations

import inspect
import re
import types
import typing

import numpy as np
import pytest

from harness import reference as ref
from pudd_core import ChunkPUDD, cut_points


def _beta_chunks(seed, n_chunks, size, a=1.0, b=8.0):
    rng = np.random.default_rng(seed)
    return [rng.beta(a, b, size) for _ in range(n_chunks)]


def _feed(det, chunks):
    out = []
    for u in chunks:
        det.update(u, u < 0.5)
        out.append((det.p_value, det.drift_detected, det.cut_point))
    return out


def test_cut_points_are_powers_of_two_counted_back_from_the_newest_chunk():
    assert cut_points(2) == [1]
    assert cut_points(5) == [1, 2, 4]
    assert cut_points(99) == [1, 2, 4, 8, 16, 32, 64]
    assert cut_points(5000)[-1] == 512  # at most 10 cut points
    assert cut_points(4, "all") == [1, 2, 3]


def test_fewer_than_two_chunks_gives_p_one_and_no_test():
    det = ChunkPUDD()
    det.update(np.full(100, 0.1), np.ones(100, bool))
    assert det.p_value == 1.0 and det.cut_point is None and not det.drift_detected
    assert det.last_scan is not None and det.last_scan.cuts == ()


def test_each_cut_equals_the_authors_two_sample_test_on_small_windows():
    # 3 chunks of 300: every old window holds <= 1000 values, so no sample is drawn
    chunks = _beta_chunks(1, 2, 300) + [np.random.default_rng(2).beta(1.3, 8, 300)]
    det = ChunkPUDD(skip_rule=None)
    _feed(det, chunks)
    scan = det.last_scan
    assert [c.cut for c in scan.cuts] == [1, 2]
    for c in scan.cuts:
        old = np.concatenate(chunks[: 3 - c.cut])
        new = np.concatenate(chunks[3 - c.cut :])
        p, table = ref.two_sample_p(old, old < 0.5, new, new < 0.5)
        np.testing.assert_array_equal(c.test.table, table)
        assert c.p_value == pytest.approx(p, rel=1e-9, abs=1e-300)
    assert det.p_value == min(c.p_value for c in scan.cuts)


def test_accuracy_skip_rule_spares_cuts_whose_recent_accuracy_is_higher():
    rng = np.random.default_rng(3)
    worse = rng.beta(1, 3, 500)  # accuracy ~ 0.88
    better = rng.beta(1, 12, 500)  # accuracy ~ 1.0
    det = ChunkPUDD()
    _feed(det, [worse, better])
    (cut,) = det.last_scan.cuts
    assert cut.skipped and cut.p_value == 1.0 and cut.test is None
    det2 = ChunkPUDD(skip_rule=None)
    _feed(det2, [worse, better])
    assert not det2.last_scan.cuts[0].skipped and det2.p_value < 1e-3


def test_paper_skip_rule_tests_only_when_old_misclassified_pu_is_not_smaller():
    lo = np.concatenate([np.full(400, 0.1), np.full(100, 0.6)])  # errors near 0.6
    hi = np.concatenate([np.full(400, 0.1), np.full(100, 0.95)])  # errors near 0.95
    det = ChunkPUDD(skip_rule="pu_mean")
    _feed(det, [lo, hi])
    assert det.last_scan.cuts[0].skipped  # mean u^M old (0.6) < new (0.95): skip
    det = ChunkPUDD(skip_rule="pu_mean")
    _feed(det, [hi, lo])
    assert not det.last_scan.cuts[0].skipped


def test_chunk_accuracy_below_one_percent_alarms_at_once_with_a_guarded_cut():
    det = ChunkPUDD()
    det.update(np.full(100, 0.1), np.ones(100, bool))
    det.update(np.full(100, 0.9), np.zeros(100, bool))
    assert det.drift_detected and det.p_value == 0.0
    assert det.cut_point == 1  # the stale split point of the authors is guarded
    assert det.last_scan.shortcut.startswith("chunk accuracy below")


def test_after_an_alarm_a_hopeless_chunk_never_points_back_before_the_alarm():
    # the last scan's winning cut was 4 chunks; after the reset only 1 chunk is in the history,
    # so retraining on `cut_point` chunks must not reach data from before the alarm
    det = ChunkPUDD(alpha=1e-5, seed=0)
    rng = np.random.default_rng(0)
    for t in range(40):  # a slight shift at chunk 8, found only over several chunks
        u = rng.beta(1.0 if t < 8 else 1.15, 8, 500)
        det.update(u, u < 0.5)
        if det.drift_detected:
            break
    assert det.drift_detected and det.cut_point is not None and det.cut_point > 1
    det.update(np.full(500, 0.9), np.zeros(500, bool))  # accuracy 0: the p = 0 shortcut
    assert det.drift_detected and det.n_chunks == 1
    assert det.cut_point == 1


def test_the_history_keeps_its_own_copy_of_each_chunk():
    # a caller that reuses one buffer per chunk must get the same tests as one that does not
    rng = np.random.default_rng(4)
    chunks = [(rng.beta(1, 8, 400), rng.random(400) < 0.85) for _ in range(6)]
    fresh, reused = ChunkPUDD(seed=1), ChunkPUDD(seed=1)
    u_buf, ok_buf = np.empty(400), np.empty(400, bool)
    for u, ok in chunks:
        fresh.update(u.copy(), ok.copy())
        u_buf[:], ok_buf[:] = u, ok
        reused.update(u_buf, ok_buf)
        assert reused.p_value == fresh.p_value
        if fresh.n_chunks > 1:
            for a, b in zip(reused.windows(1), fresh.windows(1), strict=True):
                np.testing.assert_array_equal(a, b)


def test_history_is_cleared_at_the_update_after_an_alarm():
    chunks = _beta_chunks(4, 5, 500) + _beta_chunks(5, 3, 500, a=3.0)
    det = ChunkPUDD()
    seen = []
    for u in chunks:
        det.update(u, u < 0.5)
        seen.append((det.n_chunks, det.drift_detected))
    alarm_at = [i for i, (_, d) in enumerate(seen) if d]
    assert alarm_at and alarm_at[0] == 5
    assert seen[alarm_at[0] + 1][0] == 1  # history restarts with the next chunk
    assert not seen[alarm_at[0] + 1][1]  # and no test with fewer than 2 chunks


def test_false_alarm_rate_on_a_stationary_stream_stays_below_one_percent():
    rng = np.random.default_rng(6)
    det = ChunkPUDD(alpha=1e-3, seed=0)
    alarms = 0
    n = 400
    for _ in range(n):
        u = rng.beta(1, 6, 1000)
        det.update(u, u < 0.5)
        alarms += det.drift_detected
    assert alarms / n <= 0.01


def test_false_alarm_rate_with_a_real_gaussian_nb_on_a_stationary_sea_concept():
    from river.datasets import synth
    from sklearn.naive_bayes import GaussianNB

    from pudd_core import is_correct, pu_index

    def chunk(seed):
        data = list(synth.SEA(variant=0, seed=seed).take(1000))
        x = np.array([[row[k] for k in sorted(row)] for row, _ in data])
        return x, np.array([int(y) for _, y in data])

    ss = np.random.SeedSequence(7).generate_state(200)
    x0, y0 = chunk(int(ss[0]))
    model = GaussianNB().partial_fit(x0, y0, classes=[0, 1])
    det = ChunkPUDD(alpha=1e-3, seed=0)
    alarms = 0
    for s in ss[1:]:
        x, y = chunk(int(s))
        proba = model.predict_proba(x)
        det.update(pu_index(proba, y), is_correct(proba, y))
        alarms += det.drift_detected
        model.partial_fit(x, y)
    assert alarms / (len(ss) - 1) <= 0.01


def test_a_drift_with_a_fixed_error_rate_is_detected_within_two_chunks():
    rng = np.random.default_rng(8)

    def chunk(lo, hi):
        ok = np.ones(1000, bool)
        ok[:100] = False  # 10% errors before and after the drift
        u = np.where(ok, rng.uniform(lo, hi, 1000), rng.uniform(0.5, 1.0, 1000))
        return u, ok

    det = ChunkPUDD(alpha=1e-3, seed=0)
    alarms = []
    for t in range(20):
        u, ok = chunk(0.0, 0.2) if t < 10 else chunk(0.1, 0.3)
        det.update(u, ok)
        if det.drift_detected:
            alarms.append(t)
    assert alarms and alarms[0] in (10, 11)
    assert all(a >= 10 for a in alarms)


def test_golden_alarm_chunks_on_a_seeded_stream():
    rng = np.random.default_rng(42)
    det = ChunkPUDD(alpha=1e-3, seed=0)
    alarms = []
    for t in range(60):
        a = 1.0 if (t // 20) % 2 == 0 else 2.5
        u = rng.beta(a, 8, 1000)
        det.update(u, u < 0.5)
        if det.drift_detected:
            alarms.append(t)
    assert alarms == [20, 40]  # golden; invariant: one alarm per true change, none before


def test_same_seed_same_scan_and_clone_starts_fresh():
    chunks = _beta_chunks(9, 12, 1000, a=1.0) + _beta_chunks(10, 6, 1000, a=1.6)
    a = _feed(ChunkPUDD(seed=5), chunks)
    det = ChunkPUDD(seed=5)
    b = _feed(det, chunks)
    assert a == b
    clone = det.clone()
    assert clone.n_chunks == 0 and np.isnan(clone.p_value) and repr(clone) == repr(det)
    assert _feed(clone, chunks) == a


def test_all_cut_points_never_give_a_larger_p_than_powers_of_two():
    chunks = _beta_chunks(11, 8, 120)  # 960 values in all: no bucketing sample is drawn
    pow2 = ChunkPUDD(cut_points="pow2", skip_rule=None)
    every = ChunkPUDD(cut_points="all", skip_rule=None)
    for u in chunks:
        pow2.update(u, u < 0.5)
        every.update(u, u < 0.5)
        assert every.p_value <= pow2.p_value
        assert {c.cut for c in pow2.last_scan.cuts} <= {c.cut for c in every.last_scan.cuts}


def test_refitting_buckets_at_every_test_equals_caching_without_sampling():
    chunks = _beta_chunks(12, 6, 150) + _beta_chunks(13, 2, 150, a=1.5)
    assert _feed(ChunkPUDD(cache_buckets=False), chunks) == _feed(ChunkPUDD(), chunks)


def test_no_clamp_and_no_yates_are_one_keyword_away():
    chunks = _beta_chunks(14, 3, 400)
    det = ChunkPUDD(clamp_min=0, yates=False, skip_rule=None)
    _feed(det, chunks)
    test = det.last_scan.cuts[0].test
    np.testing.assert_array_equal(test.table, test.observed)


def test_windows_returns_the_winning_cut_data_for_plots():
    chunks = _beta_chunks(15, 4, 200)
    det = ChunkPUDD(skip_rule=None)
    _feed(det, chunks)
    u_old, ok_old, u_new, ok_new = det.windows(1)
    assert u_old.size == 600 and u_new.size == 200
    np.testing.assert_array_equal(u_new, chunks[-1])
    with pytest.raises(ValueError, match="cut must be in 1..3"):
        det.windows(4)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"alpha": 0.0}, "alpha"),
        ({"alpha": 1.5}, "alpha"),
        ({"cut_points": "some"}, "cut_points"),
        ({"skip_rule": "error"}, "skip_rule"),
        ({"n_buckets": 0}, "n_buckets"),
        ({"clamp_min": -2}, "clamp_min"),
        ({"min_accuracy": 2.0}, "min_accuracy"),
        ({"reference_split": "x"}, "reference_split"),
    ],
)
def test_parameters_out_of_range_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ChunkPUDD(**kwargs)


@pytest.mark.parametrize(
    ("u", "correct", "match"),
    [
        ([], [], "empty chunk"),
        ([0.1, 0.2], [True], "has 1 values but u has 2"),
        ([0.1, 1.2], [True, False], r"\[0, 1\]"),
        ([0.1, np.nan], [True, False], "NaN"),
        ([[0.1]], [True], "one-dimensional"),
    ],
)
def test_bad_chunks_raise_and_leave_the_history_unchanged(u, correct, match):
    det = ChunkPUDD()
    det.update(np.full(10, 0.1), np.ones(10, bool))
    with pytest.raises(ValueError, match=match):
        det.update(u, correct)
    assert det.n_chunks == 1


def test_all_correct_and_constant_chunks_are_valid_and_never_crash():
    det = ChunkPUDD()
    for _ in range(4):
        det.update(np.zeros(500), np.ones(500, bool))
        assert not det.drift_detected
    # one bucket; the floor of 5 on the empty error cells makes windows of different sizes
    # differ slightly (5 of 1505 versus 5 of 505), the authors' clamp artifact
    assert det.last_scan.cuts[0].test.buckets.k == 1 and det.p_value > 0.1


def test_ek_ablation_buckets_every_value_without_an_error_column():
    chunks = _beta_chunks(16, 3, 400)
    det = ChunkPUDD(partition="ek", clamp_min=0, skip_rule=None)
    _feed(det, chunks)
    test = det.last_scan.cuts[0].test
    assert test.table.shape == (2, test.buckets.k)
    assert test.table.sum(axis=1).tolist() == [800, 400]  # every value, errors included
    assert max(test.buckets.centres) > 0.0 and 0.0 <= det.p_value <= 1.0


def test_prefixes_beyond_the_largest_power_of_two_cut_are_forgotten():
    det = ChunkPUDD(alpha=1e-300, n_buckets=1, skip_rule=None)  # never alarms
    rng = np.random.default_rng(17)
    for _ in range(600):
        u = rng.beta(1, 6, 20)
        det.update(u, u < 0.5)
    prefixes = det._history.prefixes
    assert min(prefixes) >= 600 - 512 and len(prefixes) <= 512
    assert det.last_scan.cuts[-1].cut == 512  # the largest cut still finds its prefix


# --- the variant options: data on the class, restated by the docstring -------------------------
def _parameters_section(cls) -> dict[str, str]:
    """The numpydoc ``Parameters`` of ``cls``: name -> its paragraph, whitespace folded."""
    doc = inspect.getdoc(cls) or ""
    section = doc.split("Parameters\n----------\n", 1)[1]
    section = re.split(r"\n\n[A-Z][a-z]+\n-+\n", section, maxsplit=1)[0]
    out: dict[str, str] = {}
    name = ""
    for line in section.splitlines():
        if line and not line.startswith(" "):
            name = line.strip()
            out[name] = ""
        elif name:
            out[name] = f"{out[name]} {line.strip()}".strip()
    return out


def test_the_docstring_says_what_the_variant_options_data_say():
    documented = _parameters_section(ChunkPUDD)
    for name, help_text in ChunkPUDD.variant_options.items():
        assert documented[name] == " ".join(help_text.split()), name


def test_the_variant_options_are_keyword_options_with_a_finite_set_of_values_or_an_integer():
    params = inspect.signature(ChunkPUDD).parameters
    hints = typing.get_type_hints(ChunkPUDD.__init__)
    for name in ChunkPUDD.variant_options:
        assert params[name].kind is params[name].KEYWORD_ONLY
        assert hints[name] in (bool, int) or typing.get_origin(hints[name]) in (
            typing.Literal, types.UnionType, typing.Union), name
