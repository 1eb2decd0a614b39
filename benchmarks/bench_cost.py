"""The run estimates (``pudd_core.experiments.cost``) against measured runs.

Each setting runs :func:`~pudd_core.experiments.runner.run_experiment` once after a warm-up
run (imports, stream caches, compiled kernels paid before the clock), in this process; the
table gives the estimate the app shows before a run, the measured wall time and their ratio,
and the per-chunk cost each measurement implies (the constant of ``cost.CHUNK_SECONDS`` or
``cost.DETECTOR_CHUNK_SECONDS`` that would make the estimate exact).

Run: .venv/bin/python -m benchmarks.bench_cost
"""

from __future__ import annotations

import os
import time

from benchmarks._common import machine
from pudd_core.experiments import cost
from pudd_core.experiments.runner import RunConfig, run_experiment
from pudd_core.streams import get_info

#: (dataset, classifier, detector, chunks): the explorer's and the pages' usual runs.
SETTINGS: tuple[tuple[str, str, str, int | None], ...] = (
    ("sea0", "gnb", "pudd", 100),
    ("sea0", "gnb", "ddm", 100),
    ("sea0", "gnb", "adwin", 100),
    ("sea0", "gnb", "kswin", 100),
    ("sea0", "vfdt", "pudd", 100),
    ("sea0", "vfdt", "ddm", 100),
    ("elec2", "gnb", "pudd", None),
)


def main() -> None:
    run_experiment(RunConfig("sea0", "gnb", n_chunks=5))  # imports and first-use costs
    rows = []
    for dataset, classifier, detector, n_chunks in SETTINGS:
        config = RunConfig(dataset, classifier, detector, n_chunks=n_chunks, seed=0)
        run_experiment(RunConfig(dataset, classifier, detector, n_chunks=3, seed=1))
        t = time.perf_counter()
        run_experiment(config)
        measured = time.perf_counter() - t
        info = get_info(dataset)
        tested = (n_chunks or info.n_chunks) - 1
        rows.append((config, cost.run_seconds(config), measured, measured / tested))
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print("## Run estimates against measured runs\n")
    print("Command: `.venv/bin/python -m benchmarks.bench_cost`  ")
    print(f"Machine: {machine()} (load average at the end: {load})\n")
    print("| dataset | classifier | detector | chunks | estimate (s) | measured (s) | "
          "estimate / measured | measured s per tested chunk |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for c, estimate, measured, per_chunk in rows:
        n = c.n_chunks or get_info(c.dataset).n_chunks
        print(f"| {c.dataset} | {c.classifier} | {c.detector} | {n} | {estimate:.2f} | "
              f"{measured:.2f} | {estimate / measured:.2f} | {per_chunk:.4f} |")
    print("\nThe estimate is `cost.run_seconds(config)`: the classifier's seconds per tested "
          "chunk (`CHUNK_SECONDS`, at the stream's own chunk size) plus a detector's extra "
          "(`DETECTOR_CHUNK_SECONDS`), times the tested chunks. One run each, after a warm-up "
          "run of the same setting. The torch classifiers (dnn, the CIFAR-10-CD CNNs) are "
          "measured by `benchmarks.bench_classifiers` and `bench_cifar`: under a shared "
          "machine's load a dnn run was 27 times its quiet cost, no calibration.")


if __name__ == "__main__":
    main()
