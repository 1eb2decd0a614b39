"""Stream explorer: the server's cost of adding a PUDD setting or a seed (issue 14).

What the page does when a setting or a seed is added to a 100-chunk GNB exploration: the
runs already made come from the cache; the new runs are computed (on the kept stream for a
new setting, on a newly drawn stream for a new seed), then the player's spec is rebuilt.
Stepping is measured in the browser (benchmarks/app_settings.py), the same work inside the
Streamlit server by benchmarks/app_explorer_add.py.

Run: .venv/bin/python -m benchmarks.bench_explorer
"""

from __future__ import annotations

import os
import statistics
import time
from dataclasses import replace

from benchmarks._common import machine
from pudd_core.experiments.pool import run_experiments, warm_workers
from pudd_core.experiments.runner import RunResult, run_experiment
from pudd_core.plots.player import player_spec
from pudd_core.views.explorer import ExplorerConfig, PUDDSetting, run_stream

COMMAND = ".venv/bin/python -m benchmarks.bench_explorer"
SETTINGS = (PUDDSetting(3), PUDDSetting(5, {"cut_points": "all"}), PUDDSetting(1),
            PUDDSetting(3, {"clamp_min": 0}))


def _add(before: ExplorerConfig, after: ExplorerConfig,
         cache: dict[object, RunResult], *, band: bool) -> tuple[float, float]:
    """Wall and CPU seconds from the new config to its spec, with ``before``'s runs cached.

    As the page does: a new seed's stream is drawn here, then two or more missing runs go to
    the worker processes at once (``run_experiments``; warmed when the page opened), one
    runs here.
    """
    t, cpu = time.perf_counter(), time.process_time()
    streams = {}
    missing = [cfg for cfg in after.run_configs() if cfg not in cache]
    for cfg in missing:
        if cfg.seed not in streams:  # the page keeps the stream of a seed it has drawn
            kept = next((r for r in before.run_configs() if r.seed == cfg.seed), None)
            streams[cfg.seed] = _STREAMS[cfg.seed] if kept is not None else run_stream(cfg)
    if len(missing) > 1:
        runs = run_experiments(missing, streams=[streams[c.seed] for c in missing], n_jobs=2)
    else:
        runs = [run_experiment(c, stream=streams[c.seed]) for c in missing]
    cache.update(zip(missing, runs, strict=True))
    c = after.comparison([cache[cfg] for cfg in after.run_configs()])
    player_spec(c.settings, c.baselines, labels=c.labels, band=band)
    return time.perf_counter() - t, time.process_time() - cpu


_STREAMS: dict[int, object] = {}


def _case(before: ExplorerConfig, after: ExplorerConfig, band: bool) -> tuple[float, float]:
    times = []
    for _ in range(int(os.environ.get("PUDD_BENCH_REPEAT", "3"))):
        cache = {cfg: run_experiment(cfg, stream=_STREAMS.setdefault(
            cfg.seed, run_stream(cfg))) for cfg in before.run_configs()}
        times.append(_add(before, after, cache, band=band))
    return (statistics.median(t for t, _ in times), statistics.median(c for _, c in times))


def main() -> None:
    if hasattr(os, "sched_setaffinity"):
        cores = sorted(os.sched_getaffinity(0))[:2]
        os.sched_setaffinity(0, set(cores))  # two cores, as the target says
    base = ExplorerConfig(settings=SETTINGS[:1], baselines=("adwin", "ddm"), n_chunks=None)
    three = replace(base, baselines=("adwin", "ddm", "eddm"))
    cases = [
        ("add a 2nd setting (PUDD-5, all cuts) to PUDD-3 + ADWIN + DDM", base,
         replace(base, settings=SETTINGS[:2]), False),
        ("add a 4th setting to three settings + ADWIN + DDM + EDDM",
         replace(three, settings=SETTINGS[:3]), replace(three, settings=SETTINGS), False),
        ("add a 2nd seed to PUDD-3 alone", replace(base, baselines=()),
         replace(base, baselines=(), seeds=2), True),
        ("add a 2nd seed to PUDD-3 + ADWIN + DDM (3 runs + a new stream)", base,
         replace(base, seeds=2), True),
        ("add a 4th seed to PUDD-3 + ADWIN + DDM", replace(base, seeds=3),
         replace(base, seeds=4), True),
    ]
    warm_workers(2)  # the page starts them when it is first opened
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print("## Stream explorer: adding a PUDD setting or a seed (issue 14)\n")
    print(f"Command: `{COMMAND}` (pinned to two cores)  \nMachine: {machine()}; load average "
          f"at the start: {load}\n")
    print("sea0, GNB, 100 chunks of 1000, incremental; the runs before the change cached, as "
          "in the app. Time: the new runs (two or more at once on the two worker processes, as the "
          "page does), plus the player's spec rebuilt (median of "
          f"{os.environ.get('PUDD_BENCH_REPEAT', '3')}); CPU: this process's CPU seconds "
          "(the workers' not counted).\n")
    print("| change | target | wall (s) | CPU (s) |")
    print("| --- | --- | ---: | ---: |")
    for what, before, after, band in cases:
        wall, cpu = _case(before, after, band)
        print(f"| {what} | ≤ 1 s | {wall:.2f} | {cpu:.2f} |", flush=True)
    print(f"\nLoad average at the end: {', '.join(f'{v:.1f}' for v in os.getloadavg())} "
          "(the machine is shared; one GNB run of 100 chunks is about 0.5 s of one core).")


if __name__ == "__main__":
    main()
