"""Theorem 2, step by step: equal error rates, different PU histograms (and Theorem 1)."""

from __future__ import annotations

import streamlit as st

from pudd_core import plots
from pudd_core._validation import ParameterError
from pudd_core.theorems import error_shift_power
from ui import cache, chart, controls, messages, state
from ui.pages import ensure_routed

ensure_routed()  # first: run inside app.py's frame (ui/pages.py explains why)

seed = int(state.get(state.SEED))


def _p_value(p: float) -> str:
    """A metric's value: the p-value alone ("9.0e-120"), so it fits a third of 1024 px."""
    return plots.p_text(p).removeprefix("p = ")


st.title("Theorem 2, step by step")
st.markdown(
    "**Theorem 2** (Lu et al., AAAI 2025): if two windows have equal error rates or error "
    "standard deviations, their PU-index histograms (one bin for the correct predictions, "
    "bins over the misclassified ones) *may still differ*. The appendix proves it with a "
    "counterexample; here it is, live, with three detectors looking at it."
)
tab2, tab1 = st.tabs(["Theorem 2: same error rate, different PU",
                      "Theorem 1: same PU histogram, same error rate"])

with tab2:
    st.subheader("1. Two windows of a binary classifier")
    st.markdown(
        "Each window has *n* predictions; the same share is misclassified in both. Correct "
        "predictions draw their PU-index uniformly from their range (below 0.5), misclassified "
        "ones from theirs (above 0.5). Defaults: the proof's [0, 0.1] / (0.9, 1] versus "
        "(0.1, 0.2] / (0.8, 0.9]."
    )
    cfg, slots = controls.theorem2_controls(seed)
    try:
        res = cache.theorem2(cfg)
    except ValueError as err:
        slots.report(err)
        st.info("Fix the setting marked above to see steps 2–4; your other settings are kept.")
    else:
        exponent = int(state.get(state.THEOREM2_ALPHA_EXP))
        summary_alpha = 10.0 ** -exponent
        n_ddm = len(res.ddm_alarms_window2)
        pudd_says = ("drift by the authors' rule (no test)" if res.pudd.shortcut else
                     f"{plots.p_text(res.pudd.p_value)}, "
                     f"{'drift' if res.pudd.p_value < summary_alpha else 'no drift'}")
        err_says = (f"{plots.p_text(res.error_test.p_value)}, "
                    f"{'drift' if res.error_test.p_value < summary_alpha else 'no drift'}")
        st.info(f"**In short**: error rates {res.stats1.error_rate:.3f} and "
                f"{res.stats2.error_rate:.3f}; at α = {controls.alpha_label(exponent)}, PUDD: "
                f"{pudd_says}; the error-rate test: {err_says}; DDM: {n_ddm} "
                f"alarm{'' if n_ddm == 1 else 's'} in window 2. Steps 2–4 show why.",
                icon=":material/summarize:")
        st.subheader("2. Same error rate, same error standard deviation")
        cols = st.columns(4)
        cols[0].metric("Window 1 error rate", f"{res.stats1.error_rate:.3f}")
        cols[1].metric("Window 2 error rate", f"{res.stats2.error_rate:.3f}")
        cols[2].metric("Window 1 error std", f"{res.stats1.error_std:.3f}")
        cols[3].metric("Window 2 error std", f"{res.stats2.error_std:.3f}")
        st.caption("Error std = √(ē(1 − ē)) depends on the error rate ē alone (proof of Thm. 1).")

        st.subheader("3. Different PU-index histograms")
        w = res.windows
        chart.draw(plots.pu_histogram_figure, w.u1, w.correct1, w.u2, w.correct2,
                   edges=res.pudd.buckets.edges, key="theorem2_histogram")
        st.caption(
            f"Dotted lines: the {res.pudd.buckets.k} buckets PUDD fitted on window 1's correct "
            "predictions. All misclassified predictions share one extra column of the test."
        )

        st.subheader("4. Who notices?")
        alpha = controls.alpha_selector(state.THEOREM2_ALPHA_EXP)
        pudd_p, err_p = res.pudd.p_value, res.error_test.p_value
        ddm2 = res.ddm_alarms_window2
        verdicts = st.columns(3)
        if res.pudd.shortcut:  # the authors' rule decided: no χ² test, so no evidence to show
            verdicts[0].metric("PUDD's χ² test, p", "no test",
                               "drift by the authors' rule", delta_arrow="off",
                               delta_color="orange")
            pudd_p = float("nan")
        else:
            verdicts[0].metric("PUDD's χ² test, p", _p_value(pudd_p),
                               "drift" if pudd_p < alpha else "no drift", delta_arrow="off",
                               delta_color="orange" if pudd_p < alpha else "gray")
        verdicts[1].metric("Error-rate test: 2 × 2 χ², p", _p_value(err_p),
                       "drift" if err_p < alpha else "no drift", delta_arrow="off",
                       delta_color="orange" if err_p < alpha else "gray")
        verdicts[2].metric("DDM alarms in window 2", f"{len(ddm2)}",
                       "drift" if ddm2 else "no drift", delta_arrow="off",
                       delta_color="orange" if ddm2 else "gray")
        if res.pudd.shortcut:
            verdicts[0].caption(f"No test ran: {res.pudd.shortcut}. The authors' code then "
                                "reports p = 0, a drift by rule; it is not evidence of a change.")
        verdicts[2].caption(
            "DDM, fed the 0/1 errors of window 1 then window 2, has its own 3σ rule (α does "
            "not apply). Alarms anywhere: "
            f"{', '.join(map(str, res.ddm_alarms)) or 'none'} (window 2 starts at {cfg.n}); "
            "an alarm in window 1 is a false alarm on an unchanged error rate."
        )
        chart.draw(plots.verdict_figure, ["PUDD", "Error-rate test"], [pudd_p, err_p],
                   alpha=alpha, key="theorem2_verdicts")
        st.markdown("**PUDD's contingency table** (observed counts after the authors' floor of "
                    "5 per cell; expected counts E = row total × column total / N)")
        st.table(plots.contingency_table_frame(  # a static table: every column in view
            res.pudd.table, res.pudd.expected, row_labels=("Window 1", "Window 2"))
            .style.format("{:.4g}"))
        # built only while open: st.code loads Streamlit's 1.6 MB highlighter with the page
        code = st.expander("Show the code", key="theorem2_code_open", on_change="rerun")
        if code.open:
            code.code(cfg.as_python(), language="python")

        st.subheader("5. The other direction: a pure error-rate change")
        st.markdown(
            "Theorem 1 says the PU histogram *shows* every change of the error rate. That does "
            "not make PUDD's test as *powerful* for one: when only the error rate moves (the "
            "correct predictions' PU-index keeps its shape), PUDD's 2 × (K + 1) table has "
            "exactly the noncentrality λ of the 2 × 2 error-rate test, spread over K degrees "
            "of freedom instead of 1. Its power, computed below (large-sample noncentral χ², "
            "at the α chosen above), is lower for every K > 1."
        )
        shift = st.slider("Window 2's error rate minus window 1's", 0.01, 0.30, step=0.01,
                          **state.bound(state.THEOREM2_ERROR_SHIFT))
        e1 = res.stats1.error_rate
        try:
            power = error_shift_power(cfg.n, cfg.n, e1, e1 + float(shift),
                                      k=res.pudd.buckets.k, alpha=alpha)
        except ParameterError as err:
            st.info(f"No power to compute here: {messages.escape(err)}. Choose a window 1 "
                    "error rate and a change that stay strictly between 0 and 1.")
        else:
            cols5 = st.columns(3)
            cols5[0].metric("Noncentrality λ (both tables)", f"{power.noncentrality:.2f}")
            cols5[1].metric("Power of the 2 × 2 error-rate test", f"{power.power_error_test:.2f}")
            cols5[2].metric(f"Power of PUDD's 2 × {power.k + 1} table",
                            f"{power.power_pu_test:.2f}")
            st.caption(
                f"n = {cfg.n} per window, error rate {e1:.3f} → {e1 + float(shift):.3f}, "
                f"K = {power.k} buckets (PUDD's on window 1 above), α = {alpha:g}: the "
                f"error-rate test rejects with probability {power.power_error_test:.2f}, "
                f"PUDD's table with {power.power_pu_test:.2f}. Steps 1-4 show the other "
                "direction: a PU shift that leaves the error rate, and so the 2 × 2 test, blind."
            )

with tab1:
    st.subheader("Theorem 1: identical PU histograms force equal error rates")
    st.markdown(
        "If two windows' PU histograms have the same bin proportions, their error rates "
        "(1 − share of the correct bin) and error standard deviations are equal, so every "
        "change of the error rate changes the PU histogram. Changing it is not the same as "
        "being caught as soon: for a pure error-rate change on finite windows the 2 × 2 "
        "error-rate test is the more powerful one (step 5 of the Theorem 2 tab computes both "
        "powers). Window 2 below is window 1 with every bin scaled; perturb it to see what "
        "breaks."
    )
    cfg1, slots1 = controls.theorem1_controls(seed)
    try:
        res1 = cache.theorem1(cfg1)
    except ValueError as err:
        slots1.report(err)
    else:
        check = res1.check
        st.metric("Histograms identical?", "yes" if check.identical else "no")
        cols1 = st.columns(4)  # four, as on the other tab: five cut their labels at 1024 px
        cols1[0].metric("Window 1 error rate", f"{check.stats1.error_rate:.4f}")
        cols1[1].metric("Window 2 error rate", f"{check.stats2.error_rate:.4f}")
        cols1[2].metric("Window 1 error std", f"{check.stats1.error_std:.4f}")
        cols1[3].metric("Window 2 error std", f"{check.stats2.error_std:.4f}")
        chart.draw(plots.theorem1_histogram_figure, res1.edges, res1.hist1, res1.hist2,
                   key="theorem1_histogram")
        if check.identical:
            st.success("Identical proportions ⇒ equal error rate and error std (Theorem 1).")
        elif check.stats1 == check.stats2:
            st.info("The histograms differ but the error rates are equal: moving errors between "
                    "error bins is invisible to an error rate. That is Theorem 2's situation.")
        else:
            st.warning("The error rates differ, and so must the histograms: the contrapositive "
                       "of Theorem 1. Every change of the error rate shows in the PU "
                       "histogram, but a PU test is not as powerful against it as the 2 × 2 "
                       "error-rate test: Theorem 2's tab, step 5, computes both powers.")

state.write_query("theorem2")
