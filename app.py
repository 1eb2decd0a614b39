"""PUDD Lab: the Streamlit entry point (page config, shared sidebar, navigation)."""

from __future__ import annotations

import time

import streamlit as st

from ui import controls, state
from ui.pages import FAVICON, PAGES, routing, sections

START = time.perf_counter()  # the run's start, for $PUDD_TIMING_LOG

st.set_page_config(page_title="PUDD Lab", layout="wide", page_icon=FAVICON)
state.init()
page = st.navigation(sections(PAGES), expanded=True)  # every page listed: no "View more"
state.read_query(page.url_path)  # before the sidebar, which shows link warnings
controls.sidebar()
with routing(page.url_path, START):
    page.run()
