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
    choice = st.session_state.get(_widget(question))
    if choice is not None:  # a new dict: the default one is shared by every session
        state_answers = dict(state.get(state.COURSE_ANSWERS))
        state_answers[_answer_key(question)] = int(choice)
        st.session_state[state.COURSE_ANSWERS] = state_answers


def _forget(question: Question) -> None:
    answers = dict(state.get(state.COURSE_ANSWERS))
    answers.pop(_answer_key(question), None)
    st.session_state[state.COURSE_ANSWERS] = answers
    st.session_state.pop(_widget(question), None)


def ask(question: Question) -> bool:
    """A predict-then-see question: commit to an option, then the lab's feedback.

    The answer is kept per browser session under the question and its scenario, so it
    survives moving between pages; returns whether this scenario's question is answered.

    An open question is a radio with no option ticked. A committed one is another radio
    (its own key), created with the chosen option ticked and disabled, and a line naming the
    choice, so a class vote shows what each student chose. Two widgets, not one switched to
    disabled: in Chromium the one radio, redrawn in place with ``index`` set, showed no option
    ticked after the click (``checked`` false on all four), while the same radio drawn afresh
    (after a trip to another page) showed the choice; tests/app/test_browser_course.py.
    """
    choice = state.get(state.COURSE_ANSWERS).get(_answer_key(question))
    labels = list(range(len(question.options)))
    with st.container(border=True):
        st.markdown(f"**Predict, then see.** {question.prompt}")
        if choice is None:
            st.radio("Your prediction", labels, format_func=question.options.__getitem__,
                     index=None, key=_widget(question), on_change=_record, args=(question,),
                     label_visibility="collapsed")
            st.caption("Pick an option to commit to it; the lab then runs it and explains.")
            return False
        st.radio("Your prediction", labels, format_func=question.options.__getitem__,
                 index=choice, key=f"{_widget(question)}_done", disabled=True,
                 label_visibility="collapsed")
        st.caption(f"You chose: {question.options[choice]}")
        feedback = question.check(choice)
        show = st.success if feedback.correct else st.warning
        show(feedback.text,
             icon=":material/check_circle:" if feedback.correct else ":material/lightbulb:")
        st.button("Answer again", key=f"{_widget(question)}_again", on_click=_forget,
                  args=(question,), icon=":material/replay:")
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
