"""Runner speed: one episode per classifier on one core, and where the time goes.

Run: .venv/bin/python -m benchmarks.bench_runner
"""

from __future__ import annotations

import os

from benchmarks._common import machine
from pudd_core.experiments.runner import RunConfig, run_experiment

COMMAND = ".venv/bin/python -m benchmarks.bench_runner"


def main() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, as the target says
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    print("## Runner episodes (issue 4)\n")
    print(f"Command: `{COMMAND}` (pinned to one core, torch on 1 thread)  \nMachine: {machine()}\n")
    print("| episode (sea0, 100 chunks x 1000, incremental) | wall (s) | predict | detect "
          "| train + adapt | accuracy | alarms | target |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    cases = [
        ("gnb", "pudd", "≤ 1 s"), ("vfdt", "pudd", "≤ 10 s"), ("dnn", "pudd", "≤ 30 s"),
        ("gnb", "adwin", ""), ("gnb", "ddm", ""), ("gnb", "kswin", "reported separately"),
    ]
    for clf, det, target in cases:
        res = run_experiment(RunConfig("sea0", clf, det, alpha=1e-3, seed=0))
        pred = sum(c.predict_ms for c in res.chunks) / 1e3
        dete = sum(c.detect_ms for c in res.chunks) / 1e3
        train = res.elapsed_s - pred - dete
        label = f"{clf} + {'PUDD-3' if det == 'pudd' else det.upper()}"
        print(f"| {label} | {res.elapsed_s:.2f} | {pred:.2f} | {dete:.2f} | {train:.2f} | "
              f"{100 * res.accuracy:.2f} | {res.n_alarms} | {target} |")
    print("\n*predict*: `predict_proba` + PU-index; *detect*: the detector's update over the "
          "chunk (for river baselines, one `update` per instance); *train + adapt*: "
          "incremental training, adaptation after alarms, stream generation and bookkeeping. "
          "river's KSWIN runs a Kolmogorov-Smirnov test at every instance, which is where its "
          "episode time goes.")


if __name__ == "__main__":
    main()
