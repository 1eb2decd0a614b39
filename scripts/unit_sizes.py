"""The largest units of the code: functions by code lines, files by lines.

A function's code lines are the lines of its ``def`` through its last statement that hold
code: blank lines, comment lines and its docstring do not count (a nested function counts in
its own right and in the function around it). Files are counted in all their lines.

    python scripts/unit_sizes.py [--functions 60 100] [--files 400] [--list] [FOLDER ...]

Folders default to the project's Python: pudd_core, ui, pages, app.py, tests, benchmarks,
scripts. Prints how many functions exceed each function limit and how many files exceed the
file limit; ``--list`` names them, largest first.
"""

from __future__ import annotations

import argparse
import ast
import io
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PARTS = ("pudd_core", "ui", "pages", "app.py", "tests", "benchmarks", "scripts")


def python_files(parts: tuple[str, ...]) -> list[Path]:
    """The ``.py`` files under ``parts`` (files or folders, relative to the repository)."""
    found: list[Path] = []
    for part in parts:
        p = ROOT / part
        found += [p] if p.is_file() else sorted(p.rglob("*.py"))
    return found


def _code_line_numbers(source: str) -> set[int]:
    """The line numbers that hold a token other than a comment or a line break."""
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENDMARKER}
    lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in skip:
            lines.update(range(tok.start[0], tok.end[0] + 1))
    return lines


def function_sizes(path: Path) -> list[tuple[str, int]]:
    """``(qualified name, code lines)`` of every function and method in ``path``."""
    source = path.read_text(encoding="utf-8")
    code = _code_line_numbers(source)
    sizes: list[tuple[str, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = prefix
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                span = set(range(child.lineno, (child.end_lineno or child.lineno) + 1))
                doc = child.body[0] if child.body else None
                if (isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant)
                        and isinstance(doc.value.value, str)):
                    span -= set(range(doc.lineno, (doc.end_lineno or doc.lineno) + 1))
                sizes.append((name, len(span & code)))
                name += "."
            elif isinstance(child, ast.ClassDef):
                name = f"{prefix}{child.name}."
            visit(child, name)

    visit(ast.parse(source), "")
    return sizes


def main() -> None:
    """Print the counts (and with ``--list`` the units) over the limits."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", default=list(DEFAULT_PARTS))
    parser.add_argument("--functions", type=int, nargs="+", default=[60, 100])
    parser.add_argument("--files", type=int, default=400)
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    files = python_files(tuple(args.parts))
    functions = sorted(((n, f"{p.relative_to(ROOT)}:{name}") for p in files
                        for name, n in function_sizes(p)), reverse=True)
    lengths = sorted(((len(p.read_text(encoding="utf-8").splitlines()), str(p.relative_to(ROOT)))
                      for p in files), reverse=True)
    for limit in args.functions:
        over = [(n, where) for n, where in functions if n > limit]
        print(f"functions over {limit} code lines: {len(over)}")
        if args.list:
            print("".join(f"  {n:4d} {where}\n" for n, where in over), end="")
    over_files = [(n, where) for n, where in lengths if n > args.files]
    print(f"files over {args.files} lines: {len(over_files)}")
    if args.list:
        print("".join(f"  {n:5d} {where}\n" for n, where in over_files), end="")


if __name__ == "__main__":
    main()
