"""The course's lessons through AppTest: each question's right and wrong answers, live numbers."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from pudd_core.views import course as views
from tests.app._apptest import figures, open_page, shown

TIMEOUT = 60


def _question_radio(at: AppTest, key: str):  # noqa: ANN202
    [radio] = [r for r in at.radio if (r.key or "").startswith(f"course_q_{key}_")]
    return radio


def _feedback(at: AppTest) -> list[str]:
    return [shown(e.value) for e in (*at.success, *at.warning)]


def _answer(at: AppTest, key: str, choice: int) -> AppTest:
    _question_radio(at, key).set_value(choice).run(timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    return at


# --- lesson 1 ---------------------------------------------------------------------------------
def test_lesson1_hides_the_alarms_until_the_student_commits() -> None:
    at = open_page("pages/course-drift.py", timeout=TIMEOUT)
    names = [t.get("name") for t in figures(at)["course_drift_chart"]["data"]]
    assert "DDM alarm" not in names and "PUDD alarm" not in names
    assert _feedback(at) == []


def test_lesson1_right_and_wrong_answers_get_the_runs_own_numbers() -> None:
    lesson = views.delay_lesson(views.DelayConfig("sea10", seed=0))
    question = lesson.question()
    right = question.answers[0]
    wrong = next(i for i in range(len(question.options)) if i not in question.answers)
    at = open_page("pages/course-drift.py", timeout=TIMEOUT)
    _answer(at, "lesson1_delay", wrong)
    assert _feedback(at) == [question.check(wrong).text]
    assert [e.value for e in at.warning] and not at.success
    delay = lesson.delay_predictions(lesson.ddm)
    assert delay is None or f"{delay} predictions after the drift" in _feedback(at)[0]
    names = [t.get("name") for t in figures(at)["course_drift_chart"]["data"]]
    assert "DDM alarm" in names
    at.button(key=f"{_question_radio(at, 'lesson1_delay').key}_again").click().run(
        timeout=TIMEOUT)
    _answer(at, "lesson1_delay", right)
    assert _feedback(at) == [question.check(right).text]
    assert at.success and _feedback(at)[0].startswith("Right.")


def test_lesson1_answer_survives_a_trip_to_another_page_and_a_new_stream_is_a_new_question() -> (
    None
):
    at = open_page("pages/course-drift.py", timeout=TIMEOUT)
    _answer(at, "lesson1_delay", 0)
    kept = _feedback(at)
    at.switch_page("pages/theorem2.py").run(timeout=TIMEOUT)
    at.switch_page("pages/course-drift.py").run(timeout=TIMEOUT)
    assert _feedback(at) == kept
    at.radio(key="w_course_drift_stream").set_value("sea20").run(timeout=TIMEOUT)
    assert _feedback(at) == []
    assert at.query_params["stream"] == "sea20"
