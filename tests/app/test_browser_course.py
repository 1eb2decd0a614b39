"""The course in a real headless Chromium at 1024 × 768 and 1280 × 800: every lesson, every action.

Reuses test_browser.py's server, browser and checks; the screenshots (one per lesson, after
its question is answered) are the README's course section with PUDD_UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

from harness.browser import assert_no_exception, settle
from pudd_core.views import course as views
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


def _checked(page: Any) -> list[bool]:
    """Whether each option of the page's first question is ticked, as the browser has it."""
    radios = _questions(page).first.get_by_role("radio")
    return [bool(radios.nth(i).is_checked()) for i in range(radios.count())]


def test_lesson2_a_committed_answer_stays_ticked_and_answering_again_keeps_the_new_one(
    projector: Any, app_url: str  
) -> None:
    # the sequence that lost lesson 2's answer in two full walks: right, Answer again, wrong
    page = projector
    spec = LESSONS[1]
    question = views.pu_points(0).question()
    right = question.answers[0]
    wrong = next(i for i in range(len(question.options)) if i not in question.answers)
    page.goto(f"{app_url}/{spec.url_path}")
    _settled(page, spec.title)
    options = _questions(page).first.locator("label")
    for choice, alert in ((right, "Right."), (wrong, "Not quite")):
        options.nth(choice).click()
        _settled(page, spec.title)
        assert_no_exception(page)
        main = page.locator('[data-testid="stMain"]')
        assert main.locator(f'[data-testid="stAlert"]:has-text("{alert}")').count() == 1
        assert _checked(page) == [i == choice for i in range(len(question.options))]
        assert main.get_by_text(f"You chose: {question.options[choice]}").count() == 1
        if choice == right:
            page.get_by_role("button", name="Answer again").click()
            _settled(page, spec.title)
            assert not any(_checked(page)), "Answer again left an option ticked"
            assert main.locator('[data-testid="stAlert"]').count() == 0
    # the answer survives another rerun (a slider moved) and a trip to another lesson
    page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]').filter(
        has_text=LESSONS[0].title).click()
    _settled(page, LESSONS[0].title)
    page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]').filter(
        has_text=spec.title).click()
    _settled(page, spec.title)
    assert _checked(page) == [i == wrong for i in range(len(question.options))]
    assert page.locator('[data-testid="stAlert"]:has-text("Not quite")').count() == 1
