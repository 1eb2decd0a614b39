"""A picture of the house at a commit: every source file of the project as a box in a treemap.

Layers (``pudd_core/<package>``, ``ui``, ``pages``, ``harness``, ``benchmarks``, ``scripts``)
hold their modules; a box's area is its lines, its colour how close it is to the 800-line
limit that ``tests/test_architecture.py`` holds for the library and the app (red: over).
Read from git, so any commit can be drawn without checking it out: issue 33 asks for the
house before and after the architecture step.

Run: .venv/bin/python scripts/house_picture.py --rev 8a88730 --out docs/screenshots/house-before.png
     .venv/bin/python scripts/house_picture.py --rev HEAD --out docs/screenshots/house-after.png
(the PNG is taken in headless Chromium, as the browser tests do; ``--html`` keeps the page.)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: The folders drawn, in the order of the layers (the library's packages one level down).
FOLDERS = ("pudd_core", "ui", "pages", "harness", "benchmarks", "scripts")


def file_lines(rev: str) -> dict[str, int]:
    """``path -> lines`` of every ``.py`` file under :data:`FOLDERS` at ``rev``."""
    names = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, "--", *FOLDERS],
                           cwd=ROOT, check=True, capture_output=True, text=True).stdout.split()
    out = {}
    for name in names:
        if name.endswith(".py"):
            text = subprocess.run(["git", "show", f"{rev}:{name}"], cwd=ROOT, check=True,
                                  capture_output=True, text=True).stdout
            out[name] = text.count("\n")
    return out


def main() -> None:
    """Draw the house at ``--rev`` and take its picture."""
    from pudd_core.plots.house import house_figure

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rev", default="HEAD")
    parser.add_argument("--out", type=Path, required=True, help="the PNG to write")
    parser.add_argument("--html", type=Path, default=None, help="also keep the page")
    args = parser.parse_args()
    known = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{args.rev}^{{commit}}"],
                           cwd=ROOT, capture_output=True, text=True, check=False)
    if known.returncode != 0:
        parser.error(f"--rev: {args.rev!r} names no commit of this repository")
    if not args.out.parent.is_dir():
        parser.error(f"--out: no folder {str(args.out.parent)!r} to write the picture in")
    lines = file_lines(args.rev)
    sha = subprocess.run(["git", "rev-parse", "--short", args.rev], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.strip()
    fig = house_figure(lines, f"The house at {sha}")
    with tempfile.TemporaryDirectory() as tmp:
        page = args.html or Path(tmp) / "house.html"
        fig.write_html(page, include_plotlyjs=True, full_html=True)
        from harness.browser import find_chromium, launch_browser

        chromium = find_chromium()
        if chromium is None:
            sys.exit("no Chromium: run scripts/install_browser.sh")
        with launch_browser(chromium) as browser:
            tab = browser.new_page(viewport={"width": 1600, "height": 1000})
            tab.goto(page.resolve().as_uri())
            tab.wait_for_selector(".treemap", state="attached")
            tab.wait_for_timeout(500)
            tab.screenshot(path=str(args.out))
    print(f"{args.out}: {len(lines)} files, {sum(lines.values()):,} lines at {sha}")


if __name__ == "__main__":
    main()
