"""Command line: ``python -m pudd_core <command>``.

``datasets`` lists the stream registry with sources and licences, ``run`` runs one
configuration over seeds, ``grid`` runs a grid file into the results store, ``reproduce`` runs
a paper table, ``monitor`` runs PUDD on your model's prediction log and ``export-predictions``
writes such a log from a stream and a classifier.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shlex
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from pudd_core.monitoring import LogFormat

_EXECUTORS = ("serial", "joblib", "ray", "dask")  # experiments.grid.EXECUTORS, no pandas


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


def _check_log_path(path: str, param: str = "log") -> None:
    """Fail before any work if the log cannot be created (missing folder, a folder, no rights)."""
    import os

    from pudd_core._validation import ParameterError

    target = os.path.abspath(path)
    folder = os.path.dirname(target)
    if os.path.isdir(target):
        raise ParameterError(param, f"--{param} {path} is a folder; name a file")
    if not os.path.isdir(folder):
        raise ParameterError(param, f"the folder of --{param} {path} does not exist; create "
                                    f"{folder} first or choose another path")
    existed = os.path.exists(target)
    try:
        with open(target, "ab"):
            pass
    except OSError as exc:
        raise ParameterError(param, f"--{param} {path} cannot be written ({exc.strerror}); "
                                    "choose another path") from None
    if not existed:
        os.unlink(target)


def _check_data_dir(path: str | None) -> None:
    """``--data-dir``, when given, must be a folder (else every stream reads as missing)."""
    import os

    from pudd_core._validation import ParameterError

    if path is not None and not os.path.isdir(path):
        raise ParameterError("data_dir", f"--data-dir {path}: no such folder; name the folder "
                                         "that holds the data files (see `datasets`)")


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


def _run_with_log(configs: Sequence[Any], path: str, data_dir: str | None) -> Any:
    """Run ``configs`` here, one after the other, and write their per-chunk logs to ``path``.

    One row per tested chunk and seed (CSV, or Parquet for a ``.parquet`` path); returns
    the runs' summary rows, as a grid would. If writing fails (a full disk), the log is kept
    in a fallback file and the error names it.
    """
    import pandas as pd

    from pudd_core.experiments.grid import StoreWriteError, save_fallback
    from pudd_core.experiments.runner import run_experiment

    for cfg in configs:
        cfg.validate(data_dir)  # every name and option before any work
    _check_log_path(path)
    summaries, logs = [], []
    for cfg in configs:
        result = run_experiment(cfg, data_dir=data_dir)
        summaries.append({**result.summary(), "status": "ok", "error": ""})
        logs.append(result.to_frame().assign(seed=cfg.seed))
    log = pd.concat(logs, ignore_index=True)
    try:
        if path.endswith(".parquet"):
            log.to_parquet(path, index=False)
        else:
            log.to_csv(path, index=False)
    except OSError as exc:
        fallback = save_fallback(log.to_dict("records"), stem="pudd-log")
        kept = f"the log was saved to {fallback} instead" if fallback else "the log is lost"
        raise StoreWriteError(f"could not write the log to {path} ({exc.strerror or exc}); "
                              f"{kept}", fallback) from exc
    print(f"wrote the per-chunk log of {len(configs)} run(s), {len(log)} rows, to {path}",
          file=sys.stderr)
    return pd.DataFrame(summaries)


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


def _progress_line(what: str) -> Any:
    """A ``progress(done, total)`` that rewrites one line on stderr."""

    def report(done: int, total: int) -> None:
        end = "\n" if done >= total else ""
        print(f"\r{what}: {done}/{total}", end=end, file=sys.stderr, flush=True)

    return report


def _prepare_classifier(name: str, options: dict[str, Any], data_dir: str | None) -> str | None:
    """Say which device a torch classifier uses; build the pretrained backbone once, here.

    Returns the device name (None for the classifiers without torch). Building the backbone
    before the runs keeps parallel workers from each pretraining their own copy.
    """
    from pudd_core.classifiers import TORCH_CLASSIFIERS, pretrained_backbone, resolve_device

    if name not in TORCH_CLASSIFIERS:
        return None
    device = resolve_device(str(options.get("device", "auto")))
    print(f"{name} runs on {device}", file=sys.stderr)
    if name == "pretrained-cnn" and "weights_path" not in options:
        info = pretrained_backbone(
            data_dir=data_dir,
            decode_progress=_progress_line("decoding the CIFAR-10 test images"),
            progress=_progress_line("pretraining the backbone on the CIFAR-10 test images"),
        )
        how = "built" if info.built else "loaded"
        print(f"backbone {how}: {info.path} (sha256 {info.sha256[:12]}, "
              f"{info.record['n_train_images']} test images, held-out 10-class accuracy "
              f"{100 * info.record['holdout_accuracy']:.1f} %)", file=sys.stderr)
    return device


def _run(args: argparse.Namespace) -> int:
    import statistics

    from pudd_core.experiments.detectors import takes_alpha
    from pudd_core.experiments.grid import check_n_jobs, parse_seeds, run_grid
    from pudd_core.experiments.runner import RunConfig, parse_option_pairs

    check_n_jobs(args.n_jobs)

    base = RunConfig(
        dataset=args.dataset, classifier=args.classifier, detector=args.detector,
        alpha=args.alpha, regime=args.regime, adaptation=args.adaptation,
        n_chunks=args.n_chunks, chunk_size=args.chunk_size,
        detector_options=parse_option_pairs("detector", args.detector, args.detector_option),
        classifier_options=parse_option_pairs("classifier", args.classifier,
                                              args.classifier_option),
    )
    base.validate(args.data_dir)
    configs = [dataclasses.replace(base, seed=s) for s in parse_seeds(args.seeds)]
    base.validate(args.data_dir)
    device = _prepare_classifier(base.classifier, dict(base.classifier_options), args.data_dir)
    if args.log is not None:
        rows = _run_with_log(configs, args.log, args.data_dir)
    else:
        rows = run_grid(configs, store=args.store, executor=args.executor, n_jobs=args.n_jobs,
                        address=args.address, progress=not args.json and sys.stderr.isatty(),
                        data_dir=args.data_dir)
    errors = rows[rows["status"] != "ok"]
    if len(errors):
        last = str(errors.iloc[0]["error"]).strip().splitlines()[-1]
        print(f"error: {len(errors)} run(s) failed; the first: {last} (each run's traceback is "
              "in the store's 'error' column)", file=sys.stderr)
        if getattr(args, "debug", False):
            print(errors.iloc[0]["error"], file=sys.stderr)
        return 1
    accs = [float(a) for a in rows.sort_values("seed")["accuracy"]]
    summary: dict[str, Any] = {
        "config": {k: v for k, v in dataclasses.asdict(base).items() if k != "seed"},
        "seeds": sorted(int(s) for s in rows["seed"]),
        "accuracy_mean": statistics.fmean(accs),
        "accuracy_std": statistics.stdev(accs) if len(accs) > 1 else 0.0,
        "alarms_mean": float(rows["n_alarms"].mean()),
        "device": device,
        "runs": [
            {k: r[k] for k in ("seed", "accuracy", "n_alarms", "mean_delay", "missed",
                               "false_alarms", "elapsed_s")}
            for r in rows.sort_values("seed").to_dict("records")
        ],
    }
    if args.json:
        print(json.dumps(summary, indent=2, default=_jsonable))
    else:
        print(f"{base.dataset} / {base.classifier} / {base.detector}"
              f"{f' alpha={base.alpha:g}' if takes_alpha(base.detector) else ''}"
              f" / {base.regime}: accuracy {100 * summary['accuracy_mean']:.2f}"
              f" ± {100 * summary['accuracy_std']:.2f} % over {len(accs)} seed(s),"
              f" {summary['alarms_mean']:.1f} alarms per run"
              f"{f' (device: {device})' if device else ''}")
    return 0


def _jsonable(value: object) -> object:
    if hasattr(value, "item"):
        return value.item()
    return str(value)


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


def _claims(args: argparse.Namespace) -> int:
    from pathlib import Path

    from pudd_core._validation import ParameterError
    from pudd_core.experiments.claims import check_claims, claims_markdown, paper_cells
    from pudd_core.views.reproduction import committed_cells, committed_sources

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
    from pudd_core.experiments.ablation import (
        EK_DATASETS,
        ek_ablation_cells,
        ek_ablation_configs,
        save_ek_ablation,
    )
    from pudd_core.experiments.grid import parse_seeds, run_grid
    from pudd_core.paper import REGIMES

    text = args.seeds.strip()
    seeds = parse_seeds(int(text) if text.isdigit() else text)
    classifiers = _names(args.classifier, "classifier") or ["gnb", "vfdt"]
    datasets = _names(args.datasets, "datasets") or EK_DATASETS
    regimes = _names(args.regimes, "regimes")
    configs = [c for clf in classifiers for c in ek_ablation_configs(
        clf, seeds, datasets=datasets, regimes=regimes or REGIMES, n_chunks=args.n_chunks)]
    _check_out_folder(args.out)
    rows = run_grid(configs, store=args.store, executor=args.executor, n_jobs=args.n_jobs,
                    address=args.address, progress=True, data_dir=args.data_dir)
    notes = [f"Seeds {text}; classifiers {', '.join(classifiers)}; command: "
             f"{args.command_line}"]
    if args.n_chunks:
        notes.append(f"Streams cut to {args.n_chunks} chunks: not the paper's protocol.")
    cells = ek_ablation_cells(rows, configs)
    md, csv = _write_or_say(args.out, lambda: save_ek_ablation(cells, args.out, notes=notes),
                            f"the runs are in the store {args.store}: run the same command "
                            "again to write the report without computing them")
    print(md.read_text(encoding="utf-8"))
    print(f"\nsaved {md} and {csv}", file=sys.stderr)
    return 0


def _reproduce(args: argparse.Namespace) -> int:
    from pudd_core._validation import ParameterError
    from pudd_core.experiments.grid import check_n_jobs, parse_seeds, run_grid
    from pudd_core.experiments.reproduce import reproduction_configs, reproduction_report

    check_n_jobs(args.n_jobs)
    chosen = [f for f, on in (("--table", args.table is not None), ("--claims", args.claims),
                              ("--fig5", args.fig5)) if on]
    if len(chosen) != 1:
        raise ParameterError("table", "give one of --table 1|2|cifar, --claims or --fig5"
                             + (f", not {' and '.join(chosen)}" if chosen else ""))
    if args.replace and not args.add:
        raise ParameterError("replace", "--replace goes with --add: it says that this "
                             "command's cells replace the report's whatever their seeds")
    if args.add and (args.claims or args.fig5 or args.table == "cifar"):
        raise ParameterError("add", "--add puts cells into a --table 1 or 2 report; the "
                             "CIFAR-10-CD comparison, Fig. 5 and the claims are made whole")
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

        from pudd_core.experiments.reproduce import check_addition, read_report

        existing = os.path.join(args.out, f"table{args.table}_{classifier}.csv")
        try:
            base = read_report(existing, args.table, classifier)
        except (OSError, ValueError) as err:
            raise ParameterError("add", f"--add: {err}") from err
        if not args.replace:  # --replace: the cells go in whatever their seeds
            check_addition(base, configs)  # each cell's seeds: pooled, replaced or refused now
    rows = run_grid(configs, store=args.store, executor=args.executor, n_jobs=args.n_jobs,
                    address=args.address, progress=True, data_dir=args.data_dir)
    report = reproduction_report(rows, args.table, classifier, configs=configs)
    if base is not None:
        from pudd_core.experiments.reproduce import merge_reports

        report = merge_reports(base, report, replace=args.replace, note=(
            f"Cells added to this report by `{args.command_line}` ({len(configs)} runs, seeds "
            f"{text}); " + ("they replace the cells run before, whatever their seeds (a "
                            "changed procedure)." if args.replace else
                            "new seeds of a cell pooled with its earlier ones.")))
    print(report.markdown())  # the result first: a failed write below loses nothing
    md_path, csv_path = _write_or_say(args.out, lambda: report.save(args.out),
                                      "the report is printed above")
    print(f"\nsaved {md_path} and {csv_path}", file=sys.stderr)
    return 0


def _log_format(args: argparse.Namespace) -> LogFormat:
    """The ``LogFormat`` the monitor's column options describe."""
    from pudd_core.monitoring import LogFormat

    columns = ([c.strip() for c in args.proba_columns.split(",") if c.strip()]
               if args.proba_columns else ())
    classes = ([c.strip() for c in args.classes.split(",")] if args.classes else ())
    return LogFormat(
        label=args.label, proba_prefix=args.proba_prefix, proba_columns=tuple(columns),
        classes=tuple(classes), p_true=args.p_true, correct=args.correct, pred=args.pred,
        time_column=args.time_column, positive_label=args.positive_label)


def _monitor(args: argparse.Namespace) -> int:
    from pudd_core.experiments.runner import parse_option_pairs
    from pudd_core.monitoring import monitor

    if args.follow or args.state is not None or args.poll is not None:
        return _monitor_follow(args)
    if args.report is not None:
        _check_log_path(args.report, "report")
    log_format = _log_format(args)
    result = monitor(
        args.file, log_format, chunk_size=args.chunk_size, window=args.window,
        alpha=args.alpha,
        detector_options=parse_option_pairs("detector", "pudd", args.detector_option),
        baselines=[b for b in (args.baselines or "").split(",") if b.strip()],
        normalize=args.normalize, record_windows="alarms" if args.report else "none",
        seed=args.seed, variant=args.variant,
    )
    # the result first (stdout), then the file: a failed write loses nothing
    if args.json:
        print(json.dumps(result.to_json(), default=_jsonable), flush=True)
    else:
        _print_monitor_summary(result)
    if args.report is None:
        return 0
    return _write_monitor_report(result, args.report)


def _monitor_follow(args: argparse.Namespace) -> int:
    """``monitor FILE --follow``: one JSON line per chunk as the log grows, until a signal."""
    import math
    import select
    import signal
    import socket

    from pudd_core._validation import ParameterError
    from pudd_core.experiments.runner import parse_option_pairs
    from pudd_core.monitoring import Follower, Monitor

    if not args.follow:
        given = "--state" if args.state is not None else "--poll"
        raise ParameterError("follow", f"{given} goes with --follow (a log that keeps growing)")
    poll = 1.0 if args.poll is None else args.poll
    if not math.isfinite(poll) or poll <= 0:
        raise ParameterError("poll", f"--poll must be a number of seconds > 0, got {args.poll}")
    if args.report is not None:
        raise ParameterError("report", "--report draws a finished log; with --follow each "
                                       "chunk is a JSON line (run monitor without --follow on "
                                       "the log for a report)")
    if not os.path.exists(args.file):
        raise FileNotFoundError(f"no log at {args.file}: give a CSV file that rows are "
                                "appended to, or a folder that Parquet parts are written to")
    if args.state is not None:
        _check_log_path(args.state, "state")
    log_format = _log_format(args)
    options = parse_option_pairs("detector", "pudd", args.detector_option)
    baselines = [b for b in (args.baselines or "").split(",") if b.strip()]

    def make() -> Monitor:
        return Monitor(log_format, chunk_size=args.chunk_size, window=args.window,
                       alpha=args.alpha, detector_options=options, baselines=baselines,
                       normalize=args.normalize, record_windows="none", seed=args.seed,
                       variant=args.variant)

    make()  # every option checked before the state is read or the log followed
    key = {"format": repr(log_format), "chunk_size": args.chunk_size, "window": args.window,
           "alpha": args.alpha, "detector_options": repr(sorted(options)),
           "variant": args.variant, "baselines": ",".join(baselines),
           "normalize": args.normalize, "seed": args.seed}
    follower = Follower(args.file, make, key, args.state)
    stop: list[int] = []

    def on_signal(signum: int, frame: Any) -> None:
        stop.append(signum)

    wake_r, wake_w = socket.socketpair()
    wake_r.setblocking(False)
    wake_w.setblocking(False)
    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    old_fd = signal.set_wakeup_fd(wake_w.fileno())
    where = f"; state in {args.state}" if args.state else ""
    print(f"following {args.file} (one JSON line per tested chunk{where}); Ctrl-C stops",
          file=sys.stderr, flush=True)
    try:
        while True:
            while follower.outbox:
                sys.stdout.write(follower.outbox[0] + "\n")
                sys.stdout.flush()
                follower.written()
            if stop:
                break
            if not follower.read() and select.select([wake_r], [], [], poll)[0]:
                wake_r.recv(4096)  # a signal woke it: the handler said what to do
    finally:
        signal.set_wakeup_fd(old_fd)
        for s, h in previous.items():
            signal.signal(s, h)
        wake_r.close()
        wake_w.close()
        follower.close()
    kept = f"; the state is in {args.state}" if args.state else " (no --state: nothing kept)"
    print(f"stopped at row {follower.monitor.next_row:,}{kept}", file=sys.stderr)
    return 0


def _print_monitor_summary(result: Any) -> None:
    options = ", ".join(f"{k}={v}" for k, v in result.detector_options) or "the authors'"
    print(f"{result.source}: {result.n_rows:,} rows in {result.n_chunks} tested chunks, "
          f"{len(result.alarms)} PUDD alarm(s) at alpha={result.alpha:g} ({options}; "
          f"{result.elapsed_s:.1f} s)")
    for s in result.spans:
        if s.index in set(result.alarms):
            c = result.chunks[s.index]
            when = f", {s.start} .. {s.end}" if s.start else ""
            print(f"  alarm at chunk {s.index}: rows {s.first_row}..{s.last_row}{when}, "
                  f"p = {c.p_value:.3g}, recent window {c.cut_point} chunk(s), "
                  f"accuracy {c.accuracy:.3f}")
    for name, alarms in result.baseline_alarms().items():
        print(f"  {name}: {len(alarms)} alarm(s) at chunks {', '.join(map(str, alarms)) or '-'}")
    for note in result.notes:
        print(f"  note: {note}")
    sys.stdout.flush()


def _write_monitor_report(result: Any, path: str) -> int:
    """Write the HTML report; if that fails, name the file and keep the report elsewhere."""
    import tempfile

    from pudd_core.plots.monitor import monitor_report_html

    page = monitor_report_html(result)
    try:
        with open(path, "w", encoding="utf-8") as out:
            out.write(page)
    except OSError as exc:
        problem = f"could not write the report to {path} ({exc.strerror or exc})"
        try:
            fd, spare = tempfile.mkstemp(prefix="pudd_report_", suffix=".html")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(page)
        except OSError:
            print(f"error: {problem}, nor to a temporary file; the result above (--json for "
                  "every number) is complete", file=sys.stderr)
            return 2
        print(f"error: {problem}; it was written to {spare} instead", file=sys.stderr)
        return 2
    print(f"wrote the report to {path}", file=sys.stderr)
    return 0


def _export(args: argparse.Namespace) -> int:
    from pudd_core.experiments.export import export_predictions, write_log
    from pudd_core.experiments.runner import RunConfig, parse_option_pairs

    cfg = RunConfig(dataset=args.dataset, classifier=args.classifier, detector="none",
                    regime=args.regime, seed=args.seed, n_chunks=args.n_chunks,
                    chunk_size=args.chunk_size,
                    classifier_options=parse_option_pairs("classifier", args.classifier,
                                                          args.classifier_option))
    cfg.validate(args.data_dir)
    _check_log_path(args.out, "out")
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


def _reproduce_cifar(args: argparse.Namespace, seeds: list[int]) -> int:
    """The paper's CIFAR-10-CD comparison: PUDD-1/3/5 and the 7 baselines, incremental."""
    from pudd_core.experiments.cifar_comparison import (
        comparison_configs,
        comparison_report,
        default_classifier,
    )
    from pudd_core.experiments.grid import run_grid

    detectors = _names(args.detectors, "detectors")
    classifier = args.classifier if args.classifier is not None else default_classifier()
    configs = comparison_configs(seeds, classifier=classifier, detectors=detectors,
                                 n_chunks=args.n_chunks)
    configs[0].validate(args.data_dir)
    _check_out_folder(args.out)
    device = _prepare_classifier(classifier, {}, args.data_dir) or ""
    rows = run_grid(configs, store=args.store, executor=args.executor, n_jobs=args.n_jobs,
                    address=args.address, progress=True, data_dir=args.data_dir)
    report = comparison_report(rows, device=device)
    command = args.command_line
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
    from pudd_core.experiments.baselines import ALIASES
    from pudd_core.experiments.detectors import DETECTORS
    from pudd_core.paper import REGIMES

    common = _Parser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="on an error, also print the Python traceback")
    parser = _Parser(prog="python -m pudd_core", description=__doc__,
                                     parents=[common])
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")
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

    run = commands.add_parser("run", parents=[common],
                              help="run one configuration over one or more seeds")
    run.add_argument("--dataset", default="sea0")
    run.add_argument("--classifier", default="gnb")
    run.add_argument("--detector", default="pudd", choices=(*DETECTORS, *ALIASES))
    run.add_argument("--alpha", type=float, default=1e-3, help="PUDD-x is 10^-x (default 1e-3)")
    run.add_argument("--regime", default=REGIMES[0], choices=REGIMES)
    run.add_argument("--adaptation", default="window", choices=("window", "chunk"))
    run.add_argument("--seeds", default="0", help="'0-9', '0,3,7' or one seed (default 0)")
    run.add_argument("--n-chunks", type=int, default=None)
    run.add_argument("--chunk-size", type=int, default=None)
    run.add_argument("--detector-option", action="append", default=[], metavar="KEY=VALUE")
    run.add_argument("--classifier-option", action="append", default=[], metavar="KEY=VALUE")
    run.add_argument("--executor", default="joblib", choices=_EXECUTORS,
                     help="ray and dask need their package (see the grid module)")
    run.add_argument("--n-jobs", type=int, default=None)
    run.add_argument("--address", default=None, help="Ray or Dask cluster address")
    run.add_argument("--log", default=None, metavar="FILE",
                     help="also write every tested chunk's log (accuracy, PU summary, each "
                          "cut's p-value, alarms, winning cut, timings) to FILE (.csv or "
                          ".parquet); the runs then run here, one after the other, and are "
                          "not stored")
    run.add_argument("--store", default="results/store", help="results store folder")
    run.add_argument("--data-dir", default=None)
    run.add_argument("--json", action="store_true", help="print the summary as JSON")
    run.set_defaults(handler=_run)

    grid = commands.add_parser("grid", parents=[common],
                               help="run a grid (a TOML file) into the results store")
    grid.add_argument("config", help="TOML file with a [grid] table and an optional [run] table")
    grid.add_argument("--store", default=None)
    grid.add_argument("--executor", default=None, choices=_EXECUTORS)
    grid.add_argument("--n-jobs", type=int, default=None)
    grid.add_argument("--address", default=None, help="Ray or Dask cluster address")
    grid.add_argument("--data-dir", default=None)
    grid.set_defaults(handler=_grid)

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
    rep.add_argument("--executor", default="joblib", choices=_EXECUTORS)
    rep.add_argument("--n-jobs", type=int, default=None)
    rep.add_argument("--address", default=None)
    rep.add_argument("--store", default="results/store")
    rep.add_argument("--out", default="results", help="folder for the Markdown and CSV")
    rep.add_argument("--add", action="store_true",
                     help="--table 1|2: put this command's cells into the report already in "
                          "--out (a new row, more seeds; its other cells and caveats kept) "
                          "instead of writing a report of these runs alone")
    rep.add_argument("--replace", action="store_true",
                     help="with --add: this command's cells replace the report's whatever "
                          "their seeds (after a method's procedure changed)")
    rep.add_argument("--data-dir", default=None)
    rep.set_defaults(handler=_reproduce)

    mon = commands.add_parser(
        "monitor", parents=[common],
        help="run PUDD (and baselines) on your model's prediction log (CSV or Parquet)",
        description="PUDD on a log of predictions: a label column and one probability column "
                    "per class, or a single column P(positive) of a binary model (or p_true "
                    "with correct/pred). Rows are numbered from 0 after the header. Rows at "
                    "the end without a label are reported as pending. Timestamps must be "
                    "sorted: an unsorted log is refused.")
    mon.add_argument("file", help="the log: a .csv or .parquet file")
    mon.add_argument("--label", default=None, help="the true-label column")
    form = mon.add_mutually_exclusive_group()
    form.add_argument("--proba-prefix", default=None, metavar="PREFIX",
                      help="probability columns PREFIX<class>, e.g. proba_ for proba_0, proba_1")
    form.add_argument("--proba-columns", default=None, metavar="C1,C2,...",
                      help="probability columns in class order (labels 0..K-1 unless --classes)")
    form.add_argument("--p-true", default=None, metavar="COLUMN",
                      help="shortcut: the probability of the true class (with --correct or "
                           "--pred)")
    mon.add_argument("--classes", default=None, metavar="V1,V2,...",
                     help="with --proba-columns: each column's label value")
    mon.add_argument("--positive-label", default=None, metavar="VALUE",
                     help="a single probability column is P(positive class): the positive "
                          "label (inferred for 0/1, -1/1 and false/true labels)")
    decisions = mon.add_mutually_exclusive_group()
    decisions.add_argument("--correct", default=None, metavar="COLUMN",
                           help="0/1: whether each prediction was right (with any form)")
    decisions.add_argument("--pred", default=None, metavar="COLUMN",
                           help="the model's decisions (predicted labels), compared with "
                                "--label: they, not the arg-max, say which predictions are "
                                "wrong (with any form)")
    chunking = mon.add_mutually_exclusive_group()
    chunking.add_argument("--chunk-size", type=int, default=None, metavar="N",
                          help="rows per chunk (default 1000)")
    chunking.add_argument("--window", default=None, metavar="W",
                          help="chunk by time: a pandas offset alias (1D, 6h, 30min, W, MS), "
                               "or a number: the step of a numeric time column (an integer "
                               "year, epoch seconds); needs --time-column")
    mon.add_argument("--time-column", default=None, metavar="COL",
                     help="the timestamp column (sorted; ISO 8601 text, a date type, an "
                          "integer year or epoch time)")
    mon.add_argument("--alpha", type=float, default=1e-3, help="PUDD's threshold (default 1e-3)")
    mon.add_argument("--variant", default="calibrated", choices=("calibrated", "authors"),
                     help="PUDD's count floor: calibrated (default: clamp_min=0, "
                          "min_expected=5, rare false alarms on healthy logs) or the authors' "
                          "(clamp_min=5, as the lab's reproduction)")
    mon.add_argument("--detector-option", action="append", default=[], metavar="K=V",
                     help="a ChunkPUDD option, e.g. cut_points=all (repeatable)")
    mon.add_argument("--baselines", default=None, metavar="adwin,ddm,...",
                     help="river detectors fed the same errors beside PUDD")
    mon.add_argument("--normalize", action="store_true",
                     help="divide each probability row by its sum (else rows must sum to 1)")
    mon.add_argument("--seed", type=int, default=0, help="the detector's seed")
    mon.add_argument("--json", action="store_true",
                     help="print one JSON object: n_chunks, alarms, p_values, accuracy, chunks")
    mon.add_argument("--report", default=None, metavar="OUT.html",
                     help="write a self-contained HTML report (works offline)")
    mon.add_argument("--follow", action="store_true",
                     help="FILE keeps growing (a CSV that rows are appended to, or a folder "
                          "of Parquet parts read once each in name order): print one JSON "
                          "line per chunk as it is tested, until Ctrl-C or SIGTERM")
    mon.add_argument("--state", default=None, metavar="STATE",
                     help="with --follow: keep the monitor in this file (replaced after each "
                          "read); run again with it to go on where it stopped")
    mon.add_argument("--poll", type=float, default=None, metavar="SECONDS",
                     help="with --follow: look for new rows this often (default 1)")
    mon.set_defaults(handler=_monitor)

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
    return parser


#: ParameterError.param -> the option that sets it, named after the message.
_FLAGS = {
    "n_chunks": "--n-chunks", "chunk_size": "--chunk-size", "seeds": "--seeds",
    "alpha": "--alpha", "dataset": "--dataset", "classifier": "--classifier",
    "detector": "--detector", "detector_options": "--detector-option",
    "classifier_options": "--classifier-option", "store": "--store",
    "label": "--label", "proba_prefix": "--proba-prefix", "proba_columns": "--proba-columns",
    "classes": "--classes", "p_true": "--p-true", "correct": "--correct", "pred": "--pred",
    "time_column": "--time-column", "window": "--window", "normalize": "--normalize",
    "positive_label": "--positive-label",
    "baselines": "--baselines", "report": "--report", "out": "--out", "source": "FILE",
    "add": "--add", "replace": "--replace", "state": "--state", "poll": "--poll",
    "follow": "--follow", "results": "--results", "n_jobs": "--n-jobs",
    "skip_kswin": "--skip-kswin", "datasets": "--datasets",
    "detectors": "--detectors", "regimes": "--regimes",
}


_COMMAND_FLAGS = {
    "run": tuple(_FLAGS),
    "reproduce": ("n_chunks", "seeds", "classifier", "store", "results", "datasets",
                  "detectors", "regimes", "add", "out", "n_jobs"),
    "grid": ("store", "n_jobs"),
    "monitor": ("chunk_size", "alpha", "detector_options", "label", "proba_prefix",
                "proba_columns", "classes", "p_true", "correct", "pred", "time_column",
                "window", "baselines", "report", "source", "positive_label", "state", "poll",
                "follow"),
    "export-predictions": ("n_chunks", "chunk_size", "dataset", "classifier",
                           "classifier_options", "out"),
}


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


if __name__ == "__main__":
    sys.exit(main())
