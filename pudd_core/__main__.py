"""Command line: ``python -m pudd_core <command>`` (``datasets`` lists the stream registry)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence


def _datasets(args: argparse.Namespace) -> int:
    from pudd_core.streams import list_streams

    infos = list_streams(data_dir=args.data_dir)
    if args.json:
        print(json.dumps([dataclasses.asdict(i) for i in infos], indent=2))
        return 0
    header = ("name", "kind", "chunks", "features", "classes", "available", "note")
    rows = [
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
    ]
    widths = [max(len(r[c]) for r in (header, *rows)) for c in range(len(header) - 1)]

    def line(cells: Sequence[str]) -> str:
        fixed = " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=False))
        return f"| {fixed} | {cells[-1]} |"

    print(line(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|---|")
    for r in rows:
        print(line(r))
    missing = [i for i in infos if not i.available]
    for i in missing:
        print(f"\n{i.name}: {i.unavailable_reason}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser; each command is a subparser with a ``handler`` default.

    Examples
    --------
    >>> build_parser().parse_args(["datasets", "--json"]).json
    True

    """
    parser = argparse.ArgumentParser(prog="python -m pudd_core", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")
    datasets = commands.add_parser(
        "datasets", help="list the named streams and whether their data are available"
    )
    datasets.add_argument("--json", action="store_true", help="print JSON instead of a table")
    datasets.add_argument(
        "--data-dir", default=None, help="data folder to check instead of $PUDD_DATA_DIR"
    )
    datasets.set_defaults(handler=_datasets)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return the exit status.

    Examples
    --------
    >>> main(["datasets", "--json"]) == 0  # doctest: +ELLIPSIS
    [...
    True

    """
    args = build_parser().parse_args(argv)
    status: int = args.handler(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
