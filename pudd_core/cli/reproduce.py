"""``reproduce``: the runs behind a paper table, Fig. 5 or the claims check, and their reports."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pudd_core.cli._shared import EXECUTORS, prepare_classifier


def _check_out_folder(path: str) -> None:
    """Fail before any work unless files can be written in the folder ``path`` (--out)."""
    import os
    import tempfile

    from pudd_core._validation import ParameterError

    if os.path.exists(path) and not os.path.isdir(path):
        raise ParameterError("out", f"--out {path} is a file; name a folder")
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise ParameterError("out", f"--out {path} cannot be written ({exc.strerror}); choose "
                                    "another folder") from None


def _write_or_say(where: Any, write: Any, kept: str) -> Any:
    """Run ``write()``; a failed write becomes an error naming the file and what was kept.

    On a full disk or a vanished folder: the result printed, or the runs in the store.
    """
    from pudd_core.experiments.grid import StoreWriteError

    try:
        return write()
    except OSError as exc:
        name = exc.filename or where
        raise StoreWriteError(f"could not write {name} ({exc.strerror or exc}); {kept}",
                              None) from exc


def _claims(args: argparse.Namespace) -> int:
    from pathlib import Path

    from pudd_core._validation import ParameterError
    from pudd_core.reproduction.claims import check_claims, paper_cells
    from pudd_core.reproduction.committed import committed_cells
    from pudd_core.reproduction.verdicts import claims_markdown
    from pudd_core.views.reproduction import committed_sources

    folder = Path(args.results) if args.results is not None else None
    if folder is not None and not folder.is_dir():
        raise ParameterError("results", f"--results {args.results}: no such folder; name the "
                                        "folder of the reports (default: results/)")
    ours = committed_cells(folder)
    if ours.empty:
        where = args.results if folder is not None else "results/"
        raise ParameterError("results", f"--results {where} holds no report the claims check "
                                        "reads (table1_gnb.csv, table2_dnn-ensemble.csv, ...): "
                                        "name the folder `reproduce` wrote them to")
    text = claims_markdown(check_claims(paper_cells(), "paper"), check_claims(ours, "ours"),
                           committed_sources(folder))
    out = Path(args.out) / "claims.md"
    _check_out_folder(args.out)
    print(text)  # the result first: a failed write below loses nothing
    _write_or_say(out, lambda: out.write_text(text, encoding="utf-8"), "the claims are printed "
                  "above")
    print(f"\nsaved {out}", file=sys.stderr)
    return 0


def _fig5(args: argparse.Namespace) -> int:
    from pathlib import Path

    from pudd_core._validation import ParameterError
    from pudd_core.experiments.grid import parse_seeds, run_grid
    from pudd_core.paper import REGIMES
    from pudd_core.reproduction import detector_label
    from pudd_core.reproduction.ablation import (
        EK_DATASETS,
        ek_ablation_cells,
        ek_ablation_configs,
        ek_ablation_rows,
        merge_ek_cells,
        read_ek_ablation,
        save_ek_ablation,
    )

    if args.render:  # the report written again from its CSV and notes: no run
        return _fig5_render(args.out)
    text = args.seeds.strip()
    seeds = parse_seeds(int(text) if text.isdigit() else text)
    classifiers = _names(args.classifier, "classifier") or ["gnb", "vfdt"]
    datasets = _names(args.datasets, "datasets") or EK_DATASETS
    regimes = _names(args.regimes, "regimes")
    configs = [c for clf in classifiers for c in ek_ablation_configs(
        clf, seeds, datasets=datasets, regimes=regimes or REGIMES, n_chunks=args.n_chunks)]
    detectors = _names(args.detectors, "detectors")
    if detectors is not None:  # e.g. none,oracle: the references alone
        rows_of = ek_ablation_rows()
        unknown = [d for d in detectors if d not in rows_of]
        if unknown:
            raise ParameterError("detectors", f"--detectors: {', '.join(unknown)} is not a row "
                                              f"of Fig. 5; choose among {', '.join(rows_of)}")
        configs = [c for c in configs if detector_label(c.detector, c.alpha) in detectors]
    _check_out_folder(args.out)
    base = None
    if args.add:  # read it before any work
        try:
            base = read_ek_ablation(Path(args.out) / "fig5_ek.csv")
        except (OSError, ValueError) as err:
            raise ParameterError("add", f"--add: {err}") from err
        _check_fig5_length(base[1], args.n_chunks)
    rows = run_grid(configs, store=args.store, executor=args.executor, n_jobs=args.n_jobs,
                    address=args.address, progress=True, data_dir=args.data_dir)
    notes = [f"Seeds {text}; classifiers {', '.join(classifiers)}; command: "
             f"{args.command_line}"]
    if args.n_chunks:
        notes.append(f"Streams cut to {args.n_chunks} chunks: not the paper's protocol.")
    cells = ek_ablation_cells(rows, configs)
    if base is not None:
        cells = merge_ek_cells(base[0], cells)
        notes = [*base[1], f"Rows added by `{args.command_line}` (seeds {text}; classifiers "
                           f"{', '.join(classifiers)})."]
    md, csv = _write_or_say(args.out, lambda: save_ek_ablation(cells, args.out, notes=notes),
                            f"the runs are in the store {args.store}: run the same command "
                            "again to write the report without computing them")
    print(md.read_text(encoding="utf-8"))
    print(f"\nsaved {md} and {csv}", file=sys.stderr)
    return 0


def _fig5_render(out: str) -> int:
    """``reproduce --fig5 --render``: ``fig5_ek.md`` from ``fig5_ek.csv`` and its notes."""
    from pathlib import Path

    from pudd_core._validation import ParameterError
    from pudd_core.reproduction.ablation import ek_ablation_markdown, read_ek_ablation

    csv = Path(out) / "fig5_ek.csv"
    try:
        cells, notes = read_ek_ablation(csv)
    except (OSError, ValueError) as err:
        raise ParameterError("render", f"--render: {err}") from err
    md = csv.with_suffix(".md")
    _write_or_say(md, lambda: md.write_text(ek_ablation_markdown(cells, notes=notes),
                                            encoding="utf-8"), f"{csv} is unchanged")
    print(f"wrote {md} from {csv}", file=sys.stderr)
    return 0


def _check_fig5_length(notes: list[str], n_chunks: int | None) -> None:
    """Refuse ``--fig5 --add`` runs of another stream length than the report's (its notes).

    A Fig. 5 report says "Streams cut to N chunks" in its notes when it is not the paper's
    protocol; a row of shorter episodes beside full ones is not comparable.
    """
    import re

    from pudd_core._validation import ParameterError

    lengths: set[int | None] = {int(m.group(1)) for n in notes
                                if (m := re.match(r"Streams cut to (\d+) chunks", n))}
    have = lengths or {None}
    if have != {n_chunks}:
        def said(v: int | None) -> str:
            return "the paper's lengths" if v is None else f"{v} chunks"

        raise ParameterError(
            "add", f"--add: the report in --out ran its streams at "
                   f"{' and '.join(sorted(said(v) for v in have))}; these runs at "
                   f"{said(n_chunks)}: "
                   "its rows would not be comparable; give --n-chunks as the report's "
                   "commands did, or write a new report into another --out")


def _reproduce(args: argparse.Namespace) -> int:
    from pudd_core._validation import ParameterError
    from pudd_core.experiments.grid import check_n_jobs, parse_seeds, run_grid
    from pudd_core.reproduction import reproduction_configs, reproduction_report

    check_n_jobs(args.n_jobs)
    chosen = [f for f, on in (("--table", args.table is not None), ("--claims", args.claims),
                              ("--fig5", args.fig5)) if on]
    if len(chosen) != 1:
        raise ParameterError("table", "give one of --table 1|2|cifar, --claims or --fig5"
                             + (f", not {' and '.join(chosen)}" if chosen else ""))
    if args.replace and not args.add:
        raise ParameterError("replace", "--replace goes with --add: it says that this "
                             "command's cells replace the report's whatever their seeds")
    if args.add and args.claims:
        raise ParameterError("add", "--add puts cells into a --table 1, 2, cifar or --fig5 "
                             "report; the claims are made whole from the reports")
    if args.render and (not args.fig5 or args.add):
        raise ParameterError("render", "--render writes a --fig5 report again from its CSV "
                                       "in --out, running nothing: give it with --fig5 alone"
                             + (", not with --add" if args.add else ""))
    if args.replace and args.fig5:
        raise ParameterError("replace", "--replace is for --table 1 or 2: a Fig. 5 cell added "
                             "with --add always replaces the report's cell")
    if args.replace and args.table == "cifar":
        raise ParameterError("replace", "--replace is for --table 1 or 2: a CIFAR-10-CD row "
                             "added with --add always replaces the report's row")
    if args.claims:
        return _claims(args)
    if args.fig5:
        return _fig5(args)
    text = args.seeds.strip()
    seeds = parse_seeds(int(text) if text.isdigit() else text)
    if args.table == "cifar":
        return _reproduce_cifar(args, seeds)
    detectors = _names(args.detectors, "detectors")
    if args.skip_kswin and (args.table != 1 or detectors is not None):
        raise ParameterError("skip_kswin", "--skip-kswin leaves KSWIN out of Table 1's rows; "
                             "it goes with --table 1 and without --detectors (name the "
                             "detectors there instead)")
    if detectors is None and args.skip_kswin and args.table == 1:
        from pudd_core.paper import CLASSIC_DETECTORS, PUDD_DETECTORS

        detectors = [d for d in (*CLASSIC_DETECTORS, *PUDD_DETECTORS) if d != "kswin"]
    datasets = _names(args.datasets, "datasets")
    regimes = _names(args.regimes, "regimes")
    classifier = (args.classifier if args.classifier is not None
                  else "dnn-ensemble" if args.table == 2 else "gnb")
    configs = reproduction_configs(args.table, classifier, seeds, datasets=datasets,
                                   detectors=detectors, regimes=regimes, n_chunks=args.n_chunks,
                                   reproduce_frozen_head=args.reproduce_frozen_head)
    _check_out_folder(args.out)
    base = None
    if args.add:  # read it before any work: a missing or broken report fails at once
        import os

        from pudd_core.reproduction import check_addition, read_report

        existing = os.path.join(args.out, f"table{args.table}_{classifier}.csv")
        try:
            base = read_report(existing, args.table, classifier)
        except (OSError, ValueError) as err:
            raise ParameterError("add", f"--add: {err}") from err
        # the settings (--n-chunks, ...) must be the report's; each cell's seeds pooled,
        # replaced or refused now (--replace: the cells go in whatever their seeds)
        check_addition(base, configs, replace=args.replace)
    rows = run_grid(configs, store=args.store, executor=args.executor, n_jobs=args.n_jobs,
                    address=args.address, progress=True, data_dir=args.data_dir)
    report = reproduction_report(rows, args.table, classifier, configs=configs)
    if base is not None:
        from pudd_core.reproduction import merge_reports

        report = merge_reports(base, report, replace=args.replace, note=(
            f"Cells added to this report by `{args.command_line}` ({len(configs)} runs, seeds "
            f"{text}); " + ("they replace the cells run before, whatever their seeds "
                            "(--replace)." if args.replace else
                            "new seeds of a cell pooled with its earlier ones.")))
    print(report.markdown())  # the result first: a failed write below loses nothing
    md_path, csv_path = _write_or_say(args.out, lambda: report.save(args.out),
                                      "the report is printed above")
    print(f"\nsaved {md_path} and {csv_path}", file=sys.stderr)
    return 0


def _reproduce_cifar(args: argparse.Namespace, seeds: list[int]) -> int:
    """The paper's CIFAR-10-CD comparison: PUDD-1/3/5, the 7 baselines and the references."""
    from pudd_core._validation import ParameterError
    from pudd_core.experiments.grid import run_grid
    from pudd_core.reproduction.cifar import (
        MAX_CHUNKS,
        comparison_configs,
        comparison_report,
        default_classifier,
    )

    detectors = _names(args.detectors, "detectors")
    classifier = args.classifier if args.classifier is not None else default_classifier()
    configs = comparison_configs(seeds, classifier=classifier, detectors=detectors,
                                 n_chunks=args.n_chunks)
    configs[0].validate(args.data_dir)
    _check_out_folder(args.out)
    base = None
    command = args.command_line
    if args.add:  # read it and check it before any work
        import os

        from pudd_core.reproduction.cifar import read_comparison

        try:
            base, first = read_comparison(os.path.join(args.out, "cifar10_cd.csv"))
        except (OSError, ValueError) as err:
            raise ParameterError("add", f"--add: {err}") from err
        if (base.classifier, base.seeds) != (classifier, tuple(seeds)) or \
                base.n_chunks != (args.n_chunks or MAX_CHUNKS):
            raise ParameterError(
                "add", f"--add: the report in --out ran {base.classifier} on seeds "
                       f"{', '.join(map(str, base.seeds))} with {base.n_chunks} chunks: a "
                       "comparison pairs its rows by seed, so give the same --classifier, "
                       "--seeds and --n-chunks")
        if first:
            quoted = first.rstrip(".") if "`" in first else f"`{first}`"
            command = f"{quoted}; rows added by `{args.command_line}`"
    device = prepare_classifier(classifier, {}, args.data_dir) or ""
    rows = run_grid(configs, store=args.store, executor=args.executor, n_jobs=args.n_jobs,
                    address=args.address, progress=True, data_dir=args.data_dir)
    report = comparison_report(rows, device=device)
    if base is not None:
        from pudd_core.reproduction.cifar import merge_comparisons

        report = merge_comparisons(base, report)
    print(report.markdown(command))  # the result first: a failed write below loses nothing
    md_path, csv_path = _write_or_say(args.out, lambda: report.save(args.out, command),
                                      "the report is printed above")
    print(f"\nsaved {md_path} and {csv_path}", file=sys.stderr)
    return 0


def _names(text: str | None, option: str) -> list[str] | None:
    """A comma-separated option's names (None when not given); an empty name is refused.

    ``--datasets ""`` names no dataset: it is an error, not "all of them".
    """
    from pudd_core._validation import ParameterError

    if text is None:
        return None
    names = [n.strip() for n in text.split(",")]
    if not all(names):
        raise ParameterError(option, f"--{option} {text!r} has an empty name: give "
                                     "comma-separated names, or leave the option out for all")
    return names


def _table(text: str) -> int | str:
    """``--table``: 1, 2 or cifar."""
    if text.strip() in ("1", "2"):
        return int(text)
    if text.strip().lower() == "cifar":
        return "cifar"
    raise argparse.ArgumentTypeError(f"choose 1, 2 or cifar, not {text!r}")


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    """Add the ``reproduce`` command.

    Examples
    --------
    >>> parser = argparse.ArgumentParser(prog="pudd")
    >>> add_parser(parser.add_subparsers(), argparse.ArgumentParser(add_help=False))
    >>> args = parser.parse_args(["reproduce", "--table", "1", "--seeds", "3"])
    >>> args.table, args.seeds
    (1, '3')
    """
    rep = commands.add_parser(
        "reproduce", parents=[common],
        help="run the runs behind a paper table and compare with its numbers",
    )
    rep.add_argument("--table", type=_table, default=None,
                     help="1: Table 1 + appendix sea10/sea20; 2: Table 2 (5-DNN ensemble); "
                          "cifar: the CIFAR-10-CD comparison (PUDD-1/3/5 and the 7 baselines, "
                          "incremental; ResNet-18 where CUDA is, else the pretrained CNN)")
    rep.add_argument("--claims", action="store_true",
                     help="check the paper's claims on its tables and on the committed reports "
                          "(--results); write claims.md into --out; runs nothing")
    rep.add_argument("--fig5", action="store_true",
                     help="Fig. 5: PUDD against Ei-kMeans (EK) at 1e-1, 1e-3, 1e-5; "
                          "--classifier takes a list (default gnb,vfdt); writes fig5_ek.md/.csv")
    rep.add_argument("--render", action="store_true",
                     help="with --fig5: write fig5_ek.md again from fig5_ek.csv (and the "
                          "notes of the report) in --out, running nothing")
    rep.add_argument("--results", default=None,
                     help="--claims: folder of the committed reports (default: results/)")
    rep.add_argument("--classifier", default=None,
                     help="gnb, vfdt or dnn (table 1; a list for --fig5); pretrained-cnn or "
                          "resnet18 (cifar)")
    rep.add_argument("--seeds", default="10", help="a count (10: seeds 0-9), '0-9' or '0,3'")
    rep.add_argument("--datasets", default=None, help="comma-separated subset")
    rep.add_argument("--detectors", default=None, help="comma-separated subset, e.g. pudd-3,ddm")
    rep.add_argument("--regimes", default=None,
                     help="comma-separated subset of incremental,train-once")
    rep.add_argument("--reproduce-frozen-head", action="store_true",
                     help="dnn only: the authors' frozen-head bug behind the published DNN "
                          "numbers (off: the fixed adaptation)")
    rep.add_argument("--skip-kswin", action="store_true",
                     help="leave out river's KSWIN (about 30 s per GNB episode)")
    rep.add_argument("--n-chunks", type=int, default=None, help="shorter streams (smoke runs)")
    rep.add_argument("--executor", default="joblib", choices=EXECUTORS)
    rep.add_argument("--n-jobs", type=int, default=None)
    rep.add_argument("--address", default=None)
    rep.add_argument("--store", default="results/store")
    rep.add_argument("--out", default="results", help="folder for the Markdown and CSV")
    rep.add_argument("--add", action="store_true",
                     help="--table 1|2: put this command's cells into the report already in "
                          "--out (a new row, more seeds; its other cells and caveats kept) "
                          "instead of writing a report of these runs alone; runs of other "
                          "settings than the report's (--n-chunks, --reproduce-frozen-head) "
                          "are refused; --table cifar: "
                          "put new rows (same classifier, seeds and chunks) into it; --fig5: "
                          "its cells replace the report's same cells, the others are kept")
    rep.add_argument("--replace", action="store_true",
                     help="with --add: this command's cells replace the report's whatever "
                          "their seeds (after a method's procedure changed)")
    rep.add_argument("--data-dir", default=None)
    rep.set_defaults(handler=_reproduce)
