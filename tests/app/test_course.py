"""The course's lessons through AppTest: each question's right and wrong answers, live numbers."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst
from streamlit.testing.v1 import AppTest

from harness.apptest import ROOT, figures, open_page, shown
from pudd_core.views import course as views

TIMEOUT = 60


def _question_radio(at: AppTest, key: str):  # noqa: ANN202
    [radio] = [r for r in at.radio if (r.key or "").startswith(f"course_q_{key}_")]
    return radio


def _again(at: AppTest, key: str) -> str:
    """The key of the question's "Answer again" button (shown once it is answered)."""
    return f"{_question_radio(at, key).key}_again"


def _feedback(at: AppTest) -> list[str]:
    return [shown(e.value) for e in (*at.success, *at.warning)]


def _answer(at: AppTest, key: str, choice: int, timeout: float = TIMEOUT) -> AppTest:
    _question_radio(at, key).set_value(choice).run(timeout=timeout)
    assert not at.exception, [e.value for e in at.exception]
    return at


#: an answer that shows a lesson's spread: the first one computes the lesson at 50 seeds
SPREAD_TIMEOUT = 300


def _spread_text(at: AppTest) -> str:
    [text] = [md.value for md in at.markdown if md.value.startswith("**This run among ")]
    return text


def _spread_counts(text: str, phrases: dict[str, str]) -> dict[str, int]:
    return {v: int(re.search(re.escape(p) + r" in (\d+)[,.]", text).group(1))  # type: ignore[union-attr]
            for v, p in phrases.items()}


# --- lesson 1 ---------------------------------------------------------------------------------
def test_lesson1_hides_the_alarms_until_the_student_commits() -> None:
    at = open_page("pages/course-drift.py", timeout=TIMEOUT)
    names = [t.get("name") for t in figures(at)["course_drift_chart"]["data"]]
    assert "DDM alarm" not in names and "PUDD alarm" not in names
    assert _feedback(at) == []


def test_lesson1_right_and_wrong_answers_get_the_runs_own_numbers() -> None:
    lesson = views.delay_lesson(views.DelayConfig())
    question = lesson.question()
    right = question.answers[0]
    wrong = next(i for i in range(len(question.options)) if i not in question.answers)
    at = open_page("pages/course-drift.py", timeout=TIMEOUT)
    _answer(at, "lesson1_delay", wrong, SPREAD_TIMEOUT)
    assert _feedback(at) == [question.check(wrong).text]
    # the run among the class's 50 seeds: counts that add up, this run's own verdict
    text = _spread_text(at)
    counts = _spread_counts(text, views.DELAY_VERDICTS)
    verdict = lesson.verdict()
    assert sum(counts.values()) == 50 and counts[verdict] >= 1
    assert text.endswith(f"This run (seed 0) is one of the {counts[verdict]} where "
                         f"{views.DELAY_VERDICTS[verdict]}.")
    assert any(c.value == f"You chose: {question.options[wrong]}" for c in at.caption)
    assert [e.value for e in at.warning] and not at.success
    delay = lesson.delay_predictions(lesson.ddm)
    assert delay is None or f"{delay} predictions after the drift" in _feedback(at)[0]
    names = [t.get("name") for t in figures(at)["course_drift_chart"]["data"]]
    assert "DDM alarm" in names
    at.button(key=_again(at, "lesson1_delay")).click().run(
        timeout=TIMEOUT)
    _answer(at, "lesson1_delay", right, SPREAD_TIMEOUT)
    assert _feedback(at) == [question.check(right).text]
    assert at.success and _feedback(at)[0].startswith("Right.")


def test_lesson1_answer_survives_a_trip_to_another_page_and_a_new_stream_is_a_new_question() -> (
    None
):
    at = open_page("pages/course-drift.py", timeout=TIMEOUT)
    _answer(at, "lesson1_delay", 0, SPREAD_TIMEOUT)
    kept = _feedback(at)
    at.switch_page("pages/theorem2.py").run(timeout=TIMEOUT)
    at.switch_page("pages/course-drift.py").run(timeout=TIMEOUT)
    assert _feedback(at) == kept
    at.radio(key="w_course_drift_stream").set_value("sea0").run(timeout=TIMEOUT)
    assert _feedback(at) == []
    assert at.query_params["stream"] == "sea0"


def _link(at: AppTest, label_start: str) -> tuple[str, dict[str, str]]:
    from urllib.parse import parse_qsl

    [el] = [e for e in at.get("page_link") if e.proto.label.startswith(label_start)]
    return el.proto.page, dict(parse_qsl(el.proto.query_string))


def test_lesson1_try_it_opens_the_explorer_in_the_lessons_state_even_after_a_visit() -> None:
    at = open_page("pages/explorer.py", timeout=TIMEOUT)
    at.session_state["explorer_dataset"] = "sine"  # the student's own exploration before
    at.switch_page("pages/course-drift.py").run(timeout=TIMEOUT)
    page, query = _link(at, "Try it yourself")
    assert page == "explorer"
    at.query_params.clear()
    at.query_params.update(query)  # what clicking the link does: same session, new URL
    at.switch_page("pages/explorer.py").run(timeout=TIMEOUT)
    assert not at.exception
    cfg = views.DelayConfig().explorer()
    got = {k: at.session_state[f"explorer_{k}"] for k in (
        "dataset", "classifier", "regime", "settings", "baselines", "chunk_size", "n_chunks")}
    assert got == {"dataset": cfg.dataset, "classifier": cfg.classifier, "regime": cfg.regime,
                   "settings": ("3",), "baselines": cfg.baselines,
                   "chunk_size": cfg.chunk_size, "n_chunks": cfg.n_chunks}
    assert at.session_state["explorer_chunk"] == views.delay_lesson(views.DelayConfig()).drift


# --- lesson 2 ---------------------------------------------------------------------------------
def test_lesson2_hides_the_asked_prediction_until_answered_then_rings_it() -> None:
    points = views.pu_points(0)
    question = points.question()
    at = open_page("pages/course-pu-index.py", timeout=TIMEOUT)
    # the slider starts at the asked prediction: it is on the chart once answered
    assert at.slider(key="w_course_pu_shown").value == points.asked + 1
    assert any(f"Prediction {points.asked + 1} is the question's" in c.value for c in at.caption)
    # another seed asks about another prediction: the slider follows it
    other = next(views.pu_points(s) for s in range(1, 20)
                 if views.pu_points(s).asked != points.asked)
    at.number_input(key="w_app_seed").set_value(other.seed).run(timeout=TIMEOUT)
    assert at.slider(key="w_course_pu_shown").value == other.asked + 1
    at.number_input(key="w_app_seed").set_value(0).run(timeout=TIMEOUT)
    assert at.slider(key="w_course_pu_shown").value == points.asked + 1
    at.slider(key="w_course_pu_shown").set_value(20).run(timeout=TIMEOUT)
    [table] = at.dataframe
    assert points.asked + 1 not in table.value["prediction"].tolist()
    assert len(figures(at)["course_pu_dots"]["data"][0]["x"]) + len(
        figures(at)["course_pu_dots"]["data"][1]["x"]) == 19
    _answer(at, "lesson2_pu", 1)  # 1 - max p: the usual wrong answer
    assert _feedback(at) == [question.check(1).text]
    # the lab's own Markdown, not escaped: the reader sees "predicted" in italics
    assert "uncertainty of the *predicted* class" in at.warning[0].value
    assert "\\" not in at.warning[0].value and "\\" not in at.radio[0].options[1]
    assert f"u = 1 − {points.proba[points.asked, points.labels[points.asked]]:.2f}" in \
        _feedback(at)[0]
    [table] = at.dataframe
    assert points.asked + 1 in table.value["prediction"].tolist()
    # one radio in every state, the same key: the browser keeps one widget (ui.course.ask)
    key = _question_radio(at, "lesson2_pu").key
    assert (_question_radio(at, "lesson2_pu").value, _question_radio(at, "lesson2_pu").disabled
            ) == (1, True)
    at.button(key=_again(at, "lesson2_pu")).click().run(timeout=TIMEOUT)
    reset = _question_radio(at, "lesson2_pu")
    assert (reset.key, reset.value, reset.disabled, _feedback(at)) == (key, None, False, [])
    _answer(at, "lesson2_pu", 0)
    assert _feedback(at) == [question.check(0).text] and at.success
    assert (_question_radio(at, "lesson2_pu").key, _question_radio(at, "lesson2_pu").value
            ) == (key, 0)


# --- lesson 3 ---------------------------------------------------------------------------------
def _metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_lesson3_moving_the_cut_shows_that_cuts_own_test() -> None:
    from pudd_core import plots

    lesson = views.cut_lesson(0)
    at = open_page("pages/course-test.py", timeout=TIMEOUT)
    for cut in (3, 7):
        at.select_slider(key="w_course_test_cut").set_value(cut).run(timeout=TIMEOUT)
        res = lesson.test(cut)
        m = _metrics(at)
        assert m["p-value"] == plots.p_text(res.p_value).removeprefix("p = ")
        assert m["χ² statistic"] == f"{res.statistic:.1f}"
        assert any(f"Reference: chunks 1–{12 - cut}; recent: chunks {13 - cut}–12" in md.value
                   for md in at.markdown)
        assert at.dataframe[0].value.to_numpy()[0].tolist()[: res.table.shape[1]] == \
            res.table[0].tolist()
    assert at.query_params["cut"] == "7"


def test_lesson3_question_feedback_lists_the_scans_p_values() -> None:
    lesson = views.cut_lesson(1)
    question = lesson.question()
    at = open_page("pages/course-test.py", {"seed": "1"}, timeout=TIMEOUT, via_home=False)
    assert "course_test_scan" not in figures(at)
    wrong = next(i for i in range(len(question.options)) if i not in question.answers)
    _answer(at, "lesson3_cut", wrong, SPREAD_TIMEOUT)
    assert _feedback(at) == [question.check(wrong).text]
    p = lesson.test(3).p_value  # Mixed's drift: often below float's range, never "p = 0"
    assert f"3 chunks: {'p < 1e-300' if p < 1e-300 else f'p = {p:.2g}'}" in _feedback(at)[0]
    assert not re.search(r"p = 0(?![.\d])", _feedback(at)[0])
    scan = figures(at)["course_test_scan"]["data"][0]
    assert scan["x"] == list(lesson.cuts)
    at.button(key=_again(at, "lesson3_cut")).click().run(timeout=TIMEOUT)
    _answer(at, "lesson3_cut", question.answers[0], SPREAD_TIMEOUT)
    assert _feedback(at) == [question.check(question.answers[0]).text]


# --- lesson 4 ---------------------------------------------------------------------------------
def test_lesson4_theorem2_question_and_its_verdicts() -> None:
    from pudd_core.views.illustration import Theorem2Config, theorem2_demo

    question = views.theorem2_question(theorem2_demo(Theorem2Config(seed=0)), 1e-3)
    at = open_page("pages/course-theorem2.py", timeout=TIMEOUT)
    assert "course_theorem2_verdicts" not in figures(at)
    _answer(at, "lesson4_theorem2", 1)
    assert _feedback(at)[0] == question.check(1).text
    assert "course_theorem2_verdicts" in figures(at)
    assert question.answers == (2,)


def test_lesson4_power_feedback_and_chart_come_from_the_noncentral_chi2() -> None:
    from scipy import stats

    at = open_page("pages/course-theorem2.py", timeout=TIMEOUT)
    at.slider(key="w_course_theorem2_error2").set_value(0.16).run(timeout=TIMEOUT)
    at.slider(key="w_course_theorem2_k").set_value(3).run(timeout=TIMEOUT)
    c = views.power_comparison(1000, 0.10, 0.16, k=3, alpha=1e-3)
    question = views.power_question(c)
    _answer(at, "lesson4_power", 0)  # "PUDD's test": wrong for a pure error change
    assert [f for f in _feedback(at) if "noncentrality" in f] == [question.check(0).text]
    # the power shown, recomputed here by hand: P(chi'^2_dof(lambda) > critical value)
    for dof, lam, shown_power in ((1, c.lambda_2x2, c.power_2x2), (3, c.lambda_pu, c.power_pu)):
        assert stats.ncx2.sf(stats.chi2.isf(1e-3, dof), dof, lam) == pytest.approx(shown_power)
    bars = figures(at)["course_theorem2_power"]["data"][0]
    assert bars["text"] == [f"{c.power_2x2:.1%}", f"{c.power_pu:.1%}"]
    assert at.query_params["error2"] == "0.16" and at.query_params["k"] == "3"


def test_lesson4_a_bad_link_value_is_ignored_with_a_warning() -> None:
    at = open_page("pages/course-theorem2.py", {"error2": "lots", "k": "99", "n": "300"},
                   timeout=TIMEOUT, via_home=False)
    warnings = " ".join(w.value for w in at.sidebar.warning)
    assert "error2=lots" in warnings and "k=99" in warnings and "n=300" in warnings
    assert at.slider(key="w_course_theorem2_k").value == 5


# --- lesson 5 ---------------------------------------------------------------------------------
def test_lesson5_question_and_the_alpha_slider_read_the_live_runs() -> None:
    study = views.stationary_study(0)
    question = views.threshold_question(study, 0.05)
    sweep = views.drifting_sweep(0).frame
    at = open_page("pages/course-thresholds.py", timeout=TIMEOUT)
    wrong = next(i for i in range(3) if i not in question.answers)
    _answer(at, "lesson5_alpha", wrong, SPREAD_TIMEOUT)
    assert _feedback(at) == [question.check(wrong).text]
    text = _spread_text(at)
    counts = _spread_counts(text, views.STUDY_VERDICTS)
    verdict = views.study_verdict(study)
    assert sum(counts.values()) == 50
    assert f"This run (seed 0) is one of the {counts[verdict]} where " in text
    at.select_slider(key="w_course_thresholds_alpha").set_value(1).run(timeout=TIMEOUT)
    row = sweep.loc[sweep["exponent"] == 1].iloc[0]
    m = _metrics(at)
    assert m["Alarms"] == str(int(row["n_alarms"]))
    assert m["False alarms"] == str(int(row["false_alarms"]))
    floor = views.floor_effect(0)
    assert any(f"{floor.with_floor:.0%} of them with the floor" in md.value
               for md in at.markdown)
    # issue 35: alpha chosen on the drifting stream's first chunks, said from the computation
    assert views.calibrated_alpha(0).text() in [md.value for md in at.markdown]


# --- lesson 6 ---------------------------------------------------------------------------------
def test_lesson6_question_from_the_interest_process_and_no_runs_without_the_cifar_page() -> None:
    from pudd_core.views.cifar import interest_drift

    drift = interest_drift(0, n_chunks=10)
    question = views.cifar_question(drift.positive_classes, drift.drift_chunks,
                                    drift.class_names)
    assert question is not None
    at = open_page("pages/course-cifar.py", timeout=TIMEOUT)
    assert "course_cifar_runs" not in figures(at)
    assert any("have not been computed" in i.value for i in at.info)
    wrong = next(i for i in range(5) if i not in question.answers)
    _answer(at, "lesson6_share", wrong)
    assert _feedback(at) == [question.check(wrong).text]


def test_every_lesson_links_the_next_and_answers_count_across_lessons() -> None:
    at = open_page("pages/course-drift.py", timeout=TIMEOUT)
    _answer(at, "lesson1_delay", 0, SPREAD_TIMEOUT)
    at.switch_page("pages/course-pu-index.py").run(timeout=TIMEOUT)
    _answer(at, "lesson2_pu", 0)
    assert any("all lessons: 2." in c.value for c in at.caption)
    page, _ = _link(at, "Next:")
    assert page == "course-test"


@pytest.mark.slow
@pytest.mark.datasets
def test_lesson6_shows_the_cifar_pages_finished_runs_without_recomputing() -> None:
    from pudd_core.experiments.runner import run_experiment
    from ui import cache
    from ui.cifar import CifarConfig

    cfg = CifarConfig(0, 3, "small-cnn", ("pudd",), 3)  # the cheapest CIFAR page run
    [(name, run_cfg)] = cfg.runs().items()
    result = run_experiment(run_cfg)
    cache.keep(("run", run_cfg), result)  # as the CIFAR-10-CD page keeps a finished run
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.session_state["cifar_n_chunks"] = 3
    at.session_state["cifar_classifier"] = "small-cnn"
    at.session_state["cifar_detectors"] = ("pudd",)
    at.run()
    at.switch_page("pages/course-cifar.py").run()
    assert not at.exception
    spec = figures(at)["course_cifar_runs"]
    error = next(t for t in spec["data"] if t.get("name", "").startswith(name))
    y = error["y"]
    if isinstance(y, dict):  # plotly's typed-array JSON
        import base64

        import numpy as np

        y = np.frombuffer(base64.b64decode(y["bdata"]), dtype=y["dtype"]).tolist()
    assert [round(100 * (1 - c.accuracy), 6) for c in result.chunks] == [round(v, 6) for v in y]
    [summary] = at.table
    assert summary.value.iloc[0, 0] == name


@given(hst.one_of(hst.text(max_size=12), hst.integers(-10, 20_000).map(str),
                  hst.floats(-1, 2).map(str), hst.just("nan")))
@settings(max_examples=300, deadline=None)
def test_every_course_link_value_parses_to_a_showable_value_or_says_what_it_expects(
    text: str,
) -> None:
    from ui import state

    course_params = {k: q for k, q in state.QUERY.items() if q.page.startswith("course-")}
    assert course_params  # the lessons have link parameters
    for key, spec in course_params.items():
        try:
            value = spec.parse(text)
        except ValueError as err:
            assert str(err).startswith("expected"), (key, text, err)
        else:
            assert spec.parse(spec.fmt(value)) == value  # written back, read back the same
            if key == state.COURSE_POWER_N:
                assert value in state.COURSE_POWER_N_CHOICES  # the select slider can show it


def test_the_lessons_link_defaults_are_the_settings_chosen_by_data() -> None:
    from ui import state

    assert state.DEFAULTS[state.COURSE_DRIFT_STREAM] == views.DelayConfig().dataset
    assert state.DEFAULTS[state.COURSE_TEST_CUT] == views.cut_lesson(0).n_new
