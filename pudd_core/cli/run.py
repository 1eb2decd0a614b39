"""``run``: one configuration over seeds, into the store or a per-chunk log."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from typing import Any

from pudd_core.cli._shared import (
    EXECUTORS,
    LazyChoices,
    check_log_path,
    jsonable,
    prepare_classifier,
)


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
    check_log_path(path)
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
    device = prepare_classifier(base.classifier, dict(base.classifier_options), args.data_dir)
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
        print(json.dumps(summary, indent=2, default=jsonable))
    else:
        print(f"{base.dataset} / {base.classifier} / {base.detector}"
              f"{f' alpha={base.alpha:g}' if takes_alpha(base.detector) else ''}"
              f" / {base.regime}: accuracy {100 * summary['accuracy_mean']:.2f}"
              f" ± {100 * summary['accuracy_std']:.2f} % over {len(accs)} seed(s),"
              f" {summary['alarms_mean']:.1f} alarms per run"
              f"{f' (device: {device})' if device else ''}")
    return 0


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    """Add the ``run`` command.

    Examples
    --------
    >>> parser = argparse.ArgumentParser(prog="pudd")
    >>> add_parser(parser.add_subparsers(), argparse.ArgumentParser(add_help=False))
    >>> args = parser.parse_args(["run", "--detector", "ddm", "--alpha", "1e-5"])
    >>> args.dataset, args.detector, args.alpha
    ('sea0', 'ddm', 1e-05)
    """
    from pudd_core.paper import REGIMES

    def detectors() -> tuple[str, ...]:
        from pudd_core.experiments.baselines import ALIASES
        from pudd_core.experiments.detectors import DETECTORS

        return (*DETECTORS, *ALIASES)

    run = commands.add_parser("run", parents=[common],
                              help="run one configuration over one or more seeds")
    run.add_argument("--dataset", default="sea0")
    run.add_argument("--classifier", default="gnb")
    run.add_argument("--detector", default="pudd", choices=LazyChoices(detectors),
                     metavar="DETECTOR", help="one of %(choices)s (default %(default)s)")
    run.add_argument("--alpha", type=float, default=1e-3, help="PUDD-x is 10^-x (default 1e-3)")
    run.add_argument("--regime", default=REGIMES[0], choices=REGIMES)
    run.add_argument("--adaptation", default="window", choices=("window", "chunk"))
    run.add_argument("--seeds", default="0", help="'0-9', '0,3,7' or one seed (default 0)")
    run.add_argument("--n-chunks", type=int, default=None)
    run.add_argument("--chunk-size", type=int, default=None)
    run.add_argument("--detector-option", action="append", default=[], metavar="KEY=VALUE")
    run.add_argument("--classifier-option", action="append", default=[], metavar="KEY=VALUE")
    run.add_argument("--executor", default="joblib", choices=EXECUTORS,
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
