r"""Alarm timelines on the real streams: each detector's alarm chunks beside the calendar.

Runs PUDD-1/3/5 and the seven classic detectors with GNB, incremental, on elec2,
powersupply and airline (the tables' runs of that seed), and writes
``<out>/timelines_runs.csv`` (one row per run: its alarm chunks) and
``<out>/timelines_events.csv`` (per chunk: its dates and the known events,
``pudd_core.reproduction.timelines.stream_events``)::

    PUDD_DATA_DIR=../shared/datasets nice -n 10 .venv/bin/python scripts/alarm_timelines.py \\
        --seed 0 --out results
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import pandas as pd

from pudd_core.experiments.runner import run_experiment
from pudd_core.reproduction.configs import detector_label
from pudd_core.reproduction.timelines import REAL_STREAMS, stream_events, timeline_configs


def main(argv: list[str]) -> int:
    """Run and write; the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--classifier", default="gnb")
    parser.add_argument("--datasets", default=",".join(REAL_STREAMS))
    parser.add_argument("--out", type=Path, default=Path("results"))
    args = parser.parse_args(argv)
    datasets = args.datasets.split(",")
    try:  # every run checked before any work
        configs = timeline_configs(datasets, classifier=args.classifier, seed=args.seed)
        for cfg in configs:
            cfg.validate()
    except ValueError as err:
        parser.error(str(err))
    rows = []
    for cfg in configs:
        start = time.perf_counter()
        res = run_experiment(cfg)
        rows.append({"dataset": cfg.dataset, "classifier": cfg.classifier, "seed": cfg.seed,
                     "detector": detector_label(cfg.detector, cfg.alpha),
                     "accuracy": round(100 * res.accuracy, 4),
                     "n_chunks": len(res.chunks) + 1, "alarms": json.dumps(list(res.alarms)),
                     "run_s": round(time.perf_counter() - start, 2)})
        print(rows[-1]["dataset"], rows[-1]["detector"], rows[-1]["alarms"], flush=True)
    pd.DataFrame(rows).to_csv(args.out / "timelines_runs.csv", index=False)
    events = pd.concat([stream_events(d).assign(dataset=d) for d in datasets],
                       ignore_index=True)
    events[["dataset", "chunk", "first", "last", "events"]].to_csv(
        args.out / "timelines_events.csv", index=False)
    print(f"wrote {args.out / 'timelines_runs.csv'} and timelines_events.csv")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
