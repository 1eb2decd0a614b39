"""Home: what the PU-index and PUDD are, where to go next, and PUDD running live."""

from __future__ import annotations

import streamlit as st

from pudd_core import plots
from pudd_core.experiments.runner import RunConfig
from ui import cache, chart, controls, messages, state
from ui.pages import COURSE, PAGES, TOOLS, ensure_routed

ensure_routed()  # first: run inside app.py's frame (ui/pages.py explains why)

st.title("PUDD Lab")
# the first screen (1280 x 800): what the lab is for, for whom, and the three ways in; the
# theory follows below the live run (issue 34 item 9)
st.markdown(
    "**See a drift detector decide, one chunk at a time.** When the data a model sees change "
    "(concept drift), its predictions go wrong before anyone notices. PUDD watches how sure "
    "the model is of the true class, not only whether it was right, and this lab shows each "
    f"of its decisions beside the classic detectors'. A companion to {controls.PAPER}, for "
    "**teachers and students** of stream learning, **researchers** checking the paper, and "
    "**engineers** with a model in production."
)
WAYS = (  # (page, button, who it is for)
    ("pages/course-drift.py", "Take the course",
     f"{sum(s.section == COURSE for s in PAGES)} short lessons with questions, for a class "
     "or on your own."),
    ("pages/explorer.py", "Explore a stream",
     "PUDD and the baseline detectors on the paper's streams, step by step."),
    ("pages/monitor.py", "Check your own model",
     "A log of your model's predictions: where it drifted, and the rows behind each alarm."),
)
for col, (path, label, who) in zip(st.columns(len(WAYS), border=True), WAYS, strict=True):
    spec = next(s for s in PAGES if s.path == path)
    col.page_link(path, label=f"**{label}**", icon=spec.icon)
    col.caption(who)

st.subheader("Live: PUDD-3 watching a SEA stream")
seed = int(state.get(state.SEED))
cfg = RunConfig(dataset="sea0", classifier="gnb", detector="pudd", alpha=1e-3, seed=seed,
                n_chunks=40)
try:
    result = cache.run(cfg)
except ValueError as err:
    st.error(f"This run cannot be made with seed {seed}: {messages.escape(err)}. Pick another "
             "seed in the sidebar.")
    st.stop()
frame = result.to_frame()
drifts = result.drift_chunks or ()
chart.draw(
    plots.error_trace_figure,
    frame["chunk_index"], frame["error_rate"], true_drifts=drifts,
    alarms={"PUDD": result.alarms}, p_values=frame["p_value"], alpha=cfg.alpha,
    title="Gaussian naive Bayes on SEA (40 chunks), trained on each chunk after testing it",
    key="home_run_chart",
)
st.caption(
    f"Seed {seed}. True drifts at chunks {', '.join(map(str, drifts)) or 'none'}; "
    f"PUDD-3 alarms at chunks {', '.join(map(str, result.alarms)) or 'none'}; mean chunk "
    f"accuracy {result.accuracy:.3f}. After an alarm the model is retrained on the recent "
    "window and PUDD starts a new history. Change the seed in the sidebar for another stream."
)

st.subheader("The idea")
st.markdown(
    """
**The PU-index.** For a prediction on an instance with true label *y*, the prediction
uncertainty index is $u = 1 - f_y(x)$: one minus the probability the classifier gives to the
*true* class (paper, eq. 7). A confident correct prediction has *u* near 0, a confident error
*u* near 1. Error-rate detectors (DDM, EDDM, HDDM, ADWIN on the 0/1 errors, …) only see
whether each prediction was right; the PU-index also keeps how sure the model was of the truth.

**Why it helps.** Theorem 1: if two windows have the same PU histogram (one bin for the
correct predictions, bins over the misclassified ones), they have the same error rate and
error standard deviation, so every change of error rate changes the PU histogram too (on
finite windows a plain error-rate test can still be the more powerful one for such a change:
the Theorem 2 page computes both powers). Theorem 2: the
converse fails, two windows can share error rate and error spread while their PU
distributions differ, so the PU-index can see a change the error rate cannot. That is not
evidence that PUDD alarms earlier: the Fig. 1 page's example does not show it (its two
concepts' error rates differ in the population), and the Reproduction page measures the
delays on the paper's streams.

**PUDD.** The PU-index-based Drift Detector works on chunks. After each chunk it splits the
chunks since the last alarm into an older and a recent window at several cut points,
buckets the older window's *correct* predictions by PU-index with Adaptive PU-index
Bucketing (Ei-kMeans made to keep every bucket large enough), puts all misclassified
predictions in one extra bin, and runs Pearson's chi-square test on the resulting
2 × (K + 1) table. It alarms when the smallest p-value is below the threshold α (PUDD-x:
α = 10⁻ˣ), then forgets the old history.
"""
)

n_lessons = sum(s.section == COURSE for s in PAGES)
for section, heading in ((COURSE, f"Course: {n_lessons} lessons, for a class or on your own"),
                         (TOOLS, "Explore")):
    st.subheader(heading)
    for spec in (s for s in PAGES[1:] if s.section == section):
        st.page_link(spec.path, label=spec.title, icon=spec.icon)
        st.caption(spec.blurb)

state.write_query("")
