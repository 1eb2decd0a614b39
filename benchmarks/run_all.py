"""Run every benchmark script and write BENCHMARKS.md (``make bench``).

Each script runs in its own process (import costs are counted fairly) and prints Markdown,
saved as benchmarks/results/NAME.md. The app in a browser (``APP``: ``streamlit run`` and
headless Chromium, minutes each) and the long ones (bench_cifar, bench_monitor_long,
bench_pages) run only when named: ``--app`` runs the former, ``--only app_settings`` one.
Run: .venv/bin/python -m benchmarks.run_all [--only NAME ... | --app | --assemble]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

from benchmarks._common import names_from

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ["bench_detector", "bench_bounded", "bench_streams", "bench_classifiers", "bench_runner",
           "bench_explorer", "bench_monitor", "bench_monitor_false_alarms", "bench_follow",
           "bench_sota", "bench_cost", "bench_calibration"]
#: the app in a real server and browser (harness/browser.py starts both, as for the tests)
APP = ["app", "app_settings", "app_explorer_add", "app_capacity", "app_capacity_ws",
       "app_cifar_first_visit"]
OUT = ROOT / "BENCHMARKS.md"
SECTIONS = ROOT / "benchmarks" / "results"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", nargs="*", default=None, help="scripts to re-run")
    parser.add_argument("--app", action="store_true",
                        help="re-run the app's benchmarks (a server and a browser): "
                        + ", ".join(APP))
    parser.add_argument("--assemble", action="store_true",
                        help="run nothing: rebuild BENCHMARKS.md from benchmarks/results/")
    args = parser.parse_args()
    names_from(",".join(args.only or []), [*SCRIPTS, *APP], parser, "--only")
    SECTIONS.mkdir(exist_ok=True)
    for name in [] if args.assemble else args.only or (APP if args.app else SCRIPTS):
        t = time.perf_counter()  # the script's progress and errors go to the terminal
        out = subprocess.run([sys.executable, "-m", f"benchmarks.{name}"], cwd=ROOT,
                             stdout=subprocess.PIPE, text=True, check=True).stdout
        (SECTIONS / f"{name}.md").write_text(out)
        print(f"{name}: {time.perf_counter() - t:.0f} s", file=sys.stderr)
    OUT.write_text(assemble(sections()))


def sections() -> list[str]:
    """The saved sections in BENCHMARKS.md's order: the scripts' in ``SCRIPTS`` order, then the
    others (the app's and the long ones) by name."""
    parts = [(SECTIONS / f"{n}.md").read_text() for n in SCRIPTS
             if (SECTIONS / f"{n}.md").exists()]
    extra = sorted(p for p in SECTIONS.glob("*.md") if p.stem not in SCRIPTS)
    return parts + [p.read_text() for p in extra]


HEADER = (
    "# Benchmarks\n\nEvery number below was measured by the command printed with it; "
    "`make bench` (`.venv/bin/python -m benchmarks.run_all`) re-runs them all and rewrites "
    "this file. Timings are wall-clock on the machine named in each section; they are "
    "never asserted in tests. The development machine is a shared 2-core VM whose speed "
    "drifts: the same code measured up to 1.5x slower at one hour than at another of the "
    "same day (e.g. `pu_chi2_test` with a 100,000-value reference: 0.87 ms, then 1.2-1.4 "
    "ms), so compare rows measured in the same run. Each section holds its current figures "
    "only: a re-measured section replaces the old one (`benchmarks/results/NAME.md`), and "
    "earlier runs are in git's history.\n\n"
)


def anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to
    hyphens (letters such as α kept); tests/test_docs.py holds it to examples."""
    text = heading.lstrip("#").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def assemble(parts: list[str]) -> str:
    """BENCHMARKS.md from its sections: the header, one line of contents linking their ``##``
    headings, then the sections in order with a blank line between two."""
    headings = [line for part in parts for line in part.splitlines() if line.startswith("## ")]
    toc = " · ".join(f"[{h[3:]}](#{anchor(h)})" for h in headings)
    return HEADER + f"Contents: {toc}\n\n" + "\n".join(parts)


if __name__ == "__main__":
    main()
