"""Lesson 5: thresholds: delay against false alarms, α = 10⁻³ or 0.05, the count floor."""

from __future__ import annotations

import streamlit as st

from pudd_core import plots
from pudd_core.views.course import (
    LESSON1_STREAMS,
    STUDY_CHUNK_SIZE,
    STUDY_CHUNKS,
    SWEEP_CHUNKS,
    SWEEP_DATASET,
    study_verdict,
    threshold_question,
)
from ui import cache, chart, controls, course, state
from ui.pages import ensure_routed

ensure_routed()  # first: run inside app.py's frame (ui/pages.py explains why)

PATH = "pages/course-thresholds.py"
course.header(PATH, "Choose a threshold α knowing what it trades: a larger α alarms sooner and "
                    "more often, also without drift; say why PUDD uses α = 10⁻³ rather than "
                    "0.05, and what the authors' count floor does to small windows.")
st.markdown(
    "PUDD alarms when a test's p-value is below α. α is the false-alarm rate of **one** test "
    "on an unchanged stream, but PUDD runs several tests per chunk (one per cut point) and a "
    "stream has many chunks, and every alarm throws away the model's history. How often does "
    "α = 0.05 alarm where nothing changed? The question below measures it. A small α needs "
    "stronger evidence, so a real drift is seen later, or, if it is weak, not at all. The "
    "paper's variants are PUDD-1, PUDD-3 and PUDD-5 (α = 10⁻¹, 10⁻³, 10⁻⁵).\n\n"
    f"First the stream without drift: SEA with one concept, {STUDY_CHUNKS} chunks of "
    f"{STUDY_CHUNK_SIZE}, a model updated on every chunk, and PUDD testing each chunk "
    "without ever resetting (the first chunk has no history to test against and the "
    "authors' skip rule spares some cuts, so some chunks have no test: the question counts "
    "the tested ones)."
)
seed = int(state.get(state.SEED))
study = cache.course_study(seed)
if course.ask(threshold_question(study, 0.05)):
    chart.chart(plots.bonferroni_figure(study.chunk_p, alpha=0.05,
                                        title="Smallest p-value of each chunk, no drift"),
                key="course_thresholds_stationary")
    spread = cache.course_study_spread()
    st.markdown(f"**This run among {len(spread.spread.seeds)}.** "
                f"{spread.spread.sentence(seed, study_verdict(study))} {spread.rates_text()}")

st.subheader("Delay against false alarms on a drifting stream")
swept = cache.course_sweep(seed)
sweep, n_drifts = swept.frame, len(swept.drift_chunks)
st.markdown(f"{SWEEP_DATASET} (SEA, {LESSON1_STREAMS[SWEEP_DATASET]}), {SWEEP_CHUNKS} chunks, "
            "true drifts at chunks "
            f"{', '.join(map(str, swept.drift_chunks))}; PUDD at each α from 10⁻¹ to 10⁻¹⁰. "
            "Move the threshold.")
alpha = controls.alpha_selector(state.COURSE_ALPHA_EXP)
exponent = int(state.get(state.COURSE_ALPHA_EXP))
row = sweep.loc[sweep["exponent"] == exponent].iloc[0]
cols = st.columns(4)
cols[0].metric("Alarms", f"{int(row['n_alarms'])}")
cols[1].metric("Drifts detected", f"{n_drifts - int(row['missed'])} of {n_drifts}")
cols[2].metric("False alarms", f"{int(row['false_alarms'])}")
cols[3].metric("Mean delay (chunks)", "—" if row["mean_delay"] != row["mean_delay"]
               else f"{row['mean_delay']:.1f}")
without = int((study.chunk_p["min_p"] < alpha).sum())
st.caption(f"At α = {alpha:g} the stream without drift above alarms on {without} of its "
           f"{len(study.chunk_p)} tested chunks. Seed {seed}.")
chart.chart(plots.threshold_sweep_figure(sweep, n_drifts=n_drifts,
                                         title="PUDD at every α on the drifting stream"),
            key="course_thresholds_sweep")

st.subheader("Choosing α on the stream itself")
st.markdown(
    "Which α, then? Mark a stretch of the stream you trust to be stable, and let the data "
    "say what each α costs there: PUDD runs on many resampled copies of the stretch (blocks "
    "of rows as long as the stretch's rows depend on each other, reshuffled), each α's "
    "false alarms are counted, and the largest α whose "
    "false alarms stay under a target is chosen; the same copies with a change injected say "
    "how soon that α sees it. On this run's stream:")
calibrated = cache.course_calibration(seed)
st.markdown(calibrated.text())
st.caption("The estimate holds for data like the stretch: after a drift the stream is no "
           "longer like it, and alarms are what PUDD is for. The Threshold lab (section 3) "
           "does this on any stream or on your own log.")

st.subheader("The count floor")
floor = cache.course_floor(seed)
st.markdown(
    "Before the test the authors raise every cell of the table to at least 5. Where a window "
    "has no errors at all, that invents 5 errors in each row: with a small recent window the "
    "invented share differs between the rows, and the test sees a difference the data do not "
    f"have. Measured here on {floor.n_chunks} chunks of 100 predictions with no error: PUDD-3 "
    f"alarms on {floor.with_floor:.0%} of them with the floor and on {floor.without:.0%} "
    "without it (no floor, sparse columns merged until every expected count is 5). The lab "
    "keeps the floor as the default because it reproduces the authors' numbers; the Stream "
    "explorer can switch it off (`clamp_min=0`)."
)
course.try_it("pages/thresholds.py",
              {state.THRESHOLDS_DATASET: SWEEP_DATASET, state.THRESHOLDS_CLASSIFIER: "gnb",
               state.THRESHOLDS_EXPONENTS: (1, 10), state.THRESHOLDS_SEEDS: 1,
               state.THRESHOLDS_N_CHUNKS: SWEEP_CHUNKS, state.THRESHOLDS_ALPHA_EXP: exponent},
              "this sweep in the Threshold lab")
course.next_lesson(PATH)
state.write_query("course-thresholds")
