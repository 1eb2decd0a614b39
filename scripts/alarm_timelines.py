r"""Alarm timelines on the real streams: each detector's alarm chunks beside the calendar.

Runs PUDD-1/3/5 and the seven classic detectors, incremental, with each classifier at each
seed on elec2, powersupply and airline (the tables' runs of those seeds), and writes
``<out>/timelines_runs.csv`` (one row per run: its alarm chunks) and
``<out>/timelines_events.csv`` (per chunk: its dates and the known events,
``pudd_core.reproduction.timelines.stream_events``). A run that is the same at every seed
(``timelines.same_every_seed``: on these streams every detector but PUDD and KSWIN with GNB
or VFDT) is computed at the first seed and written for each (``same_every_seed`` True).
The file is written after each stream, classifier and seed, so a stopped run keeps what it
finished; ``--add`` keeps the runs already in the file that this one does not redo::

    PUDD_DATA_DIR=../shared/datasets nice -n 10 .venv/bin/python scripts/alarm_timelines.py \\
        --seeds 0-9 --classifiers gnb,vfdt --out results
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
from pudd_core.reproduction.timelines import (
    REAL_STREAMS,
    same_every_seed,
    stream_events,
    timeline_configs,
)

RUNS = "timelines_runs.csv"
KEYS = ["dataset", "classifier", "seed", "detector"]


def _seeds(text: str) -> list[int]:
    try:
        if "-" in text.strip("-"):
            lo, hi = text.split("-")
            return list(range(int(lo), int(hi) + 1))
        return [int(s) for s in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give seeds as a range (0-9) or a list (0,3,5)") from None


def _write(rows: list[dict[str, object]], old: pd.DataFrame | None, out: Path) -> int:
    frame = pd.DataFrame(rows)
    if old is not None:
        done = set(map(tuple, frame[KEYS].astype(str).values.tolist()))
        keep = old[[tuple(k) not in done for k in old[KEYS].astype(str).values.tolist()]]
        frame = pd.concat([keep, frame], ignore_index=True)
    frame.to_csv(out, index=False)
    return len(frame)


def main(argv: list[str]) -> int:
    """Run and write; the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=_seeds, default=[0])
    parser.add_argument("--classifiers", default="gnb")
    parser.add_argument("--datasets", default=",".join(REAL_STREAMS))
    parser.add_argument("--out", type=Path, default=Path("results"))
    parser.add_argument("--add", action="store_true",
                        help=f"keep the runs already in OUT/{RUNS} that this one does not redo")
    args = parser.parse_args(argv)
    datasets = args.datasets.split(",")
    try:  # every run checked before any work
        configs = timeline_configs(datasets, classifiers=args.classifiers.split(","),
                                   seeds=args.seeds)
        for cfg in configs:
            cfg.validate()
    except ValueError as err:
        parser.error(str(err))
    out = args.out / RUNS
    old = pd.read_csv(out) if args.add and out.exists() else None
    first: dict[tuple[str, str, str], dict[str, object]] = {}
    rows: list[dict[str, object]] = []
    for i, cfg in enumerate(configs):
        detector = detector_label(cfg.detector, cfg.alpha)
        key = (cfg.dataset, cfg.classifier, detector)
        same = same_every_seed(cfg)
        if same and key in first:  # the first seed's run: the same at every seed
            rows.append({**first[key], "seed": cfg.seed, "run_s": 0.0})
        else:
            start = time.perf_counter()
            res = run_experiment(cfg)
            rows.append({"dataset": cfg.dataset, "classifier": cfg.classifier,
                         "seed": cfg.seed, "detector": detector,
                         "accuracy": round(100 * res.accuracy, 4),
                         "n_chunks": len(res.chunks) + 1,
                         "alarms": json.dumps(list(res.alarms)), "same_every_seed": same,
                         "run_s": round(time.perf_counter() - start, 2)})
            first.setdefault(key, rows[-1])
            print(cfg.dataset, cfg.classifier, cfg.seed, detector, rows[-1]["alarms"],
                  flush=True)
        group = (cfg.dataset, cfg.classifier, cfg.seed)
        nxt = configs[i + 1] if i + 1 < len(configs) else None
        if nxt is None or (nxt.dataset, nxt.classifier, nxt.seed) != group:
            _write(rows, old, out)  # a stream, classifier and seed done: keep them
    n = len(pd.read_csv(out))
    events = pd.concat([stream_events(d).assign(dataset=d) for d in REAL_STREAMS],
                       ignore_index=True)
    events[["dataset", "chunk", "first", "last", "events"]].to_csv(
        args.out / "timelines_events.csv", index=False)
    print(f"wrote {out} ({n} runs) and timelines_events.csv")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
