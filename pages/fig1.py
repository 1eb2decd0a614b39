"""Fig. 1: SEA features, Gaussian naive Bayes, a concept boundary moving from 9 to 8.2."""

from __future__ import annotations

import streamlit as st

from pudd_core import plots
from ui import cache, chart, controls, state
from ui.pages import ensure_routed

ensure_routed()  # first: run inside app.py's frame (ui/pages.py explains why)

st.title("Fig. 1: the illustrative example")
st.markdown(
    "The paper's first figure shows a drift that an error rate cannot see: a Gaussian naive "
    "Bayes (GNB) classifier keeps exactly the same accuracy after the concept changed, while "
    "its prediction uncertainty shifts. Rebuilt here from the authors' notebook recipe: "
    "`SEA(variant=1, seed=42).take(2000)`, features x0 and x1 only, labels y = [x0 + x1 > 9], "
    "half for training GNB and half as **test set 1**; **test set 2** is "
    "`SEA(variant=3, seed=42).take(1000)` relabelled with y = [x0 + x1 > 8.2]."
)
data = cache.fig1()

st.subheader("1. The model and the two concepts")
chart.draw(plots.fig1_scatter_figure, data, key="fig1_scatter")
st.caption(
    "The same seed gives test set 2 the first 1000 feature vectors of the original 2000, so "
    "the two sets share half of their points; only the labels inside the yellow band changed."
)

st.subheader("2. The same accuracy")
cols = st.columns(4)
cols[0].metric("Accuracy, test set 1", f"{data.accuracy1:.3f}")
cols[1].metric("Accuracy, test set 2", f"{data.accuracy2:.3f}")
cols[2].metric("Errors (set 1 / set 2)", f"{data.n_errors1} / {data.n_errors2}")
cols[3].metric("Error-rate test, p", plots.p_text(data.error_test.p_value).removeprefix("p = "),
               help="The 2 × 2 χ² test of the two sets' counts of errors and correct ones.")

st.subheader("3. Different PU-index distributions, but not significantly so")
chart.draw(plots.pu_histogram_figure, data.u1, data.correct1, data.u2, data.correct2,
           edges=data.pudd.buckets.edges, names=("Test set 1", "Test set 2"),
           key="fig1_histogram")
st.markdown("**Zoom on the errors** (u ≥ 0.5)")  # a figure title would sit on its legend
chart.draw(plots.pu_histogram_figure, data.u1, data.correct1, data.u2, data.correct2,
           edges=data.pudd.buckets.edges, names=("Test set 1", "Test set 2"),
           zoom_errors=True, key="fig1_histogram_errors")
st.markdown(
    f"The misclassified points of set 2 sit closer to the boundary (it moved towards them). "
    f"Yet PUDD's own test of set 2 against set 1 gives **{plots.p_text(data.pudd.p_value)}** "
    "at n = 1000 per set: **not significant** at any usual threshold. Fig. 1 illustrates the "
    "idea; with 1000 points it is not evidence of a detectable drift."
)
with st.expander("Why the notebook printed “p = 0.0, drift detected”"):
    st.markdown(
        f"""
* The notebook histograms **1 − max p(c)**, the classifier's doubt about its own
  prediction, not the PU-index **1 − p(y)**, which uses the *true* label. The two agree on
  correct predictions and differ on every error (1 − max p is always below 0.5).
* Its test call passed 0/1 *integer* arrays as masks, which NumPy reads as row indices: the
  printed p = 0.0 is an artifact (reference-behaviour spec, section 6).
* With proper boolean masks but still 1 − max p, the reference window has no value above
  0.5, so it counts no errors while the recent one counts 42: here that gives
  {plots.p_text(data.notebook_p_value)}, still an artifact.
* With the true PU-index, as above: {plots.p_text(data.pudd.p_value)}.
"""
    )
    chart.draw(plots.pu_histogram_figure, data.notebook_u1, data.correct1, data.notebook_u2,
               data.correct2, names=("Test set 1", "Test set 2"),
               title="The notebook's quantity: 1 − max p(c)", key="fig1_notebook_histogram")

st.subheader("4. More data: the p-value as the test sets grow")
st.markdown(
    "Both sets keep their 1000 Fig. 1 points and grow with new points of the same concept "
    "(fresh SEA generators, same recipe). Each size is tested again."
)
curve_cfg = controls.fig1_curve_controls()
curve = cache.fig1_curve(curve_cfg.sizes, curve_cfg.seed)
chart.draw(plots.pvalue_curve_figure, curve.sizes, {"PUDD": curve.pudd_p,
                                                   "Error-rate test": curve.error_p},
           alpha=curve_cfg.alpha, key="fig1_pvalue_curve")
n_pudd = curve.first_significant(curve_cfg.alpha)
n_err = curve.first_significant(curve_cfg.alpha, test="error")
st.markdown(
    f"At n = 1000 PUDD's p-value is {curve.pudd_p[0]:.2f}. With α = "
    f"{controls.alpha_label(state.get(state.FIG1_ALPHA_EXP))}, PUDD "
    + (f"rejects from n = {n_pudd:,} on" if n_pudd else
       f"does not reject up to n = {curve.sizes[-1]:,}")
    + ", the error-rate test "
    + (f"from n = {n_err:,} on." if n_err else f"not up to n = {curve.sizes[-1]:,}.")
    + " The equal accuracies at n = 1000 belong to that sample: as the sets grow the two "
    "concepts' error rates move apart (table below), so an error-rate test catches this drift "
    "too once there is enough data."
)
st.subheader("5. What this example does and does not show")
same = n_pudd == n_err
st.markdown(
    "The paper uses Fig. 1 to illustrate a **mechanism**: with the accuracy unchanged, the "
    "PU-index of the errors moves, which is information an error rate throws away. Rebuilt "
    "honestly, this example does not show PUDD detecting *earlier*: "
    + (f"neither test rejects up to n = {curve.sizes[-1]:,} at this α, " if not n_pudd
       and not n_err else f"both tests first reject at n = {n_pudd:,} here, " if same else
       f"PUDD first rejects at n = {n_pudd or 0:,} and the error-rate test at n = "
       f"{n_err or 0:,} (0: not in this range), ")
    + "because on this stream the two concepts' error rates are not equal in the population, "
    "only in the 1000-point sample. Where the error rates are equal by construction, only "
    "the PU-index can see the change: that is **Theorem 2** (its page builds such windows). "
    "Whether PUDD's extra information pays off on real streams is what the paper's tables "
    "measure (the **Reproduction** page)."
)
# a static table: its nine rows need no grid (st.dataframe's chunk, loaded for it alone)
frame = curve.to_frame()
st.table(frame.style.format({**dict.fromkeys(frame.columns[1:3], "{:.2e}"),
                             **dict.fromkeys(frame.columns[3:], "{:.3f}"),
                             frame.columns[0]: "{:,}"}), hide_index=True)

state.write_query("fig1")
