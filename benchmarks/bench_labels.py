"""Labels in a second file (issue 32 item 9): what the join by id costs the batch monitor.

A 3-class log of N predictions (each with a text request id, float64 probabilities) is written
twice in a temporary folder: once with its labels (the pre-joined log), once without, beside
a labels file holding 90 % of them in another order (CSV, as a label pipeline writes it, or
Parquet). Each call runs in its own process (the child imports pandas and pyarrow before the
clock starts); the rate is rows per CPU-second of the child, the peak RSS its own.
Run: .venv/bin/python -m benchmarks.bench_labels [--rows N] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks._common import machine, positive_int

ROOT = Path(__file__).resolve().parents[1]
_CHILD = r"""
import json, sys, time
import pandas, pyarrow, pyarrow.parquet
from pudd_core import monitor
def peak_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
log, labels = sys.argv[1], sys.argv[2]
kw = {"labels": labels, "id_column": "request_id"} if labels != "-" else {}
t, c = time.perf_counter(), time.process_time()
res = monitor(log, label="label", proba_prefix="proba_", chunk_size=1000, **kw)
print(json.dumps({"wall": time.perf_counter() - t, "cpu": time.process_time() - c,
                  "rows": res.n_rows, "alarms": len(res.alarms), "rss_mb": peak_mb()}))
"""


def write_logs(folder: Path, n: int) -> dict[str, tuple[Path, str]]:
    """The measured cases: (log, labels or "-"), by name."""
    from tests._logs import three_class_log  # the tests' log: sharper before row n // 2

    frame = three_class_log(n, 0)
    frame.insert(0, "request_id", [f"req-{i:09d}" for i in range(n)])
    keep = frame[["request_id", "label"]].sample(frac=0.9, random_state=0)
    joined = frame.drop(columns="label").merge(keep, on="request_id", how="left")
    joined.to_parquet(folder / "joined.parquet", index=False)
    frame.drop(columns="label").to_parquet(folder / "served.parquet", index=False)
    keep.to_csv(folder / "labels.csv", index=False)
    keep.to_parquet(folder / "labels.parquet", index=False)
    return {"one log, labels in it (pre-joined)": (folder / "joined.parquet", "-"),
            "--labels labels.csv": (folder / "served.parquet", str(folder / "labels.csv")),
            "--labels labels.parquet": (folder / "served.parquet",
                                        str(folder / "labels.parquet"))}


def measure(log: Path, labels: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", _CHILD, str(log), labels], capture_output=True,
                         text=True, check=True, env=env, cwd=ROOT).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=positive_int, default=1_000_000)
    parser.add_argument("--repeat", type=positive_int, default=3,
                        help="measure each case this many times, round after round")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cases = write_logs(Path(tmp), args.rows)
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in cases}
        for _ in range(args.repeat):
            for name, (log, labels) in cases.items():
                runs[name].append(measure(log, labels))
    print("## Monitor: labels in a second file\n")
    print(f"`python -m benchmarks.bench_labels --rows {args.rows} --repeat {args.repeat}` on "
          f"{machine()}. A 3-class log of {args.rows:,} predictions with text request ids "
          "and float64 probabilities, 90 % of them labelled; chunks of 1,000 rows. The "
          "pre-joined log holds the labels in a column; the others read the predictions and "
          "join the labels file by id. Median of the rounds (lowest .. highest rate).\n")
    print("| case | rows/CPU-s | CPU s | peak RSS MB | alarms |")
    print("| --- | ---: | ---: | ---: | ---: |")
    base = None
    for name, rs in runs.items():
        rates = [r["rows"] / r["cpu"] for r in rs]
        med = statistics.median(rates)
        base = med if base is None else base
        print(f"| {name} | {med:,.0f} ({min(rates):,.0f} .. {max(rates):,.0f}) | "
              f"{statistics.median(r['cpu'] for r in rs):.2f} | "
              f"{statistics.median(r['rss_mb'] for r in rs):.0f} | "
              f"{int(rs[0]['alarms'])} |")
    print()
    slow = [(name, base / statistics.median(r["rows"] / r["cpu"] for r in rs))
            for name, rs in runs.items()][1:]
    print("The join costs " + "; ".join(f"{name}: {x:.2f}x the pre-joined log's CPU time"
                                        for name, x in slow) + ".")


if __name__ == "__main__":
    main()
