"""The test tiers' times: ``make test-fast`` and ``make test`` (CONTRIBUTING.md, "Test tiers").

Runs each tier's make target in this checkout as a developer would, and prints a Markdown
section: the wall time, the CPU time of every process the tier started (pytest's xdist
workers, the app servers, Chromium), what pytest reported, and the load average before and
after, since a machine shared with other work stretches the wall time and not the CPU time.
Not in ``run_all``'s list (the full tier takes minutes): run it, then ``--assemble``::

    python -m benchmarks.bench_test_tiers --tier fast > benchmarks/results/test_tiers.md
    python -m benchmarks.bench_test_tiers --tier fast --tier full > benchmarks/results/test_tiers.md
"""

from __future__ import annotations

import argparse
import datetime
import re
import resource
import subprocess
import time
from pathlib import Path

from benchmarks._common import load_average, machine

ROOT = Path(__file__).resolve().parents[1]
#: tier -> its make target
TIERS = {"fast": "test-fast", "full": "test"}
GOALS = {"fast": "under 3 min", "full": "under 12 min on 2 quiet cores"}
#: part of the full tier -> its marker expression (run as make test runs pytest), to estimate
#: the full tier from parts on a machine where running all of it at once is not welcome
PARTS = {"apptest": "apptest and not slow", "integration": "integration and not slow",
         "browser": "browser and not slow"}
_SUMMARY = re.compile(r"=+ (.*(?:passed|failed|error).*) in [\d.]+s.* =+")


def time_tier(tier: str) -> dict[str, str]:
    """Run the tier's make target (or a part's pytest) once; its row of the table."""
    before_load = load_average()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # set-up (pip, Chromium) left out: it is done once, and a worktree sharing another
    # checkout's .venv would install itself into it
    command = (["make", TIERS[tier], "SETUP=:", "BROWSER=:"] if tier in TIERS else
               [".venv/bin/pytest", "-n", "2", "--dist", "loadgroup", "-m", PARTS[tier]])
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    found = _SUMMARY.findall(done.stdout)
    return {
        "tier": f"`make {TIERS[tier]}`" if tier in TIERS else
                f"part of `make test`: `pytest -n 2 --dist loadgroup -m \"{PARTS[tier]}\"`",
        "goal": GOALS.get(tier, ""),
        "wall": f"{wall / 60:.1f} min", "cpu": f"{cpu / 60:.1f} min",
        "pytest": found[-1] if found else f"no summary (exit status {done.returncode})",
        "status": str(done.returncode), "load": f"{before_load} / {load_average()}",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tier", action="append", choices=[*TIERS, *PARTS],
                        help="a tier, or a part of the full one, to time (repeat for more; "
                             "default: fast)")
    args = parser.parse_args()
    rows = [time_tier(t) for t in args.tier or ["fast"]]
    print("## Test tiers\n")
    print(f"Machine: {machine()}. Finished {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} "
          f"UTC. Command: `python -m benchmarks.bench_test_tiers "
          f"{' '.join('--tier ' + t for t in args.tier or ['fast'])}` (each tier's make "
          "target once, set-up already done).\n")
    print("| tier | goal | wall time | CPU time (all its processes) | pytest | exit status "
          "| load average before / after (1, 5, 15 min) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['tier']} | {r['goal']} | {r['wall']} | {r['cpu']} | {r['pytest']} | "
              f"{r['status']} | {r['load']} |")
    print("\nThe wall time is what a developer waits; on a machine shared with other work it "
          "stretches with the load (a load above the CPU count means processes waiting for a "
          "core), while the CPU time stays what the tier itself costs: divided by the cores "
          "the tier keeps busy (two pytest workers), it bounds the wall time on a quiet "
          "machine from below.")
    if "full" not in (args.tier or []):
        print("\n`make test` (the full tier, what CI runs) is not in this run: time it with "
              "`--tier full` on a machine no one else is using.")


if __name__ == "__main__":
    main()
