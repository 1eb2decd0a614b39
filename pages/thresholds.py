"""Threshold lab: PUDD's α from 10⁻¹ to 10⁻¹⁰, and false alarms without multiple-test correction."""

from __future__ import annotations

import streamlit as st

from pudd_core import plots
from pudd_core.streams import DatasetUnavailableError
from ui import cache, calibration, chart, messages, progress, state, thresholds
from ui.pages import ensure_routed

ensure_routed()  # first: run inside app.py's frame (ui/pages.py explains why)

seed = int(state.get(state.SEED))

st.title("Threshold lab")
st.markdown(
    "PUDD alarms when the smallest p-value of its window-pair tests falls below the "
    "threshold α (PUDD-x: α = 10⁻ˣ; the paper reports x = 1, 3, 5). A larger α reacts "
    "sooner and to smaller changes, and raises more false alarms."
)

st.subheader("1. Sweeping α")
cfg, slots = thresholds.sweep_controls(seed)
try:
    cfg.base().validate()
except (ValueError, DatasetUnavailableError) as err:
    slots.show(err)
    st.info("Fix the setting marked above to run the sweep; your other settings are kept.")
else:
    runs = cfg.runs()
    try:
        outcome = progress.run_tasks(state.THRESHOLDS_JOB,
                                     [cache.run_task(c, label) for label, c in runs])
    except (ValueError, OSError) as err:
        slots.show(err)
    else:
        done = [r for r in outcome.results if r is not None]
        if done:
            sweep = plots.threshold_sweep_frame(done)
            drifts = done[0].drift_chunks
            chart.draw(plots.threshold_sweep_figure,
                       sweep, n_drifts=len(drifts) if drifts is not None else None,
                       title=f"PUDD with {cfg.classifier} on {cfg.dataset}: "
                             f"{len(done)} of {len(runs)} runs",
                       key="thresholds_sweep")
            st.caption(
                ("Each point: the mean over the seeds (error bars ±1 standard deviation). "
                 if len(cfg.seeds_run) > 1 else "Each point: one run. ")
                + ("Detection delay, missed drifts and false alarms are scored against the "
                   f"stream's {len(drifts)} true drifts (a drift counts as detected by the first "
                   "alarm before the next one)." if drifts is not None else
                   "This stream has no known drift points: only accuracy and alarms apply.")
            )
            # built only while open: st.code and st.dataframe load Streamlit's 1.6 MB
            # highlighter and its table's code with the page
            behind = st.expander("The runs behind the chart", key="thresholds_runs_open",
                                 on_change="rerun")
            if behind.open:
                behind.dataframe(sweep, hide_index=True)
                behind.code(cfg.as_python(), language="python")

st.subheader("2. False alarms on a stream without drift")
st.markdown(
    "Keep one concept for the whole stream and let PUDD test every chunk without ever "
    "resetting: every significant test is then a false alarm. Each chunk tests several cut "
    "points (window pairs), and PUDD alarms on the smallest p-value among them."
)
study_cfg, study_slot = thresholds.study_controls(seed, cfg.classifier, cfg.dataset)
if study_cfg is not None and study_cfg.classifier != cfg.classifier:
    study_slot.info(f"{cfg.classifier} needs images; the study uses gnb on this tabular stream.")
study = None
if study_cfg is not None:
    try:
        study = progress.run_tasks(state.THRESHOLDS_STUDY_JOB, [cache.false_alarm_task(
            study_cfg.dataset, study_cfg.classifier, study_cfg.n_chunks, study_cfg.seed)],
            what="stationary runs").results[0]
    except (ValueError, OSError) as err:
        study_slot.error(f"**Stationary stream**: {messages.escape(err)}",
                         icon=":material/error:")
if study is not None and study_cfg is not None:
    alpha = 10.0 ** -int(state.get(state.THRESHOLDS_ALPHA_EXP))
    rates = study.rates(cfg.exponents)
    chart.draw(plots.false_alarm_figure,
               rates, title=f"False-alarm rates against the nominal α: {len(study.cut_p)} "
                            f"tests in {len(study.chunk_p)} chunks of {study_cfg.dataset} "
                            "without drift",
               key="thresholds_false_alarms")
    chart.draw(plots.bonferroni_figure,
               study.chunk_p, alpha=alpha,
               title=f"The smallest p of each chunk against α = {alpha:.0e} and the "
                     "Bonferroni α / m",
               key="thresholds_bonferroni")
    r = study.rates((int(state.get(state.THRESHOLDS_ALPHA_EXP)),)).iloc[0]
    cols = st.columns(3)
    cols[0].metric(f"Per test, at α = {alpha:.0e}", f"{r['per_test']:.2%}",
                   help="Share of single cut-point tests with p < α: the paper's per-test "
                        "guarantee says about α.")
    cols[1].metric("Per chunk (an alarm)", f"{r['per_chunk']:.2%}",
                   help="Share of chunks whose smallest p is below α.")
    cols[2].metric("Bonferroni: α × mean cut points", f"{r['bonferroni']:.2%}",
                   help="The union bound on the per-chunk rate if every single test were "
                        "calibrated: α × the mean number of cut points per chunk.")
    st.markdown(
        """
> "the specified threshold controls the Type I error rate for each individual window pair
> test rather than the overall Type I error across the entire substream. Consequently, we
> do not employ multiple comparison adjustments." (Lu et al., AAAI 2025, Sensitivity of
> the PU-index)

So α bounds the blue *per-test* rate, which should sit near the purple diagonal or below
(the model keeps training, so the null holds only approximately). An alarm takes the
smallest of several p-values, so the *per-chunk* rate is higher: up to about α times the
number of cut points (the grey Bonferroni bound). Correcting would mean comparing the
smallest p with α / m (the green dashes of the second chart); the paper instead picks α
small enough (10⁻³ to 10⁻⁵) that even the uncorrected rate is negligible. With few tests a
rate of 0 cannot be told from a small one: open markers sit at half of 1 / (number of
tests).
"""
    )

st.subheader("3. Choose α on this stream")
st.markdown(
    "Which α keeps false alarms rare on *your* stream, and what does it cost in delay? Mark "
    "a stretch you trust to be stable: PUDD runs on block-bootstrap resamples of it (blocks "
    "as long as its rows depend on each other keep its short-range structure) for each α, "
    "and again with a change "
    "injected half-way, beside the baselines. The chosen α is the largest whose false-alarm "
    "interval stays within your target; the chunks after the stretch are then monitored at it."
)
source = thresholds.calib_source(cfg)
if source is not None:
    settings = calibration.controls("thresholds", source.n_chunks)
    if settings is not None:
        try:
            cal_outcome = progress.run_tasks(state.THRESHOLDS_CALIB_JOB, [calibration.task(
                source.name, source.key, source.log, source.chunk_size, settings,
                source.n_chunks, **dict(source.columns))], what="resampled runs")
        except (ValueError, OSError) as err:
            calibration.refused(err)
        else:
            if cal_outcome.results[0] is not None:
                calibration.show(*cal_outcome.results[0])
                cli = st.expander("The same on the command line", key="thresholds_cli_open",
                                  on_change="rerun")
                if cli.open:  # built only while open, as the runs' table above
                    cli.code("\n".join(filter(None, (source.make, calibration.command(
                        source.path, source.chunk_size, settings, source.options)))),
                        language="bash")

st.subheader("4. The count floor on streams with few errors")
thresholds.committed_false_alarms()

state.write_query("thresholds")
