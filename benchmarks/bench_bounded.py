"""A bounded history (``ChunkPUDD(max_chunks=...)``, issue 22 item 7): flat cost, and its effect.

Two parts. (1) Cost: stationary 1,000-value chunks (beta PU, 90 % correct), no alarm possible
(alpha = 1e-30, the calibrated floor): the history only grows, as on a long healthy log. Each
setting runs in its own process, so its peak RSS is its own; time per chunk is reported over
the first and the last 500 chunks. (2) Detection: GNB tested then trained on the paper's
streams, PUDD-3 with each bound against the authors' unbounded history (mean accuracy and
alarms over seeds), so the README can say what the bound changes.
Run: .venv/bin/python -m benchmarks.bench_bounded [--chunks 4000] [--seeds 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import numpy as np

from benchmarks._common import machine

_CHILD = """
import json, resource, sys, time
import numpy as np
from pudd_core import ChunkPUDD
n, bound = int(sys.argv[1]), None if sys.argv[2] == "none" else int(sys.argv[2])
rng = np.random.default_rng(0)
det = ChunkPUDD(alpha=1e-30, clamp_min=0, min_expected=5, max_chunks=bound, refit=sys.argv[3],
                seed=0)
times = []
for _ in range(n):
    u = rng.beta(1, 8, 1000)
    c = rng.random(1000) < 0.9
    t = time.perf_counter()
    det.update(u, c)
    times.append(time.perf_counter() - t)
print(json.dumps({"first": float(np.mean(times[:500])), "last": float(np.mean(times[-500:])),
                  "total": float(np.sum(times)), "history": det.n_chunks,
                  "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

STREAMS = ("sea0", "sine", "mixed", "sea10", "sea20", "elec2", "powersupply")
BOUNDS: tuple[int | None, ...] = (None, 128, 16, 8)
#: (max_chunks, refit) of the detection tables: the bounds with a fit for every old window,
#: then the monitor's default (128, "doubling") and the doubling refit alone
SETTINGS: tuple[tuple[int | None, str], ...] = (
    *((b, "every") for b in BOUNDS), (128, "doubling"), (None, "doubling"))


def cost(n_chunks: int) -> list[str]:
    """Table rows: per-chunk time early and late, and peak RSS, per bound."""
    rows = []
    for bound, refit in ((None, "every"), (128, "every"), (16, "every"), (128, "doubling")):
        out = subprocess.run([sys.executable, "-c", _CHILD, str(n_chunks), str(bound).lower(),
                              refit], capture_output=True, text=True, check=True).stdout
        r = json.loads(out)
        rows.append(f"| {bound} | {refit} | {r['first'] * 1e3:.2f} ms | {r['last'] * 1e3:.2f} ms | "
                    f"{r['history']} | {r['rss']:.0f} MB | {n_chunks * 1000 / r['total']:,.0f}/s |")
    return rows


def detection(seeds: int) -> list[str]:
    """Table rows: per stream, mean accuracy and alarms of PUDD-3 under each bound."""
    from pudd_core.experiments.runner import RunConfig, run_experiment

    rows = []
    for name in STREAMS:
        cells = []
        for bound, refit in SETTINGS:
            opts: dict[str, object] = {} if bound is None else {"max_chunks": bound}
            if refit != "every":
                opts["refit"] = refit
            runs = [run_experiment(RunConfig(name, "gnb", "pudd", alpha=1e-3, seed=s,
                                             detector_options=opts)) for s in range(seeds)]
            cells.append((np.mean([r.accuracy for r in runs]) * 100,
                          np.mean([r.n_alarms for r in runs]),
                          max(np.diff([0, *r.alarms, len(r.chunks) + 1]).max() for r in runs)))
        base = cells[0]
        rows.append(f"| {name} ({base[2]}) | "
                    + " | ".join(f"{a:.2f} ({n:.1f})" + ("" if i == 0 else f" {a - base[0]:+.2f}")
                                 for i, (a, n, _) in enumerate(cells)) + " |")
    return rows


def log_chunks(n: int, drift: int, sharp: tuple[float, float], seed: int
               ) -> list[tuple[np.ndarray, np.ndarray]]:
    """PU and correctness of a 10-class model's 1,000-row chunks; less sharp from ``drift``."""
    rng = np.random.default_rng(seed)
    out = []
    for t in range(n):
        y = rng.integers(0, 10, 1000)
        shape = np.ones((1000, 10))
        shape[np.arange(1000), y] += sharp[t >= drift]
        g = rng.standard_gamma(shape)
        p = g / g.sum(axis=1, keepdims=True)
        out.append((1 - p[np.arange(1000), y], p.argmax(axis=1) == y))
    return out


def on_logs(seeds: int, n: int = 1500, drift: int = 1000) -> list[str]:
    """Table rows: a long healthy stretch then a performance drop, per drop size and bound."""
    from pudd_core import ChunkPUDD

    rows = []
    for sharp in ((20.0, 8.0), (20.0, 16.0), (20.0, 18.0)):
        cells = []
        for bound, refit in ((None, "every"), (128, "every"), (128, "doubling")):
            first, false = [], []
            for seed in range(seeds):
                det = ChunkPUDD(clamp_min=0, min_expected=5, max_chunks=bound, refit=refit,
                                seed=seed)
                alarms = []
                for t, (u, c) in enumerate(log_chunks(n, drift, sharp, seed)):
                    det.update(u, c)
                    if det.drift_detected:
                        alarms.append(t)
                false.append(sum(a < drift for a in alarms))
                after = [a - drift for a in alarms if a >= drift]
                first.append(after[0] if after else None)
            cells.append(f"{', '.join('–' if f is None else str(f) for f in first)} / "
                         f"{np.mean(false):.1f}")
        rows.append(f"| {sharp[0]:g} → {sharp[1]:g} | " + " | ".join(cells) + " |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=int, default=4000)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    print("## Bounded history: flat cost on a long healthy log (issue 22)\n")
    print("Command: `.venv/bin/python -m benchmarks.bench_bounded`  ")
    print(f"Machine: {machine()}\n")
    print(f"Cost: {args.chunks:,} stationary chunks of 1,000 values, no alarm possible "
          "(the history only grows); `ChunkPUDD(clamp_min=0, min_expected=5, max_chunks=..., "
          "refit=...)`"
          ", each in its own process.\n")
    print("| max_chunks | refit | time per chunk, first 500 | last 500 | history at the end | "
          "peak RSS | values/s overall |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    print("\n".join(cost(args.chunks)))
    print(f"\nDetection: GNB tested then trained, PUDD-3 (authors' defaults otherwise), mean "
          f"accuracy % (mean alarms) over seeds 0-{args.seeds - 1}; the difference to the "
          "unbounded history after it. A bound changes nothing until the history since the "
          "last alarm reaches it.\n")
    print("Stream (in brackets: the longest run of chunks without an unbounded alarm, the "
          "history's largest size).\n")
    print("| stream | " + " | ".join(f"max_chunks={b}" + ("" if r == "every" else f", {r}")
                                     for b, r in SETTINGS) + " |")
    print("| --- |" + " ---: |" * len(SETTINGS))
    print("\n".join(detection(args.seeds)))
    print("\nOn logs like a monitored model's: 1,500 chunks of 1,000 predictions of a "
          "10-class model (Dirichlet-like probabilities, the true class's weight 20), whose "
          "weight drops at chunk 1,000 (a large, a mild and a slight drop); calibrated PUDD-3 "
          "(`clamp_min=0, min_expected=5`). Chunks from the drop to the first alarm after it "
          f"(one per seed, 0-{args.seeds - 1}; – none) / mean false alarms before it.\n")
    print("| weight before → after | unbounded | max_chunks=128 | max_chunks=128, doubling "
          "(the monitor's default) |")
    print("| --- | --- | --- | --- |")
    print("\n".join(on_logs(args.seeds)))


if __name__ == "__main__":
    main()
