"""The Stream explorer's data: PUDD and baselines on one stream, seen up to a chunk cursor.

Each detector is its own run of the same stream, classifier and seed (each adapts its own
model); this module builds those runs' configs, reads a user's CSV, cuts the finished runs
at a cursor for plotting, merges them into one per-chunk log, and says which setting an
error message is about. Nothing here draws.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, cast

import numpy as np

from pudd_core import _validation
from pudd_core.classifiers import CLASSIFIERS
from pudd_core.experiments.baselines import BASELINES
from pudd_core.experiments.runner import (
    _IMAGE_CLASSIFIERS,
    DETECTORS,
    ChunkLog,
    RunConfig,
    RunResult,
    WindowRecord,
)
from pudd_core.streams import Stream, StreamInfo, load_stream, stream_from_csv

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "COMPARED",
    "ExplorerConfig",
    "ExplorerView",
    "compatible_classifiers",
    "csv_columns",
    "error_field",
    "explorer_view",
    "run_log_frame",
    "run_stream",
    "summary_frame",
    "upload_name",
    "user_stream",
]

Regime = Literal["incremental", "train-once"]
Field = Literal["dataset", "classifier", "chunk_size", "n_chunks", "upload", "label"]


def compatible_classifiers(info: StreamInfo) -> tuple[str, ...]:
    """The classifiers that can learn a stream: CNNs for images, the others for tables.

    Examples
    --------
    >>> from pudd_core.streams import get_info
    >>> compatible_classifiers(get_info("sea0"))
    ('gnb', 'vfdt', 'dnn', 'dnn-ensemble', 'amf', 'ns', 'adlter')
    >>> compatible_classifiers(get_info("cifar10-cd"))
    ('pretrained-cnn', 'small-cnn', 'resnet18')
    """
    images = len(info.feature_shape) == 3
    return tuple(c for c in CLASSIFIERS if (c in _IMAGE_CLASSIFIERS) == images)


#: Detectors the explorer can run beside PUDD: the river baselines, then MCD-DD (Table 2's
#: label-free SOTA detector, on the chunk's features).
COMPARED: tuple[str, ...] = (*BASELINES, "mcd-dd")


@dataclass(frozen=True)
class ExplorerConfig:
    """One exploration: a stream, a classifier, PUDD's threshold and the baselines beside it.

    Parameters
    ----------
    dataset
        A registry stream, or the name of a user stream (see :func:`upload_name`).
    classifier, regime, seed
        As in :class:`~pudd_core.experiments.runner.RunConfig`.
    alpha_exponent
        PUDD-x: the threshold is ``alpha = 10**-alpha_exponent``.
    baselines
        Detectors run beside PUDD, each on its own model: the river baselines (keys of
        ``BASELINES``) and the label-free SOTA detector MCD-DD (:data:`COMPARED`).
    chunk_size, n_chunks
        Samples per chunk, and how many chunks (``None``: the stream's own).

    Examples
    --------
    >>> cfg = ExplorerConfig(baselines=("ddm",), n_chunks=20)
    >>> [(c.detector, c.alpha, c.record_windows) for c in cfg.run_configs()]
    [('pudd', 0.001, True), ('ddm', 0.001, False)]
    """

    dataset: str = "sea0"
    classifier: str = "gnb"
    regime: Regime = "incremental"
    alpha_exponent: int = 3
    baselines: tuple[str, ...] = ("adwin", "ddm")
    seed: int = 0
    chunk_size: int | None = 1000
    n_chunks: int | None = None

    def __post_init__(self) -> None:
        _validation.check_positive_int("alpha_exponent", self.alpha_exponent)
        unknown = [b for b in self.baselines if b not in COMPARED]
        if unknown:
            raise ValueError(f"unknown baseline(s) {', '.join(unknown)}; choose from "
                             f"{', '.join(COMPARED)}")
        object.__setattr__(self, "baselines", tuple(b for b in COMPARED if b in self.baselines))

    @property
    def alpha(self) -> float:
        """PUDD's threshold, ``10**-alpha_exponent``."""
        return float(10.0 ** -self.alpha_exponent)

    def run_configs(self) -> tuple[RunConfig, ...]:
        """PUDD's run (with its windows recorded), then one run per baseline.

        The baselines ignore the threshold, so their configs keep the default ``alpha``:
        changing PUDD's threshold reuses their cached runs.
        """
        pudd = RunConfig(self.dataset, self.classifier, "pudd", self.alpha, self.regime,
                         seed=self.seed, chunk_size=self.chunk_size, n_chunks=self.n_chunks,
                         record_windows=True)
        others = (dataclasses.replace(pudd, detector=b, alpha=RunConfig.alpha,
                                      record_windows=False) for b in self.baselines)
        return (pudd, *others)

    def as_python(self) -> str:
        """The equivalent ``pudd_core`` calls, for a "show the code" panel."""
        lines = ["from pudd_core.experiments.runner import RunConfig, run_experiment", ""]
        for cfg in self.run_configs():
            args = (f'"{cfg.dataset}", "{cfg.classifier}", "{cfg.detector}", '
                    f"alpha={cfg.alpha:g}, regime=\"{cfg.regime}\", seed={cfg.seed}")
            if cfg.chunk_size is not None:
                args += f", chunk_size={cfg.chunk_size}"
            if cfg.n_chunks is not None:
                args += f", n_chunks={cfg.n_chunks}"
            if cfg.record_windows:
                args += ", record_windows=True"
            lines.append(f"{cfg.detector} = run_experiment(RunConfig({args}))")
        return "\n".join(lines)


def run_stream(config: RunConfig, *, data_dir: str | None = None) -> Stream:
    """The registry stream that ``run_experiment(config)`` loads, to share between runs.

    PUDD and the baselines of an exploration run on the same stream: loading it once and
    passing it as ``run_experiment(cfg, stream=...)`` gives the same results, faster.

    Examples
    --------
    >>> from pudd_core.experiments.runner import run_experiment
    >>> cfg = RunConfig("sea0", "gnb", "pudd", seed=4, n_chunks=12)
    >>> shared = run_experiment(cfg, stream=run_stream(cfg))
    >>> shared.alarms == run_experiment(cfg).alarms, shared.accuracy == run_experiment(cfg).accuracy
    (True, True)
    """
    stream_seq = np.random.SeedSequence(config.seed).spawn(3)[0]  # as run_experiment spawns it
    return load_stream(config.dataset, seed=int(stream_seq.generate_state(1)[0]),
                       chunk_size=config.chunk_size, n_chunks=config.n_chunks,
                       data_dir=data_dir, **dict(config.stream_options))


# --- a user's file --------------------------------------------------------------------------
def upload_name(data: bytes) -> str:
    r"""The stream name of an uploaded file: ``csv-`` and 12 hex digits of its SHA-256.

    Examples
    --------
    >>> upload_name(b"x,y\n1,0\n")
    'csv-1c2774606e09'
    """
    return f"csv-{hashlib.sha256(data).hexdigest()[:12]}"


def csv_columns(data: bytes) -> tuple[str, ...]:
    r"""The column names of a CSV file's header, or a ``ValueError`` saying what is wrong.

    Examples
    --------
    >>> csv_columns(b"x0,x1,label\n1,2,0\n")
    ('x0', 'x1', 'label')
    >>> csv_columns(b"")
    Traceback (most recent call last):
    ...
    ValueError: the file is empty: a CSV needs a header row and at least one data row
    >>> csv_columns(b"a,b,c\n")
    Traceback (most recent call last):
    ...
    ValueError: the file has a header row but no data rows: a stream needs rows below the ...
    """
    import pandas as pd

    from pudd_core.streams.user import csv_header

    if not data.strip():
        raise ValueError("the file is empty: a CSV needs a header row and at least one data row")
    csv_header(data)  # binary, compressed, UTF-16, duplicate names, no header row
    try:
        frame = pd.read_csv(io.BytesIO(data), nrows=1)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ValueError(f"the file could not be read as CSV: {exc}") from exc
    columns = tuple(str(c) for c in frame.columns)
    if len(frame) == 0 and len(columns) >= 2:
        raise ValueError("the file has a header row but no data rows: a stream needs rows "
                         "below the header, one instance each")
    if len(columns) < 2:
        raise ValueError(f"the file has {len(columns)} column; a stream needs at least one "
                         "feature column and a label column, separated by commas")
    return columns


def user_stream(
    data: bytes, *, label: str, chunk_size: int, n_chunks: int | None = None
) -> Stream:
    r"""A user's CSV as a stream named :func:`upload_name`, cut to ``n_chunks`` if given.

    Examples
    --------
    >>> s = user_stream(b"x,y\n" + b"".join(b"%d,%d\n" % (i, i % 2) for i in range(50)),
    ...                 label="y", chunk_size=10, n_chunks=3)
    >>> s.name == upload_name(b"x,y\n" + b"".join(b"%d,%d\n" % (i, i % 2) for i in range(50)))
    True
    >>> s.n_chunks, s.info.n_chunks, s.info.kind
    (3, 3, 'user')
    """
    stream = stream_from_csv(data, label=label, chunk_size=chunk_size, name=upload_name(data),
                             format="csv")  # the uploader takes CSV files, whatever their bytes
    if n_chunks is not None and n_chunks < stream.n_chunks:
        _validation.check_positive_int("n_chunks", n_chunks)
        info = dataclasses.replace(stream.info, n_chunks=n_chunks)
        stream = dataclasses.replace(stream, n_chunks=n_chunks, info=info)
    return stream


_ADVICE: dict[str, str] = {
    "label": "Pick the column that holds the class labels.",
    "chunk_size": "Choose a smaller chunk size (or more chunks) so the stream has at least two.",
    "n_chunks": ("Choose at least two chunks (a smaller chunk size gives more), or leave the "
                 "field empty for all."),
    "classifier": "Pick one of the classifiers offered for this dataset.",
    "upload": ("Upload a comma-separated file with a header row, numeric or text feature "
               "columns and a label column, without missing values."),
    "dataset": "Pick another dataset, or provide the data files as described.",
}


def error_field(err: BaseException, *, upload: bool = False) -> tuple[Field, str]:
    """Which setting an error is about, and what to do: for placing it next to its control.

    A :class:`~pudd_core._validation.ParameterError` goes to the control of its ``param``,
    whatever its wording; any other error to the uploader (with a file) or the dataset, and
    a missing optional package (``ImportError``) to the classifier.

    Examples
    --------
    >>> error_field(_validation.ParameterError("n_chunks", "reworded at will"))[0]
    'n_chunks'
    >>> error_field(_validation.ParameterError("label", "anything"), upload=True)[0]
    'label'
    >>> error_field(ValueError("a label column, a classifier, n_chunks ..."), upload=True)[0]
    'upload'
    >>> error_field(ImportError("No module named 'torch'"))[0]
    'classifier'
    """
    fallback: Field = "upload" if upload else "dataset"
    if isinstance(err, _validation.ParameterError):
        param = _PARAM_FIELDS.get(err.param, err.param)
        field = cast(Field, param) if param in _ADVICE else fallback
    elif isinstance(err, ImportError):
        field = "classifier"
    else:
        field = fallback
    return field, _ADVICE[field]


#: library parameters whose control has another name
_PARAM_FIELDS = {"format": "upload"}


# --- what the charts show at a cursor -------------------------------------------------------
@dataclass(frozen=True)
class ExplorerView:
    """The runs cut at chunk ``cursor``, with the fixed axis ranges of the whole run.

    Attributes
    ----------
    cursor, last
        The current chunk and the last tested chunk (chunks ``1 .. last``; 0 trains).
    chunk_index
        ``1 .. cursor``.
    error_rate, accuracy
        Per detector display name (PUDD first), that run's model's values up to the cursor.
    alarms
        Per detector, its alarm chunks up to the cursor.
    p_values
        PUDD's smallest p-value over the cut points of each chunk up to the cursor.
    true_drifts
        The stream's drift chunks (all of them: ground truth, known in advance).
    chunk
        PUDD's log of the current chunk (cut p-values, alarm, cut point).
    window, window_chunk
        The latest recorded test at or before the cursor (histograms, table) and its chunk;
        its buckets in ascending PU order.
    max_error, min_log10_p, max_cut
        Ranges over the whole run, so axes stay put while the cursor moves.
    """

    cursor: int
    last: int
    chunk_index: tuple[int, ...]
    error_rate: Mapping[str, tuple[float, ...]]
    accuracy: Mapping[str, tuple[float, ...]]
    alarms: Mapping[str, tuple[int, ...]]
    p_values: tuple[float, ...]
    true_drifts: tuple[int, ...]
    chunk: ChunkLog
    window: WindowRecord | None = field(repr=False)
    window_chunk: int | None
    max_error: float
    min_log10_p: float
    max_cut: int


def _name(result: RunResult) -> str:
    return str(DETECTORS[result.config.detector])


def explorer_view(pudd: RunResult, baselines: Sequence[RunResult], cursor: int) -> ExplorerView:
    """Cut PUDD's run and the baselines' at chunk ``cursor`` (clamped to ``1 .. last``).

    Examples
    --------
    >>> from pudd_core.experiments.runner import run_experiment
    >>> runs = [run_experiment(c) for c in ExplorerConfig(n_chunks=25).run_configs()]
    >>> v = explorer_view(runs[0], runs[1:], 21)
    >>> v.last, v.chunk_index[-1], list(v.error_rate), v.alarms["PUDD"], v.true_drifts
    (24, 21, ['PUDD', 'ADWIN', 'DDM'], (20,), (10, 20))
    >>> v.chunk.adapted, v.window_chunk  # no test on the chunk after an alarm
    (True, 20)
    """
    last = len(pudd.chunks)
    cursor = min(max(int(cursor), 1), last)
    runs = [pudd, *baselines]
    logs = pudd.chunks[:cursor]
    recorded = [c for c in logs if c.window is not None]
    all_p = [c.p_value for c in pudd.chunks if c.p_value > 0 and not math.isnan(c.p_value)]
    all_cuts = [cut for c in pudd.chunks for cut, _ in c.cut_p_values]
    return ExplorerView(
        cursor=cursor,
        last=last,
        chunk_index=tuple(c.chunk_index for c in logs),
        error_rate={_name(r): tuple(c.error_rate for c in r.chunks[:cursor]) for r in runs},
        accuracy={_name(r): tuple(c.accuracy for c in r.chunks[:cursor]) for r in runs},
        alarms={_name(r): tuple(a for a in r.alarms if a <= cursor) for r in runs},
        p_values=tuple(c.p_value for c in logs),
        true_drifts=tuple(pudd.drift_chunks or ()),
        chunk=logs[-1],
        window=recorded[-1].window.by_centre() if recorded and recorded[-1].window else None,
        window_chunk=recorded[-1].chunk_index if recorded else None,
        max_error=max((c.error_rate for r in runs for c in r.chunks), default=1.0),
        min_log10_p=math.log10(min(all_p, default=1.0)),
        max_cut=max(all_cuts, default=1),
    )


def run_log_frame(pudd: RunResult, baselines: Sequence[RunResult] = ()) -> pd.DataFrame:
    """PUDD's per-chunk log, plus each baseline's alarms and error rate, for a CSV download.

    Columns: PUDD's :meth:`~pudd_core.experiments.runner.RunResult.to_frame` (without the timings
    and the per-instance detections, which only the baselines have), ``tested`` (whether a
    χ² test ran; ``p_value`` is empty where none did), ``true_drift`` when the drifts are
    known, then ``alarm_<baseline>``, ``error_rate_<baseline>`` (its own model's error) and
    ``detections_<baseline>`` (positions within the chunk where it fired, as JSON).

    Examples
    --------
    >>> from pudd_core.experiments.runner import run_experiment
    >>> runs = [run_experiment(c) for c in ExplorerConfig(n_chunks=12).run_configs()]
    >>> frame = run_log_frame(runs[0], runs[1:])
    >>> len(frame), list(frame.columns[-3:])
    (11, ['alarm_ddm', 'error_rate_ddm', 'detections_ddm'])
    >>> bool(frame.loc[0, "tested"]), float(frame.loc[0, "p_value"])  # chunk 1: no history yet
    (False, nan)
    """
    # PUDD tests chunks, it has no positions within them: detections are the baselines'
    frame = pudd.to_frame().drop(columns=["predict_ms", "detect_ms", "train_ms", "detections"])
    tested = [bool(c.cut_p_values) for c in pudd.chunks]
    frame.insert(frame.columns.get_loc("p_value"), "tested", tested)
    frame.loc[~frame["tested"], "p_value"] = math.nan  # no test is not p = 1 (the UI: "no test")
    if pudd.drift_chunks is not None:
        frame["true_drift"] = frame["chunk_index"].isin(pudd.drift_chunks)
    for run in baselines:
        name = run.config.detector
        frame[f"alarm_{name}"] = [c.alarm for c in run.chunks]
        frame[f"error_rate_{name}"] = [c.error_rate for c in run.chunks]
        frame[f"detections_{name}"] = [json.dumps(list(c.detections)) for c in run.chunks]
    return frame


def summary_frame(runs: Sequence[RunResult]) -> pd.DataFrame:
    """One row per detector: alarms, mean accuracy and, when drifts are known, detection.

    Examples
    --------
    >>> from pudd_core.experiments.runner import run_experiment
    >>> runs = [run_experiment(c) for c in ExplorerConfig(n_chunks=25).run_configs()]
    >>> summary_frame(runs)[["alarms", "missed", "false alarms"]]
           alarms  missed  false alarms
    PUDD        1       1             0
    ADWIN       1       1             0
    DDM         4       1             3
    """
    import pandas as pd

    rows = {}
    for run in runs:
        d = run.detection
        rows[_name(run)] = {
            "alarms": run.n_alarms,
            "accuracy": round(run.accuracy, 4),
            "mean delay (chunks)": round(d.mean_delay, 2) if d else math.nan,
            "missed": d.missed if d else pd.NA,
            "false alarms": d.false_alarms if d else pd.NA,
        }
    return pd.DataFrame.from_dict(rows, orient="index")
