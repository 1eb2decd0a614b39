"""Lesson 2: from a prediction's probabilities to its PU-index, point by point."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from pudd_core import plots
from pudd_core.views.course import LESSON1_STREAMS
from pudd_core.views.explorer import ExplorerConfig, PUDDSetting
from ui import cache, chart, course, state
from ui.pages import ensure_routed

ensure_routed()  # first: run inside app.py's frame (ui/pages.py explains why)

PATH = "pages/course-pu-index.py"
course.header(PATH, "Compute a prediction's PU-index from its class probabilities and its true "
                    "label, and read a PU-index histogram: where correct and wrong, sure and "
                    "unsure predictions land.")
st.markdown(
    "A classifier gives each class a probability. For an instance whose true class is *y*, the "
    "**prediction uncertainty index** is u = 1 − p(y): one minus the probability the model gave "
    "to the *truth* (paper, eq. 7). A confident right answer has u near 0, a confident wrong "
    "one u near 1, and an unsure one sits near the middle. With two classes, u < 0.5 exactly "
    "when the prediction is right.\n\n"
    "The 0/1 error keeps only which side of 0.5 a prediction fell on. The PU-index keeps how "
    "far: two windows with the same number of errors can differ in how sure the model was, "
    "and that is what PUDD tests (lessons 3 and 4)."
)
seed = int(state.get(state.SEED))
points = cache.course_points(seed)
st.markdown(f"Below are the first {len(points.u)} predictions of a Gaussian naive Bayes model on "
            f"a SEA stream ({points.dataset}: {LESSON1_STREAMS[points.dataset]}), trained on its "
            "first chunk; add them one at a time.")
question = points.question()
answered = course.ask(question)

n = len(points.u)
# up to the question's prediction on a first visit and after a new seed (a new question)
if (state.get(state.COURSE_PU_SHOWN) is None
        or st.session_state.get("course_pu_shown_seed", seed) != seed):
    state.set_value(state.COURSE_PU_SHOWN, points.asked + 1)
st.session_state["course_pu_shown_seed"] = seed
shown = st.slider("Predictions added to the histogram", 1, n, **state.bound(state.COURSE_PU_SHOWN))
hidden = None if answered else points.asked  # the asked point stays hidden until answered
visible = [i for i in range(shown) if i != hidden]
frame = pd.DataFrame({
    "prediction": [i + 1 for i in visible],
    "p(class 0)": points.proba[visible, 0], "p(class 1)": points.proba[visible, 1],
    "true class": points.labels[visible],
    "u = 1 − p(true)": points.u[visible],
    "right?": ["yes" if points.correct[i] else "no" for i in visible],
})
ring = points.asked if answered and points.asked < shown else None
chart.chart(plots.pu_dots_figure(points.u[visible], points.correct[visible],
                                 shown=len(visible), highlight=ring,
                                 title=f"PU-index of {len(visible)} predictions"),
            key="course_pu_dots")
st.dataframe(frame, hide_index=True,
             column_config={c: st.column_config.NumberColumn(format="%.2f")
                            for c in ("p(class 0)", "p(class 1)", "u = 1 − p(true)")})
if hidden is not None and hidden < shown:
    st.caption(f"Prediction {hidden + 1} is the question's: it joins the table and the chart "
               "once you have committed to an answer.")
st.caption("Dots: one prediction each, stacked in arrival order (circle right, cross wrong), "
           "the newest ringed, and the question's once answered; the dashed line is u = 0.5. "
           f"Seed {seed}: the sidebar's seed draws other predictions.")
explore = ExplorerConfig(points.dataset, "gnb", "train-once", (PUDDSetting(3),), (), seed, 1,
                         points.chunk_size, 3)
course.try_it("pages/explorer.py", course.explorer_values(explore, 2),
              "this stream and model in the Stream explorer, at chunk 2")
course.next_lesson(PATH)
state.write_query("course-pu-index")
