"""Following a growing log (issue 22 item 6): does ``monitor --follow`` keep up, in flat memory?

This process appends rows to a CSV at a set rate (bursts every 0.1 s; the rows are cut from a
pre-made pool of a 3-class log, so writing costs next to nothing) while ``python -m pudd_core
monitor FILE --follow --state ...`` runs as a child process. Each JSON line the follower
prints is time-stamped on arrival; its lag is that time minus the time the chunk's last row
was written. The follower's RSS (``/proc/<pid>/status``, VmRSS) is sampled every second.
Run: .venv/bin/python -m benchmarks.bench_follow [--rows 5000000] [--rate 100000]
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from benchmarks._common import machine, positive_int

ROOT = Path(__file__).resolve().parents[1]
N_CLASSES = 3
POOL = 200_000


def pool_lines(seed: int = 0) -> list[bytes]:
    """``POOL`` CSV lines of a healthy 3-class model (label, proba_0..2; 6 decimals)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, N_CLASSES, POOL)
    shape = np.ones((POOL, N_CLASSES))
    shape[np.arange(POOL), y] += 12.0
    g = rng.gamma(shape)
    p = np.round(g / g.sum(axis=1, keepdims=True), 6)
    p[:, -1] = np.round(1 - p[:, :-1].sum(axis=1), 6)
    return [f"{a}," + ",".join(f"{v:.6f}" for v in row) + "\n"
            for a, row in zip(y.tolist(), p.tolist(), strict=True)]


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def schedule(rows: int, rate: int) -> tuple[int, float]:
    """Rows per burst and seconds between bursts: ten bursts a second, or one row per burst
    below 10 rows a second (a burst of ``rate // 10`` rows was 0 there: the loop then wrote
    the whole pool every 0.1 s without end).

    Examples
    --------
    >>> schedule(5_000_000, 100_000), schedule(100, 5)
    ((10000, 0.1), (1, 0.2))
    """
    burst = max(1, rate // 10)
    return burst, burst / rate


def append(out: Any, data: bytes, ends: NDArray[np.int64], rows: int, rate: int,
           on_burst: Callable[[int], None] = lambda done: None,
           sleep: Callable[[float], None] = time.sleep) -> list[tuple[int, float]]:
    """Append ``rows`` lines of the pool (``data``, line ``i`` ending at ``ends[i]``) to
    ``out`` at ``rate`` rows a second; ``(rows written so far, when)`` after each burst."""
    burst, interval = schedule(rows, rate)
    written: list[tuple[int, float]] = []
    start = time.perf_counter()
    done = 0
    while done < rows:
        a = done % POOL
        b = min(a + min(burst, rows - done), POOL)
        out.write(data[(int(ends[a - 1]) if a else 0):int(ends[b - 1])])
        done += b - a
        written.append((done, time.perf_counter()))
        on_burst(done)
        sleep(max(0.0, start + len(written) * interval - time.perf_counter()))
    return written


def _stop(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # a SIGTERM stops the run as Ctrl-C does: the cleanup runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=positive_int, default=5_000_000)
    parser.add_argument("--rate", type=positive_int, default=100_000,
                        help="rows appended per second")
    parser.add_argument("--chunk-size", type=positive_int, default=1000)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, _stop)
    lines = pool_lines()
    data = "".join(lines).encode()
    ends = np.cumsum([len(x) for x in lines])
    procs: list[subprocess.Popen[bytes]] = []
    try:
        with tempfile.TemporaryDirectory(prefix="pudd_bench_follow_") as tmp:
            try:
                result = _run(args, tmp, data, ends, procs)
            finally:  # the follower never outlives the run, nor writes in a removed folder
                for proc in procs:
                    if proc.poll() is None:
                        proc.kill()
                        proc.wait()
    except KeyboardInterrupt:
        print("interrupted: the follower stopped and the temporary folder removed",
              file=sys.stderr)
        raise SystemExit(130) from None
    _report(args, lines, *result)


def _run(args: argparse.Namespace, tmp: str, data: bytes, ends: NDArray[np.int64],
         procs: list[subprocess.Popen[bytes]]) -> Any:
    """Start the follower (kept in ``procs``), append the rows, wait for its lines."""
    log, state = Path(tmp) / "log.csv", Path(tmp) / "state"
    log.write_bytes(b"label," + ",".join(f"proba_{k}" for k in range(N_CLASSES)).encode()
                    + b"\n")
    cmd = [sys.executable, "-m", "pudd_core", "monitor", str(log), "--follow",
           "--label", "label", "--proba-prefix", "proba_",
           "--chunk-size", str(args.chunk_size), "--poll", "0.1", "--state", str(state)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    procs.append(proc)
    arrivals: list[tuple[float, int]] = []

    def read() -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            arrivals.append((time.perf_counter(), json.loads(raw)["last_row"]))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    time.sleep(3.0)  # the follower's imports
    rss: list[tuple[int, float]] = []
    start = time.perf_counter()
    next_rss = [start]

    def sample(done: int) -> None:
        if time.perf_counter() >= next_rss[0]:
            rss.append((done, rss_mb(proc.pid)))
            next_rss[0] += 1.0

    with open(log, "ab", buffering=0) as out:
        written = append(out, data, ends, args.rows, args.rate, sample)
    write_s = time.perf_counter() - start
    want = args.rows // args.chunk_size - 1  # the last chunk stays open
    deadline = time.perf_counter() + 600
    while len(arrivals) < want and time.perf_counter() < deadline and proc.poll() is None:
        time.sleep(0.05)
    caught_up = time.perf_counter() - start
    rss.append((args.rows, rss_mb(proc.pid)))
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    reader.join(timeout=10)
    return written, arrivals, rss, write_s, caught_up, want


def _report(args: argparse.Namespace, lines: list[str], written: list[tuple[int, float]],
            arrivals: list[tuple[float, int]], rss: list[tuple[int, float]], write_s: float,
            caught_up: float, want: int) -> None:
    rows_w = np.array([w[0] for w in written])
    t_w = np.array([w[1] for w in written])
    lags = [t - t_w[np.searchsorted(rows_w, last + 1)] for t, last in arrivals]
    q = np.percentile(lags, [50, 99, 100]) if lags else [np.nan] * 3
    command = "python -m benchmarks.bench_follow" + (
        f" --rows {args.rows}" if args.rows != 5_000_000 else "") + (
        f" --rate {args.rate}" if args.rate != 100_000 else "")
    marks = [rss[i] for i in sorted({1, len(rss) // 4, len(rss) // 2, 3 * len(rss) // 4,
                                      len(rss) - 1}) if i < len(rss)]
    print("## Monitor: following a growing log\n")
    print(f"Machine: {machine()}. Command: `{command}` (the follower: `python -m pudd_core "
          f"monitor log.csv --follow --label label --proba-prefix proba_ --chunk-size "
          f"{args.chunk_size} --poll 0.1 --state state`; a 3-class CSV, {len(lines[0])} bytes "
          "a row).\n")
    print("| rows appended | target rate | rate reached | lines | caught up after | lag p50 "
          "| lag p99 | lag max |")
    print("|---|---|---|---|---|---|---|---|")
    print(f"| {args.rows:,} | {args.rate:,}/s | {args.rows / write_s:,.0f}/s | "
          f"{len(arrivals):,} of {want:,} | {caught_up:.1f} s (writing took {write_s:.1f} s) "
          f"| {q[0]:.2f} s | {q[1]:.2f} s | {q[2]:.2f} s |\n")
    print("The follower's RSS as the log grows (MB): "
          + ", ".join(f"{mb:.0f} at {rows:,} rows" for rows, mb in marks) + ".\n")
    print("The lag of a chunk: from the write of its last row to its line on the follower's "
          "stdout (a chunk is tested when a row of the next one arrives, so at least one "
          "burst, 0.1 s, plus the poll interval, 0.1 s).\n")


if __name__ == "__main__":
    main()
