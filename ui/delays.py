"""The Reproduction page's sections on detection delays and the real streams' alarm timelines.

Everything shown is read from the committed ``results/delays_runs.csv`` and
``results/timelines_*.csv``; the prose is the generated findings of ``results/README.md``.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from pudd_core.plots.delays import alarm_timeline_figure, delay_ecdf_figure, trade_off_figure
from pudd_core.views.reproduction import results_stamp
from ui import cache, chart

_GROUPS = {"The synthetic streams (GNB-I)": False, "CIFAR-10-CD (pretrained CNN)": True}


def show(results: Path) -> None:
    """Draw the delays section from the committed files in ``results``.

    Its tables and findings are cached with the CSVs' stamp (:mod:`ui.cache`).
    """
    stamp = results_stamp(results)
    st.subheader("7. Detection delays and early detection")
    path = results / "delays_runs.csv"
    if not path.is_file():
        st.info("No committed delay study (`results/delays_runs.csv`); "
                "`scripts/delay_study.py` writes it.", icon=":material/inventory_2:")
    else:
        runs = cache.delay_runs(str(path), stamp)
        st.markdown(
            "Every detector reads **the same predictions**: the classifier that never adapts "
            "is run once per stream and seed, and each detector, at each of its thresholds, "
            "is fed its chunks. So each true drift is a paired trial: who caught it first, "
            "and after how many chunks.")
        have = [g for g, cifar in _GROUPS.items()
                if ((runs["dataset"] == "cifar10-cd") == cifar).any()]
        group = st.radio("Streams", have, horizontal=True, key="delays_group")
        delays, curve = cache.delay_tables(str(path), stamp, _GROUPS[group])
        left, right = st.columns(2)
        with left:
            chart.draw(delay_ecdf_figure, delays, title="Delays (the tables' thresholds)",
                       key=f"delays_ecdf_{_GROUPS[group]}")
        with right:
            points = (cache.committed_frame(str(results / "cifar10_cd.csv"))
                      if _GROUPS[group] else None)
            if points is not None:
                points = points[points["detector"].isin(curve["row"])]
            chart.draw(trade_off_figure, curve, points=points,
                       title="Early detection vs false alarms",
                       key=f"delays_curve_{_GROUPS[group]}")
        st.caption("Left: the share of all true drifts detected within d chunks (a curve below "
                   "100 % at the right is the share missed). Right: each detector over its "
                   "threshold (PUDD: alpha; the large markers are the tables' thresholds); up "
                   "and left is better. KSWIN runs at its default only. On CIFAR-10-CD the "
                   "open diamonds are the comparison's own runs (`results/cifar10_cd.csv`, "
                   "each adapting after its alarms), one per detector.")
        st.markdown(cache.finding("delays-table", str(results), stamp))
        st.markdown(cache.finding("delays-paired", str(results), stamp))


def show_timelines(results: Path) -> None:
    """Draw the alarm timelines section from the committed files in ``results``."""
    stamp = results_stamp(results)
    st.subheader("8. Alarm timelines on the real streams")
    runs_tl = cache.committed_frame(str(results / "timelines_runs.csv"))
    events = cache.committed_frame(str(results / "timelines_events.csv"))
    if runs_tl is None or events is None:
        st.info("No committed alarm timelines (`results/timelines_runs.csv`); "
                "`scripts/alarm_timelines.py` writes them.", icon=":material/inventory_2:")
        return
    events = events.fillna({"events": ""})
    stream = st.radio("Stream", list(runs_tl["dataset"].unique()), horizontal=True,
                      key="timeline_stream")
    chart.draw(alarm_timeline_figure, runs_tl, events, stream,
               title=f"{stream}: GNB-I alarms and the known events",
               key=f"timeline_{stream}")
    st.markdown(cache.finding("timelines", str(results), stamp))
