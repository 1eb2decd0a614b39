"""The share of the library's public definitions whose docstring holds a doctest.

A public definition is a module-level function or class of ``pudd_core`` whose name does not
start with an underscore, in a module that is not private (no path part starting with one,
``__init__.py`` aside). It has a doctest when its own docstring holds a ``>>>`` example
(river's style: one per public name, showing its use with an output the suite checks)::

    python scripts/doctest_coverage.py [--list] [--under pudd_core/experiments]

Prints the share; ``--list`` names the definitions without one. tests/test_docs.py holds the
share at :data:`FLOOR` or above.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The share tests/test_docs.py requires (issue 33: it had fallen from 88.8% to 72.2%).
FLOOR = 0.85


def public_definitions(package: Path = ROOT / "pudd_core",
                       root: Path = ROOT) -> list[tuple[str, bool]]:
    """``("path:line name", has_doctest)`` for every public definition under ``package``.

    Paths are relative to ``root`` (the repository).
    """
    found = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(root).parts
        if any(p.startswith("_") and p != "__init__.py" for p in parts):
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and (
                    not node.name.startswith("_")):
                doc = ast.get_docstring(node) or ""
                found.append((f"{'/'.join(parts)}:{node.lineno} {node.name}", ">>>" in doc))
    return found


def main(argv: list[str] | None = None) -> int:
    """Print the share (and with ``--list`` the definitions without a doctest)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="name those without a doctest")
    parser.add_argument("--under", default="pudd_core", help="a folder of the package")
    args = parser.parse_args(argv)
    folder = ROOT / args.under
    if not folder.is_dir():
        parser.error(f"--under {args.under}: no such folder in {ROOT}")
    defs = public_definitions(folder)
    with_doctest = sum(has for _, has in defs)
    print(f"{with_doctest} of {len(defs)} public definitions under {args.under} have a doctest "
          f"({100 * with_doctest / max(len(defs), 1):.1f}%; the floor is {100 * FLOOR:.0f}%)")
    if args.list:
        for name, has in defs:
            if not has:
                print(f"  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
