"""Write the generated findings of README.md and results/README.md from the committed reports.

Run it after a report in results/ changed (``reproduce ... --add``, ``--claims``)::

    .venv/bin/python scripts/write_findings.py

Each ``<!-- finding: NAME -->`` block is written again by ``pudd_core.reproduction.findings``;
``--check`` writes nothing and exits 1 naming the stale blocks (tests/test_findings.py does
the same in CI).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pudd_core.reproduction.findings import Reports, fill_findings, stale_findings

ROOT = Path(__file__).resolve().parents[1]
FILES = (ROOT / "README.md", ROOT / "results" / "README.md")


def main(argv: list[str]) -> int:
    """Write (or with ``--check`` only name) the stale blocks; the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 naming the stale blocks")
    check = parser.parse_args(argv).check  # an unknown option is an error, never ignored
    reports = Reports(ROOT / "results")
    stale = {}
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        names = stale_findings(text, reports)
        if names and not check:
            path.write_text(fill_findings(text, reports), encoding="utf-8")
        stale[path.relative_to(ROOT)] = names
    for path, names in stale.items():
        print(f"{path}: {', '.join(names) or 'current'}"
              + (" (stale)" if names and check else " (written)" if names else ""))
    return 1 if check and any(stale.values()) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
