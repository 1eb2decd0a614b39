"""``monitor``: PUDD (and baselines) on a prediction log, once or following it."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from pudd_core.cli._shared import check_log_path, jsonable

if TYPE_CHECKING:
    from pudd_core.monitoring import LogFormat


def _log_format(args: argparse.Namespace) -> LogFormat:
    """The ``LogFormat`` the monitor's column options describe (one flag per table entry)."""
    from pudd_core.monitoring import LogFormat

    return LogFormat.from_options(vars(args))


def add_log_arguments(parser: argparse.ArgumentParser) -> None:
    """One flag per entry of :data:`~pudd_core.monitoring.LOG_FIELDS`, grouped as it says.

    A group's flags are mutually exclusive (the probability forms; the decisions); its help
    is the entry's.

    Examples
    --------
    >>> parser = argparse.ArgumentParser(prog="monitor")
    >>> add_log_arguments(parser)
    >>> parser.parse_args(["--label", "y", "--time-unit", "ms"]).time_unit
    'ms'
    """
    from pudd_core.monitoring import LOG_FIELDS

    groups: dict[str, Any] = {}
    for f in LOG_FIELDS:
        if f.group in ("form", "decisions"):
            where = groups.get(f.group) or groups.setdefault(
                f.group, parser.add_mutually_exclusive_group())
        else:
            where = parser
        where.add_argument(f.flag, default=None, help=f.help.replace("%", "%%"),
                           **({"choices": f.choices} if f.choices else {"metavar": f.metavar}))


def _monitor(args: argparse.Namespace) -> int:
    from pudd_core.experiments.runner import parse_option_pairs
    from pudd_core.monitoring import monitor

    if args.follow and (args.calibrate_on is not None or args.false_alarm_rate is not None):
        from pudd_core._validation import ParameterError

        raise ParameterError("calibrate_on", "--calibrate-on chooses alpha on a finished "
                                             "log's first rows, not with --follow; calibrate "
                                             "on the log so far, then follow it at that alpha")
    if args.follow or args.state is not None or args.poll is not None or \
            args.on_rotation is not None:
        return _monitor_follow(args)
    if args.report is not None:
        check_log_path(args.report, "report")
    log_format = _log_format(args)
    report_times = None
    if args.report is not None and args.time_column is not None and args.window is None:
        # chunks of rows with a time column: the report shows each chunk's first and last time
        from dataclasses import replace

        report_times = args.time_column  # read by the report, not the monitor
        log_format = replace(log_format, time_column=None, time_format=None, time_unit=None)
    if args.calibrate_on is not None or args.false_alarm_rate is not None:
        return _monitor_calibrated(args, log_format, report_times)
    result = monitor(
        args.file, log_format, labels=args.labels, id_column=args.id,
        chunk_size=args.chunk_size, window=args.window, alpha=args.alpha,
        detector_options=parse_option_pairs("detector", "pudd", args.detector_option),
        baselines=[b for b in (args.baselines or "").split(",") if b.strip()],
        normalize=args.normalize, record_windows="alarms" if args.report else "none",
        seed=args.seed, variant=args.variant,
    )
    # the result first (stdout), then the file: a failed write loses nothing
    if args.json:
        print(json.dumps(result.to_json(), default=jsonable), flush=True)
    else:
        _print_monitor_summary(result)
    if args.report is None:
        return 0
    return _write_monitor_report(result, args, report_times)


def _monitor_calibrated(args: argparse.Namespace, log_format: LogFormat,
                        report_times: str | None = None) -> int:
    """``monitor LOG --calibrate-on ROWS --false-alarm-rate R``: α chosen on the first rows."""
    from pudd_core._validation import ParameterError, check_positive_int
    from pudd_core.experiments.runner import parse_option_pairs
    from pudd_core.monitoring import calibrate_log, parse_time_range

    if args.calibrate_on is None or args.false_alarm_rate is None:
        given, other = (("--calibrate-on", "--false-alarm-rate") if args.false_alarm_rate is None
                        else ("--false-alarm-rate", "--calibrate-on"))
        raise ParameterError(other.lstrip("-").replace("-", "_"),
                             f"{given} needs {other}: alpha is chosen on the first ROWS rows "
                             "(--calibrate-on) for a target false-alarm rate per chunk "
                             "(--false-alarm-rate)")
    check_positive_int("resamples", args.resamples)
    if args.window is not None:
        raise ParameterError("calibrate_on", "--calibrate-on chooses alpha for chunks of rows: "
                                             "chunk by rows (--chunk-size), not by time "
                                             "(--window)")
    stretch: int | tuple[str, str]
    if args.calibrate_on.strip().isdigit():
        stretch = int(args.calibrate_on)
        shown = f"rows 0..{stretch - 1}"
    else:
        stretch = parse_time_range(args.calibrate_on)
        if args.time_column is None:
            raise ParameterError("calibrate_on", f"--calibrate-on {args.calibrate_on} is a "
                                                 "time range: name the time column with "
                                                 "--time-column")
        shown = f"{stretch[0]}..{stretch[1]}"
    cal, result = calibrate_log(
        args.file, log_format, labels=args.labels, id_column=args.id,
        calibrate_on=stretch, time_format=args.time_format, time_unit=args.time_unit,
        false_alarm_rate=args.false_alarm_rate, chunk_size=args.chunk_size,
        n_resamples=args.resamples,
        detector_options=parse_option_pairs("detector", "pudd", args.detector_option),
        baselines=[b for b in (args.baselines or "").split(",") if b.strip()],
        normalize=args.normalize, record_windows="alarms" if args.report else "none",
        seed=args.seed, variant=args.variant)
    if args.json:
        print(json.dumps({**result.to_json(), "calibration": cal.to_json()},
                         default=jsonable), flush=True)
    else:
        best = cal.recommended
        assert best is not None  # calibrate_log refuses a target no alpha meets
        q = best.delay_quantiles()
        between = (f"one per {best.chunks_between_alarms:,.0f} chunks" if best.n_alarms
                   else "none seen")
        print(f"calibrated on {shown} ({cal.n_chunks} chunks, "
              f"{cal.n_resamples} block-bootstrap resamples): alpha={best.alpha:g}, the "
              f"largest whose false-alarm rate's 95% interval stays at or below "
              f"{args.false_alarm_rate:g} per chunk")
        print(f"  false alarms: {best.n_alarms} in {best.n_chunks:,} resampled chunks, rate "
              f"{best.false_alarm_rate:.2g} (95% interval {best.ci[0]:.2g} .. "
              f"{best.ci[1]:.2g}; {between})")
        print(f"  delay: a {cal.change} shift of size {cal.size:g} is caught within "
              f"{best.within} chunks in {best.detection_rate:.0%} of resamples; median "
              f"{q[0.5]:g} chunk(s), 90% within {q[0.9]:g}")
        ref = result.reference_alarms
        first = result.spans[0].first_row
        print(f"  reference: the stretch's {result.reference_chunks} chunks (rows "
              f"{first - result.reference_chunks * cal.chunk_size}..{first - 1}) fed PUDD's "
              f"history; {len(ref)} alarm(s) there"
              + (f" (its chunk(s) {', '.join(map(str, ref))})" if ref else "")
              + ", not reported below; the chunks below are counted from the first after it")
        _print_monitor_summary(result)
    if args.report is None:
        return 0
    return _write_monitor_report(result, args, report_times)


def _monitor_follow(args: argparse.Namespace) -> int:
    """``monitor FILE --follow``: one JSON line per chunk as the log grows, until a signal."""
    import math
    import select
    import signal
    import socket

    from pudd_core._validation import ParameterError
    from pudd_core.experiments.runner import parse_option_pairs
    from pudd_core.monitoring import Follower, LabelJoin, Monitor

    if not args.follow:
        given = ("--state" if args.state is not None else "--poll" if args.poll is not None
                 else "--on-rotation")
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
        check_log_path(args.state, "state")
    log_format = _log_format(args)
    options = parse_option_pairs("detector", "pudd", args.detector_option)
    baselines = [b for b in (args.baselines or "").split(",") if b.strip()]

    def make() -> Monitor | LabelJoin:
        m = Monitor(log_format, chunk_size=args.chunk_size, window=args.window,
                    alpha=args.alpha, detector_options=options, baselines=baselines,
                    normalize=args.normalize, record_windows="none", seed=args.seed,
                    variant=args.variant)
        if args.labels is None and args.id is None:
            return m
        if args.labels is None or args.id is None:
            raise ParameterError("labels" if args.labels is None else "id_column",
                                 "--labels LABELS and --id COLUMN go together: the labels "
                                 "file, and the column holding each prediction's id in both")
        return LabelJoin(m, args.id, predictions=args.file, labels=args.labels)

    make()  # every option checked before the state is read or the log followed
    key = {"format": repr(log_format), "chunk_size": args.chunk_size, "window": args.window,
           **({"id": args.id} if args.id is not None else {}),
           "alpha": args.alpha, "detector_options": repr(sorted(options)),
           "variant": args.variant, "baselines": ",".join(baselines),
           "normalize": args.normalize, "seed": args.seed}
    follower = Follower(args.file, make, key, args.state,
                        on_rotation=args.on_rotation or "stop", labels=args.labels)
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
            for notice in follower.notices:
                print(notice, file=sys.stderr, flush=True)
            follower.notices.clear()
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
    if isinstance(follower.monitor, LabelJoin):
        print(follower.monitor.summary(), file=sys.stderr)
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


def _write_monitor_report(result: Any, args: argparse.Namespace,
                          report_times: str | None = None) -> int:
    """Write the HTML report; if that fails, name the file and keep the report elsewhere.

    The log is read once more for the per-class view (and, for chunks of rows, the times of
    ``report_times``, the time column).
    """
    import tempfile

    from pudd_core.monitoring import report_view
    from pudd_core.plots.monitor import monitor_report_html

    path = args.report
    view = report_view(result, args.file, time_column=report_times,
                       time_format=args.time_format if report_times else None,
                       time_unit=args.time_unit if report_times else None,
                       normalize=args.normalize, labels=args.labels, id_column=args.id)
    page = monitor_report_html(result, view)
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


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    """Add the ``monitor`` command.

    Examples
    --------
    >>> parser = argparse.ArgumentParser(prog="pudd")
    >>> add_parser(parser.add_subparsers(), argparse.ArgumentParser(add_help=False))
    >>> args = parser.parse_args(["monitor", "log.csv", "--label", "y"])
    >>> args.label
    'y'
    """
    mon = commands.add_parser(
        "monitor", parents=[common],
        help="run PUDD (and baselines) on your model's prediction log (CSV or Parquet)",
        description="PUDD on a log of predictions: a label column and one probability column "
                    "per class, or a single column P(positive) of a binary model (or p_true "
                    "with correct/pred). Rows are numbered from 0 after the header. Rows at "
                    "the end without a label are reported as pending. Timestamps must be "
                    "sorted: an unsorted log is refused.")
    from pudd_core.monitoring import COMPRESSIONS, LOG_SHAPES

    kinds = [f"{'/'.join(s.suffixes)} ({s.name})" for s in LOG_SHAPES]
    mon.add_argument("file", help=f"the log: a {', '.join(kinds[:-1])} or {kinds[-1]} file; a "
                                  "text log may be compressed "
                                  f"({', '.join(c[2] for c in COMPRESSIONS)})")
    add_log_arguments(mon)  # the columns: one flag per entry of LOG_FIELDS
    mon.add_argument("--labels", default=None, metavar="LABELS",
                     help="the true labels in a second file (CSV, JSON lines or Parquet; with "
                          "--follow a CSV or JSON lines file that grows, or a folder of "
                          "Parquet parts), joined to FILE's rows by --id: LABELS holds the id "
                          "and the --label column, FILE the id and no label")
    mon.add_argument("--id", default=None, metavar="COLUMN",
                     help="with --labels: the column holding each prediction's id, in both "
                          "files (compared as text: 17 and \"17\" are one id)")
    chunking = mon.add_mutually_exclusive_group()
    chunking.add_argument("--chunk-size", type=int, default=None, metavar="N",
                          help="rows per chunk (default 1000)")
    chunking.add_argument("--window", default=None, metavar="W",
                          help="chunk by time: a pandas offset alias (1D, 6h, 30min, W, MS), "
                               "or a number: the step of a numeric time column (an integer "
                               "year, epoch seconds); needs --time-column")
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
    mon.add_argument("--calibrate-on", default=None, metavar="ROWS|START..END",
                     help="choose alpha on a stable stretch: the first ROWS rows (a whole "
                          "number of chunks), or the rows whose --time-column time is in "
                          "START..END (end excluded, e.g. 2024-01-01..2024-02-01): the "
                          "largest alpha whose false-alarm rate on block-bootstrap resamples "
                          "of them is at most --false-alarm-rate; the rows after the stretch "
                          "are monitored at it")
    mon.add_argument("--false-alarm-rate", type=float, default=None, metavar="R",
                     help="with --calibrate-on: the false alarms per chunk allowed, in (0, 1), "
                          "e.g. 0.001 (one in 1,000 chunks)")
    mon.add_argument("--resamples", type=int, default=50, metavar="N",
                     help="with --calibrate-on: resampled streams (default 50)")
    mon.add_argument("--follow", action="store_true",
                     help="FILE keeps growing (a CSV that rows are appended to, or a folder "
                          "of Parquet parts read once each in name order): print one JSON "
                          "line per chunk as it is tested, until Ctrl-C or SIGTERM")
    mon.add_argument("--on-rotation", default=None, choices=("stop", "continue"),
                     help="with --follow: when the CSV is rotated (renamed away and created "
                          "anew, or truncated), stop saying so (default; the old file is read "
                          "to its end first), or continue with the new file from its first "
                          "row, numbering its rows after the old ones")
    mon.add_argument("--state", default=None, metavar="STATE",
                     help="with --follow: keep the monitor in this file (replaced after each "
                          "read); run again with it to go on where it stopped")
    mon.add_argument("--poll", type=float, default=None, metavar="SECONDS",
                     help="with --follow: look for new rows this often (default 1)")
    mon.set_defaults(handler=_monitor)
