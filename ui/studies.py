"""The Reproduction page's view of the committed threshold studies (issue 35): read-only."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from pudd_core.views.reproduction import results_stamp
from ui import cache


def committed_studies(results: Path) -> None:
    """Each committed study's generated finding and its table; a note where none is there.

    The findings and tables are cached with the CSVs' stamp; each table is built only while
    its expander is open (a table of Streamlit's is drawn, hidden, in a closed expander).
    """
    texts, tables = cache.committed_studies(str(results), results_stamp(results))
    if not tables:
        st.info("No committed threshold study in `results/`; `scripts/threshold_studies.py` "
                "writes them.", icon=":material/inventory_2:")
        return
    for text in texts:
        st.markdown(text)
    for i, (title, frame) in enumerate(tables.items()):
        table = st.expander(title, key=f"studies_open_{i}", on_change="rerun")
        if table.open:
            table.dataframe(frame, hide_index=True)
    st.caption("From the committed `results/stationary_false_alarms.csv`, `skip_rule.csv` and "
               "`chunk_size.csv`; their Markdown files beside them name the command, the date "
               "and the compute time, and `results/README.md` says how they were made.")
