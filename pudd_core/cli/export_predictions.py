"""``export-predictions``: a prediction log from a stream and a classifier."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pudd_core.cli._shared import check_log_path


def _export(args: argparse.Namespace) -> int:
    from pudd_core.experiments.export import export_predictions, write_log
    from pudd_core.experiments.runner import RunConfig, parse_option_pairs

    cfg = RunConfig(dataset=args.dataset, classifier=args.classifier, detector="none",
                    regime=args.regime, seed=args.seed, n_chunks=args.n_chunks,
                    chunk_size=args.chunk_size,
                    classifier_options=parse_option_pairs("classifier", args.classifier,
                                                          args.classifier_option))
    cfg.validate(args.data_dir)
    check_log_path(args.out, "out")
    log = export_predictions(cfg, data_dir=args.data_dir, float32=args.float32)
    try:
        write_log(log, args.out)
    except OSError as exc:
        from pudd_core.experiments.grid import StoreWriteError, save_fallback

        fallback = save_fallback(log.to_dict("records"), stem="pudd-predictions")
        kept = (f"the predictions were saved to {fallback} instead" if fallback
                else "the predictions could not be saved anywhere")
        raise StoreWriteError(f"could not write {args.out} ({exc.strerror or exc}); {kept}",
                              fallback) from exc
    print(f"wrote {len(log):,} predictions ({log['chunk'].nunique()} chunks of the runner's "
          f"test-then-train loop, no adaptation) to {args.out}", file=sys.stderr)
    return 0


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    """Add the ``export-predictions`` command.

    Examples
    --------
    >>> parser = argparse.ArgumentParser(prog="pudd")
    >>> add_parser(parser.add_subparsers(), argparse.ArgumentParser(add_help=False))
    >>> args = parser.parse_args(["export-predictions", "--seed", "3", "--out", "p.csv"])
    >>> args.dataset, args.classifier, args.seed, args.out
    ('sea0', 'gnb', 3, 'p.csv')
    """
    from pudd_core.paper import REGIMES

    exp = commands.add_parser(
        "export-predictions", parents=[common],
        help="write a prediction log (label + per-class probabilities) from the runner's "
             "test-then-train loop, without adaptation")
    exp.add_argument("--dataset", default="sea0")
    exp.add_argument("--classifier", default="gnb")
    exp.add_argument("--regime", default=REGIMES[0], choices=REGIMES)
    exp.add_argument("--seed", type=int, default=0)
    exp.add_argument("--n-chunks", type=int, default=None)
    exp.add_argument("--chunk-size", type=int, default=None)
    exp.add_argument("--classifier-option", action="append", default=[], metavar="KEY=VALUE")
    exp.add_argument("--float32", action="store_true",
                     help="store probabilities as float32 (half the size; not bit-exact)")
    exp.add_argument("--out", required=True, metavar="FILE", help=".csv or .parquet")
    exp.add_argument("--data-dir", default=None)
    exp.set_defaults(handler=_export)
