"""One experiment: a stream, a classifier and a detector, tested then trained chunk by chunk."""

from __future__ import annotations

import hashlib
import inspect
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import NDArray

from pudd_core import _validation, classifiers
from pudd_core.classifiers import CLASSIFIERS, make_classifier
from pudd_core.detector import ChunkPUDD
from pudd_core.experiments import baselines
from pudd_core.experiments.baselines import ALIASES, BASELINES, feed_errors, make
from pudd_core.experiments.evaluation import DetectionSummary, match_alarms, mean_accuracy
from pudd_core.experiments.mcdd import MCDDD
from pudd_core.pu_index import is_correct, pu_index
from pudd_core.streams import DatasetUnavailableError, Stream, get_info, load_stream
from pudd_core.streams.registry import check_data

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "DETECTORS", "ChunkLog", "RunConfig", "RunResult", "parse_option_pairs", "run_experiment",
]

#: Detector name -> display name. PUDD-x is ``detector="pudd"`` with ``alpha=10**-x``.
DETECTORS: Mapping[str, str] = {
    "pudd": "PUDD",
    "ek": "EK (Ei-kMeans ablation)",
    **{name: spec.display_name for name, spec in BASELINES.items()},
    "mcd-dd": "MCD-DD (label-free, on the features; SOTA, Table 2)",
    "none": "No adaptation",
    "oracle": "Oracle (true drifts)",
}
HIST_EDGES = np.linspace(0.0, 1.0, 41)  # PU histograms for plots: 40 bins of width 0.025
_IMAGE_CLASSIFIERS = ("pretrained-cnn", "small-cnn", "resnet18")
_MAX_WINDOW = 1024  # chunks kept for retraining (pow2 cuts stop at 512); longer windows clamp

Options = tuple[tuple[str, Any], ...]


def _options(value: Mapping[str, Any] | Options | None) -> Options:
    if value is None:
        return ()
    items = value.items() if isinstance(value, Mapping) else value
    return tuple(sorted((str(k), v) for k, v in items))


def _detector_option_names(detector: str) -> list[str]:
    if detector in ("pudd", "ek"):
        set_here = {"alpha", "seed"} | ({"partition"} if detector == "ek" else set())
        return [p for p in inspect.signature(ChunkPUDD).parameters if p not in set_here]
    if detector in BASELINES:
        return baselines.option_names(detector)
    if detector == "mcd-dd":
        return [p for p in inspect.signature(MCDDD).parameters if p != "seed"]
    return []  # "none" and "oracle" have no detector


def _check_option_names(what: str, param: str, given: Options, valid: list[str]) -> None:
    unknown = sorted({k for k, _ in given} - set(valid))
    if unknown:
        raise _validation.ParameterError(
            param,
            f"unknown {what} option(s) {', '.join(map(repr, unknown))}; "
            f"valid options: {', '.join(valid) or 'none'}",
            valid,
        )


def _option_target(kind: Literal["detector", "classifier"], name: str) -> Callable[..., Any]:
    if kind == "classifier":
        return classifiers._ENTRIES[name].factory
    if name in ("pudd", "ek"):
        return ChunkPUDD
    if name == "mcd-dd":
        return MCDDD
    return baselines._spec(name).detector_class


def parse_option_pairs(
    kind: Literal["detector", "classifier"], name: str, pairs: Sequence[str]
) -> Options:
    """``KEY=VALUE`` texts -> options, each value parsed by its parameter's type.

    ``yates=False`` is ``False`` and ``skip_rule=None`` is ``None``; an unknown name or a
    value that does not parse raises :class:`~pudd_core._validation.ParameterError`.

    Examples
    --------
    >>> parse_option_pairs("detector", "pudd", ["yates=False", "skip_rule=None", "n_buckets=3"])
    (('n_buckets', 3), ('skip_rule', None), ('yates', False))
    >>> parse_option_pairs("detector", "adwin", ["delta=0.01"])
    (('delta', 0.01),)
    """
    from pudd_core import _options

    param = f"{kind}_options"
    name = ALIASES.get(name, name) if kind == "detector" else name
    if kind == "detector":
        if name not in DETECTORS:
            raise _validation.ParameterError(
                "detector", f"unknown detector {name!r}; choose one of {', '.join(DETECTORS)}",
                tuple(DETECTORS))
        valid = _detector_option_names(name)
    else:
        if name not in CLASSIFIERS:
            raise _validation.ParameterError(
                "classifier",
                f"unknown classifier {name!r}; choose one of {', '.join(CLASSIFIERS)}",
                tuple(CLASSIFIERS))
        valid = classifiers.option_names(name)
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise _validation.ParameterError(
                param, f"{kind} options are written KEY=VALUE, got {pair!r}")
        _check_option_names(f"{kind} {name!r}", param, ((key, raw),), valid)
        out[key] = _options.parse_option(_option_target(kind, name), key, raw)
    return tuple(sorted(out.items()))


def _check_optional_int(name: str, value: Any, minimum: int, why: str) -> None:
    if value is None:
        return
    if (isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer)
            or value < minimum):
        raise _validation.ParameterError(
            name, f"{name} must be None or an integer >= {minimum}{why}, got {value!r}")


@dataclass(frozen=True)
class RunConfig:
    """Everything that defines one run; hashable, so runs can be cached and stored by key.

    Parameters
    ----------
    dataset
        A stream name of the registry (``pudd_core.streams.list_streams``).
    classifier
        ``"gnb"``, ``"vfdt"``, ``"dnn"``, ``"dnn-ensemble"``, ``"pretrained-cnn"``,
        ``"small-cnn"`` or ``"resnet18"``.
    detector
        ``"pudd"``, ``"ek"``, a river baseline (``"adwin"``, ``"ddm"``, ``"eddm"``,
        ``"hddma"``, ``"hddmw"``, ``"kswin"``, ``"pagehinkley"``), ``"mcd-dd"`` (label-free,
        on the chunk's features), ``"none"`` or ``"oracle"``.
    alpha
        PUDD's threshold: PUDD-x is ``alpha = 10**-x``.
    regime
        ``"incremental"`` (-I: train on every chunk after testing it) or ``"train-once"``
        (-O: train only at the start and at each alarm).
    adaptation
        PUDD's retraining data on alarm: ``"window"`` (the recent window of the winning cut,
        the authors' code) or ``"chunk"`` (the current chunk only, the paper's text). The
        baselines and the oracle always retrain on the current chunk (the paper).
    seed
        Seeds the stream, the classifier and the detector through ``SeedSequence``.
    chunk_size, n_chunks
        Override the stream's defaults.
    double_initial_fit
        Train on chunk 0 twice, as the authors' environment does (spec section 3.2).
    detector_options, classifier_options, stream_options
        Extra keyword options, e.g. ``{"cut_points": "all"}``, ``{"epochs": 50}``; an
        unknown name fails :meth:`validate`, which lists the valid ones.
    record_windows
        Keep, per chunk, PU histograms of the winning cut's windows, its table and buckets.

    Examples
    --------
    >>> cfg = RunConfig("sea0", "gnb", "pudd", alpha=1e-5, detector_options={"cut_points": "all"})
    >>> cfg.detector_options, cfg.validate()
    ((('cut_points', 'all'),), None)
    """

    dataset: str = "sea0"
    classifier: str = "gnb"
    detector: str = "pudd"
    alpha: float = 1e-3
    regime: Literal["incremental", "train-once"] = "incremental"
    adaptation: Literal["window", "chunk"] = "window"
    seed: int = 0
    chunk_size: int | None = None
    n_chunks: int | None = None
    double_initial_fit: bool = True
    detector_options: Options = ()
    classifier_options: Options = ()
    stream_options: Options = ()
    record_windows: bool = False

    def __post_init__(self) -> None:
        for name in ("detector_options", "classifier_options", "stream_options"):
            object.__setattr__(self, name, _options(getattr(self, name)))
        object.__setattr__(self, "detector", ALIASES.get(self.detector, self.detector))

    def key(self) -> str:
        """Stable hash of the configuration (the results store's key).

        Examples
        --------
        >>> RunConfig(seed=1).key() == RunConfig(seed=1).key() != RunConfig(seed=2).key()
        True
        """
        blob = json.dumps(asdict(self), sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    def validate(self, data_dir: str | None = None, *, stream: Stream | None = None) -> None:
        """Raise ``ValueError`` for a bad name, value or combination, before any work.

        A stream whose data files are missing raises
        :class:`~pudd_core.streams.DatasetUnavailableError` with how to provide them. With
        ``stream`` (a user's stream), its card replaces the registry's.
        """
        if not isinstance(self.detector, str) or self.detector not in DETECTORS:
            raise _validation.ParameterError(
                "detector",
                f"unknown detector {self.detector!r}; choose one of {', '.join(DETECTORS)}",
                tuple(DETECTORS),
            )
        if not isinstance(self.classifier, str) or self.classifier not in CLASSIFIERS:
            raise _validation.ParameterError(
                "classifier",
                f"unknown classifier {self.classifier!r}; choose one of {', '.join(CLASSIFIERS)}",
                tuple(CLASSIFIERS),
            )
        if not isinstance(self.dataset, str):
            raise _validation.ParameterError(
                "dataset", f"dataset must be a stream name (text), got {self.dataset!r}")
        _check_option_names(
            f"classifier {self.classifier!r}", "classifier_options", self.classifier_options,
            classifiers.option_names(self.classifier),
        )
        _check_option_names(
            f"detector {self.detector!r}", "detector_options", self.detector_options,
            _detector_option_names(self.detector),
        )
        _validation.check_open_unit("alpha", self.alpha)
        _validation.check_choice("regime", self.regime, ("incremental", "train-once"))
        _validation.check_choice("adaptation", self.adaptation, ("window", "chunk"))
        _validation.check_positive_int("seed", self.seed, minimum=0)
        _check_optional_int("chunk_size", self.chunk_size, 1, "")
        _check_optional_int("n_chunks", self.n_chunks, 2,
                            " (chunk 0 trains, the rest are tested)")
        _validation.check_bool("double_initial_fit", self.double_initial_fit)
        _validation.check_bool("record_windows", self.record_windows)
        if self.detector in ("pudd", "ek", "mcd-dd"):
            _make_detector(self, 0)  # its own checks: option values, before any work
        elif self.detector in BASELINES and self.detector_options:
            try:
                _make_detector(self, 0)
            except (TypeError, ValueError) as exc:
                raise _validation.ParameterError(
                    "detector_options",
                    f"detector {self.detector!r} refused its options "
                    f"{dict(self.detector_options)}: {exc}") from None
        if stream is not None:
            if stream.name != self.dataset:
                raise _validation.ParameterError(
                    "dataset",
                    f"dataset {self.dataset!r} does not name the given stream {stream.name!r}",
                )
            for name in ("chunk_size", "n_chunks"):
                if getattr(self, name) not in (None, getattr(stream, name)):
                    raise _validation.ParameterError(
                        name, f"{name} must be None or the given stream's "
                                     f"{getattr(stream, name)}, got {getattr(self, name)}")
        info = get_info(self.dataset, data_dir=data_dir) if stream is None else stream.info
        if not info.available:
            raise DatasetUnavailableError(f"stream {self.dataset!r}: {info.unavailable_reason}")
        if stream is None:
            check_data(self.dataset, data_dir=data_dir)  # a damaged file fails before any run
        images = len(info.feature_shape) == 3
        if images != (self.classifier in _IMAGE_CLASSIFIERS):
            wanted = (
                "pretrained-cnn, small-cnn or resnet18" if images
                else "gnb, vfdt, dnn or dnn-ensemble"
            )
            raise _validation.ParameterError(
                "classifier",
                f"classifier {self.classifier!r} cannot learn the {info.kind} stream "
                f"{self.dataset!r} (features {info.feature_shape}); choose {wanted}"
            )


@dataclass(frozen=True)
class WindowRecord:
    """The winning cut of a PUDD test, for plots: histograms, table, buckets."""

    ref_correct: tuple[int, ...]
    ref_wrong: tuple[int, ...]
    new_correct: tuple[int, ...]
    new_wrong: tuple[int, ...]
    bucket_edges: tuple[float, ...]
    bucket_centres: tuple[float, ...]
    table: tuple[tuple[int, ...], ...]
    expected: tuple[tuple[float, ...], ...]

    def by_centre(self) -> WindowRecord:
        """The record with its buckets (table and expected columns) in ascending PU order.

        Examples
        --------
        >>> rec = WindowRecord((), (), (), (), (0.2,), (0.4, 0.1), ((1, 2, 3), (4, 5, 6)),
        ...                    ((1.0, 2.0, 3.0), (4.0, 5.0, 6.0)))
        >>> r = rec.by_centre()
        >>> r.bucket_centres, r.table
        ((0.1, 0.4), ((2, 1, 3), (5, 4, 6)))
        """
        k = len(self.bucket_centres)
        order = sorted(range(k), key=self.bucket_centres.__getitem__) + [k]
        return replace(
            self,
            bucket_centres=tuple(self.bucket_centres[j] for j in order[:k]),
            table=tuple(tuple(row[j] for j in order) for row in self.table),
            expected=tuple(tuple(row[j] for j in order) for row in self.expected),
        )


@dataclass(frozen=True)
class ChunkLog:
    """What happened on one tested chunk."""

    chunk_index: int
    accuracy: float
    pu_mean: float
    pu_median: float
    p_value: float  # NaN for detectors that give none
    cut_p_values: tuple[tuple[int, float], ...]  # (cut, p) of every cut; skipped cuts p = 1
    alarm: bool
    cut_point: int | None
    adapted: bool  # the model was adapted (after the previous chunk's alarm) before this test
    detections: tuple[int, ...]  # baselines: positions within the chunk where they fired
    predict_ms: float
    detect_ms: float
    train_ms: float
    window: WindowRecord | None = field(default=None, repr=False)
    #: Cells of the winning test's table the count floor raised (0: the data alone decided).
    floored_cells: int = 0

    @property
    def error_rate(self) -> float:
        """One minus the accuracy."""
        return 1.0 - self.accuracy


@dataclass(frozen=True)
class RunResult:
    """The per-chunk log and the summary of one run.

    Examples
    --------
    >>> res = run_experiment(RunConfig("sea0", "gnb", "ddm", n_chunks=12))
    >>> len(res.chunks), len(res.to_frame()), res.summary()["detector"]
    (11, 11, 'ddm')
    """

    config: RunConfig
    chunks: tuple[ChunkLog, ...] = field(repr=False)
    accuracy: float
    alarms: tuple[int, ...]
    drift_chunks: tuple[int, ...] | None
    detection: DetectionSummary | None
    elapsed_s: float

    @property
    def n_alarms(self) -> int:
        """Number of alarms."""
        return len(self.alarms)

    def summary(self) -> dict[str, Any]:
        """Flat summary for tables, JSON and the results store."""
        out: dict[str, Any] = {
            **{f.name: getattr(self.config, f.name) for f in fields(RunConfig)},
            "key": self.config.key(),
            "accuracy": self.accuracy,
            "n_alarms": self.n_alarms,
            "alarms": list(self.alarms),
            "elapsed_s": self.elapsed_s,
        }
        for k in ("detector_options", "classifier_options", "stream_options"):
            out[k] = json.dumps(dict(out[k]), sort_keys=True, default=str)
        d = self.detection
        out["mean_delay"] = d.mean_delay if d else float("nan")
        out["missed"] = d.missed if d else None
        out["false_alarms"] = d.false_alarms if d else None
        return out

    def to_frame(self) -> pd.DataFrame:
        """Per-chunk log as a DataFrame (one row per tested chunk)."""
        import pandas as pd

        rows = []
        for c in self.chunks:
            row = {k: v for k, v in asdict(c).items() if k not in ("window", "cut_p_values")}
            row["error_rate"] = c.error_rate
            row["cut_p_values"] = json.dumps(c.cut_p_values)
            row["detections"] = json.dumps(list(c.detections))
            rows.append(row)
        return pd.DataFrame(rows)


def _make_detector(cfg: RunConfig, seed: int) -> Any:
    opts = dict(cfg.detector_options)
    if cfg.detector == "pudd":
        return ChunkPUDD(cfg.alpha, seed=seed, **opts)
    if cfg.detector == "ek":
        opts.setdefault("clamp_min", 0)
        return ChunkPUDD(cfg.alpha, partition="ek", seed=seed, **opts)
    if cfg.detector in BASELINES:
        return make(cfg.detector, seed=seed, **opts)
    if cfg.detector == "mcd-dd":
        return MCDDD(seed=seed, **opts)
    return None


def _window_record(det: ChunkPUDD) -> WindowRecord | None:
    scan = det.last_scan
    win = scan.winner if scan is not None else None
    if win is None or win.test is None:
        return None
    u_old, ok_old, u_new, ok_new = det.windows(win.cut)

    def hist(v: NDArray[np.float64]) -> tuple[int, ...]:
        return tuple(int(c) for c in np.histogram(v, bins=HIST_EDGES)[0])

    t = win.test
    return WindowRecord(
        hist(u_old[ok_old]), hist(u_old[~ok_old]), hist(u_new[ok_new]), hist(u_new[~ok_new]),
        tuple(float(e) for e in t.buckets.edges), t.buckets.centres,
        tuple(tuple(int(v) for v in row) for row in t.table),
        tuple(tuple(float(v) for v in row) for row in t.expected),
    )


def run_experiment(
    config: RunConfig,
    *,
    progress: Callable[[int, int], None] | None = None,
    data_dir: str | None = None,
    stream: Stream | None = None,
) -> RunResult:
    """Run one test-then-train episode and score it (spec sections 1.10 and 3).

    Chunk 0 trains the classifier (twice, as the authors, unless ``double_initial_fit`` is
    off). Each later chunk is predicted, scored and passed to the detector; in the
    incremental regime the model then trains on it. An alarm takes effect at the next chunk:
    the model is adapted (reset and retrained, per classifier) on the retraining window
    before that chunk is predicted. The score is the mean per-chunk accuracy over the tested
    chunks. Same config, same result, on any machine or executor.

    Parameters
    ----------
    config
        The run's configuration.
    progress
        ``progress(done, total)`` after each chunk.
    data_dir
        Data folder instead of ``$PUDD_DATA_DIR``.
    stream
        A stream to run instead of the registry's ``config.dataset`` (a user's file, from
        :func:`~pudd_core.streams.stream_from_csv`); ``config.dataset`` must be its name.

    Examples
    --------
    >>> res = run_experiment(RunConfig("sea0", "gnb", "pudd", alpha=1e-3, seed=0, n_chunks=30))
    >>> round(res.accuracy, 4), res.alarms, res.detection.missed
    (0.953, (20,), 1)
    """
    config.validate(data_dir, stream=stream)
    start = time.perf_counter()
    stream_seq, model_seq, det_seq = np.random.SeedSequence(config.seed).spawn(3)
    if stream is None:
        stream = load_stream(
            config.dataset,
            seed=int(stream_seq.generate_state(1)[0]),
            chunk_size=config.chunk_size,
            n_chunks=config.n_chunks,
            data_dir=data_dir,
            **dict(config.stream_options),
        )
    if stream.n_chunks < 2:
        raise _validation.ParameterError(
            "n_chunks", "a run needs at least two chunks: chunk 0 trains, the rest are tested")
    model = make_classifier(
        config.classifier,
        input_shape=stream.feature_shape,
        n_classes=stream.n_classes,
        seed=int(model_seq.generate_state(1)[0]),
        dataset=config.dataset,
        **dict(config.classifier_options),
    )
    det_seed = int(det_seq.generate_state(1)[0])
    detector = _make_detector(config, det_seed)
    truth = set(stream.drift_chunks or ())

    chunks: dict[int, tuple[NDArray[Any], NDArray[np.int64]]] = {0: stream.chunk(0)}
    model.fit(*chunks[0])
    if config.double_initial_fit:
        model.partial_fit(*chunks[0])
    logs: list[ChunkLog] = []
    pending: int | None = None  # retraining window (chunks) of the last alarm
    for t in range(1, stream.n_chunks):
        adapted = pending is not None
        if pending is not None:
            # Only the last _MAX_WINDOW chunks are kept: a longer cut ("all") retrains on those.
            data = [chunks[i] for i in range(max(0, t - min(pending, _MAX_WINDOW)), t)]
            model.adapt(np.concatenate([c[0] for c in data]), np.concatenate([c[1] for c in data]))
            pending = None
        X, y = chunks[t] = stream.chunk(t)
        chunks.pop(t - _MAX_WINDOW, None)  # no retraining window is longer
        t0 = time.perf_counter()
        proba = model.predict_proba(X)
        u, ok = pu_index(proba, y), is_correct(proba, y)
        t1 = time.perf_counter()
        p_value, cut = float("nan"), None
        cut_pvals: tuple[tuple[int, float], ...] = ()
        window: WindowRecord | None = None
        floored = 0
        hits: tuple[int, ...] = ()
        if isinstance(detector, ChunkPUDD):
            detector.update(u, ok)
            alarm = detector.drift_detected
            p_value, cut = detector.p_value, detector.cut_point
            scan = detector.last_scan
            cut_pvals = tuple((c.cut, c.p_value) for c in scan.cuts) if scan else ()
            win = scan.winner if scan is not None else None
            floored = win.test.floored_cells if win is not None and win.test is not None else 0
            if config.record_windows:
                window = _window_record(detector)
            retrain = (cut or 1) if config.adaptation == "window" else 1
        elif isinstance(detector, MCDDD):  # label-free: the chunk's features, not its errors
            detector.update(X)
            alarm = detector.drift_detected
            retrain = 1
        elif detector is not None:
            hits = feed_errors(detector, (~ok).astype(np.int64))
            alarm = bool(hits)
            if alarm:
                detector = detector.clone()  # a fresh detector after each alarm
            retrain = 1
        else:
            alarm = config.detector == "oracle" and t in truth
            retrain = 1
        t2 = time.perf_counter()
        if config.regime == "incremental":
            model.partial_fit(X, y)
        t3 = time.perf_counter()
        if alarm:
            pending = retrain
        logs.append(ChunkLog(
            t, float(ok.mean()), float(u.mean()), float(np.median(u)), float(p_value),
            cut_pvals, alarm, cut, adapted, tuple(hits),
            (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3, window, floored,
        ))
        if progress is not None:
            progress(t, stream.n_chunks - 1)
    alarms = tuple(c.chunk_index for c in logs if c.alarm)
    drift = stream.drift_chunks
    detection = match_alarms(alarms, drift, stream.n_chunks) if drift is not None else None
    return RunResult(
        config, tuple(logs), mean_accuracy([c.accuracy for c in logs]), alarms,
        drift, detection, time.perf_counter() - start,
    )
