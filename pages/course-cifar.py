"""Lesson 6: a real demo, CIFAR-10-CD's interest drift: what to watch for."""

from __future__ import annotations

import streamlit as st

from pudd_core import plots
from pudd_core.views.course import cifar_question
from ui import cache, chart, cifar, controls, course, state
from ui.pages import ensure_routed

ensure_routed()  # first: run inside app.py's frame (ui/pages.py explains why)

PATH = "pages/course-cifar.py"
course.header(PATH, "Watch a real demo knowing what to look for: in CIFAR-10-CD the labels "
                    "drift while the images do not; a drift touches only part of a chunk; and "
                    "a detector is judged by whether its alarms land on the drifts.")
seed = int(state.get(state.SEED))
cfg = cifar.current_config(seed)
drift = cache.interest_drift(seed, cfg.n_chunks)
names = drift.class_names
st.markdown(
    "CIFAR-10-CD cuts CIFAR-10's training images into chunks of 500, the same number of each "
    "class in every chunk. An image is **positive** when its class is one of three "
    "*interests*; after each chunk every interest may move to another class (a Markov chain). "
    "So the **images never change; only which ones are labelled 1 does**. A detector that "
    "looks at the images alone has nothing to see; a detector on the classifier's predictions "
    "sees the model answer by the old interests."
)
chart.chart(plots.interest_timeline_figure(drift.positive_mask(), names,
                                           drift_chunks=drift.drift_chunks,
                                           title=f"Interests of the {cfg.n_chunks} chunks "
                                                 f"(seed {seed})"),
            key="course_cifar_timeline")
question = cifar_question(drift.positive_classes, drift.drift_chunks, names)
if question is None:
    st.info(f"No interest changes in these {cfg.n_chunks} chunks with seed {seed}: choose "
            "another seed in the sidebar, or more chunks on the CIFAR-10-CD page.",
            icon=":material/info:")
else:
    course.ask(question)
few = sum(len(p) < 3 for p in drift.positive_classes)
st.markdown(
    "**What to watch for in the demo.**\n"
    f"1. The grey bands: {len(drift.drift_chunks)} interest change(s) in {cfg.n_chunks} chunks "
    f"here ({', '.join(map(str, drift.drift_chunks)) or 'none'}). An alarm in a band's "
    "segment detects it; an alarm elsewhere is a false alarm, and each alarm retrains the "
    "model on little data.\n"
    f"2. Collisions: in {few} chunk(s) two interests share a class, so fewer classes are "
    "positive; the error rate can move without a new positive class.\n"
    "3. The model against the majority class: if it is no better than always answering "
    "*negative*, its errors carry no signal and no detector can do well (the CIFAR-10-CD page "
    "says so when it happens)."
)
runs = cfg.runs()
done = {name: cache.finished(("run", c)) for name, c in runs.items()}
finished = {n: r for n, r in done.items() if r is not None}
if finished:
    chart.chart(plots.runs_figure(finished, true_drifts=drift.drift_chunks,
                                  title=f"{cfg.classifier}: the CIFAR-10-CD page's runs"),
                key="course_cifar_runs")
    controls.run_summary(plots.run_summary_frame(finished))
    st.caption("These runs were computed on the CIFAR-10-CD page in this server and are "
               "reused here, not recomputed.")
else:
    st.info(f"The detector runs ({', '.join(runs)} with {cfg.classifier}) have not been "
            "computed on this server yet; they take a while (the CIFAR-10-CD page shows the "
            "estimate). Open the page below to run them; this lesson then shows them too.",
            icon=":material/hourglass_empty:")
course.try_it("pages/cifar10-cd.py",
              {state.CIFAR_N_CHUNKS: cfg.n_chunks, state.CIFAR_CLASSIFIER: cfg.classifier,
               state.CIFAR_DETECTORS: cfg.detectors, state.CIFAR_ALPHA_EXP: cfg.alpha_exp,
               state.CIFAR_CHUNK: drift.drift_chunks[0] if drift.drift_chunks else 0},
              "the CIFAR-10-CD page with these settings")
course.next_lesson(PATH)
state.write_query("course-cifar")
