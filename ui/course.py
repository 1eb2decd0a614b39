"""The course's Streamlit glue: a lesson's header, its questions, progress and links onward."""

from __future__ import annotations

import hashlib
from typing import Any

import streamlit as st

from pudd_core.views.course import Question
from pudd_core.views.explorer import ExplorerConfig
from ui import state
from ui.pages import COURSE, PAGES, PageSpec


def lessons() -> tuple[PageSpec, ...]:
    """The lesson pages, in course order."""
    return tuple(p for p in PAGES if p.section == COURSE)


def header(path: str, goal: str) -> None:
    """The lesson's title (from the navigation list), its learning goal and the progress."""
    course = lessons()
    number = next(i for i, p in enumerate(course, 1) if p.path == path)
    st.title(course[number - 1].title)  # the sidebar's title: "1. Concept drift ..."
    st.markdown(f"**Learning goal.** {goal}")
    answered = {k.split("|", 1)[0] for k in state.get(state.COURSE_ANSWERS)}
    st.caption(f"Lesson {number} of {len(course)}. Questions answered in this browser session, "
               f"all lessons: {len(answered)}.")


def _answer_key(question: Question) -> str:
    return f"{question.key}|{question.scenario}"


def _widget(question: Question) -> str:
    digest = hashlib.sha256(_answer_key(question).encode()).hexdigest()[:10]
    return f"course_q_{question.key}_{digest}"


def _record(question: Question) -> None:
    """``on_change`` of the question's radio: the clicked option is the committed answer."""
    choice = st.session_state.get(_widget(question))
    if choice is not None:  # a new dict: the default one is shared by every session
        answers = dict(state.get(state.COURSE_ANSWERS))
        answers[_answer_key(question)] = int(choice)
        st.session_state[state.COURSE_ANSWERS] = answers


def _forget(question: Question) -> None:
    """``on_click`` of "Answer again": no answer, and the radio told to show none.

    Assigned, not deleted: a deleted widget key reaches the browser as nothing, and the
    browser's radio kept its tick (the next click on that option then changed nothing).
    """
    answers = dict(state.get(state.COURSE_ANSWERS))
    answers.pop(_answer_key(question), None)
    st.session_state[state.COURSE_ANSWERS] = answers
    st.session_state[_widget(question)] = None


def ask(question: Question) -> bool:
    """A predict-then-see question: commit to an option, then the lab's feedback.

    The answer is kept per browser session under the question and its scenario, so it
    survives moving between pages; returns whether this scenario's question is answered.

    One radio per question (its key from the question and its scenario), in every state:
    open (no option ticked), committed (the choice ticked, disabled, and a line naming it,
    so a class vote shows what each student chose) and answered again (reset to no option
    by :func:`_forget`). Its key alone is its identity in Streamlit, so the browser keeps
    the same widget. A second radio for the committed state (as before) replaced the first
    at the same place on every commit: until that rerun ended, Streamlit's frontend kept the
    replaced radio, which had the focus from the click, on screen below the new one, and
    hid it once the focus left it. Pressing "Answer again" takes the focus, so the page
    moved up between the press and the release, the release landed on the slider below,
    and the click was lost; on a loaded server the rerun lasts long enough to meet it
    (tests/app/test_browser_course.py holds the rerun open).

    The radio's value is the canonical answer (``course_answers``, which survives other
    pages; a widget key is dropped on a page without its widget), assigned to the widget
    on every committed run: Streamlit discards a disabled widget's value from the browser
    and would send the radio back with no option ticked.
    """
    choice = state.get(state.COURSE_ANSWERS).get(_answer_key(question))
    key = _widget(question)
    if choice is not None or st.session_state.get(key) is not None:
        st.session_state[key] = choice
    with st.container(border=True):
        st.markdown(f"**Predict, then see.** {question.prompt}")
        st.radio("Your prediction", list(range(len(question.options))),
                 format_func=question.options.__getitem__, index=None, key=key,
                 on_change=_record, args=(question,), disabled=choice is not None,
                 label_visibility="collapsed")
        if choice is None:
            st.caption("Pick an option to commit to it; the lab then runs it and explains.")
            return False
        st.caption(f"You chose: {question.options[choice]}")
        feedback = question.check(choice)
        show = st.success if feedback.correct else st.warning
        show(feedback.text,
             icon=":material/check_circle:" if feedback.correct else ":material/lightbulb:")
        st.button("Answer again", key=f"{key}_again", on_click=_forget, args=(question,),
                  icon=":material/replay:")
    return True


def try_it(page: str, values: dict[str, Any], what: str) -> None:
    """A link that opens the full tool of ``page`` in the lesson's exact state."""
    spec = next(p for p in PAGES if p.path == page)
    state.reread_query(spec.url_path or "")
    st.page_link(page, label=f"Try it yourself: {what}", icon=":material/open_in_new:",
                 query_params=state.link_params({state.SEED: state.get(state.SEED), **values}))


def explorer_values(config: ExplorerConfig, chunk: int) -> dict[str, Any]:
    """The explorer's canonical values for ``config`` with the charts at ``chunk``."""
    return {
        state.EXPLORER_DATASET: config.dataset, state.EXPLORER_CLASSIFIER: config.classifier,
        state.EXPLORER_REGIME: config.regime,
        state.EXPLORER_SETTINGS: tuple(s.text for s in config.settings),
        state.EXPLORER_BASELINES: config.baselines, state.EXPLORER_SEEDS: config.seeds,
        state.EXPLORER_CHUNK_SIZE: config.chunk_size, state.EXPLORER_N_CHUNKS: config.n_chunks,
        state.EXPLORER_CURSOR: max(chunk, 1),
    }


def next_lesson(path: str) -> None:
    """The link to the next lesson (or back to the tools after the last)."""
    course = lessons()
    i = next(i for i, p in enumerate(course) if p.path == path)
    if i + 1 < len(course):
        st.page_link(course[i + 1].path, label=f"Next: {course[i + 1].title}",
                     icon=":material/arrow_forward:")
    else:
        st.page_link(PAGES[0].path, label="End of the course: back to Home and the tools",
                     icon=":material/home:")
