"""Monitoring a large prediction log (issue 12): throughput and peak memory of ``monitor``.

A 10-class Parquet log of 10 million rows (label + 10 float32 probabilities, a drift
half-way) is generated in a temporary folder in pieces, then each measured call runs in its
own process, so its peak RSS (``ru_maxrss``) is its own: reading in pyarrow batches, the
PU-index and correctness, ChunkPUDD chunk by chunk.
Run: .venv/bin/python -m benchmarks.bench_monitor [--rows N] [--log FILE] [--chunk-sizes 10000,1000]
[--baseline CHECKOUT] [--repeat N]

Wall time depends on what else the machine runs; CPU time (``time.process_time`` of the
child: every thread of it) much less, so both are printed. The child imports pandas and
pyarrow before the clock starts (a process's one-off start-up, about 0.6 s, is not
throughput); its peak RSS is the whole process's. ``--baseline`` runs the same calls with
another checkout of the repository first on ``PYTHONPATH`` (e.g. a worktree of the commit
before a change), in the same run, so the rows compare. ``--repeat N`` measures every call N
times, round after round, and adds each one's median, lowest and highest rate: on a shared
virtual machine the same code's rate moves by a fifth between runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks._common import existing_path, machine, positive_int

N_CLASSES = 10
PIECE = 1_000_000


#: The log shapes measured: integer labels with float32 probabilities, and the commonest
#: shape a serving stack writes, text labels with float64 probabilities (issue 32 item 12).
SHAPES = ("float32", "string")


def write_log(path: Path, n_rows: int, seed: int = 0, shape: str = "float32") -> None:
    """``n_rows`` predictions of a 10-class model that gets worse half-way, in pieces.

    ``shape``: ``"float32"`` (labels 0-9, columns ``proba_0`` ... as float32) or ``"string"``
    (labels ``class_0`` ... as text, columns ``proba_class_0`` ... as float64); the same
    predictions either way.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    text = shape == "string"
    names = np.array([f"class_{k}" for k in range(N_CLASSES)])
    schema = pa.schema([("label", pa.string() if text else pa.int64()),
                        *((f"proba_{names[k] if text else k}",
                           pa.float64() if text else pa.float32()) for k in range(N_CLASSES))])
    with pq.ParquetWriter(path, schema) as writer:
        for start in range(0, n_rows, PIECE):
            n = min(PIECE, n_rows - start)
            y = rng.integers(0, N_CLASSES, n)
            sharp = np.where(np.arange(start, start + n) < n_rows // 2, 20.0, 8.0)
            shape = np.ones((n, N_CLASSES))
            shape[np.arange(n), y] += sharp
            g = rng.standard_gamma(shape).astype(np.float32)
            p = g / g.sum(axis=1, keepdims=True)
            if text:
                p = p.astype(np.float64)
                p /= p.sum(axis=1, keepdims=True)
            cols = [pa.array(names[y] if text else y),
                    *(pa.array(p[:, k]) for k in range(N_CLASSES))]
            writer.write_table(pa.Table.from_arrays(cols, schema=schema))


_CHILD = """
import json, resource, sys, time
import pandas, pyarrow.parquet
from pudd_core import monitor
def peak_mb():
    # the process's own high-water mark (VmHWM); ru_maxrss keeps the parent's across fork and
    # exec, so a parent that generated the logs in memory inflated every child's figure
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t, c = time.perf_counter(), time.process_time()
res = monitor(sys.argv[1], label="label", proba_prefix="proba_", chunk_size=int(sys.argv[2]))
wall, cpu = time.perf_counter() - t, time.process_time() - c
print(json.dumps({"wall": wall, "cpu": cpu, "rows": res.n_rows, "chunks": res.n_chunks,
                  "alarms": len(res.alarms),
                  "rss_mb": peak_mb()}))
"""


ROOT = Path(__file__).resolve().parents[1]
TARGETS = {10_000: 3_000_000, 1_000: 1_000_000}  # predictions/s (issue 22), in <= 500 MB
MAX_RSS_MB = 500


def measure(path: Path, chunk_size: int, checkout: Path = ROOT) -> dict[str, float]:
    """One ``monitor`` call in a fresh process: wall time, rows, chunks, alarms, peak RSS."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    out = subprocess.run([sys.executable, "-c", _CHILD, str(path), str(chunk_size)],
                         capture_output=True, text=True, check=True, env=env,
                         cwd=checkout).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def _commit(tree: Path) -> str:
    out = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True, check=False).stdout.strip()
    return out or str(tree)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=positive_int, default=10_000_000)
    parser.add_argument("--log", type=existing_path, default=None,
                        help="a log written by write_log before (skips the generation)")
    parser.add_argument("--chunk-sizes", default="10000,1000")
    parser.add_argument("--baseline", type=existing_path, default=None,
                        help="another checkout to measure in the same run (before a change)")
    parser.add_argument("--repeat", type=positive_int, default=1,
                        help="measure every call this many times, round after round")
    parser.add_argument("--shapes", default=",".join(SHAPES),
                        help="the log shapes, side by side: float32 (integer labels, float32 "
                             "probabilities), string (text labels, float64 probabilities)")
    args = parser.parse_args()
    shapes = [c.strip() for c in args.shapes.split(",") if c.strip()]
    if not shapes or any(c not in SHAPES for c in shapes):
        parser.error(f"--shapes: give some of {', '.join(SHAPES)}, got {args.shapes!r}")
    if args.log is not None and shapes != ["float32"]:
        parser.error("--log is a float32 log written by write_log: give --shapes float32 "
                     "with it")
    try:
        sizes = [positive_int(c) for c in args.chunk_sizes.split(",")]
    except argparse.ArgumentTypeError as err:
        parser.error(f"--chunk-sizes: {err}")
    with tempfile.TemporaryDirectory(prefix="pudd-bench-monitor-") as tmp:
        paths = {c: args.log or Path(tmp) / f"log-{c}.parquet" for c in shapes}
        t = time.perf_counter()
        if args.log is None:
            for c, path in paths.items():
                write_log(path, args.rows, shape=c)
        gen = time.perf_counter() - t
        size_mb = {c: path.stat().st_size / 2**20 for c, path in paths.items()}
        trees = [("this checkout", ROOT)]
        if args.baseline is not None:
            trees.append((f"baseline ({_commit(args.baseline)})", args.baseline))
        rows = []
        for run in range(1, args.repeat + 1):
            for c in sizes:
                for shape, path in paths.items():
                    for name, tree in trees:
                        start_load = os.getloadavg()[0]
                        rows.append((run, f"{name}, {shape}", c, start_load,
                                     measure(path, c, tree)))
        load = os.getloadavg()[0]
    print("## Monitoring a prediction log (issue 12, issue 22)\n")
    print("Command: `.venv/bin/python -m benchmarks.bench_monitor"
          f"{' --baseline CHECKOUT' if args.baseline else ''}"
          f"{f' --repeat {args.repeat}' if args.repeat > 1 else ''}`  ")
    print(f"Machine: {machine()}\n")
    sizes_text = ", ".join(f"{c} {mb:,.0f} MB" for c, mb in size_mb.items())
    print(f"The logs: {args.rows:,} rows each, label + {N_CLASSES} probabilities, a drift "
          "half-way, in each shape measured (float32: integer labels, float32 probabilities; "
          "string: text labels `class_0` ..., float64 probabilities, the shape serving stacks "
          "write most); Parquet (row groups of 1,048,576 rows, pyarrow's default), "
          f"{sizes_text}{f' (generated in {gen:.0f} s, not counted)' if gen > 1 else ''}. "
          "Each call runs in a fresh process: `pudd_core.monitor(path, label=\"label\", "
          "proba_prefix=\"proba_\", chunk_size=N)` with the monitor's defaults (the "
          "calibrated variant, `max_chunks=128`, `refit=\"doubling\"` where the checkout has "
          "it), end to end (pyarrow batches of 131,072 rows "
          "with only the needed columns, checks, PU-index, ChunkPUDD pow2); pandas and pyarrow "
          "are imported before the clock starts.\n")
    print("| run | code | chunk size | chunks | load at start | wall (s) | CPU (s) | "
          "predictions/s (wall) | predictions per CPU-second | peak RSS (MB) | alarms | target "
          "| met (CPU) |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- "
          "| --- |")
    for run, name, chunk, start_load, r in rows:
        target = TARGETS.get(chunk)
        rate = r["rows"] / r["cpu"]
        print(f"| {run} | {name} | {chunk:,} | {int(r['chunks']):,} | {start_load:.1f} | "
              f"{r['wall']:.1f} | {r['cpu']:.1f} | {r['rows'] / r['wall']:,.0f} | {rate:,.0f} "
              f"| {r['rss_mb']:,.0f} | {int(r['alarms'])} | "
              f"{'–' if target is None else f'≥ {target:,}/s, ≤ {MAX_RSS_MB} MB'} | "
              f"{_met(rate, r['rss_mb'], target)} |")
    if args.repeat > 1:
        _summary(rows)
    _ratios(rows, sizes)
    print(f"\nLoad average (1 min) at the end: {load:.1f} on {os.cpu_count()} CPUs: wall time "
          "grows with the machine's load, CPU time much less; the targets are read on CPU "
          "time (the rate of an otherwise idle core).")


def _met(rate: float, rss_mb: float, target: int | None) -> str:
    if target is None:
        return "–"
    return "yes" if rate >= target and rss_mb <= MAX_RSS_MB else f"no: {rate / target:.0%} of it"


def _summary(rows: list[tuple[int, str, int, float, dict[str, float]]]) -> None:
    """Per code and chunk size: the median, lowest and highest rate over the runs."""
    print("\n| code | chunk size | runs | predictions per CPU-second: median | lowest | "
          "highest | highest peak RSS (MB) | runs that met the target | the median |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    groups: dict[tuple[str, int], list[dict[str, float]]] = {}
    for _, name, chunk, _, r in rows:
        groups.setdefault((name, chunk), []).append(r)
    for (name, chunk), runs in groups.items():
        rates = [r["rows"] / r["cpu"] for r in runs]
        rss = max(r["rss_mb"] for r in runs)
        target = TARGETS.get(chunk)
        met = "–" if target is None else str(sum(
            rate >= target and r["rss_mb"] <= MAX_RSS_MB for rate, r in zip(rates, runs,
                                                                            strict=True)))
        print(f"| {name} | {chunk:,} | {len(runs)} | {statistics.median(rates):,.0f} | "
              f"{min(rates):,.0f} | {max(rates):,.0f} | {rss:,.0f} | {met} of {len(runs)} | "
              f"{_met(statistics.median(rates), rss, target)} |")

def _ratios(rows: list[tuple[int, str, int, float, dict[str, float]]],
            sizes: list[int]) -> None:
    """The string log's median rate against the float32 log's, per code and chunk size."""
    rates: dict[tuple[str, str, int], list[float]] = {}
    for _, name, chunk, _, r in rows:
        code, _, shape = name.rpartition(", ")
        rates.setdefault((code, shape, chunk), []).append(r["rows"] / r["cpu"])
    lines = []
    for code in dict.fromkeys(k[0] for k in rates):
        for chunk in sizes:
            f32, txt = rates.get((code, "float32", chunk)), rates.get((code, "string", chunk))
            if f32 and txt:
                ratio = statistics.median(f32) / statistics.median(txt)
                verdict = "within" if ratio <= 1.5 else "over"
                lines.append(f"- {code}, chunks of {chunk:,}: the float32 log's median rate is "
                             f"{ratio:.2f}× the string log's ({verdict} the 1.5× target)")
    if lines:
        print("\nString labels and float64 probabilities against float32 (issue 32 item 12):\n")
        print("\n".join(lines))


if __name__ == "__main__":
    main()
