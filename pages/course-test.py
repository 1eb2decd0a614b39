"""Lesson 3: PUDD's test: buckets, the contingency table, χ² and the cut points."""

from __future__ import annotations

import numpy as np
import streamlit as st

from pudd_core import plots
from pudd_core.views.course import CUT_ALPHA, CUT_STREAMS, CutLesson
from pudd_core.views.explorer import ExplorerConfig, PUDDSetting
from ui import cache, chart, course, state
from ui.pages import ensure_routed

ensure_routed()  # first: run inside app.py's frame (ui/pages.py explains why)

PATH = "pages/course-test.py"
ALPHA = CUT_ALPHA  # PUDD-3
course.header(PATH, "Follow PUDD's test by hand: buckets fitted on the reference window, the "
                    "2 × (K + 1) contingency table, Pearson's χ² and its p-value, and the scan "
                    "over cut points that decides where the recent window starts.")
st.markdown(
    "PUDD keeps the chunks since its last alarm. A **cut** splits them into a *reference* "
    "window (older chunks) and a *recent* one (the last few). The reference window's correct "
    "predictions are grouped by PU-index into K **buckets** (Adaptive PU-index Bucketing, "
    "k-means that keeps every bucket large enough); all misclassified predictions share one "
    "more column. Counting both windows into these K + 1 columns gives a 2 × (K + 1) "
    "**contingency table**; Pearson's **χ² test** asks whether the two rows could come from "
    "the same distribution. Each cell is first raised to at least 5 (the authors' floor).\n\n"
    "Where does the drift start? PUDD does not know, so it **scans** several cuts (the authors' "
    "code: recent windows of 1, 2, 4, 8, … chunks) and alarms when the smallest p-value is "
    f"below α (PUDD-3: α = {ALPHA:g})."
)
lesson: CutLesson = cache.course_cuts(int(state.get(state.SEED)))
st.markdown(f"Here a Gaussian naive Bayes model trained once on chunk 0 of {lesson.dataset} "
            f"({CUT_STREAMS[lesson.dataset]}; chunks of {lesson.chunk_size}) sees chunks 1 to "
            f"{len(lesson.u)}; the concept changes at chunk {lesson.drift}.")
question = lesson.question()
answered = course.ask(question)

cut = st.select_slider("Cut: the recent window is the last … chunks", options=list(lesson.cuts),
                       **state.bound(state.COURSE_TEST_CUT))
res = lesson.test(int(cut))
first = len(lesson.u) + 1 - int(cut)  # the recent window's first chunk
cols = st.columns(3)
cols[0].metric("χ² statistic", f"{res.statistic:.1f}")
cols[1].metric("Degrees of freedom", f"{res.dof}")
cols[2].metric("p-value", plots.p_text(res.p_value).removeprefix("p = "),
               "drift (PUDD-3)" if res.p_value < ALPHA else "no drift (PUDD-3)",
               delta_arrow="off", delta_color="orange" if res.p_value < ALPHA else "gray")
old, new = slice(None, -int(cut)), slice(-int(cut), None)
st.markdown(f"**Reference: chunks 1–{first - 1}; recent: chunks {first}–{len(lesson.u)}.** "
            "Their PU-index, with the buckets fitted on the reference window's correct "
            "predictions (dotted).")
chart.chart(plots.pu_histogram_figure(
    np.concatenate(lesson.u[old]), np.concatenate(lesson.correct[old]),
    np.concatenate(lesson.u[new]), np.concatenate(lesson.correct[new]),
    edges=res.buckets.edges, names=("Reference", "Recent")),
    key="course_test_histogram")
st.markdown("**The tested table** (observed counts after the floor of 5; expected counts "
            "E = row total × column total / N)")
st.dataframe(plots.contingency_table_frame(
    res.table, res.expected, row_labels=("Reference", "Recent"),
    column_labels=[*(f"B{i}" for i in range(1, res.table.shape[1])), "miscl."]))
st.caption("B1 … BK: the buckets of correct predictions, by PU-index; miscl.: every "
           "misclassified prediction.")
if answered:
    scan = lesson.scan()
    chart.chart(plots.cut_pvalue_figure(lesson.cuts, scan, alpha=ALPHA,
                                        title="p-value of every cut"),
                key="course_test_scan")
    tested = [c for c in lesson.cuts if c & (c - 1) == 0]
    smallest = lesson.smallest_tested_p()
    st.caption(f"The authors' PUDD tests only the cuts {', '.join(map(str, tested))}; its "
               f"smallest p-value among them is {plots.p_text(smallest)}"
               f" ({'an alarm' if smallest < ALPHA else 'no alarm'} at "
               f"α = {ALPHA:g}). The drift is {lesson.n_new} chunks before the end.")
    alarm_spread, cut_spread = cache.course_cut_spreads()
    alarm, best = lesson.verdicts(ALPHA)
    st.markdown(f"**This run among {len(alarm_spread.seeds)}.** "
                f"{alarm_spread.sentence(lesson.seed, alarm)} "
                f"{cut_spread.sentence(lesson.seed, best)}")
else:
    st.caption("Commit to a prediction to see the p-value of every cut at once.")
explore = ExplorerConfig(lesson.dataset, "gnb", "train-once", (PUDDSetting(3),), (),
                         int(state.get(state.SEED)), 1, lesson.chunk_size, len(lesson.u) + 1)
course.try_it("pages/explorer.py", course.explorer_values(explore, len(lesson.u)),
              f"PUDD-3 on this stream in the Stream explorer, at chunk {len(lesson.u)}")
course.next_lesson(PATH)
state.write_query("course-test")
