"""Lesson 1: concept drift, and why error-rate detectors are late."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from pudd_core import plots
from pudd_core.views.course import LESSON1_STREAMS, DelayConfig
from ui import cache, chart, course, state
from ui.pages import ensure_routed

ensure_routed()  # first: run inside app.py's frame (ui/pages.py explains why)

PATH = "pages/course-drift.py"
course.header(PATH, "Say what concept drift is, and measure on a stream whose drift is known "
                    "how many predictions an error-rate detector (DDM) needs before it alarms.")
st.markdown(
    "**Concept drift** is a change in what the labels mean: the relation between the features "
    "*x* and the label *y* moves, so a model that was right yesterday is wrong today. In the "
    "SEA stream each instance has three features in [0, 10] and is labelled 1 when "
    "x₀ + x₁ exceeds a threshold; at a **drift** the threshold moves, and the instances near "
    "the boundary change label. SEA can also flip a share of labels at random (label noise): "
    "those errors happen everywhere and say nothing about a drift.\n\n"
    "A Gaussian naive Bayes model learns chunk 0 and is then never retrained, so the errors "
    "after the drift are the drift's. An **error-rate detector** such as DDM sees only whether "
    "each prediction was right (0/1). It alarms when the running error rate is clearly above the "
    "lowest it has seen, and *clearly* takes many errors when the rise is small next to the "
    "noise: that wait is its **detection delay**."
)
st.radio("Stream", list(LESSON1_STREAMS), format_func=lambda n: f"{n}: {LESSON1_STREAMS[n]}",
         horizontal=True, **state.bound(state.COURSE_DRIFT_STREAM))
cfg = replace(DelayConfig(), dataset=state.get(state.COURSE_DRIFT_STREAM),
              seed=int(state.get(state.SEED)))
lesson = cache.course_delay(cfg)
question = lesson.question()
answered = course.ask(question)

chunks = [c.chunk_index for c in lesson.ddm.chunks]
alarms = ({"DDM": lesson.ddm.alarms, "PUDD": lesson.pudd.alarms} if answered else {})
chart.chart(plots.error_trace_figure(
    chunks, [c.error_rate for c in lesson.ddm.chunks], true_drifts=[lesson.drift], alarms=alarms,
    title=f"Gaussian NB on {cfg.dataset}, chunks of {cfg.chunk_size}"
          + (": alarms" if answered else ": commit to a prediction to see the alarms")),
    key="course_drift_chart")
before, after = lesson.error_rates()
if answered:
    top, bottom = st.columns(2), st.columns(2)  # two by two: readable on a projector
    for col, name, run in ((top[0], "DDM", lesson.ddm), (top[1], "PUDD-3", lesson.pudd)):
        delay = lesson.delay_predictions(run)
        col.metric(f"{name} delay (predictions)", "none" if delay is None else f"{delay:,}",
                   f"{lesson.false_alarms(run)} false alarm(s)", delta_arrow="off",
                   delta_color="gray")
    bottom[0].metric("Error rate before the drift", f"{before:.1%}")
    bottom[1].metric("Error rate after the drift", f"{after:.1%}")
    spread = cache.course_delay_spread(replace(cfg, seed=0))
    st.markdown(f"**This run among {len(spread.seeds)}.** "
                f"{spread.sentence(cfg.seed, lesson.verdict())}")
    st.caption(
        f"Grey band: the drift, chunk {lesson.drift} (seed {cfg.seed}; the sidebar's seed draws "
        "another stream). False alarms: alarms before the drift. Delay counts the predictions "
        "from the drift's first one to the alarm: DDM can alarm inside a chunk, PUDD tests at "
        "the end of each chunk. The counts above are the same two runs on this stream at each "
        "seed; try the three noise levels: with less noise DDM is first more often.")
course.try_it("pages/explorer.py", course.explorer_values(cfg.explorer(), lesson.drift),
              "these runs in the Stream explorer, at the drift's chunk")
course.next_lesson(PATH)
state.write_query("course-drift")
