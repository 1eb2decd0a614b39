"""Bounded ``st.cache_data`` wrappers around ``pudd_core``: frozen configs in, results out.

Detectors, models and streams are built inside the cached calls; every caller gets its own
copy of the (immutable) result.
"""

from __future__ import annotations

import streamlit as st

from pudd_core import illustration
from pudd_core.runner import RunConfig, RunResult, run_experiment


@st.cache_data(max_entries=32, show_spinner=False)
def theorem2(config: illustration.Theorem2Config) -> illustration.Theorem2Result:
    """Theorem 2's windows and the three detectors' verdicts."""
    return illustration.theorem2_demo(config)


@st.cache_data(max_entries=32, show_spinner=False)
def theorem1(config: illustration.Theorem1Config) -> illustration.Theorem1Result:
    """Theorem 1's two histograms and the check."""
    return illustration.theorem1_demo(config)


@st.cache_data(max_entries=2, show_spinner="Rebuilding Fig. 1 (SEA + Gaussian naive Bayes) …")
def fig1(seed: int = 42) -> illustration.Fig1Data:
    """The Fig. 1 test sets, model outputs and tests."""
    return illustration.fig1_data(seed)


@st.cache_data(max_entries=16, show_spinner="Growing both test sets and re-testing …")
def fig1_curve(sizes: tuple[int, ...], seed: int) -> illustration.Fig1Curve:
    """p-values of the Fig. 1 comparison for growing test sets."""
    return illustration.fig1_pvalue_curve(sizes, seed=seed)


@st.cache_data(max_entries=32, show_spinner="Running the stream …")
def run(config: RunConfig) -> RunResult:
    """One experiment of the runner (stream × classifier × detector × seed)."""
    return run_experiment(config)
