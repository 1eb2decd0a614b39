"""``grid``: a grid file (TOML) into the results store."""

from __future__ import annotations

import argparse
from typing import Any

from pudd_core.cli._shared import EXECUTORS


def _grid(args: argparse.Namespace) -> int:
    from pudd_core.experiments.grid import load_grid_file, run_grid

    configs, settings = load_grid_file(args.config)
    store = args.store or settings.get("store", "results/store")
    rows = run_grid(
        configs, store=store, executor=args.executor or settings.get("executor", "joblib"),
        n_jobs=args.n_jobs if args.n_jobs is not None else settings.get("n_jobs"),
        address=args.address or settings.get("address"), progress=True,
        data_dir=args.data_dir,
    )
    failed = int((rows["status"] != "ok").sum())
    print(f"{len(rows)} runs in {store} ({failed} failed; see their 'error' column)")
    return 1 if failed else 0


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    """Add the ``grid`` command.

    Examples
    --------
    >>> parser = argparse.ArgumentParser(prog="pudd")
    >>> add_parser(parser.add_subparsers(), argparse.ArgumentParser(add_help=False))
    >>> args = parser.parse_args(["grid", "grid.toml", "--n-jobs", "2"])
    >>> args.config, args.n_jobs, args.store
    ('grid.toml', 2, None)
    """
    grid = commands.add_parser("grid", parents=[common],
                               help="run a grid (a TOML file) into the results store")
    grid.add_argument("config", help="TOML file with a [grid] table and an optional [run] table")
    grid.add_argument("--store", default=None)
    grid.add_argument("--executor", default=None, choices=EXECUTORS)
    grid.add_argument("--n-jobs", type=int, default=None)
    grid.add_argument("--address", default=None, help="Ray or Dask cluster address")
    grid.add_argument("--data-dir", default=None)
    grid.set_defaults(handler=_grid)
