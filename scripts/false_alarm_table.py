"""Stationary false-alarm rates of ChunkPUDD's count-floor variants -> results/false_alarms.md.

Run from the repository root:

    python scripts/false_alarm_table.py            # 2000 chunks per cell, alpha = 1e-3, seed 0
    python scripts/false_alarm_table.py --from-csv # re-render the Markdown from the CSV

Every cell runs the same stationary stream of PU values (no drift) through each variant; a
rate above alpha is a false-alarm rate the test does not promise.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import pandas as pd
from scipy import stats

from pudd_core.experiments.sweep import pu_false_alarm_table


def render(df: pd.DataFrame, args: argparse.Namespace) -> str:
    """The Markdown table, with each cell's verdict against alpha."""
    alpha = float(df["alpha"].iloc[0])
    n_chunks = int(df["n_chunks"].iloc[0])
    # one-sided 95 % Clopper-Pearson bounds of the per-test rate
    df["per_test_lower95"] = [float(stats.beta.ppf(0.05, r, t - r + 1)) if r else 0.0
                              for r, t in zip(df["rejections"], df["tests"], strict=True)]
    df["per_test_upper95"] = [float(stats.beta.ppf(0.95, r + 1, t - r)) if t else 1.0
                              for r, t in zip(df["rejections"], df["tests"], strict=True)]
    df["above_alpha"] = df["per_test_lower95"] > alpha
    lines = [
        "# ChunkPUDD false alarms on stationary streams",
        "",
        f"Command: `python scripts/false_alarm_table.py --n-chunks {n_chunks} "
        f"--alpha {alpha:g} --seed {args.seed}` ({float(df['run_s'].iloc[0]):.0f} s on one "
        f"core of {platform.node()}, Python {platform.python_version()}; "
        "`--from-csv` re-renders this file from the CSV).",
        "",
        f"{n_chunks} chunks per cell; each prediction is wrong with the given probability"
        " (correct: u ~ Beta(1, 8) below 0.5; wrong: u above 0.5); the detector resets after"
        " each alarm, as in a run, and every variant sees the same stream. *per test*: share"
        " of cut-point tests with p < alpha (the paper's guarantee is per test: alpha);"
        " *95 % interval*: one-sided Clopper-Pearson bounds of that rate; *above alpha*:"
        " the lower bound exceeds alpha, so the excess is not sampling noise; *per chunk*:"
        " share of chunks that alarmed (several cuts are tested per chunk).",
        "",
        "| chunk size | error rate | variant | tests | per test | 95 % interval | above α "
        "| per chunk |",
        "|---:|---:|---|---:|---:|---|:-:|---:|",
    ]
    for r in df.itertuples():
        lines.append(
            f"| {r.chunk_size} | {100 * r.error_rate:g} % | {r.variant} | {r.tests} "
            f"| {r.per_test:.5f} | {r.per_test_lower95:.5f} - {r.per_test_upper95:.5f} "
            f"| {'**yes**' if r.above_alpha else 'no'} | {r.per_chunk:.4f} |")
    worst = df.groupby("variant", sort=False)["above_alpha"].sum()
    lines += ["", "Cells whose rate is above alpha: "
              + "; ".join(f"{v}: {int(n)} of {len(df) // len(worst)}" for v, n in worst.items())
              + "."]
    return "\n".join(lines) + "\n"


def main() -> int:
    """Compute the table (or read it back with --from-csv), write Markdown and CSV."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n-chunks", type=int, default=2000)
    parser.add_argument("--alpha", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="results/false_alarms")
    parser.add_argument("--from-csv", action="store_true",
                        help="re-render the Markdown from the CSV of an earlier run")
    args = parser.parse_args()
    out = Path(args.out)
    if args.from_csv:
        df = pd.read_csv(out.with_suffix(".csv"))
    else:
        start = time.perf_counter()
        df = pu_false_alarm_table(n_chunks=args.n_chunks, alpha=args.alpha, seed=args.seed,
                                  progress=lambda i, n: print(f"{i}/{n}", file=sys.stderr))
        df["run_s"] = time.perf_counter() - start
        out.parent.mkdir(parents=True, exist_ok=True)
    text = render(df, args)
    df.to_csv(out.with_suffix(".csv"), index=False)
    out.with_suffix(".md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
