r"""Detection delays on the same predictions: every detector at every threshold of its sweep.

For each stream and seed the classifier with no detector runs once (its predictions are kept
in ``--cache`` as ``.npz``, read back without pickle); each setting of
``pudd_core.reproduction.delays.SWEEPS`` is then fed those chunks. Writes
``<out>/delays_runs.csv`` (one row per run: the setting and its alarm chunks), from which
``pudd_core.reproduction.delay_report`` computes the quantiles, the paired tests and the
trade-off curves (``results/delays.md``, the Reproduction page)::

    PUDD_DATA_DIR=../shared/datasets nice -n 10 .venv/bin/python scripts/delay_study.py \\
        --datasets sea0,sea10,sea20,sine,mixed --seeds 0-9 --cache /tmp/pred --out results
    ... --datasets cifar10-cd --classifier pretrained-cnn --n-chunks 100 --seeds 0-9 \\
        --detectors pudd,pagehinkley,adwin --add
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import pandas as pd

from pudd_core.experiments.runner import RunConfig
from pudd_core.reproduction.delays import (
    SWEEPS,
    Predictions,
    read_runs,
    record_predictions,
    replay_alarms,
    sweep_settings,
)

RUNS = "delays_runs.csv"


def _seeds(text: str) -> list[int]:
    if "-" in text:
        lo, hi = text.split("-")
        return list(range(int(lo), int(hi) + 1))
    return [int(s) for s in text.split(",")]


def main(argv: list[str]) -> int:
    """Run the sweep; the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets")
    parser.add_argument("--seeds", default="0-9", type=_seeds)
    parser.add_argument("--classifier", default="gnb")
    parser.add_argument("--n-chunks", type=int, default=None)
    parser.add_argument("--detectors", default=",".join(SWEEPS))
    parser.add_argument("--values", default=None,
                        help="only these thresholds (comma-separated, each one of the sweep's) "
                             "of the one detector in --detectors: to add a sweep's new values "
                             "with --add")
    parser.add_argument("--cache", type=Path)
    parser.add_argument("--out", type=Path, default=Path("results"))
    parser.add_argument("--add", action="store_true",
                        help="keep the runs already in OUT/delays_runs.csv (others replaced)")
    parser.add_argument("--merge", type=Path, nargs="+", metavar="RUNS_CSV",
                        help="run nothing: add these files' runs to OUT/delays_runs.csv in "
                             "order, as --add would (runs made apart, e.g. seeds in parallel)")
    args = parser.parse_args(argv)
    if args.merge:
        return _merge_files(parser, args.merge, args.out / RUNS)
    for name in ("datasets", "cache"):
        if getattr(args, name) is None:
            parser.error(f"--{name} is required (unless --merge)")
    detectors = args.detectors.split(",")
    unknown = [d for d in detectors if d not in SWEEPS]
    if unknown:
        parser.error(f"--detectors: no sweep for {', '.join(unknown)}; choose among "
                     f"{', '.join(SWEEPS)}")
    settings = sweep_settings(detectors)
    if args.values is not None:
        if len(detectors) != 1:
            parser.error("--values: give exactly one detector in --detectors")
        try:
            wanted = [float(v) for v in args.values.split(",")]
        except ValueError:
            parser.error(f"--values: not numbers: {args.values!r}")
        sweep = SWEEPS[detectors[0]][1]
        outside = [v for v in wanted if not any(math.isclose(v, s) for s in sweep)]
        if outside:
            parser.error(f"--values: {', '.join(f'{v:g}' for v in outside)} not in "
                         f"{detectors[0]}'s sweep ({', '.join(f'{s:g}' for s in sweep)})")
        settings = [s for s in settings if any(math.isclose(s.value, v) for v in wanted)]
    datasets = args.datasets.split(",")
    try:  # every run's stream, classifier, seed and length checked before any work
        for dataset in datasets:
            for seed in args.seeds:
                RunConfig(dataset, args.classifier, "none", seed=seed,
                          n_chunks=args.n_chunks).validate()
    except ValueError as err:
        parser.error(str(err))
    args.cache.mkdir(parents=True, exist_ok=True)
    rows = []
    for dataset in datasets:
        for seed in args.seeds:
            path = args.cache / f"{dataset}-{args.classifier}-{args.n_chunks}-{seed}.npz"
            start = time.perf_counter()
            if path.exists():
                pred = Predictions.load(path)
            else:
                pred = record_predictions(RunConfig(dataset, args.classifier, "none", seed=seed,
                                                    n_chunks=args.n_chunks))
                pred.save(path)
            model_s = time.perf_counter() - start
            for setting in settings:
                t0 = time.perf_counter()
                alarms = replay_alarms(pred, setting)
                rows.append({"dataset": dataset, "classifier": args.classifier, "seed": seed,
                             "detector": setting.detector, "value": setting.value,
                             "row": setting.row, "default": setting.is_default,
                             "alarms": json.dumps(list(alarms)),
                             "drift_chunks": json.dumps(list(pred.drift_chunks)),
                             "n_chunks": pred.n_chunks,
                             "run_s": round(time.perf_counter() - t0, 3)})
            print(f"{dataset} seed {seed}: model {model_s:.1f} s, sweep "
                  f"{sum(r['run_s'] for r in rows[-len(settings):]):.1f} s",
                  flush=True)
    frame = pd.DataFrame(rows)
    out = args.out / RUNS
    if args.add and out.exists():
        frame = merge_runs(pd.read_csv(out), frame)
    frame.to_csv(out, index=False)
    print(f"wrote {out} ({len(frame)} runs)")
    return 0


KEYS = ["dataset", "classifier", "seed", "detector", "value"]


def merge_runs(old: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """``old``'s runs that ``new`` does not redo, then ``new``'s.

    A run is its stream, classifier, seed, detector and threshold.
    """
    redone = set(map(tuple, new[KEYS].astype(str).values.tolist()))
    keep = old[[tuple(k) not in redone for k in old[KEYS].astype(str).values.tolist()]]
    return pd.concat([keep, new], ignore_index=True)


def _merge_files(parser: argparse.ArgumentParser, paths: list[Path], out: Path) -> int:
    frames = []
    for path in paths:
        try:
            read_runs(path)  # a runs file, or a clear error naming what is missing
        except (OSError, ValueError) as err:
            parser.error(f"--merge {path}: {err}")
        frames.append(pd.read_csv(path))
    frame = pd.read_csv(out) if out.exists() else frames.pop(0)
    for new in frames:
        frame = merge_runs(frame, new)
    frame.to_csv(out, index=False)
    print(f"wrote {out} ({len(frame)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
