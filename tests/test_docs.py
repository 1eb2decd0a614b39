"""The project's Markdown links stay inside the repository and name files that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ["README.md", "CONTRIBUTING.md", "BENCHMARKS.md", "docs/architecture.md", "docs/teaching.md",
        "docs/sota-procedures.md", "results/README.md"]
_LINK = re.compile(r"\]\(([^)\s]+)\)")  # [text](target) and ![alt](target)


def broken_links(path: Path) -> list[str]:
    """Links of ``path`` that leave the repository, are absolute, or name no file."""
    bad = []
    for target in _LINK.findall(path.read_text(encoding="utf-8")):
        if target.startswith("#"):
            continue
        if re.match(r"[a-z]+:", target) or target.startswith("/"):
            bad.append(f"{target} (not a path inside the repository)")
            continue
        resolved = (path.parent / target.split("#")[0]).resolve()
        if not resolved.is_relative_to(ROOT):
            bad.append(f"{target} (outside the repository)")
        elif not resolved.exists():
            bad.append(f"{target} (no such file)")
    return bad


@pytest.mark.parametrize("doc", DOCS)
def test_links_stay_inside_the_repository_and_exist(doc):
    assert broken_links(ROOT / doc) == []


def test_the_link_check_catches_outside_missing_and_absolute_links(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    (tmp_path / "here.md").write_text("x")
    doc = tmp_path / "doc.md"
    doc.write_text("[a](here.md) [b](../shared/STYLE.md) [c](gone.md) [d](/etc/passwd) "
                   "[e](https://example.org) [f](#layout)")
    assert [b.split(" ")[0] for b in broken_links(doc)] == [
        "../shared/STYLE.md", "gone.md", "/etc/passwd", "https://example.org"]


# --- doctests of the public definitions (issue 33; scripts/doctest_coverage.py) ----------------
def test_most_public_definitions_show_their_use_in_a_doctest():
    import runpy

    script = runpy.run_path(str(ROOT / "scripts" / "doctest_coverage.py"))
    defs = script["public_definitions"]()
    without = [name for name, has in defs if not has]
    share = 1 - len(without) / len(defs)
    assert share >= script["FLOOR"], (
        f"{share:.1%} of {len(defs)} public definitions have a doctest, under the floor: add "
        f"one to some of ({len(without)}) {without[:10]}")


def test_the_doctest_count_sees_a_definitions_own_docstring_only(tmp_path):
    import runpy

    script = runpy.run_path(str(ROOT / "scripts" / "doctest_coverage.py"))
    pkg = tmp_path / "pkg"
    (pkg / "_private").mkdir(parents=True)
    (pkg / "mod.py").write_text(
        'def shown():\n    """Use.\n\n    >>> shown()\n    """\n\n\n'
        'def bare():\n    """No example; a nested one does not count."""\n'
        '    def inner():\n        """>>> 1"""\n\n\n'
        'def _hidden():\n    pass\n\n\nclass Shown:\n    """>>> Shown()"""\n')
    (pkg / "_private" / "x.py").write_text("def public_in_private():\n    pass\n")
    got = script["public_definitions"](pkg, root=tmp_path)
    assert got == [("pkg/mod.py:1 shown", True), ("pkg/mod.py:8 bare", False),
                   ("pkg/mod.py:18 Shown", True)]


# --- BENCHMARKS.md: current figures only, a contents line of its sections ---------------------
def test_benchmark_anchors_are_githubs():
    from benchmarks.run_all import anchor

    assert anchor("## Detector (issue 2)") == "detector-issue-2"
    assert (anchor("## App: CIFAR-10-CD's first visit from an empty cache (issue 34)")
            == "app-cifar-10-cds-first-visit-from-an-empty-cache-issue-34")
    assert (anchor("## Choosing α on a stable stretch: the calibration's time (issue 35)")
            == "choosing-α-on-a-stable-stretch-the-calibrations-time-issue-35")
    assert anchor("## Monitoring a prediction log (issue 12, issue 22)") == (
        "monitoring-a-prediction-log-issue-12-issue-22")


def test_assemble_writes_the_header_a_contents_line_then_the_sections():
    from benchmarks.run_all import HEADER, assemble

    got = assemble(["## A (issue 1)\n\nx\n\n### not listed\n", "## B: b\n"])
    assert got == (HEADER + "Contents: [A (issue 1)](#a-issue-1) · [B: b](#b-b)\n\n"
                   "## A (issue 1)\n\nx\n\n### not listed\n\n## B: b\n")


def test_benchmarks_md_is_its_saved_sections_assembled():
    # a section edited in BENCHMARKS.md alone would be lost at the next `run_all --assemble`
    from benchmarks.run_all import assemble, sections

    text = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    assert text == assemble(sections()), (
        "BENCHMARKS.md differs from benchmarks/results/*.md assembled: edit the section's "
        "file there, then run `.venv/bin/python -m benchmarks.run_all --assemble`")


def test_benchmarks_contents_link_every_section_once():
    from benchmarks.run_all import anchor

    text = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    contents = next(line for line in text.splitlines() if line.startswith("Contents: "))
    links = re.findall(r"\[([^\]]+)\]\(#([^)]+)\)", contents)
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert links == [(h[3:], anchor(h)) for h in headings]
    assert len({a for _, a in links}) == len(links), "two sections share a heading"


# --- the teacher's guide's class plans (issue 34 item 4) --------------------------------------
def _plan_minutes(guide: str, heading: str) -> tuple[list[str], int]:
    """The rows' first cells and the sum of their minutes ("15 + 10" adds) of the table under
    ``heading`` in ``guide``."""
    table = guide.split(heading, 1)[1].split("\n\n", 2)[1]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()[2:]]
    return [r[0] for r in rows], sum(int(x) for r in rows for x in r[1].split("+"))


def test_the_teachers_guide_class_plans_add_up_and_cover_every_lesson():
    guide = (ROOT / "docs" / "teaching.md").read_text(encoding="utf-8")
    lessons = [int(m) for m in re.findall(r"^## Lesson \d: .*\((\d+) minutes", guide, re.M)]
    assert len(lessons) == 6
    assert f"The lessons above add up to {sum(lessons)} minutes." in guide
    for minutes in (50, 90):
        parts, total = _plan_minutes(guide, f"**{minutes} minutes**")
        assert total == minutes, (minutes, parts)
        covered = {int(n) for p in parts for n in re.findall(r"\d", p.split(":")[0])}
        assert covered == set(range(1, 7)), (minutes, parts)
    assert "## What varies with the seed" in guide
