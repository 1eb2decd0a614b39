"""Lesson 4: what the error rate cannot see (Theorem 2), and what it sees better."""

from __future__ import annotations

import streamlit as st

from pudd_core import plots
from pudd_core.views.course import power_comparison, power_question, theorem2_question
from pudd_core.views.illustration import Theorem2Config
from ui import cache, chart, course, state
from ui.pages import ensure_routed

ensure_routed()  # first: run inside app.py's frame (ui/pages.py explains why)

PATH = "pages/course-theorem2.py"
ALPHA = 1e-3
ERROR1 = 0.10  # window 1's error rate in the converse
course.header(PATH, "Explain with Theorem 2 why a test of PU-index histograms can see a change "
                    "that no error-rate test can, and show the converse: when only the error "
                    "rate changes, the plain 2 × 2 test is the more powerful.")
st.markdown(
    "**Theorem 1** (paper): if two windows have the same PU-index histogram, they have the same "
    "error rate: every change of error rate changes the PU histogram too (with finite data, "
    "though, not always as detectably: see the converse below). **Theorem 2**: the "
    "converse fails: two windows can share their error rate while their PU-indices differ."
)
seed = int(state.get(state.SEED))
t2 = Theorem2Config(seed=seed)
st.markdown(
    f"Below, the proof's counterexample: {t2.error_rate:.0%} of each window is wrong, but in "
    f"window 2 the correct predictions are less sure (u in {t2.correct2[0]:g}–{t2.correct2[1]:g}"
    f" instead of {t2.correct1[0]:g}–{t2.correct1[1]:g}) and the wrong ones less wrong "
    f"({t2.wrong2[0]:g}–{t2.wrong2[1]:g} instead of {t2.wrong1[0]:g}–{t2.wrong1[1]:g})."
)
res = cache.theorem2(t2)
w = res.windows
st.markdown("**Two windows, same error rate.** Their PU-index histograms, with PUDD's buckets "
            "(dotted).")
chart.draw(plots.pu_histogram_figure, w.u1, w.correct1, w.u2, w.correct2,
           edges=res.pudd.buckets.edges, key="course_theorem2_histogram")
if course.ask(theorem2_question(res, ALPHA)):
    chart.draw(plots.verdict_figure, ["PUDD", "Error-rate test"],
               [res.pudd.p_value, res.error_test.p_value], alpha=ALPHA,
               key="course_theorem2_verdicts")

st.subheader("The other direction: a change only the error rate carries")
st.markdown(
    "Now the opposite case: window 2 simply errs more often, and *within* the correct and the "
    "wrong predictions nothing changes. Both tables then carry the same signal (the same "
    "noncentrality λ), but PUDD's 2 × (K + 1) table spreads it over K degrees of freedom "
    "where the 2 × 2 table has one. The power (the chance that the test alarms) is computed "
    "with scipy's noncentral χ² distribution; move the sliders."
)
cols = st.columns(3)
cols[0].select_slider("Window size n", options=list(state.COURSE_POWER_N_CHOICES),
                      **state.bound(state.COURSE_POWER_N))
cols[1].slider(f"Window 2's error rate (window 1: {ERROR1:.0%})", 0.11, 0.5, step=0.01,
               **state.bound(state.COURSE_POWER_ERROR2))
cols[2].slider("PUDD's buckets K", 1, 10, **state.bound(state.COURSE_POWER_K))
power = power_comparison(int(state.get(state.COURSE_POWER_N)), ERROR1,
                         round(float(state.get(state.COURSE_POWER_ERROR2)), 4),
                         k=int(state.get(state.COURSE_POWER_K)), alpha=ALPHA)
if course.ask(power_question(power)):
    chart.draw(plots.power_figure, power, title="Chance to alarm on this change",
               key="course_theorem2_power")
    st.caption(f"Noncentrality λ: {power.lambda_2x2:.3f} (2 × 2) and {power.lambda_pu:.3f} "
               f"(2 × {power.k + 1}), equal as the algebra says. Pearson's test without Yates' "
               "correction; the authors apply Yates to 2 × 2 tables, which lowers its power a "
               "little. A fair picture: each test is best at the change it is built for.")
course.try_it("pages/theorem2.py",
              {state.THEOREM2_N: t2.n, state.THEOREM2_ERROR_RATE: t2.error_rate,
               state.THEOREM2_CORRECT1: t2.correct1, state.THEOREM2_WRONG1: t2.wrong1,
               state.THEOREM2_CORRECT2: t2.correct2, state.THEOREM2_WRONG2: t2.wrong2,
               state.THEOREM2_ALPHA_EXP: 3},
              "the counterexample on the Theorem 2 page")
course.next_lesson(PATH)
state.write_query("course-theorem2")
