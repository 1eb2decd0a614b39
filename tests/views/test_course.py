"""pudd_core.views.course: each lesson's computation, and questions answered by it."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from pudd_core._validation import ParameterError
from pudd_core.chi2 import pu_chi2_test
from pudd_core.experiments.baselines import feed_errors, make
from pudd_core.experiments.sweep import FalseAlarmStudy
from pudd_core.views import course
from pudd_core.views.illustration import Theorem2Config, theorem2_demo


# --- questions ----------------------------------------------------------------------------------
def test_a_right_option_says_right_and_a_wrong_one_names_the_choice_and_the_reason() -> None:
    q = course.Question("k", "s", "?", ("a", "b", "c"), (1, 2), "Because.", ("hint a", "", ""))
    assert [q.check(i).correct for i in range(3)] == [False, True, True]
    assert q.check(0).text == 'Not quite: you chose "a". hint a Because.'
    assert q.check(2).text == "Right. Because."


def test_a_question_refuses_an_answer_outside_its_options_and_a_choice_outside_them() -> None:
    with pytest.raises(ValueError, match="must index"):
        course.Question("k", "s", "?", ("a",), (1,), "")
    q = course.Question("k", "s", "?", ("a", "b"), (0,), "")
    with pytest.raises(ParameterError, match="choice must be an option index from 0 to 1"):
        q.check(2)


@given(st.one_of(st.none(), st.floats(-10, 100, allow_nan=False)))
def test_every_value_falls_in_exactly_the_range_whose_bounds_hold_it(value: float | None) -> None:
    bounds = [0.0, 3.0, math.inf]
    i = course.option_of(value, bounds)
    if value is None:
        assert i == len(bounds)
    else:
        assert value <= bounds[i] and (i == 0 or value > bounds[i - 1])


# --- lesson 1 -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dataset", list(course.LESSON1_STREAMS))
def test_lesson1_delay_is_ddms_first_alarm_after_the_drift_counted_in_predictions(
    dataset: str,
) -> None:
    les = course.delay_lesson(course.DelayConfig(dataset, seed=1))
    chunk = les.first_alarm(les.ddm)
    size = les.config.chunk_size
    if chunk is None:
        assert les.delay_predictions(les.ddm) is None
        assert les.question().answers == (3,)
        return
    log = next(c for c in les.ddm.chunks if c.chunk_index == chunk)
    # the runner's DDM is a fresh detector at each alarm; fed the same chunk's errors from a
    # fresh DDM it cannot alarm later than the first detection recorded in that chunk
    assert log.detections and chunk >= les.drift
    assert les.delay_predictions(les.ddm) == (chunk - les.drift) * size + log.detections[0] + 1
    late = chunk - les.drift
    assert les.question().answers == ((0,) if late == 0 else (1,) if late <= 3 else (2,))


def test_lesson1_runs_are_the_explorers_runs_of_the_same_config() -> None:
    cfg = course.DelayConfig("sea0", seed=3)
    pudd, ddm = cfg.explorer().run_configs()
    assert (pudd.detector, ddm.detector, pudd.regime, pudd.chunk_size, pudd.n_chunks) == (
        "pudd", "ddm", "train-once", cfg.chunk_size, cfg.n_chunks)
    les = course.delay_lesson(cfg)
    assert les.pudd.config == pudd and les.ddm.config == ddm


def test_ddm_fed_a_larger_error_rise_alarms_no_later() -> None:
    # why the lesson's noisy streams are late: the same jump is harder to see on more noise
    rng = np.random.default_rng(0)
    before = rng.random(3000)
    after = rng.random(3000)
    small = np.r_[before < 0.20, after < 0.25].astype(int)
    large = np.r_[before < 0.20, after < 0.40].astype(int)
    late_small = next((a for a in feed_errors(make("ddm"), small) if a >= 3000), 10**9)
    late_large = next((a for a in feed_errors(make("ddm"), large) if a >= 3000), 10**9)
    assert late_large <= late_small


# --- lesson 2 -----------------------------------------------------------------------------------
def test_lesson2_pu_index_is_one_minus_the_true_class_probability() -> None:
    pts = course.pu_points(4)
    rows = np.arange(len(pts.labels))
    assert np.allclose(pts.u, 1.0 - pts.proba[rows, pts.labels])
    assert np.array_equal(pts.correct, pts.proba.argmax(axis=1) == pts.labels)
    assert np.array_equal(pts.u < 0.5, pts.correct)  # two classes, no ties here


def test_lesson2_question_answer_is_the_computed_point_and_its_distractor_is_one_minus_max_p() -> (
    None
):
    pts = course.pu_points(0)
    q = pts.question()
    j = pts.asked
    assert q.options[q.answers[0]].startswith(f"u = {pts.u[j]:.2f}, ")
    assert q.options[1].startswith(f"u = {1 - pts.proba[j].max():.2f}, ")
    assert not pts.correct[j]  # seed 0 has an error among the first 20


# --- lesson 3 -----------------------------------------------------------------------------------
def test_lesson3_a_cut_tests_the_last_chunks_against_the_ones_before() -> None:
    les = course.cut_lesson(2)
    old_u, old_ok = np.concatenate(les.u[:-4]), np.concatenate(les.correct[:-4])
    new_u, new_ok = np.concatenate(les.u[-4:]), np.concatenate(les.correct[-4:])
    direct = pu_chi2_test(old_u, old_ok, new_u, new_ok, seed=2)
    assert les.test(4).p_value == direct.p_value
    assert np.array_equal(les.test(4).table, direct.table)
    assert les.test(4).table.sum() >= sum(map(len, les.u))  # every prediction, floor may add


def test_lesson3_question_answer_is_the_smallest_p_value_among_its_options() -> None:
    les = course.cut_lesson(1)
    q = les.question()
    scan = dict(zip(les.cuts, les.scan(), strict=True))
    cuts = [int(o.split()[2]) for o in q.options]
    best = min(scan[c] for c in cuts)
    assert [cuts[i] for i in q.answers] == [c for c in cuts if scan[c] == best]
    assert les.n_new in cuts


def test_lesson3_refuses_a_cut_that_leaves_a_window_empty() -> None:
    les = course.cut_lesson(0)
    with pytest.raises(ParameterError, match="cut must be a recent window of 1 to 11 chunks"):
        les.test(12)


# --- lesson 4 -----------------------------------------------------------------------------------
def test_lesson4_theorem2_question_follows_both_tests_p_values() -> None:
    res = theorem2_demo(Theorem2Config(seed=0))
    q = course.theorem2_question(res, 1e-3)
    assert res.error_test.p_value >= 1e-3 and res.pudd.p_value < 1e-3
    assert q.options[q.answers[0]] == "only PUDD's test of the PU table"
    loose = course.theorem2_question(res, 0.999)  # nothing has p >= 0.999 but the error test
    assert loose.options[loose.answers[0]] == "only PUDD's test of the PU table"


def test_lesson4_power_at_no_change_is_alpha_and_one_bucket_equals_the_2x2_test() -> None:
    same = course.power_comparison(1000, 0.2, 0.2 + 1e-12, k=5, alpha=0.01)
    assert same.power_2x2 == pytest.approx(0.01, abs=1e-6)
    assert same.power_pu == pytest.approx(0.01, abs=1e-6)
    one = course.power_comparison(800, 0.1, 0.15, k=1)
    assert one.power_pu == one.power_2x2


@given(n=st.integers(50, 5000), e1=st.floats(0.01, 0.99), e2=st.floats(0.01, 0.99),
       k=st.integers(1, 10))
@settings(max_examples=50, deadline=None)
def test_lesson4_a_pure_error_change_gives_both_tables_one_noncentrality_and_k_costs_power(
    n: int, e1: float, e2: float, k: int
) -> None:
    c = course.power_comparison(n, e1, e2, k=k)
    assert c.lambda_pu == pytest.approx(c.lambda_2x2, rel=1e-9, abs=1e-12)
    assert c.power_pu <= c.power_2x2 + 1e-12


@pytest.mark.parametrize(("n", "e1", "e2", "k"), [(1000, 0.10, 0.13, 5), (300, 0.4, 0.2, 3)])
def test_lesson4_power_is_the_theorem2_pages_computation_and_scipys_chi2(
    n: int, e1: float, e2: float, k: int
) -> None:
    # the lesson and the Theorem 2 page computed this twice; one computation now
    from pudd_core.theorems import error_shift_power

    c = course.power_comparison(n, e1, e2, k=k, alpha=1e-3)
    r = error_shift_power(n, n, e1, e2, k=k, alpha=1e-3)
    assert (c.lambda_2x2, c.lambda_pu, c.power_2x2, c.power_pu) == (
        r.noncentrality, r.noncentrality, r.power_error_test, r.power_pu_test)
    # oracle: lambda is Pearson's chi2 of the expected counts (scipy), K buckets or one column
    table = np.array([[*[n * (1 - e) / k] * k, n * e] for e in (e1, e2)])
    assert c.lambda_pu == pytest.approx(
        stats.chi2_contingency(table, correction=False).statistic, rel=1e-9)
    assert c.power_pu == pytest.approx(stats.ncx2.sf(stats.chi2.isf(1e-3, k), k, c.lambda_pu))


def test_lesson4_power_matches_the_rejection_rate_of_simulated_tables() -> None:
    n, e1, e2, k, alpha = 1000, 0.10, 0.14, 4, 0.01
    c = course.power_comparison(n, e1, e2, k=k, alpha=alpha)
    rng = np.random.default_rng(7)
    rejections = {"2x2": 0, "pu": 0}
    trials = 2000
    for _ in range(trials):
        rows = []
        for e in (e1, e2):
            wrong = rng.binomial(n, e)
            rows.append([*rng.multinomial(n - wrong, [1 / k] * k), wrong])
        table = np.array(rows)
        two = np.column_stack((table[:, :-1].sum(axis=1), table[:, -1]))
        for name, t in (("2x2", two), ("pu", table)):
            t = t[:, t.sum(axis=0) > 0]
            p = stats.chi2_contingency(t, correction=False).pvalue
            rejections[name] += p < alpha
    for name, power in (("2x2", c.power_2x2), ("pu", c.power_pu)):
        se = math.sqrt(power * (1 - power) / trials)
        assert abs(rejections[name] / trials - power) < 4 * se + 0.01, name


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"n": 1}, "n must be"), ({"error1": 0.0}, "error1 must lie strictly between 0 and 1"),
    ({"error2": 1.5}, "error2 must lie strictly between 0 and 1"), ({"k": 0}, "k must be"),
    ({"alpha": 1.0}, "alpha"),
])
def test_lesson4_power_refuses_bad_input_naming_the_parameter(kwargs: dict[str, float],
                                                              message: str) -> None:
    args = {"n": 1000, "error1": 0.1, "error2": 0.2, "k": 5, "alpha": 1e-3, **kwargs}
    with pytest.raises(ParameterError, match=message):
        course.power_comparison(int(args.pop("n")), args.pop("error1"), args.pop("error2"),
                                k=int(args.pop("k")), alpha=args.pop("alpha"))


def test_lesson4_power_question_names_the_stronger_test() -> None:
    q = course.power_question(course.power_comparison(1000, 0.10, 0.13, k=5))
    assert q.options[q.answers[0]] == "the 2 × 2 error-rate test"
    q1 = course.power_question(course.power_comparison(1000, 0.10, 0.13, k=1))
    assert q1.options[q1.answers[0]] == "equally likely"


# --- lesson 5 -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("min_p", "answer"), [
    ([0.5, 0.3, 0.2, 0.9], "none"),
    ([0.5, 0.01] + [0.9] * 10, "up to 10% of them (at most 1)"),
    ([0.01, 0.02, 0.9, 0.9], "more than 10% of them"),
])
def test_lesson5_false_alarm_question_counts_chunks_below_alpha(min_p: list[float],
                                                                answer: str) -> None:
    chunks = pd.DataFrame({"chunk": range(len(min_p)), "min_p": min_p, "n_cuts": 2})
    q = course.threshold_question(FalseAlarmStudy(pd.DataFrame(), chunks), 0.05)
    assert q.options[q.answers[0]] == answer
    assert f"{sum(p < 0.05 for p in min_p)} of the {len(min_p)} tested chunks" in q.why


def test_lesson5_false_alarm_feedback_explains_a_share_above_the_union_bound() -> None:
    # 4 chunks of 2 cuts each; 3 chunks alarm at 0.05 (75%), above 2 x 0.05 = 10%: by hand,
    # 4 of the 8 single tests are below 0.05 (50%, not 5%)
    cuts = pd.DataFrame({"chunk": [1, 1, 2, 2, 3, 3, 4, 4],
                         "cut": [1, 2] * 4,
                         "p_value": [0.01, 0.02, 0.03, 0.9, 0.04, 0.5, 0.6, 0.7]})
    chunks = cuts.groupby("chunk", as_index=False).agg(min_p=("p_value", "min"),
                                                       n_cuts=("cut", "size"))
    why = course.threshold_question(FalseAlarmStudy(cuts, chunks), 0.05).why
    assert "3 of the 4 tested chunks (75%)" in why
    assert "at most about 2.0 × α = 10% of the chunks would alarm; here more did, because a " \
           "single test was below α in 50% of its 8 runs, not 5%." in why
    # at or under the bound, no such clause: nothing to explain
    calm = cuts.assign(p_value=[0.01, 0.9, 0.8, 0.9, 0.7, 0.5, 0.6, 0.7])
    calm_chunks = calm.groupby("chunk", as_index=False).agg(min_p=("p_value", "min"),
                                                            n_cuts=("cut", "size"))
    calm_why = course.threshold_question(FalseAlarmStudy(calm, calm_chunks), 0.2).why
    assert "1 of the 4 tested chunks (25%)" in calm_why and "here more did" not in calm_why


def test_lesson5_the_floor_alarms_more_often_on_error_free_chunks_than_no_floor() -> None:
    floor = course.floor_effect(1, n_chunks=100)
    assert floor.with_floor >= 0.05 > floor.without


def test_lesson5_sweep_has_every_alpha_and_the_largest_alarms_at_least_as_often() -> None:
    sweep = course.drifting_sweep(0)
    assert sweep.drift_chunks == (10, 20)
    alarms = sweep.frame.sort_values("exponent")["n_alarms"].tolist()
    assert len(alarms) == 10
    # not asserted monotone: an earlier alarm changes the model and the later stream;
    # the extremes still order (alpha 0.1 alarms at least as often as 1e-10)
    assert alarms[0] >= alarms[-1]


@pytest.mark.parametrize("seed", [0, 2])
def test_lesson5_calibration_is_the_logs_and_its_sentence_says_its_numbers(seed: int) -> None:
    # the oracle: the lesson's stream exported as a log and calibrated by the library, the
    # whole log monitored at the alpha chosen (the stretch its reference), its chunks after
    # the stretch the lesson's
    from pudd_core.experiments.export import export_predictions
    from pudd_core.experiments.runner import RunConfig
    from pudd_core.monitoring import calibrate, monitor

    c = course.calibrated_alpha(seed)
    log = export_predictions(RunConfig(course.SWEEP_DATASET, "gnb",
                                       n_chunks=course.SWEEP_CHUNKS, seed=seed))
    rows = c.stretch * 1000
    u = 1 - np.choose(log["label"].to_numpy(), log[["proba_0", "proba_1"]].to_numpy().T)
    ok = (log[["proba_0", "proba_1"]].to_numpy().argmax(axis=1) == log["label"]).to_numpy()
    lib = calibrate(u[:rows], ok[:rows], 1000, target=0.02, n_resamples=50, seed=seed,
                    variant="authors")
    assert c.calibration.to_json() == lib.to_json()
    best = lib.recommended
    whole = monitor(log, label="label", proba_prefix="proba_", chunk_size=1000,
                    alpha=best.alpha, variant="authors", seed=seed)
    assert c.stretch == 9 and c.rest.reference_chunks == c.stretch  # the drift's eve
    np.testing.assert_array_equal(c.rest.p_values, whole.p_values[c.stretch:])
    assert c.alarms == tuple(a + 1 for a in whole.alarms if a >= c.stretch)
    text = c.text()
    assert f"**α = {best.alpha:g}**: {best.n_alarms} false alarm" in text
    assert f"alarm at: {', '.join(map(str, c.alarms)) or 'none'} (true drifts at 10, 20)" in text
    assert c.drift_chunks == (10, 20) and 10 in c.alarms  # the first drift is caught


# --- lesson 6 -----------------------------------------------------------------------------------
def test_lesson6_share_is_one_tenth_per_class_that_changed_side() -> None:
    assert course.flipped_share((0, 1, 2), (0, 1, 2)) == 0.0
    assert course.flipped_share((0, 1, 2), (3, 4, 5)) == 0.6
    assert course.flipped_share((0, 1), (0, 1, 2)) == 0.1  # a collision ends


def test_lesson6_question_from_the_interest_process() -> None:
    from pudd_core.views.cifar import interest_drift

    drift = interest_drift(0, n_chunks=12)
    q = course.cifar_question(drift.positive_classes, drift.drift_chunks, drift.class_names)
    assert q is not None
    d = drift.drift_chunks[0]
    share = course.flipped_share(drift.positive_classes[d - 1], drift.positive_classes[d])
    assert q.options[q.answers[0]] in (f"{share:.0%}", "40% or more")
    assert course.cifar_question([(0, 1, 2)] * 3, [], drift.class_names) is None


# --- each lesson at many seeds: the sentence on the page against its numbers -------------------
SEEDS = tuple(range(20))  # a part of the class's 50 seeds: the tests' time, not the page's


def _counts_in(sentence: str, spread: course.Spread) -> dict[str, int]:
    """The count the sentence gives each verdict, read back from its words."""
    found = {}
    for verdict, phrase in spread.phrases.items():
        match = re.search(re.escape(phrase) + r" in (\d+)[,.]", sentence)
        assert match, f"{phrase!r} not counted in {sentence!r}"
        found[verdict] = int(match.group(1))
    return found


def _check_sentence(spread: course.Spread, seed: int, verdict: str,
                    recount: dict[str, int]) -> None:
    """The page's sentence for the run at ``seed`` says the recounted numbers and its verdict."""
    text = spread.sentence(seed, verdict)
    assert _counts_in(text, spread) == recount
    assert sum(recount.values()) == len(spread.seeds)
    assert f"({len(spread.seeds)} runs)" in text
    assert text.endswith(f"is one of the {recount[verdict]} where {spread.phrases[verdict]}.")


def test_a_spread_counts_its_verdicts_and_says_where_an_outside_seed_falls() -> None:
    s = course.Spread((3, 4, 5), ("x", "y", "x"), {"x": "X held", "y": "Y held"})
    assert (s.count("x"), s.share("y"), s.verdict_at(5), s.verdict_at(6)) == (2, 1 / 3, "x", None)
    assert _counts_in(s.sentence(4, "y"), s) == {"x": 2, "y": 1}
    assert "seeds 3–5 (3 runs)" in s.sentence(4, "y")
    assert s.sentence(60, "x").endswith("This run (seed 60) is not one of them; in it X held.")
    with pytest.raises(ParameterError, match="verdict must be one of"):
        s.sentence(3, "z")
    with pytest.raises(ValueError, match="no phrase"):
        course.Spread((1,), ("z",), {"x": "X"})


def _first(delay: int | None) -> float:
    return math.inf if delay is None else delay


def test_lesson1_who_alarmed_first_at_each_seed_and_the_sentence_agree_with_each_run() -> None:
    cfg = course.DelayConfig()
    spread = course.delay_spread(cfg, seeds=SEEDS)
    recount = dict.fromkeys(course.DELAY_VERDICTS, 0)
    for seed, verdict in zip(spread.seeds, spread.verdicts, strict=True):
        les = course.delay_lesson(replace(cfg, seed=seed))
        ddm, pudd = _first(les.delay_predictions(les.ddm)), _first(les.delay_predictions(les.pudd))
        expected = "pudd" if pudd < ddm else "ddm" if ddm < pudd else "tie"
        assert verdict == expected == les.verdict(), seed
        recount[expected] += 1
    for seed in (0, 7):
        _check_sentence(spread, seed, spread.verdicts[seed], recount)
    # the page reads the class seeds' spread from the store: the same verdicts
    assert course.STORE.is_file()
    assert course.delay_spread(cfg).verdicts[: len(SEEDS)] == spread.verdicts


def test_lesson3_alarm_and_best_cut_at_each_seed_are_the_chi2_tests_and_the_sentence_agrees() -> (
    None
):
    alarm, cut = course.cut_spreads(SEEDS)
    recount_alarm = dict.fromkeys(course.ALARM_VERDICTS, 0)
    recount_cut = dict.fromkeys(course.CUT_VERDICTS, 0)
    for i, seed in enumerate(SEEDS):
        les = course.cut_lesson(seed)
        p = {}  # each cut's p-value straight from the chi-square test, not from les.test
        for c in {*les.tested_cuts, *les.options}:
            p[c] = pu_chi2_test(np.concatenate(les.u[:-c]), np.concatenate(les.correct[:-c]),
                                np.concatenate(les.u[-c:]), np.concatenate(les.correct[-c:]),
                                seed=seed).p_value
        a = "alarm" if min(p[c] for c in (1, 2, 4, 8)) < course.CUT_ALPHA else "quiet"
        b = "drift" if p[les.n_new] == min(p[c] for c in les.options) else "other"
        assert (alarm.verdicts[i], cut.verdicts[i]) == (a, b) == les.verdicts(), seed
        drift_option = les.options.index(les.n_new)
        assert (drift_option in les.question().answers) == (b == "drift")
        recount_alarm[a] += 1
        recount_cut[b] += 1
    _check_sentence(alarm, 0, alarm.verdicts[0], recount_alarm)
    _check_sentence(cut, 3, cut.verdicts[3], recount_cut)
    stored = course.cut_spreads()
    assert [s.verdicts[: len(SEEDS)] for s in stored] == [alarm.verdicts, cut.verdicts]


def test_lesson5_the_share_of_chunks_alarming_at_each_seed_is_the_questions_answer() -> None:
    spread = course.study_spread(SEEDS[:10])
    recount = dict.fromkeys(course.STUDY_VERDICTS, 0)
    for i, seed in enumerate(SEEDS[:10]):
        study = course.stationary_study(seed)
        # each chunk's smallest p-value, from the per-cut record rather than the chunk summary
        min_p = study.cut_p.groupby("chunk")["p_value"].min()
        hits, n = int((min_p < 0.05).sum()), len(study.chunk_p)
        verdict = "none" if hits == 0 else "few" if hits <= 0.1 * n else "many"
        q = course.threshold_question(study, 0.05)
        assert spread.spread.verdicts[i] == verdict, seed
        assert q.answers == ({"none": 0, "few": 1, "many": 2}[verdict],)
        assert (spread.tested[i], spread.hits_005[i]) == (n, hits)
        assert spread.hits_1e3[i] == int((min_p < 1e-3).sum())
        recount[verdict] += 1
    _check_sentence(spread.spread, 0, spread.spread.verdicts[0], recount)
    stored = course.study_spread()
    assert stored.spread.verdicts[:10] == spread.spread.verdicts
    assert (stored.tested[:10], stored.hits_005[:10], stored.hits_1e3[:10]) == (
        spread.tested, spread.hits_005, spread.hits_1e3)
    loose, strict = spread.rates()
    assert loose == sum(spread.hits_005) / sum(spread.tested) >= strict
    assert f"{loose:.1%} alarmed at α = 0.05 and {strict:.1%} at α = 10⁻³" in spread.rates_text()


@pytest.mark.parametrize("lesson", ["1", "3", "5"])
def test_at_the_class_seed_the_default_run_shows_the_lessons_point(lesson: str) -> None:
    # seed 0 is what every student sees first: the defaults were chosen so that it agrees
    # with the lesson's point (scripts/course_defaults.py, docs/teaching.md)
    if lesson == "1":
        assert course.delay_lesson(course.DelayConfig()).verdict() == "pudd"
    elif lesson == "3":
        assert course.cut_lesson(0).verdicts() == ("alarm", "drift")
    else:
        assert course.study_verdict(course.stationary_study(0)) == "many"


@pytest.mark.parametrize(("text", "message"), [
    ("{not json", "is not JSON"), ('{"seeds": [0, 1]}', "is not a store of the course"),
    ("[]", "is not a store of the course"), ("\udcff", "is not JSON"),
])
def test_a_broken_spread_store_is_refused_naming_the_command_that_rewrites_it(
    tmp_path: Path, text: str, message: str
) -> None:
    from pudd_core.views.course import spread

    path = tmp_path / "spreads.json"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    with pytest.raises(ValueError, match=f"{message}.*scripts/course_defaults.py --write"):
        spread.stored_entry("lesson1", "x", path)
    assert spread.stored_entry("lesson1", "x", tmp_path / "missing.json") is None
    bad = {"verdicts": ["pudd"] * 3}
    with pytest.raises(ValueError, match="must list 50 verdicts"):
        spread.verdicts_from(bad, "verdicts", course.DELAY_VERDICTS)
    with pytest.raises(ValueError, match="no phrase"):
        spread.verdicts_from({"verdicts": ["maybe"] * 50}, "verdicts", course.DELAY_VERDICTS)


def test_the_teachers_guide_quotes_the_stored_spreads_of_the_chosen_defaults() -> None:
    # docs/teaching.md's tables are scripts/course_defaults.py's output: its chosen rows must
    # say what the store (the pages' counts) says
    guide = (Path(__file__).resolve().parents[2] / "docs" / "teaching.md").read_text()
    chosen = re.findall(r"^\| (.+?) \*\*\(chosen\)\*\* \| (\S+) \| (\d+) of 50 \|$", guide, re.M)
    names = [c[0].split(",")[0].split(" (")[0] for c in chosen]
    assert names == ["sea20", "mixed", "60 chunks of 500"]
    lesson1 = course.delay_spread(course.DelayConfig())
    alarm, cut = course.cut_spreads()
    both = sum(a == "alarm" and c == "drift"
               for a, c in zip(alarm.verdicts, cut.verdicts, strict=True))
    study = course.study_spread()
    assert [(v, int(n)) for _, v, n in chosen] == [
        (lesson1.verdicts[0], lesson1.count("pudd")),
        (f"{alarm.verdicts[0]}+{cut.verdicts[0]}", both),
        (study.spread.verdicts[0], study.spread.count("many"))]
    loose, strict = study.rates()
    assert f"alarm rates {loose:.1%} at 0.05, {strict:.1%} at 10⁻³) **(chosen)**" in guide
