"""``backbone``: the pretrained CIFAR backbone in use, or built again by its recipe."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def _check_out(out: str | None) -> None:
    """``--out`` must be a folder that exists or can be made (checked before minutes of work)."""
    import os

    from pudd_core._validation import ParameterError

    if out is None:
        return
    path = Path(out)
    existing = next((p for p in (path, *path.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        raise ParameterError("out", f"--out {out}: {existing} is a file; name a folder")
    if existing is not None and not os.access(existing, os.W_OK | os.X_OK):
        raise ParameterError("out", f"--out {out}: {existing} cannot be written; choose "
                                    "another folder")


def _describe(info: Any, how: str) -> str:
    r = info.record
    return (f"{how}: {info.path}\n"
            f"  sha256 {info.sha256}, {r.get('bytes', info.path.stat().st_size):,} bytes\n"
            f"  pretrained on {r['n_train_images']:,} CIFAR-10 test images, held-out 10-class "
            f"accuracy {100 * r['holdout_accuracy']:.1f} % ({r['n_holdout_images']} images)\n"
            f"  torch {r['torch']}, {r['threads']} thread(s), {r['seconds']} s to build")


def _backbone(args: argparse.Namespace) -> int:
    from pudd_core.classifiers import (
        PretrainRecipe,
        backbone_paths,
        build_backbone,
        cached_backbone,
        shipped_backbone,
    )
    from pudd_core.cli._shared import progress_line

    _check_out(args.out)
    recipe = PretrainRecipe()
    ready = cached_backbone(recipe)
    try:
        shipped = shipped_backbone(recipe)
    except ValueError as exc:  # damaged: said, then rebuilt into the cache
        shipped = None
        if args.out is None and ready is None:
            print(f"warning: {exc}", file=sys.stderr)
    if args.out is None and ready is not None:
        how = "shipped" if ready.shipped else "cached (built on this machine)"
        info = ready
    else:
        folder = Path(args.out) if args.out else backbone_paths(recipe)[0].parent
        info = build_backbone(
            recipe, folder, data_dir=args.data_dir,
            decode_progress=progress_line("decoding the CIFAR-10 test images"),
            progress=progress_line("pretraining the backbone on the CIFAR-10 test images"))
        how = "built"
    if args.json:
        print(json.dumps({"path": str(info.path), "how": how, **info.record}, indent=1))
        return 0
    print(_describe(info, how))
    if info.built and shipped is not None and shipped.path.resolve() != info.path.resolve():
        r = shipped.record
        print("  the same weights as the shipped file" if r["sha256"] == info.sha256 else
              f"  not the shipped weights (sha256 {r['sha256'][:12]}…, torch {r['torch']}, "
              f"held-out accuracy {100 * r['holdout_accuracy']:.1f} %): another torch or CPU "
              "adds the floating-point sums in another order")
    return 0


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    """Add the ``backbone`` command.

    Examples
    --------
    >>> parser = argparse.ArgumentParser(prog="pudd")
    >>> add_parser(parser.add_subparsers(), argparse.ArgumentParser(add_help=False))
    >>> args = parser.parse_args(["backbone", "--out", "weights", "--json"])
    >>> args.out, args.json, args.data_dir
    ('weights', True, None)
    """
    cmd = commands.add_parser(
        "backbone", parents=[common],
        help="show the pretrained CIFAR backbone of pretrained-cnn (shipped with the package), "
             "or pretrain it again by its recipe",
        description="Without options: the backbone pretrained-cnn uses (the shipped file when "
                    "its sha256 matches its record, else one built into the data cache), built "
                    "into the cache first when there is none (about 3 min on 2 free CPU cores; "
                    "needs the CIFAR-10 images). --out FOLDER pretrains it again by the same "
                    "recipe into FOLDER (--out pudd_core/classifiers/weights makes the shipped "
                    "file).",
    )
    cmd.add_argument("--out", default=None, metavar="FOLDER",
                     help="pretrain again and write the weights and their JSON record here")
    cmd.add_argument("--data-dir", default=None,
                     help="data folder holding cifar10/ (instead of $PUDD_DATA_DIR)")
    cmd.add_argument("--json", action="store_true", help="print the record as JSON")
    cmd.set_defaults(handler=_backbone)
