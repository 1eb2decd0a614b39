"""``datasets``: the stream registry with sources, licences and availability."""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Sequence
from typing import Any


def _print_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Print a Markdown table; every column but the last is padded to its widest cell."""
    widths = [max(len(r[c]) for r in (header, *rows)) for c in range(len(header) - 1)]

    def line(cells: Sequence[str]) -> str:
        fixed = " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=False))
        return f"| {fixed} | {cells[-1]} |"

    print(line(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|---|")
    for r in rows:
        print(line(r))


def _datasets(args: argparse.Namespace) -> int:
    from pudd_core.streams import list_streams

    infos = list_streams(data_dir=args.data_dir)
    if args.json:
        print(json.dumps([dataclasses.asdict(i) for i in infos], indent=2))
        return 0
    _print_table(
        ("name", "kind", "chunks", "features", "classes", "available", "note"),
        [
            (
                i.name,
                i.kind,
                f"{i.n_chunks} x {i.chunk_size}",
                "x".join(str(n) for n in i.feature_shape),
                str(i.n_classes),
                "yes" if i.available else "no",
                i.title if i.available else "data missing: see below",
            )
            for i in infos
        ],
    )
    print()
    _print_table(("name", "licence", "source"), [(i.name, i.licence, i.source) for i in infos])
    missing = [i for i in infos if not i.available]
    for i in missing:
        print(f"\n{i.name}: {i.unavailable_reason}")
    return 0


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    """Add the ``datasets`` command.

    Examples
    --------
    >>> parser = argparse.ArgumentParser(prog="pudd")
    >>> add_parser(parser.add_subparsers(), argparse.ArgumentParser(add_help=False))
    >>> args = parser.parse_args(["datasets", "--json"])
    >>> args.json, args.data_dir
    (True, None)
    """
    datasets = commands.add_parser(
        "datasets", parents=[common],
        help="list the named streams, their sources and licences, and whether their data "
             "are available",
    )
    datasets.add_argument("--json", action="store_true", help="print JSON instead of a table")
    datasets.add_argument(
        "--data-dir", default=None, help="data folder to check instead of $PUDD_DATA_DIR"
    )
    datasets.set_defaults(handler=_datasets)
