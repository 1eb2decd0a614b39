"""The committed threshold studies of issue 35, written into results/ (CSV and Markdown).

Run from the repository root (each study appends its cells to its CSV as they finish, and a
second run computes only the cells missing, so an interrupted run loses nothing)::

    PYTHONPATH=. nice -n 10 .venv/bin/python scripts/threshold_studies.py --study all
    PYTHONPATH=. .venv/bin/python scripts/threshold_studies.py --render   # Markdown from CSV

``--study stationary`` records each classifier's predictions on SEA with one concept and
runs them through PUDD's variants (false alarms per chunk) and, cut into episodes with a
change injected, the delay (the skip-rule study); ``--study chunk-size`` runs the paper's
streams at chunk sizes 250 to 5,000. The Markdown files name the command, the date and the
compute time; their prose is generated from the CSVs (``pudd_core.reproduction.studies``).
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from pudd_core.experiments.runner import RunConfig, run_experiment
from pudd_core.experiments.studies import (
    false_alarm_rates,
    prediction_chunks,
    shift_delays,
)
from pudd_core.reproduction import studies as report
from pudd_core.streams import get_info

ROOT = Path(__file__).resolve().parents[1]

#: classifier -> (seeds, chunks per seed, regime) of the stationary and skip-rule studies
#: (sized to the shared 2-core machine: GNB and VFDT first, the DNN on a small grid). VFDT
#: learns incrementally: trained on chunk 0 alone, river's Hoeffding tree is one naive-Bayes
#: leaf, whose decisions are GNB's.
STATIONARY_GRID: dict[str, tuple[tuple[int, ...], int, str]] = {
    "gnb": ((0, 1), 1000, "train-once"), "vfdt": ((0, 1, 2), 300, "incremental"),
    "dnn": ((0, 1, 2, 3), 240, "train-once")}
#: The changes injected for the delay: (kind, size). The small confidence shifts (0.05,
#: 0.02) are where the skip rule's delay shows (results/skip_rule.md, by shift size).
CHANGES: tuple[tuple[str, float], ...] = (("confidence", 0.5), ("confidence", 0.1),
                                          ("error_rate", 0.1), ("confidence", 0.05),
                                          ("confidence", 0.02))
CHUNK_SIZES = (250, 500, 1000, 2000, 5000)
SIZE_ALPHAS = (1e-1, 1e-3, 1e-5)
SYNTHETIC = ("sea0", "sea10", "sea20", "sine", "mixed")
REAL = ("elec2", "powersupply")
DRIFT_ROWS = 10_000  # the synthetic streams' drift period: 10 chunks of 1,000 rows


def _append(path: Path, rows: pd.DataFrame) -> None:
    rows.to_csv(path, mode="a", header=not path.exists(), index=False)


CSVS = (report.STATIONARY_CSV, report.SKIP_CSV, report.CHUNK_SIZE_CSV)


def _rows(path: Path) -> int:
    return len(pd.read_csv(path)) if path.is_file() else 0


def _done(path: Path, keys: list[str]) -> set[tuple[object, ...]]:
    if not path.exists():
        return set()
    frame = pd.read_csv(path)
    return set(map(tuple, frame[keys].astype(str).values.tolist()))


def stationary(out: Path) -> None:
    """False alarms per chunk and the delay on injected changes, per classifier and seed."""
    fa_path, skip_path = out / report.STATIONARY_CSV, out / report.SKIP_CSV
    fa_done = _done(fa_path, ["classifier", "seed"])
    skip_done = _done(skip_path, ["classifier", "seed", "change", "size"])
    # seed by seed over the classifiers, so that a run cut short still covers them all
    order = sorted(((seed, classifier) for classifier, (seeds, _, _) in STATIONARY_GRID.items()
                    for seed in seeds), key=lambda p: p[0])
    for seed, classifier in order:
        _, n_chunks, regime = STATIONARY_GRID[classifier]
        todo = [(k, s) for k, s in CHANGES
                if (classifier, str(seed), k, str(s)) not in skip_done]
        if (classifier, str(seed)) in fa_done and not todo:
            continue
        start = time.perf_counter()
        pred = prediction_chunks("sea0", classifier, n_chunks=n_chunks + 1, seed=seed,
                                 regime=regime)  # type: ignore[arg-type]
        record_s = time.perf_counter() - start
        print(f"{classifier} seed {seed}: {n_chunks} chunks predicted in {record_s:.0f} s, "
              f"accuracy {pred.accuracy:.4f}", file=sys.stderr, flush=True)
        if (classifier, str(seed)) not in fa_done:
            t0 = time.perf_counter()
            rates = false_alarm_rates(pred.chunks, seed=seed)
            rates.insert(0, "regime", regime)
            rates.insert(0, "seed", seed)
            rates.insert(0, "classifier", classifier)
            rates["accuracy"] = pred.accuracy
            rates["run_s"] = record_s + time.perf_counter() - t0
            _append(fa_path, rates)
            print(f"  false alarms: {time.perf_counter() - t0:.0f} s", file=sys.stderr,
                  flush=True)
        for kind, size in todo:
            t0 = time.perf_counter()
            delays = shift_delays(pred.chunks, episode=report.EPISODE, after=report.AFTER,
                                  change=kind,
                                  size=size, seed=seed)  # type: ignore[arg-type]
            cells = report.delay_counts(delays)
            cells.insert(0, "size", size)
            cells.insert(0, "change", kind)
            cells.insert(0, "regime", regime)
            cells.insert(0, "seed", seed)
            cells.insert(0, "classifier", classifier)
            cells["run_s"] = time.perf_counter() - t0
            _append(skip_path, cells)
            print(f"  {kind} {size}: {time.perf_counter() - t0:.0f} s", file=sys.stderr,
                  flush=True)


def chunk_size(out: Path, classifiers: tuple[str, ...] = ("gnb",),
               seeds: tuple[int, ...] = (0, 1)) -> None:
    """Whole runs of the paper's streams at each chunk size, the drifts at the same rows."""
    path = out / report.CHUNK_SIZE_CSV
    done = _done(path, ["classifier", "dataset", "chunk_size", "alpha", "seed"])
    # seed by seed over every stream, so that a run cut short still covers them all
    for seed, classifier, dataset in ((s, c, d) for s in seeds for c in classifiers
                                      for d in (*SYNTHETIC, *REAL)):
        rows_total = get_info(dataset).n_chunks * 1000
        if dataset in REAL and seed != seeds[0]:
            continue  # read in order: the seed changes only PUDD's subsample
        for size in CHUNK_SIZES:
            for alpha in SIZE_ALPHAS:
                key = (classifier, dataset, str(size), str(alpha), str(seed))
                if key in done:
                    continue
                options = ((("drift_period", DRIFT_ROWS // size),)
                           if dataset in SYNTHETIC else ())
                cfg = RunConfig(dataset, classifier, "pudd", alpha=alpha, seed=seed,
                                chunk_size=size, n_chunks=rows_total // size,
                                stream_options=options)
                res = run_experiment(cfg)
                d = res.detection
                row = {"classifier": classifier, "dataset": dataset,
                       "chunk_size": size, "alpha": alpha, "seed": seed,
                       "n_chunks": rows_total // size, "accuracy": res.accuracy,
                       "alarms": res.n_alarms,
                       "drifts": len(res.drift_chunks) if res.drift_chunks else 0,
                       "missed": d.missed if d else np.nan,
                       "false_alarms": d.false_alarms if d else np.nan,
                       "mean_delay_chunks": (float(np.mean(d.delays))
                                             if d and d.delays else np.nan),
                       "run_s": res.elapsed_s}
                _append(path, pd.DataFrame([row]))
                print(f"{key}: {res.elapsed_s:.1f} s", file=sys.stderr, flush=True)


def main(argv: list[str]) -> int:
    """Run the chosen studies (or only render the Markdown), writing into results/."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--study", choices=("stationary", "chunk-size", "all"))
    parser.add_argument("--render", action="store_true",
                        help="only write the Markdown from the committed CSVs")
    parser.add_argument("--out", type=Path, default=ROOT / "results")
    args = parser.parse_args(argv)
    if args.study is None and not args.render:
        parser.error("give --study or --render")
    args.out.mkdir(parents=True, exist_ok=True)
    before = {name: _rows(args.out / name) for name in CSVS}
    if args.study in ("stationary", "all"):
        stationary(args.out)
    if args.study in ("chunk-size", "all"):
        chunk_size(args.out)
    command = ("PYTHONPATH=. nice -n 10 .venv/bin/python scripts/threshold_studies.py "
               f"--study {args.study or 'all'}")
    # a report's command and date are its computation's: kept when its CSVs gained no cell
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    changed = {name for name in CSVS if _rows(args.out / name) != before[name]}
    stamps = report.report_stamps(args.out, changed, command=command, now=now)
    for name, text in report.render_all(
            args.out, command={k: c for k, (c, _) in stamps.items()},
            written={k: w for k, (_, w) in stamps.items()}).items():
        (args.out / name).write_text(text, encoding="utf-8")
        print(f"wrote {args.out / name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
