"""Choosing α on a stable stretch: the calibration's time for 100 and 1,000 reference chunks.

Issue 35: ``monitoring.calibrate`` runs the monitor's PUDD on block-bootstrap resamples of a
stretch (the null) and on the same resamples with a confidence shift injected (the delay).
One run per resample serves every α of the grid until their decisions part, and a changed
resample's run starts from the null run's state at the change. Timed here: the resamples
run one after another in this process (``n_jobs=1``), then on worker processes (``n_jobs``,
started before the timing; their start is timed apart), with the same result (checked, and
tested in tests/test_calibration_runs.py). The stretch is a stationary binary log,
p(true class) to two decimals, generated with the seed.
Run: .venv/bin/python -m benchmarks.bench_calibration [--chunks 100 1000] [--chunk-size N]
[--resamples N] [--variants calibrated,authors] [--jobs N]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from benchmarks._common import load_average, machine, names_from, positive_int


def _stretch(n_rows: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p_top = np.round(rng.uniform(0.51, 1.0, n_rows), 2)
    ok = rng.random(n_rows) < p_top
    return np.where(ok, 1 - p_top, p_top), ok


def main() -> None:
    from pudd_core.detector import ChunkPUDD
    from pudd_core.experiments.pool import warm_workers
    from pudd_core.monitoring import calibrate

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=positive_int, nargs="+", default=[100, 1000])
    parser.add_argument("--chunk-size", type=positive_int, default=100)
    parser.add_argument("--resamples", type=positive_int, default=50)
    parser.add_argument("--variants", default="calibrated", metavar="V1,V2",
                        help="the monitor's variants to time: calibrated (default), authors "
                             "(its history is unbounded: slow on 1,000 chunks)")
    parser.add_argument("--jobs", type=positive_int, default=len(os.sched_getaffinity(0)),
                        help="worker processes for the second timing (default: the cores)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    variants = names_from(args.variants, ["calibrated", "authors"], parser, "--variants")
    about = machine()  # imports scikit-learn: outside the timings, as in a running app
    # chunks fed to detectors in this process: the work, whatever the machine's load
    counted = {"updates": 0}
    plain_update = ChunkPUDD.update

    def update(self: ChunkPUDD, u: np.ndarray, correct: np.ndarray) -> None:
        counted["updates"] += 1
        plain_update(self, u, correct)

    ChunkPUDD.update = update  # type: ignore[method-assign]

    def updates() -> int:
        n, counted["updates"] = counted["updates"], 0
        return n

    t_all = time.perf_counter()
    t = time.perf_counter()
    started = warm_workers(args.jobs) if args.jobs > 1 else 1
    start_s = time.perf_counter() - t
    rows = []
    for n_chunks in args.chunks:
        u, ok = _stretch(n_chunks * args.chunk_size, args.seed)
        for variant in variants:
            def run(jobs: int, variant: str = variant, u: np.ndarray = u,
                    ok: np.ndarray = ok) -> tuple[object, float, float]:
                t, cpu = time.perf_counter(), time.process_time()
                res = calibrate(u, ok, args.chunk_size, target=0.01,
                                n_resamples=args.resamples, variant=variant, seed=args.seed,
                                n_jobs=jobs)
                return res, time.perf_counter() - t, time.process_time() - cpu

            updates()
            here, wall, cpu = run(1)
            n_updates = updates()
            load_here = load_average()
            there, w_wall, w_cpu = run(args.jobs)
            best = here.recommended  # type: ignore[attr-defined]
            rows.append((n_chunks, variant, f"{wall:.1f} ({cpu:.1f})", n_updates, load_here,
                         f"{w_wall:.1f} ({w_cpu:.1f})", load_average(),
                         "yes" if there == here else "NO",
                         "none" if best is None else f"{best.alpha:g}",
                         here.row(1e-3).false_alarm_rate))  # type: ignore[attr-defined]
    elapsed = time.perf_counter() - t_all
    print("## Choosing α on a stable stretch: the calibration's time (issue 35)\n")
    print(f"Command: `.venv/bin/python -m benchmarks.bench_calibration --chunks "
          f"{' '.join(map(str, args.chunks))} --chunk-size {args.chunk_size} --resamples "
          f"{args.resamples} --variants {','.join(variants)} --jobs {args.jobs} --seed "
          f"{args.seed}`  ")
    print(f"Machine: {about} ({elapsed:.0f} s in all; load average at the end "
          f"{load_average()})\n")
    print(f"`calibrate(u, correct, {args.chunk_size}, target=0.01, n_resamples="
          f"{args.resamples})` on a stationary stretch of the given chunks of "
          f"{args.chunk_size} rows: 9 α from 1e-1 to 1e-6, each resample as long as the "
          "stretch, run once for the null and once with a confidence shift of size 0.5 from "
          "its middle chunk (a run ends at its detection), the changed run continuing the null "
          f"run's state at the change. *Here*: `n_jobs=1`. *On {args.jobs} workers*: "
          f"`n_jobs={args.jobs}`, joblib's worker processes, started before the timings "
          f"({started} answered in {start_s:.1f} s).\n")
    print(f"| reference chunks | variant | here: wall (CPU) s | detector updates | load "
          f"average (1, 5, 15 min) | on {args.jobs} workers: wall (CPU here) s | load average "
          "| same result | recommended α (target 0.01) | false-alarm rate at 1e-3 |")
    print("| ---: | --- | ---: | ---: | --- | ---: | --- | --- | ---: | ---: |")
    for (n_chunks, variant, here_s, n_updates, load_here, there_s, load_there, same, best_s,
         rate) in rows:
        print(f"| {n_chunks:,} | {variant} | {here_s} | {n_updates:,} | {load_here} | "
              f"{there_s} | {load_there} | {same} | {best_s} | {rate:.4f} |")
    print("\nCPU: this process's CPU seconds (time.process_time), which a loaded machine's "
          "waiting does not inflate as much as the wall clock (the workers' own CPU is not "
          "in it). Detector updates: chunks fed to a ChunkPUDD here (each α group's detector "
          "counts once per chunk), the work whatever the load. Load average: at the end of "
          "that timing.")
    print()


if __name__ == "__main__":
    main()
