"""The Reproduction page's view of the committed threshold studies (issue 35): read-only."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from pudd_core.reproduction.findings import without_markers
from pudd_core.reproduction.studies import STUDY_FINDINGS, display_tables


def committed_studies(results: Path) -> None:
    """Each committed study's generated finding and its table; a note where none is there."""
    tables = display_tables(results)
    if not tables:
        st.info("No committed threshold study in `results/`; `scripts/threshold_studies.py` "
                "writes them.", icon=":material/inventory_2:")
        return
    for name in ("studies-defaults", "studies-skip-rule", "studies-false-alarms",
                 "studies-chunk-size"):
        st.markdown(without_markers(STUDY_FINDINGS[name](results)))
    for title, frame in tables.items():
        with st.expander(title):
            st.dataframe(frame, hide_index=True)
    st.caption("From the committed `results/stationary_false_alarms.csv`, `skip_rule.csv` and "
               "`chunk_size.csv`; their Markdown files beside them name the command, the date "
               "and the compute time, and `results/README.md` says how they were made.")
