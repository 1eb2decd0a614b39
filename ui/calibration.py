"""Choosing α on a stable stretch (issue 35): the controls, the stoppable run and the answer.

The Threshold lab (on the chosen stream's predictions, or an uploaded log) and the Monitor
page (on its log) share this: :func:`controls` draws the settings under a page's own key
prefix, :func:`task` runs ``monitoring.calibrate_log`` as a :class:`~ui.progress.Task` (a
progress bar over the resampled runs, a Stop button), and :func:`show` says the chosen α
with its false-alarm interval and delay, where the rest of the stream leaves the estimate,
and every α's row. Every number shown is read from the result.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from pudd_core.monitoring import CalibrationResult, MonitorResult, calibrate_log
from ui import cache, progress

#: False alarms per chunk a user may ask for.
TARGETS = (0.1, 0.05, 0.02, 0.01, 0.005, 0.001)
CHANGES_SHOWN = {"a confidence shift at flat accuracy (the paper's case)": "confidence",
                 "an error-rate rise": "error_rate"}
BASELINES_SHOWN = {"adwin": "ADWIN", "ddm": "DDM", "kswin": "KSWIN (slow)"}
#: Seconds per resampled chunk (the null run and the changed run after the change, 9 α),
#: for the time estimate (BENCHMARKS.md, "Choosing α": about 10 s for 50 resamples of 100).
SECONDS_PER_CHUNK = 0.003


@dataclass(frozen=True)
class Settings:
    """What :func:`controls` asks: the stretch, the target and the injected change."""

    chunks: int
    target: float
    n_resamples: int
    change: str
    size: float
    within: int
    baselines: tuple[str, ...] = ("adwin", "ddm")


def controls(prefix: str, n_chunks: int) -> Settings | None:
    """The calibration's settings for a stream of ``n_chunks`` chunks (None: too short)."""
    if n_chunks < 3:
        st.info(f"The stream has {n_chunks} chunk{'s' if n_chunks != 1 else ''}: choosing α "
                "needs a stable stretch of two chunks and one chunk after it.",
                icon=":material/info:")
        return None
    cols = st.columns(3)
    chunks = cols[0].slider(
        "Stable stretch: the first chunks", 2, n_chunks - 1, min(n_chunks - 1,
                                                                 max(2, n_chunks // 2)),
        key=f"{prefix}_calib_chunks",
        help="A stretch you trust to be free of drift (NannyML's reference period). The "
             "estimate assumes the rest of the stream is like it; the chunks after it are "
             "monitored at the chosen α.")
    target = cols[1].select_slider(
        "False alarms per chunk allowed", TARGETS, value=0.02, key=f"{prefix}_calib_target",
        format_func=lambda r: f"{r:g} (one in {1 / r:,.0f})",
        help="The chosen α is the largest whose 95 % interval of false alarms per chunk "
             "stays at or below this.")
    n_resamples = cols[2].slider(
        "Resampled streams", 10, 100, 50, step=10, key=f"{prefix}_calib_resamples",
        help="Block-bootstrap resamples of the stretch: more give narrower intervals and "
             "take longer.")
    cols = st.columns(3)
    change = CHANGES_SHOWN[cols[0].selectbox(
        "Injected change, for the delay", list(CHANGES_SHOWN), key=f"{prefix}_calib_change",
        help="Injected into each resample from its middle chunk on; how soon each α "
             "catches it is the delay it costs. The baselines (ADWIN, DDM, KSWIN) run on the "
             "same streams.")]
    size = cols[1].slider("Its size", 0.0, 1.0, 0.5, step=0.1, key=f"{prefix}_calib_size",
                          help="0 changes nothing (then detection is a false alarm); 1: "
                               "correct predictions as unsure as 0.5, or every correct one "
                               "wrong.")
    within = cols[2].slider("Detected within (chunks)", 1, 10, 3, key=f"{prefix}_calib_within")
    baselines = st.multiselect(
        "Baselines on the same resamples", list(BASELINES_SHOWN), default=["adwin", "ddm"],
        key=f"{prefix}_calib_baselines", format_func=BASELINES_SHOWN.get,
        help="river's detectors fed each row's error, on the same null and changed "
             "resamples. KSWIN tests every row: about ten times slower than the rest.")
    return Settings(int(chunks), float(target), int(n_resamples), change, float(size),
                    int(within), tuple(baselines))


def task(name: str, key: str, source: Callable[[], Any], chunk_size: int,
         settings: Settings, n_chunks: int, labels: Callable[[], Any] | None = None,
         **columns: Any) -> progress.Task:
    """``calibrate_log`` on ``source()`` (a log) as a stoppable task; kept by ``key``.

    ``key`` names the log (its content or its config, and its labels file's); ``columns``
    are the log's columns as ``monitor`` takes them; ``labels()``: a fresh reader of labels
    in a second file (with ``id_column`` among ``columns``).
    """
    spec = ("calibrate", key, chunk_size, settings, tuple(sorted(columns.items())))

    def compute(report: progress.Progress) -> tuple[CalibrationResult, MonitorResult]:
        more = {} if labels is None else {"labels": labels()}
        return cache.keep(spec, run(source(), chunk_size, settings, progress=report,
                                    **more, **columns))

    seconds = SECONDS_PER_CHUNK * settings.n_resamples * settings.chunks * 1.5 \
        + 0.002 * n_chunks
    return progress.Task(f"choosing α on {name}", seconds, lambda: cache.finished(spec),
                         compute, unit="resampled run")


def run(source: Any, chunk_size: int, settings: Settings,
        progress: progress.Progress | None = None,
        **columns: Any) -> tuple[CalibrationResult, MonitorResult]:
    """The library call the page makes (the README's and the CLI's equivalent)."""
    return calibrate_log(source, calibrate_on=settings.chunks * chunk_size,
                         false_alarm_rate=settings.target, chunk_size=chunk_size,
                         n_resamples=settings.n_resamples, change=settings.change,  # type: ignore[arg-type]
                         size=settings.size, within=settings.within,
                         baselines=settings.baselines, progress=progress, **columns)


def as_python(source: str, chunk_size: int, settings: Settings, log_format: Any,
              **columns: Any) -> str:
    """The ``calibrate_log`` call that chooses the page's α on ``source`` (Python).

    ``columns``: ``monitor``'s other keywords as the page gives them (``labels`` a file
    name, with ``id_column``).

    Examples
    --------
    >>> from pudd_core.monitoring import LogFormat
    >>> s = Settings(20, 0.02, 50, "confidence", 0.5, 3)
    >>> print(as_python("log.csv", 100, s, LogFormat(label="y", proba_prefix="p_"),
    ...                 labels="labels.csv", id_column="rid").splitlines()[-2])
        baselines=('adwin', 'ddm'), labels='labels.csv', id_column='rid')
    """
    kwargs = "".join(f", {k}={v!r}" for k, v in columns.items())
    return ("from pudd_core.monitoring import LogFormat, calibrate_log\n\n"
            f"log_format = {log_format.as_python()}\n"
            f"cal, rest = calibrate_log(\n    {source!r}, log_format, "
            f"calibrate_on={settings.chunks * chunk_size}, "
            f"false_alarm_rate={settings.target!r}, chunk_size={chunk_size},\n"
            f"    n_resamples={settings.n_resamples}, change={settings.change!r}, "
            f"size={settings.size!r}, within={settings.within},\n"
            f"    baselines={settings.baselines!r}{kwargs})\n"
            "cal.recommended.alpha, rest.alarms")


def command(path: str, chunk_size: int, settings: Settings, options: str) -> str:
    """The ``monitor`` command that chooses the same α.

    The null decides α; for the delay it prints, the command injects its default change
    (a confidence shift of 0.5).
    """
    return (f"python -m pudd_core monitor {path} {options} --chunk-size {chunk_size} "
            f"--calibrate-on {settings.chunks * chunk_size} --false-alarm-rate "
            f"{settings.target:g} --resamples {settings.n_resamples}")


def _num(x: float, fmt: str = "g") -> str:
    return "–" if not math.isfinite(x) else format(x, fmt)


def show(cal: CalibrationResult, rest: MonitorResult) -> None:
    """The chosen α with its interval and delay, the rest of the stream, every α's row."""
    best = cal.recommended
    assert best is not None  # calibrate_log refuses a target no α meets
    q = best.delay_quantiles()
    cols = st.columns(3)
    cols[0].metric("Chosen α", f"{best.alpha:g}",
                   help=f"The largest α of the grid whose false alarms per chunk stay at or "
                        f"below {cal.target:g} with 95 % confidence.")
    cols[1].metric("False alarms per chunk", f"{best.false_alarm_rate:.2%}",
                   help="Estimated on the resamples of the stable stretch; the interval is "
                        "the 95 % Wilson interval.")
    cols[1].caption(f"95 % interval {best.ci[0]:.2%} to {best.ci[1]:.2%} "
                    f"({best.n_alarms} in {best.n_chunks:,} resampled chunks)")
    cols[2].metric(f"Change caught within {best.within} chunks",
                   _num(100 * best.detection_rate, ".0f") + " %")
    cols[2].caption(f"Delay in chunks: median {_num(q[0.5])}, 90 % within {_num(q[0.9])} "
                    f"(– : not caught in the resample)")
    observed = len(rest.alarms) / rest.n_chunks if rest.n_chunks else math.nan
    inside = best.ci[0] <= observed <= best.ci[1] if rest.n_chunks else False
    where = ("inside the interval: the rest of the stream behaves like the stretch"
             if inside else
             "above the interval: the rest of the stream leaves the stretch's null (a drift, "
             "or data unlike the stretch)" if observed > best.ci[1] else
             "below the interval")
    ref = rest.reference_alarms
    st.markdown(
        f"The estimate assumes the stream after the stretch is like the stretch. The "
        f"stretch's {rest.reference_chunks} chunks are the monitor's reference: PUDD's history "
        f"for the first chunk after it, so a change there is tested at once; "
        + (f"{len(ref)} alarm{'s' if len(ref) != 1 else ''} inside the stretch (chunk"
           f"{'s' if len(ref) != 1 else ''} {', '.join(map(str, ref[:12]))}"
           f"{' …' if len(ref) > 12 else ''}) {'is' if len(ref) == 1 else 'are'} not counted. "
           if ref else "PUDD raised no alarm inside the stretch. ")
        + f"On the {rest.n_chunks} chunk{'s' if rest.n_chunks != 1 else ''} after it, PUDD at "
        f"α = {best.alpha:g} raised **{len(rest.alarms)} alarm"
        f"{'s' if len(rest.alarms) != 1 else ''}**"
        + (f" (chunks {', '.join(str(a + rest.reference_chunks) for a in rest.alarms[:12])}"
           f"{' …' if len(rest.alarms) > 12 else ''}, counted from the stream's first "
           "chunk)" if rest.alarms else "")
        + (f": {observed:.2%} per chunk, {where}." if rest.n_chunks else "."))
    frame = cal.frame()
    frame["alpha"] = [("" if math.isnan(a) else f"{a:g}") for a in frame["alpha"]]
    st.dataframe(frame, hide_index=True, column_config={
        "false_alarm_rate": st.column_config.NumberColumn("false alarms / chunk",
                                                          format="%.4f"),
        "ci_low": st.column_config.NumberColumn("95 % low", format="%.4f"),
        "ci_high": st.column_config.NumberColumn("95 % high", format="%.4f"),
        "detected": st.column_config.NumberColumn(f"caught within {best.within}",
                                                  format="%.2f")})
    st.caption(f"{cal.n_resamples} block-bootstrap resamples of the first {cal.n_chunks} "
               f"chunks ({cal.chunk_size:,} rows each), each run for the null and again with "
               f"{cal.change.replace('_', '-') if cal.change else 'no'} change of size "
               f"{cal.size:g} from chunk {cal.after}. Delay quantiles in chunks (inf: not "
               "caught in some resamples); the baselines are fed each row's error.")



def section(log: Any, mapping: Any, n_chunks: int) -> None:
    """The Monitor page's option: α chosen on the log's first chunks.

    ``log`` and ``mapping`` are ``ui.monitor``'s: the log and what its controls chose (the
    log's format and ``monitor``'s other arguments).
    """
    from ui import state

    if not st.checkbox("Choose α from a stable stretch of this log", key="monitor_calibrate",
                       help="Estimate each α's false alarms and delay on the log's first "
                            "chunks, pick the largest α within a target, and monitor the "
                            "chunks after them at it, the first chunks as their reference "
                            "(PUDD's history, their alarms not counted)."):
        return
    kwargs = mapping.as_dict()
    if "chunk_size" not in kwargs:
        st.info("Choosing α needs chunks of rows: choose “Chunks of rows” above.",
                icon=":material/info:")
        return
    settings = controls("monitor", n_chunks)
    if settings is None:
        return
    chunk_size = int(kwargs.pop("chunk_size"))
    for k in ("alpha", "baselines", "window", "time_format", "time_unit"):
        kwargs.pop(k, None)
    # labels in a second file: the same join as the monitor's (calibrate_log's labels=),
    # read afresh by each run and kept under both files' keys
    labels = mapping.labels_source if kwargs.pop("labels", None) is not None else None
    key = log.key if labels is None else f"{log.key}|{mapping.labels.key}"
    try:
        outcome = progress.run_tasks(state.MONITOR_CALIB_JOB, [task(
            log.name, key, log.source, chunk_size, settings, n_chunks, labels=labels,
            log_format=mapping.log_format, **kwargs)], what="resampled runs")
    except (ValueError, OSError) as err:
        refused(err)
        return
    if outcome.results[0] is None:
        return
    show(*outcome.results[0])
    # built only while open, as the page's own "Show the code"
    code = st.expander("Show the code of this choice", key="monitor_calib_code_open",
                       on_change="rerun")
    if code.open:
        shown = {k: v for k, v in kwargs.items() if k != "id_column"}
        if labels is not None:  # the labels file by its name, then the id it is joined by
            shown.update(labels=mapping.labels.path or mapping.labels.name,
                         id_column=mapping.id_column)
        code.code(as_python(str(log.path or log.name), chunk_size, settings,
                            mapping.log_format, **shown), language="python")


def refused(err: BaseException) -> None:
    """Why no α was chosen: a warning where none meets the target, else an error.

    No α meeting the target is an answer about the stream (its stretch is not stable
    enough), not a bad setting.
    """
    from pudd_core._validation import ParameterError
    from ui import messages

    if isinstance(err, ParameterError) and err.param == "false_alarm_rate":
        st.warning(f"**No α meets the target**: {messages.reason_markdown(str(err))}\n\n"
                   "The stretch may not be stable (a drift inside it, or data that change "
                   "from chunk to chunk): choose another stretch, or allow more false alarms.",
                   icon=":material/warning:")
        return
    messages.show_error(st.container(), "Choose α", err,
                        "Allow more false alarms, calibrate on more chunks, or choose "
                        "another stretch.")
