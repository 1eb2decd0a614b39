"""Choosing α on a stable stretch: the calibration's time for 100 and 1,000 reference chunks.

Issue 35: ``monitoring.calibrate`` runs the monitor's PUDD on block-bootstrap resamples of a
stretch (the null) and on the same resamples with a confidence shift injected (the delay).
One run per resample serves every α of the grid until their decisions part, and a changed
resample's run starts from the null run's state at the change; the table also times the
changed runs from chunk 0 (the calibration before the shared prefix) and the plain way, one
run per α, on one null resample (the same alarms and delays: tested in
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
    from pudd_core.monitoring._calibrate import (
        DEFAULT_ALPHAS,
        _cut,
        alarm_chunks,
        block_resample,
        inject_change,
    )

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
    # chunks fed to detectors: the work, whatever the machine's load
    counted = {"updates": 0}
    plain_update = ChunkPUDD.update

    def update(self: ChunkPUDD, u: np.ndarray, correct: np.ndarray) -> None:
        counted["updates"] += 1
        plain_update(self, u, correct)

    ChunkPUDD.update = update  # type: ignore[method-assign]

    def updates() -> int:
        n, counted["updates"] = counted["updates"], 0
        return n

    rows = []
    t_all = time.perf_counter()
    for n_chunks in args.chunks:
        u, ok = _stretch(n_chunks * args.chunk_size, args.seed)
        for variant in variants:
            updates()
            t, cpu = time.perf_counter(), time.process_time()
            res = calibrate(u, ok, args.chunk_size, target=0.01, n_resamples=args.resamples,
                            variant=variant, seed=args.seed)
            total, total_cpu = time.perf_counter() - t, time.process_time() - cpu
            n_shared = updates()
            # the changed resamples from chunk 0: what the shared prefix saves
            t, cpu = time.perf_counter(), time.process_time()
            after = n_chunks // 2
            for ss in np.random.SeedSequence(args.seed).spawn(args.resamples):
                rng_rows, rng_change, rng_det = (np.random.default_rng(s) for s in ss.spawn(3))

                def fresh(alpha: float, seed: int = int(rng_det.integers(2**31)),
                          variant: str = variant) -> ChunkPUDD:
                    return ChunkPUDD(alpha, seed=seed, **VARIANTS[variant])

                idx = block_resample(u.size, u.size, args.chunk_size, rng_rows)
                alarm_chunks(_cut(u[idx], ok[idx], args.chunk_size), grid, fresh)
                cu, cok = inject_change(u[idx], ok[idx], after * args.chunk_size, "confidence",
                                        0.5, rng_change)
                alarm_chunks(_cut(cu, cok, args.chunk_size), grid, fresh, stop_from=after)
            unshared, unshared_cpu = time.perf_counter() - t, time.process_time() - cpu
            n_unshared = updates()
            # one null resample both ways: a shared run, and a run per alpha
            chunks = _cut(u, ok, args.chunk_size)

            def make(alpha: float, variant: str = variant) -> ChunkPUDD:
                return ChunkPUDD(alpha, seed=0, **VARIANTS[variant])

            t = time.perf_counter()
            alarm_chunks(chunks, grid, make)
            shared = time.perf_counter() - t
            t = time.perf_counter()
            for a in grid:
                alarm_chunks(chunks, [a], make)
            alone = time.perf_counter() - t
            best = res.recommended
            rows.append((n_chunks, variant, f"{total:.1f} ({total_cpu:.1f})", n_shared,
                         f"{unshared:.1f} ({unshared_cpu:.1f})", n_unshared, shared, alone,
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
          "from its middle chunk (a run ends at its detection), the changed run continuing "
          "the null run's state at the change. *Changed runs from chunk 0*: the same runs, "
          "each changed resample run from its first chunk (the calibration before the shared "
          "prefix). The last two time columns run one null resample of the stretch itself: "
          "once shared by all α, and once per α.\n")
    print("| reference chunks | variant | calibrate: wall (CPU) s | its detector updates | "
          "changed runs from chunk 0: wall (CPU) s | their detector updates | one resample, "
          "shared run (s) | one resample, a run per α (s) | recommended α (target 0.01) | "
          "false-alarm rate at 1e-3 |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (n_chunks, variant, total, n_shared, unshared, n_unshared, shared, alone, best,
         rate) in rows:
        print(f"| {n_chunks:,} | {variant} | {total} | {n_shared:,} | {unshared} | "
              f"{n_unshared:,} | {shared:.2f} | {alone:.2f} | {best} | {rate:.4f} |")
    print("\nCPU: the process's CPU seconds (time.process_time), which a loaded machine's "
          "waiting does not inflate as much as the wall clock. Detector updates: chunks fed "
          "to a ChunkPUDD (each α group's detector counts once per chunk), the work whatever "
          "the load.")
    print()


if __name__ == "__main__":
    main()
