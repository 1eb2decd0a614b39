"""The "Your model's predictions" page's controls: the log, its columns, the chunks, the run.

The log is the shipped example, an upload (Streamlit keeps it in memory, up to
``server.maxUploadSize``) or a path on the server (streamed from disk, any size), which is
off unless the operator names the folders it may come from (``$PUDD_SERVER_DIRS``). Its columns
are guessed from the first rows (:func:`pudd_core.monitoring.guess_columns`), shown with a
preview and the reasons, and can be changed. The result is cached per file and settings.
"""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from pudd_core._validation import ParameterError
from pudd_core.experiments.baselines import BASELINES
from pudd_core.monitoring import (
    COMPRESSIONS,
    FORM_GROUP,
    LOG_FIELDS,
    LOG_SHAPES,
    LogField,
    LogFormat,
    MonitorResult,
    estimate_rows,
    guess_columns,
    log_forms,
    monitor,
    read_log_head,
)
from ui import messages, progress, state

ROOT = Path(__file__).resolve().parents[1]
#: The log shipped with the repository (``python -m pudd_core export-predictions``).
EXAMPLE = ROOT / "datasets" / "examples" / "sea0_gnb_predictions.parquet"
EXAMPLE_CHUNK = 300  # the example was exported with 300-row chunks

# the page's session-state keys are declared in ui/state.py (MONITOR_*): one per control of
# the run, and one per entry of LOG_FIELDS, the table of a log's description
SOURCES = state.MONITOR_SOURCES
#: The environment variable naming the folders whose files the page may read (off when unset).
SERVER_DIRS_ENV = "PUDD_SERVER_DIRS"
#: The radio's choice of each probability form (the entries of group "form", in order).
FORMS = tuple(f.form_title for f in log_forms())
#: What the page reads: the file types (a text log may be compressed) and how it names them.
LOG_SUFFIXES = tuple(s for shape in LOG_SHAPES for s in shape.suffixes)
COMPRESSED_SUFFIXES = tuple(suffix for _, _, suffix in COMPRESSIONS)
_TEXT = [shape.name for shape in LOG_SHAPES if shape.compressible]
LOG_TYPES = (f"{', '.join(shape.name for shape in LOG_SHAPES[:-1])} or {LOG_SHAPES[-1].name} "
             f"file ({' and '.join(_TEXT)} may be {', '.join(COMPRESSED_SUFFIXES)})")
NO_DECISIONS = "(none: the arg-max of the probabilities)"
VARIANTS_SHOWN = {"calibrated": "calibrated (the monitor's default)",
                  "authors": "the authors' (clamp_min=5)"}
#: Columns the preview shows (a log may have thousands).
PREVIEW_COLUMNS = 50
#: Chunks up to which every chunk's windows are recorded and the player is shown.
PLAYER_MAX_CHUNKS = 1000


@dataclass(frozen=True)
class Log:
    """The chosen log: a name, a cache key, and what ``monitor`` reads (bytes or a path)."""

    name: str
    key: str
    data: bytes | None = None
    path: str | None = None

    def source(self) -> Any:
        """A fresh reader for ``monitor``: a path, or the bytes as a file."""
        import io

        if self.data is not None:
            return io.BytesIO(self.data)
        return self.path


def max_upload_mb() -> int:
    """Streamlit's upload limit in MB (``server.maxUploadSize``)."""
    return int(st.get_option("server.maxUploadSize"))


def choose_log() -> Log | None:
    """The example, an upload or a path; ``None`` (with a message) until one is usable."""
    choice = st.radio("Prediction log", SOURCES,
                      **state.bound(state.MONITOR_SOURCE, "index", SOURCES),
                      horizontal=True,
                      help=f"A {LOG_TYPES}: a label column and one probability column "
                           "per class (or an array of them, or p_true with correct), "
                           "optionally a timestamp.")
    if choice == SOURCES[0]:
        st.caption(f"`{EXAMPLE.relative_to(ROOT)}`: Gaussian naive Bayes tested then trained "
                   "on the SEA stream, whose concept changes at rows 2,700, 5,700, 8,700 and "
                   "11,700 of the log (every 3,000 rows); written by `python -m pudd_core "
                   "export-predictions --dataset sea0 --classifier gnb --n-chunks 50 "
                   "--chunk-size 300 --out ...`.")
        return Log(EXAMPLE.name, f"example:{EXAMPLE.stat().st_mtime_ns}", path=str(EXAMPLE))
    if choice == SOURCES[1]:
        file = st.file_uploader(
            f"{LOG_TYPES} (up to {max_upload_mb()} MB; larger logs: give a path on "
            "the server, or use `python -m pudd_core monitor`)",
            type=[s.lstrip(".") for s in (*LOG_SUFFIXES, *COMPRESSED_SUFFIXES)],
            key=state.free_widget_key(state.MONITOR_UPLOAD))
        if file is None:
            st.info("Upload a prediction log, or pick the example log above.",
                    icon=":material/upload_file:")
            return None
        data = file.getvalue()
        digest = hashlib.sha256(data).hexdigest()[:16]
        return Log(str(file.name), f"upload:{digest}", data=data)
    roots = server_dirs()
    if not roots:
        st.info(paths_off_message(), icon=":material/lock:")
        return None
    broad = broad_dirs_message(roots)
    if broad:
        st.warning(broad, icon=":material/warning:")
    # the folders by name only: where they lie on the server is no visitor's business
    st.caption(f"{len(roots)} allowed folder{'s' if len(roots) > 1 else ''} ("
               + ", ".join(messages.code(Path(r).name or r) for r in roots)
               + f", set by `{SERVER_DIRS_ENV}`); a relative path is read in the first.")
    text = st.text_input("Path of a .csv, .jsonl or .parquet file (a text log may be "
                         "compressed: .csv.gz ...) in an allowed folder",
                         **state.bound(state.MONITOR_PATH, "value"),
                         placeholder="predictions.parquet").strip()
    if not text:
        st.info("Type the path of a log in one of the allowed folders.",
                icon=":material/folder_open:")
        return None
    try:
        path = allowed_path(text, roots)
    except ParameterError as err:
        st.error(f"**Path**: {messages.escape(err)}", icon=":material/error:")
        return None
    stat = path.stat()
    return Log(path.name, f"path:{path}:{stat.st_size}:{stat.st_mtime_ns}", path=str(path))


def paths_off_message() -> str:
    """What the page says while paths on the server are off, and how to turn them on.

    A variable that is set but names no existing folder is said, with its value.
    """
    value = os.environ.get(SERVER_DIRS_ENV, "")
    text = (f"Paths on the server are off: a visitor could otherwise read any file the "
            f"server can. The person running the app turns them on for chosen folders by "
            f"starting it with `{SERVER_DIRS_ENV}` set to those folders (separated by "
            f"`{os.pathsep}`), e.g. `{SERVER_DIRS_ENV}=/data/logs make app`; only .csv "
            "and .parquet files inside them can then be read.")
    if value.strip():
        text += (f" It is set to {messages.code(value[:200])}, which names no existing "
                 "folder: give folders that exist on the server.")
    return text


def broad_dirs_message(roots: list[str]) -> str | None:
    """A warning when an allowed folder is the whole file system or the server's home.

    Logged too (once per process and value), for whoever runs the app.

    Examples
    --------
    >>> broad_dirs_message(["/"]).split(":")[0]
    'PUDD_SERVER_DIRS allows `/`, the whole file system'
    >>> broad_dirs_message(["/data/logs"]) is None
    True
    """
    home = os.path.realpath(os.path.expanduser("~"))
    wide = [r for r in roots if r == os.path.realpath(os.sep) or r == home]
    if not wide:
        return None
    what = "the whole file system" if wide[0] == os.path.realpath(os.sep) else \
        "the home folder of the user running the app"
    text = (f"{SERVER_DIRS_ENV} allows {messages.code(wide[0])}, {what}: any visitor of this "
            "page can read every .csv and .parquet file in it that the server can. Name only "
            "the folders that hold the logs to monitor.")
    if text not in _WARNED:
        _WARNED.add(text)
        _log.warning(text)
    return text


_WARNED: set[str] = set()
_log = logging.getLogger("pudd_lab")


def server_dirs() -> list[str]:
    """The folders whose logs the page may read, from ``$PUDD_SERVER_DIRS`` (none: paths off).

    The variable holds folders separated by :data:`os.pathsep`; each is resolved (symbolic
    links followed), and one that is not an existing folder is left out.
    """
    value = os.environ.get(SERVER_DIRS_ENV, "")
    roots = [os.path.realpath(part) for part in value.split(os.pathsep) if part.strip()]
    return [root for root in dict.fromkeys(roots) if os.path.isdir(root)]


def allowed_path(text: str, roots: list[str]) -> Path:
    """``text`` as a readable log inside one of ``roots``, or a :class:`ParameterError`.

    The path is resolved first (``..`` and symbolic links followed, a relative path taken in
    ``roots[0]``), so no spelling and no link reaches outside the folders. A path outside
    them is refused without saying whether it exists.

    Examples
    --------
    >>> import tempfile
    >>> root = os.path.realpath(tempfile.mkdtemp())
    >>> _ = open(os.path.join(root, "log.csv"), "w").write("label,proba_0")
    >>> allowed_path("log.csv", [root]).name
    'log.csv'
    >>> allowed_path(os.path.join(root, "..", "etc.csv"), [root])
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: ... is outside the folders this app may read ...
    """
    if not roots:
        raise ParameterError("path", f"paths on the server are off; set {SERVER_DIRS_ENV}.")
    if "\x00" in text:
        raise ParameterError("path", "the path contains a NUL character.")
    candidate = Path(roots[0], os.path.expanduser(text))  # an absolute text replaces roots[0]
    resolved = Path(os.path.realpath(candidate))
    if not any(resolved.is_relative_to(root) for root in roots):
        raise ParameterError(  # the folders are not named: they are the server's business
            "path", f"{text!r} is outside the folders this app may read (named above); put "
                    "the log in one of them.")
    name = resolved.name.lower()
    for compressed in COMPRESSED_SUFFIXES:
        name = name.removesuffix(compressed)
    if not name.endswith(LOG_SUFFIXES) or not resolved.is_file():
        raise ParameterError(
            "path", f"{text!r} is not a .csv, .jsonl, .ndjson or .parquet file (.gz, .bz2, "
            ".xz, .zst for a compressed text log) in the allowed folders; check the path.")
    if not os.access(resolved, os.R_OK):
        raise ParameterError("path", f"{text!r} cannot be read by the app (permissions).")
    return resolved


def read_upload(file: Any) -> tuple[str, bytes] | None:
    """An uploaded file's name and bytes (``None``: nothing uploaded)."""
    return None if file is None else (str(file.name), file.getvalue())


@dataclass(frozen=True)
class Labels:
    """Labels in a second file: the file, and the id column it shares with the log."""

    log: Log
    id_column: str
    head: pd.DataFrame = field(compare=False, hash=False, repr=False)
    #: Where a refusal of the labels is shown: under their uploader.
    slot: Any = field(compare=False, hash=False, repr=False, default=None)


class LabelsRefused(Exception):
    """The labels cannot be used (the message is shown under their uploader)."""


def choose_labels(log: Log, frame: pd.DataFrame) -> Labels | None:
    """The optional labels file and its id column; ``None`` when the log holds its labels.

    Raises :class:`LabelsRefused` (after showing why under the uploader) for a labels file
    that cannot be read or shares no column with the log.
    """
    upload = read_upload(st.file_uploader(
        "Labels in a second file (optional: when the log has no label column)",
        type=[s.lstrip(".") for s in (*LOG_SUFFIXES, *COMPRESSED_SUFFIXES)],
        key=state.free_widget_key(state.MONITOR_LABELS_UPLOAD),
        help="Production labels come later and elsewhere: a file holding each prediction's "
             "id and its true label, joined to the log's rows by the id (in any order; a "
             "prediction without a label is pending). The library's `monitor(log, "
             "labels=..., id_column=...)`, the CLI's `--labels LABELS --id ID`."))
    if upload is None:
        return None
    name, data = upload
    labels = Log(name, f"labels:{hashlib.sha256(data).hexdigest()[:16]}", data=data)
    try:
        lab_head = head(labels.key, labels)
    except (ValueError, OSError) as err:
        show_labels_error(st, err)
        raise LabelsRefused(name) from None
    ours = [str(c) for c in frame.columns]
    shared = [c for c in (str(c) for c in lab_head.columns) if c in ours]
    if not shared:
        show_labels_error(st, ParameterError(
            "id_column", f"{name} and {log.name} share no column, so no id can join them; "
                         f"the labels' columns: {', '.join(map(str, lab_head.columns))}. Give "
                         "a labels file holding each prediction's id under the log's name for "
                         "it, and the label"))
        raise LabelsRefused(name)
    pair = f"{log.key}|{labels.key}"
    if state.get(state.MONITOR_ID) not in shared or state.get(state.MONITOR_ID_FOR) != pair:
        # a new pair of files: a column named like an id, else one not named like a label
        label = guessed(labels.key, lab_head).get("label")
        state.set_value(state.MONITOR_ID, next(
            (c for c in shared if "id" in c.lower()),
            next((c for c in shared if c != label), shared[0])))
        state.set_value(state.MONITOR_ID_FOR, pair)
    id_column = st.selectbox("Id column (in both files)", shared,
                             help="The column that holds each prediction's id, in the log "
                                  "and in the labels file.",
                             **state.bound(state.MONITOR_ID, "index", shared))
    return Labels(labels, str(id_column), lab_head, st.empty())


def show_labels_error(where: Any, err: BaseException) -> None:
    """A labels file that cannot be used: the library's message, under its uploader."""
    messages.show_error(where, "The labels cannot be joined", err,
                        "Fix the labels file, the id column or the label column; the log "
                        "itself is kept.")


def about_labels(err: BaseException) -> bool:
    """Whether a run's refusal is about the labels file or the join (not the log alone)."""
    return isinstance(err, ParameterError) and (
        err.param in ("labels", "id_column") or "labels come from" in str(err))


def joined_head(frame: pd.DataFrame, labels: Labels) -> pd.DataFrame:
    """The log's first rows with the labels' other columns, joined by id (for the guesses).

    Ids are compared as text, as the library does; a label not among the labels' first rows
    is empty here.
    """
    key = labels.id_column
    extra = [c for c in labels.head.columns if c not in frame.columns]
    right = (labels.head[[key, *extra]].astype({key: str}).drop_duplicates(key)
             .rename(columns={key: "__id"}))
    merged = frame.assign(__id=frame[key].astype(str)).merge(right, on="__id", how="left")
    return merged.drop(columns="__id")


@st.cache_data(max_entries=8, show_spinner=False)
def head(key: str, _log: Log) -> pd.DataFrame:
    """The log's first 200 rows (``key``: the log's cache key)."""
    return read_log_head(_log.source(), 200)


@st.cache_data(max_entries=8, show_spinner=False)
def guessed(key: str, _frame: pd.DataFrame) -> dict[str, Any]:
    """``guess_columns`` of a log's first rows, once per log (``key``: the log's cache key)."""
    return guess_columns(_frame)


@dataclass(frozen=True)
class Mapping:
    """What the controls chose: the log's description and ``monitor``'s other arguments."""

    log_format: LogFormat
    options: tuple[tuple[str, Any], ...]
    #: Labels in a second file (their cache key is the file's), else None
    labels: Log | None = None
    id_column: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """``monitor``'s keyword arguments besides the format (the labels' a fresh reader)."""
        out = dict(self.options)
        if self.labels is not None:
            out.update(labels=self.labels_source(), id_column=self.id_column)
        return out

    def labels_source(self) -> Any:
        """A fresh reader of the labels, named as the file was (in the library's messages)."""
        if self.labels is None:
            return None
        source = self.labels.source()
        if not isinstance(source, str):
            source.name = self.labels.name
        return source

    def as_python(self, source: str, labels: str | None = None) -> str:
        """The library call that gives the page's result on ``source`` (and ``labels``)."""
        kwargs = "".join(f", {k}={v!r}" for k, v in self.options)
        if self.labels is not None:
            name = labels or self.labels.path or self.labels.name
            kwargs += f", labels={name!r}, id_column={self.id_column!r}"
        return ("from pudd_core.monitoring import LogFormat, monitor\n\n"
                f"log_format = {self.log_format.as_python()}\n"
                f"result = monitor({source!r}, log_format{kwargs})\n"
                "result.alarms, result.p_values")


def _guessed_value(f: LogField, guess: dict[str, Any]) -> Any:
    """A field's starting value for a new log: the guess, else the entry's default."""
    value = guess.get(f.guess) if f.guess else None
    if f.kind in ("text", "values") and not f.choices:
        return str(value) if value is not None else f.default
    return value


def _reset(log: Log, guess: dict[str, Any], key: str) -> None:
    """Another log: its own guesses and chunk size, not the last log's choices."""
    form = next((f.name for f in log_forms() if f.guess and guess.get(f.guess) is not None),
                log_forms()[0].name)
    state.set_value(state.MONITOR_FORM, form)
    for f in LOG_FIELDS:
        state.set_value(state.MONITOR_FIELDS[f.name], _guessed_value(f, guess))
    state.set_value(state.MONITOR_CHUNK_SIZE,
                    EXAMPLE_CHUNK if log.path == str(EXAMPLE) else 1000)
    state.set_value(state.MONITOR_GUESSED_FOR, key)


def _help(f: LogField) -> str:
    return f.help[:1].upper() + f.help[1:] + "."


def _control(where: Any, f: LogField, columns: list[str], needed: bool,
             guess: dict[str, Any]) -> Any:
    """The control of one entry of LOG_FIELDS, bound to its key; its value for the format."""
    key = state.MONITOR_FIELDS[f.name]
    if f.choice_labels:  # a choice among the entry's values
        shown = {v: text for text, v in f.choice_labels}
        if state.get(key) not in shown:
            state.set_value(key, f.choice_labels[0][1])
        return where.selectbox(f.widget, list(shown), format_func=shown.__getitem__,
                               help=_help(f), **state.bound(key, "index", list(shown)))
    if f.kind in ("text", "values"):
        if state.get(key) is None:
            state.set_value(key, f.default)
        text = where.text_input(f.widget, help=_help(f), **state.bound(key, "value"))
        # an optional text left empty is not given; a form's text is taken as typed
        return text if f.group == FORM_GROUP else (text.strip() or None)
    options: list[str | None] = list(columns) if needed else [None, *columns]
    if state.get(key) not in options or (needed and state.get(key) is None and not f.ask):
        first = guess.get(f.guess) if f.guess else None
        state.set_value(key, first if first in columns else
                        None if f.ask or not needed else columns[0])
    label = f.widget if needed else f"{f.widget} (optional)"
    value = where.selectbox(label, options, help=_help(f),
                            format_func=lambda c: NO_DECISIONS if c is None else c,
                            placeholder=f"Choose the {f.widget.lower()}",
                            **state.bound(key, "index", options))
    return (value,) if f.kind == "columns" and value is not None else value


def map_columns(log: Log, frame: pd.DataFrame, labels: Labels | None = None) -> Mapping | None:
    """Preview, guesses and the controls; ``None`` (with a message) if incomplete.

    The column controls are made from :data:`~pudd_core.monitoring.LOG_FIELDS`: the forms'
    radio, then, for the chosen form, each entry shown with it; the time entries when the
    chunks are time windows. Their values build the :class:`LogFormat` the run reads. With
    ``labels`` (a second file), the columns are the log's and the labels' joined by id.
    """
    key = log.key
    if labels is not None:
        frame = joined_head(frame, labels)
        key = f"{log.key}|{labels.log.key}|{labels.id_column}"
    columns = [str(c) for c in frame.columns]
    guess = guessed(key, frame)
    if state.get(state.MONITOR_GUESSED_FOR) != key:
        _reset(log, guess, key)
    with st.expander("Preview (first rows) and how the columns were guessed",
                     expanded=log.path != str(EXAMPLE)):
        shown = frame.iloc[:20, :PREVIEW_COLUMNS]
        st.dataframe(shown, hide_index=True)
        if frame.shape[1] > PREVIEW_COLUMNS:
            st.caption(f"The first {PREVIEW_COLUMNS} of {frame.shape[1]:,} columns.")
        if guess["why"]:
            st.markdown("\n".join(f"- {messages.quoted_markdown(w)}" for w in guess["why"]))
        else:
            st.markdown("No column looked like a label or probabilities: choose them below.")
    titles = {f.name: f.form_title for f in log_forms()}
    cols = st.columns(3)
    form = cols[0].radio("Columns", list(titles), format_func=titles.__getitem__,
                         **state.bound(state.MONITOR_FORM, "index", list(titles)))
    values: dict[str, Any] = {}
    missing: list[LogField] = []
    for f in LOG_FIELDS:
        if f.group == "time" or not (f.name == form or form in f.shown):
            continue
        needed = f.name == form or form in f.needed
        values[f.name] = _control(cols[f.side], f, columns, needed, guess)
        if needed and values[f.name] is None:
            missing.append(f)
    options: dict[str, Any] = {}
    cols = st.columns(3)
    chunking = cols[0].radio("Chunks", state.MONITOR_CHUNKINGS, horizontal=True,
                             **state.bound(state.MONITOR_CHUNKING, "index",
                                           state.MONITOR_CHUNKINGS))
    if chunking == state.MONITOR_CHUNKINGS[0]:
        options["chunk_size"] = int(cols[1].number_input(
            "Rows per chunk", min_value=50, max_value=1_000_000, step=50,
            **state.bound(state.MONITOR_CHUNK_SIZE, "value")))
    else:
        first, *more = [f for f in LOG_FIELDS if f.group == "time"]
        values[first.name] = _control(cols[1], first, columns, True, guess)
        options["window"] = cols[2].text_input(
            "Window (pandas offset alias)", **state.bound(state.MONITOR_WINDOW, "value"),
            help="1D, 6h, 30min, 2W, MS ... (any multiple: the bins of pandas' resample), "
                 "or a number for a numeric time column (an integer year: 1 for one year per "
                 "chunk). The times must be sorted.")
        cols = st.columns([1] + [2] * len(more))
        for where, f in zip(cols[1:], more, strict=True):
            values[f.name] = _control(where, f, columns, False, guess)
    cols = st.columns(3)
    exponent = cols[0].slider("PUDD's threshold α = 10⁻ˣ: x", 1, 10,
                              **state.bound(state.MONITOR_ALPHA_EXP, "value"))
    options["alpha"] = float(10.0 ** -exponent)
    options["baselines"] = tuple(cols[1].multiselect(
        "Baselines fed the same errors", list(BASELINES),
        format_func=lambda b: BASELINES[b].display_name,
        **state.bound(state.MONITOR_BASELINES, "default")))
    options["normalize"] = cols[2].checkbox(
        "Normalize rows that do not sum to 1", **state.bound(state.MONITOR_NORMALIZE, "value"),
        help="Divide each row's probabilities by their sum (else such a row is an error).")
    options["variant"] = st.radio(
        "PUDD's count floor", list(VARIANTS_SHOWN), format_func=VARIANTS_SHOWN.__getitem__,
        horizontal=True, **state.bound(state.MONITOR_VARIANT, "index", list(VARIANTS_SHOWN)),
        help="Calibrated (clamp_min=0, min_expected=5): no invented counts, and no test of a "
             "table with an expected count below 5; far fewer false alarms on healthy logs. "
             "It also bounds the history (max_chunks=128) and fits buckets only on old windows "
             "of 1, 2, 4, ... chunks (refit=doubling). The authors' (clamp_min=5): every "
             "cell raised to 5, the history unbounded and every old window fitted, as the lab "
             "reproduces the paper.")
    if missing:
        what = ("the true label" if missing[0].guess == "label"
                else f"“{missing[0].widget}”")
        st.info(f"No column has a usual name for {what}: choose it above.",
                icon=":material/label:")
        return None
    return Mapping(LogFormat.from_options(values), tuple(sorted(options.items())),
                   labels.log if labels else None, labels.id_column if labels else None)


class NotRun(Exception):
    """No finished run of this log and mapping yet (not an error: run it)."""


@st.cache_resource(max_entries=8, show_spinner=False)
def _kept(key: str, mapping: Mapping, _result: MonitorResult | None = None) -> MonitorResult:
    # a progress bar inside a cached function would be replayed on a cache hit (ui.cache
    # explains): the run happens outside, and this only keeps its result, per log and mapping
    if _result is None:
        raise NotRun(key)
    return _result


def finished(log: Log, mapping: Mapping) -> MonitorResult | None:
    """The finished run of ``log`` with ``mapping``, or None."""
    try:
        return _kept(log.key, mapping)
    except NotRun:
        return None


#: Rows per second of the monitor on this page's logs, for the time estimate (BENCHMARKS.md:
#: about 1 million predictions a second, plus some 4 ms per chunk).
ROWS_PER_SECOND = 1_000_000
SECONDS_PER_CHUNK = 0.004


def task(log: Log, mapping: Mapping) -> progress.Task:
    """``monitor`` on the log with the mapping as a stoppable task with a progress bar.

    Every chunk's windows are recorded (for the player) unless the log makes more than
    :data:`PLAYER_MAX_CHUNKS` chunks; then only the alarms' are.
    """
    kwargs = mapping.as_dict()
    rows = estimate_rows(log.source())
    chunks = rows / int(kwargs.get("chunk_size", 1000))
    seconds = rows / ROWS_PER_SECOND + chunks * SECONDS_PER_CHUNK

    def compute(report: progress.Progress) -> MonitorResult:
        record = "all" if _few_chunks(log, kwargs) else "alarms"
        result = monitor(log.source(), mapping.log_format, record_windows=record,
                         progress=report, **kwargs)
        return _kept(log.key, mapping, result)

    return progress.Task(f"PUDD on {log.name}", seconds, lambda: finished(log, mapping),
                         compute, unit="row")


def _few_chunks(log: Log, kwargs: dict[str, Any]) -> bool:
    """Whether the log surely makes at most PLAYER_MAX_CHUNKS row chunks (by its size)."""
    size = len(log.data) if log.data is not None else os.path.getsize(str(log.path))
    if "chunk_size" not in kwargs:
        return size < 20_000_000
    rows_at_most = size // 8  # a row of a log takes at least 8 bytes (a label and a float)
    return bool(rows_at_most // int(kwargs["chunk_size"]) <= PLAYER_MAX_CHUNKS or
                size < 5_000_000)


def decisions_text(result: MonitorResult) -> str:
    """Which predictions the accuracy counts as right, in words (Markdown).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from pudd_core.monitoring import LogFormat
    >>> decisions_text(SimpleNamespace(format=LogFormat(label="y", proba_columns=("p",),
    ...                                                 pred="y_pred")))
    "the model's decisions (column `y_pred`)"
    >>> decisions_text(SimpleNamespace(format=LogFormat(label="y", proba_columns=("p",))))
    'P(positive) > 0.5'
    """
    fmt = result.format
    if fmt.pred is not None:
        return f"the model's decisions (column {messages.code(fmt.pred)})"
    if fmt.correct is not None:
        return f"the 0/1 column {messages.code(fmt.correct)}"
    if len(fmt.proba_columns) == 1:
        return "P(positive) > 0.5"
    return "the arg-max of the probabilities"


def show_error(err: BaseException) -> None:
    """A bad log or setting: the message (naming the row and column), and what to do."""
    messages.show_error(st, "The log cannot be monitored", err,
                        "Fix the file or the column settings above; nothing else is lost.")
