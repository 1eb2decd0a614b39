"""Shared helpers of the plots tests: what a figure draws, and small inputs."""

from __future__ import annotations

import pandas as pd

from pudd_core.experiments.runner import WindowRecord


def trace_names(fig):
    return [t.name for t in fig.data]


def vlines(fig, colour=None):
    return [s.x0 for s in fig.layout.shapes
            if s.type == "line" and s.x0 == s.x1 and (colour is None or s.line.color == colour)]


def hlines(fig):
    return [s.y0 for s in fig.layout.shapes if s.type == "line" and s.y0 == s.y1]


def window_record():
    return WindowRecord(
        ref_correct=(8, 2, 0, 0), ref_wrong=(0, 0, 1, 1), new_correct=(5, 3, 0, 0),
        new_wrong=(0, 0, 1, 3), bucket_edges=(0.3,), bucket_centres=(0.4, 0.1),
        table=((4, 6, 2), (4, 4, 4)), expected=((4.0, 5.0, 3.0), (4.0, 5.0, 3.0)))


def cells():
    return pd.DataFrame({
        "detector": ["pudd-3", "pudd-3", "ddm", "eddm"],
        "dataset": ["sea0", "powersupply", "sea0", "airline"],
        "regime": ["incremental", "train-once", "incremental", "incremental"],
        "paper": [94.81, 71.0, 93.97, 62.72], "ours": [94.67, 73.0, float("nan"), 51.66],
        "difference": [-0.14, 2.0, float("nan"), -11.06], "std": [0.1, 0.0, float("nan"), 0.0],
        "n_seeds": [10, 10, 0, 10], "n_errors": 0})
