"""Stream explorer: PUDD and baseline detectors on a stream, chunk by chunk."""

from __future__ import annotations

import streamlit as st

from pudd_core.views.explorer import summary_frame
from ui import explorer, player, state
from ui.pages import ensure_routed

ensure_routed()  # first: run inside app.py's frame (ui/pages.py explains why)

st.title("Stream explorer")
st.markdown(
    "A classifier is tested on each chunk of a stream, then trained on it; PUDD watches the "
    "PU-index of its predictions, and the baselines you pick watch its errors, each adapting "
    "its own copy of the model at its alarms. Compare up to four PUDD settings (thresholds "
    "and variants) over one or several seeds; step through the chunks, or press Play. "
    "The seed is in the sidebar; the address bar holds a link to this exact comparison."
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

comparison = cfg.comparison(runs)
player.player(comparison, band=chosen.band and cfg.seeds > 1)

first = [group[0] for group in (*comparison.settings, *comparison.baselines)]
with st.expander(f"Whole run: alarms, accuracy and detection delays of every detector"
                 f"{f' (seed {cfg.seed})' if cfg.seeds > 1 else ''}"):
    st.table(summary_frame(first, labels=comparison.labels).style.format(
        {"accuracy": "{:.4f}", "mean delay (chunks)": "{:.2f}"}, na_rep="–"))
    st.caption("Delays in chunks from each true drift to the first alarm after it; an alarm "
               "that detects nothing new is a false alarm (`experiments.evaluation.match_alarms`).")
explorer.downloads(cfg, comparison)
with st.expander("Show the code"):
    st.code(cfg.as_python(), language="python")

state.write_query("explorer")
