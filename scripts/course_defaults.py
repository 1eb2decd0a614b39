"""Choose the course's default settings by data: where each lesson's point holds most often.

A lesson shows one run, at the sidebar's seed (0 for every student at first). For lessons 1,
3 and 5 this script computes the lesson's verdict at each of the 50 seeds
(``pudd_core.views.course.CLASS_SEEDS``) for every candidate setting, and chooses, among the
settings whose run at seed 0 agrees with the lesson's point, the one where the point holds at
the most seeds (the first listed on a tie). The table it prints is docs/teaching.md's
"How the defaults were chosen"; the chosen settings are the defaults in
pudd_core/views/course (``DelayConfig``, ``CUT_SETTINGS``, ``STUDY_CHUNKS``).

Usage::

    python scripts/course_defaults.py [--lessons 1 3 5]
    python scripts/course_defaults.py --write   # only the defaults' spreads, into the store

Takes a few minutes on two cores (about 1,500 runs of 20 to 80 chunks). ``--write`` computes
the spreads of the chosen defaults (lesson 1's three streams) and writes them to
pudd_core/views/course/spreads.json, which the pages read instead of computing them.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pudd_core.views import course  # noqa: E402

Row = tuple[str, str, int, int]  # setting, verdict at seed 0, seeds where the point holds, seeds


def _lesson1() -> tuple[str, list[Row]]:
    rows: list[Row] = []
    for dataset in ("sea0", "sea10", "sea20"):
        for size in (250, 500, 750, 1000):
            s = course.delay_spread(course.DelayConfig(dataset, chunk_size=size), stored=False)
            rows.append((f"{dataset}, chunks of {size}", str(s.verdict_at(0)), s.count("pudd"),
                         len(s.seeds)))
    return "Lesson 1: PUDD-3 alarms before DDM after the drift (verdict `pudd`)", rows


def _lesson3() -> tuple[str, list[Row]]:
    rows: list[Row] = []
    for dataset in ("sea0", "sea20", "sine", "mixed"):
        for size in (250, 500):
            alarm, cut = course.cut_spreads(dataset=dataset, chunk_size=size, n_new=3,
                                            stored=False)
            both = [f"{a}+{c}" for a, c in zip(alarm.verdicts, cut.verdicts, strict=True)]
            rows.append((f"{dataset}, chunks of {size}, drift 3 chunks before the end",
                         both[0], both.count("alarm+drift"), len(both)))
    return ("Lesson 3: PUDD-3 alarms and the cut at the drift gives the smallest p "
            "(verdict `alarm+drift`)", rows)


def _lesson5() -> tuple[str, list[Row]]:
    rows: list[Row] = []
    for size in (250, 500):
        for n in (40, 60, 80):
            s = course.study_spread(n_chunks=n, chunk_size=size, stored=False)
            loose, strict = s.rates()
            rows.append((f"{n} chunks of {size} (alarm rates {loose:.1%} at 0.05, "
                         f"{strict:.1%} at 10⁻³)", str(s.spread.verdict_at(0)),
                         s.spread.count("many"), len(s.spread.seeds)))
    return ("Lesson 5: more than 10% of a driftless stream's chunks alarm at α = 0.05 "
            "(verdict `many`)", rows)


LESSONS: dict[str, tuple[Callable[[], tuple[str, list[Row]]], str]] = {
    "1": (_lesson1, "pudd"), "3": (_lesson3, "alarm+drift"), "5": (_lesson5, "many")}


def write() -> Path:
    """Compute the defaults' spreads at the class seeds and write them to the store."""
    lesson1 = {}
    for dataset in course.LESSON1_STREAMS:
        cfg = replace(course.DelayConfig(), dataset=dataset)
        lesson1[course.delay_setting(cfg)] = {
            "verdicts": list(course.delay_spread(cfg, stored=False).verdicts)}
    alarm, cut = course.cut_spreads(stored=False)
    study = course.study_spread(stored=False)
    return course.write_store({
        "lesson1": lesson1,
        "lesson3": {"defaults": {"alarm": list(alarm.verdicts), "cut": list(cut.verdicts)}},
        "lesson5": {f"{course.STUDY_CHUNKS} chunks of {course.STUDY_CHUNK_SIZE}": {
            "verdicts": list(study.spread.verdicts), "tested": list(study.tested),
            "hits_005": list(study.hits_005), "hits_1e3": list(study.hits_1e3)}},
    })


def main(argv: Sequence[str] | None = None) -> int:
    """Print each chosen lesson's table of candidate settings; mark the chosen one."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lessons", nargs="+", choices=sorted(LESSONS), default=sorted(LESSONS))
    parser.add_argument("--write", action="store_true",
                        help="write the defaults' spreads to the store and print nothing else")
    args = parser.parse_args(argv)
    if args.write:
        print(f"wrote {write()}")
        return 0
    for lesson in args.lessons:
        start = time.perf_counter()
        compute, point = LESSONS[lesson]
        title, rows = compute()
        held = [r for r in rows if r[1] == point]
        chosen = max(held, key=lambda r: r[2]) if held else None
        print(f"\n{title}\n")
        print("| setting | verdict at seed 0 | seeds where the point holds |")
        print("|---|---|---|")
        for r in rows:
            mark = " **(chosen)**" if r is chosen else ""
            print(f"| {r[0]}{mark} | {r[1]} | {r[2]} of {r[3]} |")
        if chosen is None:
            print("\nNo setting's run at seed 0 agrees with the point.")
        print(f"\n({time.perf_counter() - start:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
