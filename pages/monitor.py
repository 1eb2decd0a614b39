"""Your model's predictions: PUDD on a log you bring (label + class probabilities)."""

from __future__ import annotations

import streamlit as st

from pudd_core.monitoring import report_view
from pudd_core.plots import p_text
from pudd_core.plots.monitor import monitor_figures, monitor_report_html, variant_text
from pudd_core.views.explorer import Comparison, summary_frame
from ui import calibration, chart, messages, monitor, player, progress, state
from ui.pages import ensure_routed

ensure_routed()  # first: run inside app.py's frame (ui/pages.py explains why)

st.title("Your model's predictions")
st.markdown(
    "Bring the log of your own model's predictions: for each instance the true label and the "
    "predicted class probabilities, optionally a timestamp. PUDD needs nothing more: the "
    "PU-index is 1 − p(true class). The log is cut into chunks of rows or of time, and PUDD "
    "and the baselines you pick watch it chunk by chunk. Your model is not retrained here: "
    "the log is what it is, so every detector sees the same errors."
)

with st.container(border=True):
    log = monitor.choose_log()
    if log is None:
        st.stop()
    try:
        head = monitor.head(log.key, log)
    except (ValueError, OSError) as err:
        monitor.show_error(err)
        st.stop()
    try:
        labels = monitor.choose_labels(log, head)
    except monitor.LabelsRefused:
        st.stop()
    mapping = monitor.map_columns(log, head, labels)
if mapping is None:
    st.stop()
try:
    outcome = progress.run_tasks(state.MONITOR_JOB, [monitor.task(log, mapping)],
                                 what="runs")
except (ValueError, OSError) as err:
    if labels is not None and monitor.about_labels(err):
        monitor.show_labels_error(labels.slot, err)
    else:
        monitor.show_error(err)
    st.stop()
result = outcome.results[0]
if result is None:
    st.stop()

alarms = result.alarms
tested = (f"**{result.n_rows:,} rows**: {result.n_rows - result.n_pending_rows:,} in "
          f"**{result.n_chunks} tested chunks**, **{result.n_pending_rows:,} rows pending** (no "
          f"label yet: chunks {result.pending[0].index}–{result.pending[-1].index}, not tested)"
          if result.pending else
          f"**{result.n_rows:,} rows** in **{result.n_chunks} tested chunks**")
st.markdown(
    f"{tested}; PUDD at α = {result.alpha:g}: **{len(alarms)} "
    f"alarm{'s' if len(alarms) != 1 else ''}**"
    + (f" at chunk{'s' if len(alarms) != 1 else ''} {', '.join(map(str, alarms))}"
       if alarms else "") + ".")
st.caption(f"PUDD runs with {variant_text(result)}.")
if result.notes:
    st.markdown("\n".join(f"- {messages.escape(n)}" for n in result.notes))
table = result.alarm_frame()
if not table.empty:
    table.insert(1, "player_chunk", table["chunk"] + 1)
    if table[["start", "end"]].isna().all(axis=None):  # chunks of rows: no time window
        table = table.drop(columns=["start", "end"])
    # as the player says it: an underflow to 0 is "< 1e-300", not p = 0
    table["p_value"] = [p_text(p).removeprefix("p = ") for p in table["p_value"]]
    st.dataframe(table, hide_index=True,
                 column_config={"player_chunk": st.column_config.NumberColumn(
                                    "in the player", help="The player's chunk k is the log's "
                                                          "chunk k − 1.")})
    st.caption("Chunks and rows are numbered from 0 (rows after the header), as in the CSV, "
               "the JSON and the report; the player numbers chunks from 1 (column “in the "
               "player”)." + (" Start and end: the chunk's time window."
                              if "start" in table.columns else ""))

runs = result.runs()
if result.n_chunks <= monitor.PLAYER_MAX_CHUNKS:
    if table.empty:  # else the alarm table's caption has said it
        st.caption("The player numbers chunks from 1: its chunk k is the log's chunk k − 1.")
    player.cursor_from_address()
    player.player(Comparison(labels=(f"PUDD (α = {result.alpha:g})",), seeds=(0,),
                             settings=((runs[0],),), baselines=tuple((r,) for r in runs[1:])),
                  band=False)
else:
    st.info(f"{result.n_chunks:,} chunks: too many to play in the browser. The whole run is "
            "drawn below; choose larger chunks to step through them.", icon=":material/info:")
    figures = monitor_figures(result)
    for name in ("trace", "minp"):
        chart.chart(figures[name], key=f"monitor_{name}")

with st.expander("Alarms and error rate of every detector"):
    # no drift is known in a user's log: drop the columns that would only say so
    st.table(summary_frame(runs).dropna(axis=1, how="all").style.format(
        {"accuracy": "{:.4f}"}, na_rep="–"))
    st.caption("Nothing adapts here, so each detector's error rate is your model's: "
               f"accuracy is the share of right predictions by {monitor.decisions_text(result)}"
               ", the mean over the tested chunks.")
cols = st.columns(2)
cols[0].download_button(
    "Download the per-chunk log (CSV)", result.to_frame().to_csv(index=False),
    file_name=f"pudd_monitor_{log.name}.csv", mime="text/csv", icon=":material/download:",
    on_click="ignore", key="monitor_download_log",
    help="Per chunk: rows, time window, accuracy, PU mean, min p, every cut's p, alarms.")
cols[1].download_button(
    "Download the HTML report",
    lambda: monitor_report_html(result, report_view(
        result, log.source(), labels=mapping.labels_source(),
        id_column=mapping.id_column), name=log.name),
    file_name=f"pudd_report_{log.name}.html", mime="text/html", icon=":material/download:",
    on_click="ignore", key="monitor_download_report",
    help="One self-contained file (plotly inline, works offline): the state in words, the "
         "reference period, which classes' PU-index moved, traces, every alarm and the "
         "winning windows' histograms.")
# built only while open: st.code loads Streamlit's 1.6 MB highlighter with the page
code = st.expander("Show the code", key="monitor_code_open", on_change="rerun")
if code.open:
    code.code(mapping.as_python(str(log.path or log.name)), language="python")

calibration.section(log, mapping, result.n_chunks)

state.write_query("monitor")
