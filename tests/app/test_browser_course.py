"""The course in a real headless Chromium at 1024 × 768 and 1280 × 800: every lesson, every action.

Reuses test_browser.py's server, browser and checks; the screenshots (one per lesson, after
its question is answered) are the README's course section with PUDD_UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

from harness.browser import assert_no_exception, serve, settle
from pudd_core.views import course as views
from pudd_core.views.illustration import Theorem2Config, theorem2_demo
from tests.app.test_browser import (  # the fixtures come from tests/app/conftest.py
    ARTIFACTS,
    DOCS,
    _save_small,
)
from ui.pages import COURSE, PAGES

pytestmark = pytest.mark.browser

PROJECTOR = {"width": 1024, "height": 768}
LAPTOP = {"width": 1280, "height": 800}  # a student's laptop
LESSONS = [p for p in PAGES if p.section == COURSE]


@pytest.fixture(params=[PROJECTOR, LAPTOP], ids=["1024x768", "1280x800"])
def screen(request: pytest.FixtureRequest, browser: Any) -> Iterator[Any]:  
    context = browser.new_context(viewport=request.param)
    p = context.new_page()
    p.set_default_timeout(30_000)
    yield p
    context.close()


@pytest.fixture
def projector(browser: Any) -> Iterator[Any]:  
    context = browser.new_context(viewport=PROJECTOR)
    p = context.new_page()
    p.set_default_timeout(30_000)
    yield p
    context.close()


def _shot(page: Any, name: str) -> None:
    """The whole lesson at the page's width (the height grown to the page's); the projector's
    go to the README with PUDD_UPDATE_SCREENSHOTS=1."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    size = dict(page.viewport_size)
    target = ARTIFACTS / f"{name}-{size['width']}.png"
    height = page.evaluate(
        "() => document.querySelector('[data-testid=\"stMain\"]')?.scrollHeight ?? 0")
    page.set_viewport_size({"width": size["width"],
                            "height": min(max(height, size["height"]), 8000)})
    page.wait_for_timeout(800)  # plotly redraws at the new size
    page.screenshot(path=str(target), full_page=True)
    page.set_viewport_size(size)
    if os.environ.get("PUDD_UPDATE_SCREENSHOTS") == "1" and size == PROJECTOR:
        DOCS.mkdir(parents=True, exist_ok=True)
        _save_small(target, DOCS / f"{name}.png")


def _settled(page: Any, heading: str) -> None:
    """As ``settle``, then until no cached computation's spinner is left on the page."""
    settle(page, heading)
    page.locator('[data-testid="stSpinner"]').first.wait_for(state="detached", timeout=120_000)
    settle(page, heading)


def _questions(page: Any) -> Any:
    return page.get_by_role("radiogroup", name="Your prediction")


def _answer_first_open_question(page: Any, heading: str) -> None:
    """Click the first option of the first question not answered yet; feedback appears."""
    radios = _questions(page)
    for i in range(radios.count()):
        radio = radios.nth(i)
        if radio.get_by_role("radio").first.is_disabled():
            continue
        options = radio.locator("label")
        before = page.locator('[data-testid="stAlert"]').count()
        options.first.click()
        _settled(page, heading)
        assert_no_exception(page)
        assert page.locator('[data-testid="stAlert"]').count() > before, "no feedback shown"
        # committed: the clicked (first) option stays ticked, greyed, and is named
        answered = _questions(page).nth(i).get_by_role("radio")
        assert [answered.nth(j).is_checked() for j in range(answered.count())] == [
            j == 0 for j in range(answered.count())], "the chosen option is not ticked"
        assert answered.first.is_disabled()
        chosen = options.first.inner_text().strip()
        assert page.get_by_text(f"You chose: {chosen}", exact=False).count() >= 1
        return
    pytest.fail("no open question on the page")


def _nudge_sliders(page: Any, heading: str) -> None:
    """Move every slider of the lesson one step; each is in the lesson's link, which follows."""
    sliders = page.locator('[data-testid="stMain"]').get_by_role("slider")
    for i in range(sliders.count()):
        before = page.url
        sliders.nth(i).focus()
        sliders.nth(i).press("ArrowRight")
        page.wait_for_function("url => window.location.href !== url", arg=before,
                               timeout=30_000)
        _settled(page, heading)
        assert_no_exception(page)


def test_the_whole_course_shows_no_exception_after_any_action(
    screen: Any, app_url: str  
) -> None:
    page = screen
    page.goto(app_url)
    settle(page, "PUDD Lab")
    answered = 0
    for spec in LESSONS:
        page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]').filter(
            has_text=spec.title).click()
        _settled(page, spec.title)
        assert_no_exception(page)
        _nudge_sliders(page, spec.title)  # first: a new setting is a new question
        questions = _questions(page).count()
        assert questions >= 1, f"{spec.title} asks nothing"
        for _ in range(questions):
            _answer_first_open_question(page, spec.title)
        answered += questions
        _shot(page, f"course-{LESSONS.index(spec) + 1}")
    # the answers survive the walk: back at lesson 1, its feedback is still there
    page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]').filter(
        has_text=LESSONS[0].title).click()
    settle(page, LESSONS[0].title)
    assert page.locator('[data-testid="stAlert"]:has-text("DDM")').count() >= 1
    main = page.locator('[data-testid="stMain"] [data-testid="stCaptionContainer"]')
    assert f"all lessons: {answered}." in main.first.inner_text()


def test_lesson1_try_it_yourself_opens_the_explorer_in_the_lessons_state(
    projector: Any, app_url: str  
) -> None:
    page = projector
    page.goto(f"{app_url}/{LESSONS[0].url_path}")
    settle(page, LESSONS[0].title)
    page.get_by_text("Try it yourself", exact=False).click()
    settle(page, "Stream explorer")
    assert_no_exception(page)
    query = dict(parse_qsl(urlsplit(page.url).query))
    cfg = views.DelayConfig().explorer()
    assert urlsplit(page.url).path.endswith("/explorer")
    assert {k: query.get(k) for k in ("dataset", "regime", "pudd", "baselines", "chunk_size",
                                      "n_chunks")} == {
        "dataset": cfg.dataset, "regime": cfg.regime, "pudd": "3", "baselines": "ddm",
        "chunk_size": str(cfg.chunk_size), "n_chunks": str(cfg.n_chunks)}


class RunGate:
    """Holds the server's page runs at their end while closed, for a click during a rerun.

    The server writes each run's time to ``$PUDD_TIMING_LOG`` at the very end of the run
    (``ui.pages.routing``), here a named pipe: while this keeps the pipe open for reading
    and drains it, runs end at once; closed, the next run's write blocks on opening the pipe,
    so that run shows all it drew and stays running until :meth:`release`. A loaded server's
    slow rerun, without depending on how loaded this machine is.
    """

    def __init__(self, fifo: Path) -> None:
        os.mkfifo(fifo)
        self.fifo = fifo
        self._fd: int | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.release()
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                if self._fd is not None:
                    try:
                        os.read(self._fd, 65536)
                    except BlockingIOError:
                        pass
            time.sleep(0.02)

    def hold(self) -> None:
        """From the next run on, each run waits at its end (a run already writing finishes)."""
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def release(self) -> None:
        """Let the held run and every later one end."""
        with self._lock:
            if self._fd is None:
                self._fd = os.open(self.fifo, os.O_RDONLY | os.O_NONBLOCK)

    def close(self) -> None:
        self.release()
        self._stop.set()
        self._thread.join(timeout=5)


@pytest.fixture(scope="module")
def held_app(chromium_path: str, tmp_path_factory: pytest.TempPathFactory  
             ) -> Iterator[tuple[str, RunGate]]:
    """A server of its own whose runs a :class:`RunGate` can hold at their end."""
    folder = tmp_path_factory.mktemp("held_runs")
    gate = RunGate(folder / "runs.fifo")
    try:
        with serve(folder, env={"PUDD_TIMING_LOG": str(gate.fifo)}) as url:
            yield url, gate
    finally:
        gate.close()


SCRIPT_STATE = ("() => document.querySelector('[data-testid=\"stApp\"]')"
                "?.getAttribute('data-test-script-state')")


def _idle(page: Any, heading: str) -> None:
    """Until the script is not running (Streamlit's own flag, set at once, unlike the status
    widget, which shows after 0.5 s), then as ``_settled``."""
    page.wait_for_function(f"() => ({SCRIPT_STATE})() === 'notRunning'", timeout=120_000)
    _settled(page, heading)


def _radios(page: Any, question: int) -> Any:
    return _questions(page).nth(question).get_by_role("radio")


def _ticks(page: Any, question: int) -> list[bool]:
    """Whether each option of the page's ``question``-th question is ticked, in the browser."""
    radios = _radios(page, question)
    return [bool(radios.nth(i).is_checked()) for i in range(radios.count())]


def _assert_committed(page: Any, question: int, choice: int, text: str) -> None:
    """The chosen option ticked, every option greyed, and a line naming the choice."""
    ticks = _ticks(page, question)
    assert ticks == [i == choice for i in range(len(ticks))], ("not the choice ticked", ticks)
    radios = _radios(page, question)
    assert all(radios.nth(i).is_disabled() for i in range(radios.count()))
    main = page.locator('[data-testid="stMain"]')
    assert main.get_by_text(f"You chose: {text}", exact=True).count() == 1


@pytest.mark.parametrize(("lesson", "question", "make"), [
    (1, 0, lambda: views.pu_points(0).question()),
    (3, 0, lambda: views.theorem2_question(theorem2_demo(Theorem2Config(seed=0)), 1e-3)),
], ids=["lesson2", "lesson4"])
def test_right_answer_again_wrong_with_clicks_during_held_reruns_keeps_the_last_answer(
    browser: Any, held_app: tuple[str, RunGate], lesson: int, question: int, make: Any  
) -> None:
    """Issue 34 item 3: right, "Answer again", wrong, each click made while the run of the
    one before is still running (held at its end, as on a loaded server), then to another
    lesson and back, also while the runs are held. "Answer again" clicked during the
    commit's rerun was lost before: the first answer's radio, replaced by another, stayed
    on the page while it had the focus, and vanished under the pointer."""
    url, gate = held_app
    asked = make()
    right = asked.answers[0]
    wrong = next(i for i in range(len(asked.options)) if i not in asked.answers)
    spec, other = LESSONS[lesson], LESSONS[lesson - 1]
    context = browser.new_context(viewport=PROJECTOR)
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        page.goto(f"{url}/{spec.url_path}")
        _idle(page, spec.title)
        others = [_ticks(page, q) for q in range(_questions(page).count()) if q != question]
        main = page.locator('[data-testid="stMain"]')
        for choice, then in ((right, "Answer again"), (wrong, None)):
            gate.hold()
            _questions(page).nth(question).locator("label").nth(choice).click()
            main.get_by_text(f"You chose: {asked.options[choice]}", exact=True).wait_for()
            assert page.evaluate(SCRIPT_STATE) == "running"  # the commit's run, held
            _assert_committed(page, question, choice, asked.options[choice])
            if then is not None:  # clicked while that run is still running
                page.get_by_role("button", name=then).click()
            gate.release()
            _idle(page, spec.title)
            assert_no_exception(page)
            if then is not None:  # answered again: open, nothing ticked, no feedback
                assert not any(_ticks(page, question)), "Answer again was lost"
                assert not _radios(page, question).first.is_disabled()
                assert main.get_by_text("You chose:").count() == 0
            else:
                _assert_committed(page, question, choice, asked.options[choice])
                hint = main.locator('[data-testid="stAlert"]:has-text("Not quite")')
                assert hint.count() == 1
                assert "*" not in hint.inner_text()  # the hints' Markdown is rendered
        assert [_ticks(page, q) for q in range(_questions(page).count())
                if q != question] == others  # the page's other question untouched
        links = page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]')
        for target in (other, spec):  # to the lesson before and back: the answer is kept
            links.filter(has_text=target.title).click()
            _idle(page, target.title)
            assert_no_exception(page)
        _assert_committed(page, question, wrong, asked.options[wrong])
        assert main.locator('[data-testid="stAlert"]:has-text("Not quite")').count() == 1
        gate.hold()  # again, back to this lesson while the other lesson's run is held
        links.filter(has_text=other.title).click()
        page.get_by_role("heading", name=other.title, level=1).wait_for()
        assert page.evaluate(SCRIPT_STATE) == "running"
        links.filter(has_text=spec.title).click()
        gate.release()
        _idle(page, spec.title)
        assert_no_exception(page)
        _assert_committed(page, question, wrong, asked.options[wrong])
    finally:
        gate.release()
        context.close()
