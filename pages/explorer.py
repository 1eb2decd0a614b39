"""Stream explorer: PUDD and baseline detectors on a stream, chunk by chunk."""

from __future__ import annotations

import streamlit as st

from pudd_core.views.explorer import run_log_frame, summary_frame
from ui import explorer, player, state
from ui.pages import ensure_routed

ensure_routed()  # first: run inside app.py's frame (ui/pages.py explains why)

st.title("Stream explorer")
st.markdown(
    "A classifier is tested on each chunk of a stream, then trained on it; PUDD watches the "
    "PU-index of its predictions, and the baselines you pick watch its errors, each adapting "
    "its own copy of the model at its alarms. Step through the chunks, or press Play. "
    "The seed is in the sidebar; the address bar holds a link to this exact run."
)

player.cursor_from_address()  # where the player stopped (it writes ?chunk= itself)
with st.container(border=True):
    chosen = explorer.settings()
if chosen.config is None:
    st.info("Fix the setting marked above to run the stream; your other settings are kept.",
            icon=":material/tune:")
    state.write_query("explorer")
    st.stop()
cfg = chosen.config
try:
    runs = explorer.compute(cfg, chosen.upload)
except (ValueError, OSError, ImportError) as err:
    chosen.error(err)
    st.info("Fix the setting marked above to run the stream; your other settings are kept.",
            icon=":material/tune:")
    state.write_query("explorer")
    st.stop()
if runs is None:  # long runs wait for the Run button above (or were stopped)
    state.write_query("explorer")
    st.stop()

player.player(cfg, runs)

with st.expander("Whole run: alarms, accuracy and detection delays of every detector"):
    st.table(summary_frame(runs).style.format({"accuracy": "{:.4f}", "mean delay (chunks)":
                                                "{:.2f}"}, na_rep="–"))
    st.caption("Delays in chunks from each true drift to the first alarm after it; an alarm "
               "that detects nothing new is a false alarm (`experiments.evaluation.match_alarms`).")
st.download_button(
    "Download the run log (CSV)", run_log_frame(runs[0], runs[1:]).to_csv(index=False),
    file_name=f"pudd_{cfg.dataset}_{cfg.classifier}_pudd{cfg.alpha_exponent}_seed{cfg.seed}.csv",
    mime="text/csv", icon=":material/download:", on_click="ignore", key="explorer_download",
    help="PUDD's per-chunk log (accuracy, PU mean, min p, every cut's p, alarms), plus each "
         "baseline's alarms and error rate.",
)
with st.expander("Show the code"):
    st.code(cfg.as_python(), language="python")

state.write_query("explorer")
