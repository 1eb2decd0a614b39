"""The Reproduction page's sections on detection delays and the real streams' alarm timelines.

Everything shown is read from the committed ``results/delays_runs.csv`` and
``results/timelines_*.csv``; the prose is the generated findings of ``results/README.md``.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from pudd_core.paper import DISPLAY_NAMES
from pudd_core.plots.delays import (
    alarm_timeline_figure,
    delay_ecdf_figure,
    near_spread_figure,
    trade_off_figure,
)
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
                   "and left is better; KSWIN's threshold is its alpha. On CIFAR-10-CD the "
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
    if "same_every_seed" not in runs_tl:  # a file from before the seeds were added
        runs_tl = runs_tl.assign(same_every_seed=False)
    left, mid, right = st.columns([3, 2, 2])
    with left:
        stream = st.radio("Stream", list(runs_tl["dataset"].unique()), horizontal=True,
                          key="timeline_stream")
    on_stream = runs_tl[runs_tl["dataset"] == stream]
    with mid:
        classifier = st.radio("Classifier", list(on_stream["classifier"].unique()),
                              horizontal=True, key="timeline_classifier",
                              format_func=lambda c: c.upper())
    mine = on_stream[on_stream["classifier"] == classifier]
    seeds = sorted(int(x) for x in mine["seed"].unique())
    with right:
        seed = (st.select_slider("Seed", seeds, key="timeline_seed") if len(seeds) > 1
                else seeds[0])
    chart.draw(alarm_timeline_figure, mine[mine["seed"] == seed], events, stream,
               title=f"{stream}: {classifier.upper()}-I alarms at seed {seed} and the known "
                     "events", key=f"timeline_{stream}")
    summary = cache.timeline_summary(str(results), stamp)
    if (summary[summary["dataset"] == stream]["events"] > 0).any():
        chart.draw(near_spread_figure, summary, stream,
                   title=f"{stream}: the share of each run's alarms near an event, one dot a "
                         "seed", key=f"timeline_spread_{stream}")
        varying = list(dict.fromkeys(runs_tl.loc[~runs_tl["same_every_seed"].astype(bool),
                                                 "detector"]))
        st.caption("One dot per seed and classifier (runs without alarms have no share); the "
                   "dashed line is what as many alarms on random chunks would give. "
                   + (f"Only {', '.join(DISPLAY_NAMES.get(v, v.upper()) for v in varying)} "
                      "draw on the seed here: each other detector is one run, the same dot at "
                      "every seed." if varying else ""))
    st.markdown(cache.finding("timelines", str(results), stamp))
    st.markdown(cache.finding("timelines-table", str(results), stamp))
