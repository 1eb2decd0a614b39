"""Choosing α on a stable stretch: the calibration's time for 100 and 1,000 reference chunks.

Issue 35: ``monitoring.calibrate`` runs the monitor's PUDD on block-bootstrap resamples of a
stretch (the null) and on the same resamples with a confidence shift injected (the delay).
One run per resample serves every α of the grid until their decisions part; the table also
times the plain way, one run per α, on the same null resamples (the same alarms: tested in
tests/test_calibration.py). The stretch is a stationary binary log, p(true class) to two
decimals, generated with the seed.
Run: .venv/bin/python -m benchmarks.bench_calibration [--chunks 100 1000] [--chunk-size N]
[--resamples N] [--variants calibrated,authors]
"""

from __future__ import annotations

import argparse
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
    from pudd_core.monitoring import VARIANTS, calibrate
    from pudd_core.monitoring._calibrate import DEFAULT_ALPHAS, _alarm_chunks, _cut

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=positive_int, nargs="+", default=[100, 1000])
    parser.add_argument("--chunk-size", type=positive_int, default=100)
    parser.add_argument("--resamples", type=positive_int, default=50)
    parser.add_argument("--variants", default="calibrated", metavar="V1,V2",
                        help="the monitor's variants to time: calibrated (default), authors "
                             "(its history is unbounded: slow on 1,000 chunks)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    variants = names_from(args.variants, ["calibrated", "authors"], parser, "--variants")
    grid = sorted(DEFAULT_ALPHAS, reverse=True)
    rows = []
    t_all = time.perf_counter()
    for n_chunks in args.chunks:
        u, ok = _stretch(n_chunks * args.chunk_size, args.seed)
        for variant in variants:
            t = time.perf_counter()
            res = calibrate(u, ok, args.chunk_size, target=0.01, n_resamples=args.resamples,
                            variant=variant, seed=args.seed)
            total = time.perf_counter() - t
            # one null resample both ways: a shared run, and a run per alpha
            chunks = _cut(u, ok, args.chunk_size)

            def make(alpha: float, variant: str = variant) -> ChunkPUDD:
                return ChunkPUDD(alpha, seed=0, **VARIANTS[variant])

            t = time.perf_counter()
            _alarm_chunks(chunks, grid, make)
            shared = time.perf_counter() - t
            t = time.perf_counter()
            for a in grid:
                _alarm_chunks(chunks, [a], make)
            alone = time.perf_counter() - t
            best = res.recommended
            rows.append((n_chunks, variant, total, shared, alone,
                         "none" if best is None else f"{best.alpha:g}",
                         res.row(1e-3).false_alarm_rate))
    elapsed = time.perf_counter() - t_all
    print("## Choosing α on a stable stretch: the calibration's time (issue 35)\n")
    print(f"Command: `.venv/bin/python -m benchmarks.bench_calibration --chunks "
          f"{' '.join(map(str, args.chunks))} --chunk-size {args.chunk_size} --resamples "
          f"{args.resamples} --variants {','.join(variants)} --seed {args.seed}`  ")
    print(f"Machine: {machine()} ({elapsed:.0f} s in all; load average at the end "
          f"{load_average()})\n")
    print(f"`calibrate(u, correct, {args.chunk_size}, target=0.01, n_resamples="
          f"{args.resamples})` on a stationary stretch of the given chunks of "
          f"{args.chunk_size} rows: {len(grid)} α from 1e-1 to 1e-6, each resample as long as "
          "the stretch, run once for the null and once with a confidence shift of size 0.5 "
          "from its middle chunk (a run ends at its detection). The last two time columns run "
          "one null resample of the stretch itself: once shared by all α, and once per α.\n")
    print("| reference chunks | variant | calibrate (s) | one resample, shared run (s) | "
          "one resample, a run per α (s) | recommended α (target 0.01) | "
          "false-alarm rate at 1e-3 |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for n_chunks, variant, total, shared, alone, best, rate in rows:
        print(f"| {n_chunks:,} | {variant} | {total:.1f} | {shared:.2f} | {alone:.2f} | "
              f"{best} | {rate:.4f} |")
    print()


if __name__ == "__main__":
    main()
