"""The calibration's null against fresh streams: README's "What the estimate assumes".

Run from the repository root (minutes: every stretch is calibrated, every fresh stream run):

    PYTHONPATH=. python scripts/calibration_coverage.py                    # block=None (auto)
    PYTHONPATH=. python scripts/calibration_coverage.py --block 100        # whole chunks (before)
    PYTHONPATH=. python scripts/calibration_coverage.py --skip-rule accuracy

I.i.d. rows of a calibrated binary model (top probability ~ U(0.51, 1) to two decimals, right
with that probability): ``--stretches`` stretches of 40 chunks of 100 rows are each calibrated
(``monitoring.calibrate``, ``--resamples`` resamples, no change), and ``--fresh`` fresh streams
of the same generator are each run through their own detector. Printed per α: the fresh rate,
the estimates' mean, standard deviation and range, and for how many stretches the estimate's
95 % interval holds the fresh rate.
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks._common import positive_int
from benchmarks.bench_calibration import _stretch
from pudd_core.detector import ChunkPUDD
from pudd_core.monitoring import VARIANTS, alarm_chunks, calibrate

CHUNK, N_CHUNKS, ALPHAS = 100, 40, (0.1, 0.05)
#: The generator of tests/test_calibration.py's ``_stream`` (and of the calibration's
#: benchmark): u and correctness of i.i.d. rows.
stream = _stretch


def main(argv: list[str] | None = None) -> None:
    """Print the fresh streams' rate and the estimates' spread and coverage per α."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--block", type=positive_int, default=None,
                    help="rows per block (default: auto)")
    ap.add_argument("--skip-rule", choices=["accuracy"], default=None)
    ap.add_argument("--stretches", type=positive_int, default=40)
    ap.add_argument("--resamples", type=positive_int, default=30)
    ap.add_argument("--fresh", type=positive_int, default=600)
    args = ap.parse_args(argv)
    options = {**VARIANTS["calibrated"], "skip_rule": args.skip_rule}
    fresh = [0] * len(ALPHAS)
    for s in range(args.fresh):
        u, ok = stream(N_CHUNKS * CHUNK, 100 + s)
        chunks = [(u[i:i + CHUNK], ok[i:i + CHUNK]) for i in range(0, u.size, CHUNK)]
        for i, h in enumerate(alarm_chunks(chunks, ALPHAS,
                                           lambda a, s=s: ChunkPUDD(a, seed=s, **options))):
            fresh[i] += len(h)
    brute = [f / (args.fresh * N_CHUNKS) for f in fresh]
    rates: list[list[float]] = [[] for _ in ALPHAS]
    held, blocks = [0] * len(ALPHAS), set()
    for seed in range(2000, 2000 + args.stretches):
        u, ok = stream(N_CHUNKS * CHUNK, seed)
        res = calibrate(u, ok, CHUNK, ALPHAS, n_resamples=args.resamples, change=None,
                        seed=seed, block=args.block,
                        detector_options={"skip_rule": args.skip_rule})
        blocks.add(res.block)
        for i, (a, b) in enumerate(zip(ALPHAS, brute, strict=True)):
            row = res.row(a)
            rates[i].append(row.false_alarm_rate)
            held[i] += row.ci[0] <= b <= row.ci[1]
    print(f"block {args.block or 'auto'} (rows: {sorted(blocks)}), skip rule {args.skip_rule}, "
          f"{args.stretches} stretches x {args.resamples} resamples, {args.fresh} fresh streams")
    for i, a in enumerate(ALPHAS):
        r = np.asarray(rates[i])
        print(f"alpha {a:g}: fresh {brute[i]:.4f}; estimates mean {r.mean():.4f} sd "
              f"{r.std(ddof=1):.4f} ({r.min():.4f} .. {r.max():.4f}); interval holds the fresh "
              f"rate for {held[i]} of {args.stretches}")


if __name__ == "__main__":
    main()
