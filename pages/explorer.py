"""Stream explorer: PUDD and baseline detectors on a stream, chunk by chunk."""

from __future__ import annotations

import streamlit as st

from pudd_core.views.explorer import summary_frame
from ui import explorer, player, state
from ui.pages import ensure_routed

ensure_routed()  # first: run inside app.py's frame (ui/pages.py explains why)

st.title("Stream explorer", anchor=explorer.RUN_ANCHOR)
st.markdown(
    "A classifier is tested on each chunk of a stream, then trained on it; PUDD watches the "
    "PU-index of its predictions, and the baselines you pick watch its errors, each adapting "
    "its own copy of the model at its alarms. Compare up to four PUDD settings (thresholds "
    "and variants) over one or several seeds; step through the chunks, or press Play. "
    "The seed is in the sidebar; the address bar holds a link to this exact comparison."
)

player.cursor_from_address()  # where the player stopped (it writes ?chunk= itself)
# the runs and their player first, the settings under them: with four PUDD settings the
# settings took 1,500 px, and the player started below them, out of sight
results = st.container()
st.subheader("Settings", anchor="settings")
with st.container(border=True):
    chosen = explorer.settings()
FIX = ("Fix the setting marked below (under **Settings**) to run the stream; your other "
       "settings are kept.")
if chosen.config is None:
    results.info(FIX, icon=":material/tune:")
    state.write_query("explorer")
    st.stop()
cfg = chosen.config
with results:
    try:
        runs = explorer.compute(cfg, chosen.upload)
    except (ValueError, OSError, ImportError) as err:
        chosen.error(err)
        st.info(FIX, icon=":material/tune:")
        state.write_query("explorer")
        st.stop()
    if runs is None:  # long runs wait for the Run button (or were stopped)
        chosen.ask_to_run()  # said beside the Seeds field too: the button is out of view
        state.write_query("explorer")
        st.stop()

    comparison = cfg.comparison(runs)
    player.player(comparison, band=chosen.band and cfg.seeds_run > 1)
    st.caption("The settings of this comparison are [under the player](#settings).")

    first = [group[0] for group in (*comparison.settings, *comparison.baselines)]
    with st.expander(f"Whole run: alarms, accuracy and detection delays of every detector"
                     f"{f' (seed {cfg.seed})' if cfg.seeds_run > 1 else ''}"):
        st.table(summary_frame(first, labels=comparison.labels).style.format(
            {"accuracy": "{:.4f}", "mean delay (chunks)": "{:.2f}"}, na_rep="–"))
        st.caption("Delays in chunks from each true drift to the first alarm after it; an "
                   "alarm that detects nothing new is a false alarm "
                   "(`experiments.evaluation.match_alarms`).")
    explorer.downloads(cfg, comparison)
    # built only while open: st.code loads Streamlit's 1.6 MB highlighter with the page
    code = st.expander("Show the code", key="explorer_code_open", on_change="rerun")
    if code.open:
        code.code(cfg.as_python(), language="python")

state.write_query("explorer")
