"""Command line: ``python -m pudd_core <command>``.

``datasets`` lists the stream registry with sources and licences, ``backbone`` shows (or
pretrains again) the CIFAR backbone of ``pretrained-cnn``, ``run`` runs one configuration over
seeds, ``grid`` runs a grid file into the results store, ``reproduce`` runs
a paper table, ``monitor`` runs PUDD on your model's prediction log and ``export-predictions``
writes such a log from a stream and a classifier.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from pudd_core.cli import backbone, datasets, export_predictions, grid, monitor, reproduce, run
from pudd_core.monitoring import LOG_FIELDS

#: The subcommands in the order ``--help`` lists them; each module adds its own parser.
_COMMANDS = (datasets, backbone, run, grid, reproduce, monitor, export_predictions)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line, like every other error here."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser; each command is a subparser with a ``handler`` default.

    Examples
    --------
    >>> build_parser().parse_args(["datasets", "--json"]).json
    True

    """
    common = _Parser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="on an error, also print the Python traceback")
    parser = _Parser(prog="python -m pudd_core", description=__doc__,
                                     parents=[common])
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")
    for command in _COMMANDS:
        command.add_parser(commands, common)
    return parser


#: ParameterError.param -> the option that sets it, named after the message.
_FLAGS = {
    "n_chunks": "--n-chunks", "chunk_size": "--chunk-size", "seeds": "--seeds",
    "alpha": "--alpha", "dataset": "--dataset", "classifier": "--classifier",
    "detector": "--detector", "detector_options": "--detector-option",
    "classifier_options": "--classifier-option", "store": "--store",
    **{f.name: f.flag for f in LOG_FIELDS},  # the log's description: one flag per entry
    "window": "--window", "normalize": "--normalize",
    "baselines": "--baselines", "report": "--report", "out": "--out", "source": "FILE",
    "add": "--add", "replace": "--replace", "state": "--state", "poll": "--poll",
    "follow": "--follow", "results": "--results", "n_jobs": "--n-jobs",
    "skip_kswin": "--skip-kswin", "datasets": "--datasets",
    "detectors": "--detectors", "regimes": "--regimes",
    "labels": "--labels", "id_column": "--id",
}


_COMMAND_FLAGS = {
    "run": tuple(_FLAGS),
    "reproduce": ("n_chunks", "seeds", "classifier", "store", "results", "datasets",
                  "detectors", "regimes", "add", "out", "n_jobs"),
    "grid": ("store", "n_jobs"),
    "backbone": ("out",),
    "monitor": ("chunk_size", "alpha", "detector_options", *(f.name for f in LOG_FIELDS),
                "window", "baselines", "report", "source", "state", "poll", "follow", "labels",
                "id_column"),
    "export-predictions": ("n_chunks", "chunk_size", "dataset", "classifier",
                           "classifier_options", "out"),
}


def _check_data_dir(path: str | None) -> None:
    """``--data-dir``, when given, must be a folder (else every stream reads as missing)."""
    import os

    from pudd_core._validation import ParameterError

    if path is not None and not os.path.isdir(path):
        raise ParameterError("data_dir", f"--data-dir {path}: no such folder; name the folder "
                                         "that holds the data files (see `datasets`)")


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text


def _what_went_wrong(exc: BaseException, command: str = "") -> tuple[str, int]:
    """One line for an exception, and the exit status: 2 for bad input or destinations."""
    from pudd_core.experiments.grid import StoreWriteError
    from pudd_core.streams import ChecksumMismatchError, DatasetUnavailableError

    if isinstance(exc, StoreWriteError | ChecksumMismatchError | DatasetUnavailableError):
        return _one_line(exc), 2
    param = str(getattr(exc, "param", ""))
    flag = _FLAGS.get(param) if param in _COMMAND_FLAGS.get(command, ()) else None
    if isinstance(exc, ValueError) and flag and flag not in str(exc):
        return f"{_one_line(exc)} (see {flag})", 2
    if isinstance(exc, ValueError | FileNotFoundError):
        return _one_line(exc), 2
    if isinstance(exc, MemoryError):
        return ("out of memory: choose fewer seeds, chunks or a smaller file", 2)
    if isinstance(exc, OSError):
        where = f" {exc.filename}" if exc.filename else ""
        return f"cannot use{where}: {exc.strerror or _one_line(exc)}", 2
    return (f"unexpected {type(exc).__name__}: {_one_line(exc)} (run again with --debug for "
            "the traceback)", 1)


def _show_warning(message: Any, category: Any, filename: str, lineno: int,
                  file: Any = None, line: str | None = None) -> None:
    print(f"warning: {' '.join(str(message).split())}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return the exit status.

    Bad input or an unusable destination prints one line ``error: ...`` and returns 2
    (``--debug`` adds the traceback); a failed run returns 1.

    Examples
    --------
    >>> main(["datasets", "--json"]) == 0  # doctest: +ELLIPSIS
    [...
    True

    """
    import warnings

    given = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(given)
    # the command as typed, for the reports that say how they were made
    args.command_line = " ".join(["python -m pudd_core", *map(shlex.quote, given)])
    debug = bool(getattr(args, "debug", False))
    with warnings.catch_warnings():
        if not debug:
            warnings.showwarning = _show_warning
        try:
            _check_data_dir(getattr(args, "data_dir", None))
            status: int = args.handler(args)
        except KeyboardInterrupt:
            print("interrupted: finished runs are in the store; run again to resume",
                  file=sys.stderr)
            return 130
        except Exception as exc:  # bad input: a message, not a traceback
            message, status = _what_went_wrong(exc, str(getattr(args, "command", "")))
            if debug:
                import traceback

                traceback.print_exc()
            print(f"error: {message}", file=sys.stderr)
            return status
    return status
