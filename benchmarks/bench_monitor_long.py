"""A long healthy log through the incremental monitor (issue 22, item 7): flat cost and memory.

A stationary 10-class log (the true class's weight 20, as ``bench_monitor``'s first half) of
``--rows`` rows is fed to :class:`pudd_core.monitoring.Monitor` with its defaults (the
calibrated variant, ``max_chunks=128``, ``refit="doubling"``) in batches of 131,072 rows, as
``monitor --follow`` feeds a growing log; each batch's chunks are handed out with
:meth:`Monitor.drain <pudd_core.monitoring.Monitor.drain>` (as follow mode prints them), so
nothing grows with the log but what the detector keeps. Ten distinct batches are generated
once and fed in turn (a stationary log; generating 100 M rows of probabilities would take
longer than monitoring them). Reported: predictions per second over the run, and time per
chunk and resident memory (``/proc/self/statm``) over the first and the last tenth of the
log.
Run: .venv/bin/python -m benchmarks.bench_monitor_long [--rows 100000000] [--chunk-size 1000]
(slow: about ten minutes on the development machine; not part of ``run_all``'s default list,
its section is appended to BENCHMARKS.md by ``--assemble``)
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np

from benchmarks._common import machine, positive_int

N_CLASSES = 10
BATCH = 131_072


def _batches(seed: int = 0, n_distinct: int = 10) -> list[object]:
    import pandas as pd

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_distinct):
        y = rng.integers(0, N_CLASSES, BATCH)
        shape = np.ones((BATCH, N_CLASSES))
        shape[np.arange(BATCH), y] += 20.0
        g = rng.standard_gamma(shape).astype(np.float32)
        p = g / g.sum(axis=1, keepdims=True)
        frame = pd.DataFrame({f"proba_{k}": p[:, k] for k in range(N_CLASSES)})
        frame.insert(0, "label", y)
        out.append(frame)
    return out


def _rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def main() -> None:
    from pudd_core.monitoring import Monitor

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=positive_int, default=100_000_000)
    parser.add_argument("--chunk-size", type=positive_int, default=1000)
    args = parser.parse_args()
    frames = _batches()
    mon = Monitor(label="label", proba_prefix="proba_", chunk_size=args.chunk_size)
    n_batches = -(-args.rows // BATCH)
    steps: list[tuple[int, float, float, float]] = []  # chunks, wall, cpu, rss per batch
    alarms = chunks = 0
    t0, c0 = time.perf_counter(), time.process_time()
    for b in range(n_batches):
        frame = frames[b % len(frames)]
        n = min(BATCH, args.rows - b * BATCH)
        t, c = time.perf_counter(), time.process_time()
        mon.feed(frame.iloc[:n] if n < BATCH else frame)
        done = mon.drain()
        steps.append((len(done), time.perf_counter() - t, time.process_time() - c, _rss_mb()))
        chunks += len(done)
        alarms += sum(rec.alarm for _, rec, _ in done)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    tenth = max(1, len(steps) // 10)

    def part(sel: list[tuple[int, float, float, float]]) -> str:
        k = sum(s[0] for s in sel) or 1
        w, c = sum(s[1] for s in sel) / k * 1e3, sum(s[2] for s in sel) / k * 1e3
        return f"{w:.3f} ms | {c:.3f} ms | {np.mean([s[3] for s in sel]):,.0f} MB"

    print("## A long healthy log: flat cost and memory (issue 22)\n")
    print(f"Command: `.venv/bin/python -m benchmarks.bench_monitor_long --rows {args.rows}`  ")
    print(f"Machine: {machine()}\n")
    print(f"{args.rows:,} stationary rows (label + {N_CLASSES} float32 probabilities), "
          f"`Monitor(label=\"label\", proba_prefix=\"proba_\", chunk_size={args.chunk_size:,})` "
          "with its defaults (calibrated, `max_chunks=128`, `refit=\"doubling\"`), "
          f"fed batches of {BATCH:,} rows, "
          f"each batch's chunks drained as follow mode does: {chunks:,} chunks, {alarms} "
          f"alarms (false: the log is stationary), {wall:,.0f} s wall, {cpu:,.0f} s CPU: "
          f"**{args.rows / wall:,.0f} predictions/s** (wall), {args.rows / cpu:,.0f} per "
          "CPU-second.\n")
    print("| part of the log | time per chunk (wall) | per chunk (CPU) | resident memory |")
    print("| --- | ---: | ---: | ---: |")
    print(f"| first tenth | {part(steps[:tenth])} |")
    print(f"| last tenth | {part(steps[-tenth:])} |")
    print(f"\nPeak RSS of the whole process: "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB. Load average "
          f"(1 min) at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs.")


if __name__ == "__main__":
    main()
