"""One experiment: a stream, a classifier and a detector, tested then trained chunk by chunk."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import numpy as np
from numpy.typing import NDArray

from pudd_core import _options, _validation, classifiers
from pudd_core.classifiers import CLASSIFIERS, make_classifier
from pudd_core.experiments import detectors
from pudd_core.experiments.baselines import ALIASES
from pudd_core.experiments.detectors import DETECTORS, ChunkDetector, chunk_detector
from pudd_core.experiments.evaluation import DetectionSummary, match_alarms, mean_accuracy
from pudd_core.experiments.records import ChunkTest, CutTest, WindowRecord
from pudd_core.paper import REGIMES, Regime
from pudd_core.pu_index import is_correct, pu_index
from pudd_core.streams import DatasetUnavailableError, Stream, get_info, load_stream
from pudd_core.streams.registry import check_data

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "RUN_COLUMNS", "ChunkLog", "CutTest", "RunConfig", "RunResult", "RunSeeds", "WindowRecord",
    "parse_option_pairs", "run_chunks", "run_experiment", "run_model", "run_seeds",
    "run_stream", "runs_frame",
]

_MAX_WINDOW = 1024  # chunks kept for retraining (pow2 cuts stop at 512); longer windows clamp
#: Methods whose default procedure changed after runs were stored (docs/sota-procedures.md):
#: their configurations' keys carry the revision, so a store never answers with old runs.
_REVISIONS: Mapping[str, int] = {"mcd-dd": 2, "ns": 2, "adlter": 2}

Options = tuple[tuple[str, Any], ...]


def _as_options(value: Mapping[str, Any] | Options | None) -> Options:
    if value is None:
        return ()
    items = value.items() if isinstance(value, Mapping) else value
    return tuple(sorted((str(k), v) for k, v in items))


def _option_target(kind: Literal["detector", "classifier"], name: str) -> Callable[..., Any]:
    if kind == "classifier":
        return classifiers.classifier_class(name)
    return detectors.option_target(name)


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
    param = f"{kind}_options"
    name = ALIASES.get(name, name) if kind == "detector" else name
    if kind == "detector":
        if name not in DETECTORS:
            raise _validation.ParameterError(
                "detector", f"unknown detector {name!r}; choose one of {', '.join(DETECTORS)}",
                tuple(DETECTORS))
    else:
        if name not in CLASSIFIERS:
            raise _validation.ParameterError(
                "classifier",
                f"unknown classifier {name!r}; choose one of {', '.join(CLASSIFIERS)}",
                tuple(CLASSIFIERS))
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise _validation.ParameterError(
                param, f"{kind} options are written KEY=VALUE, got {pair!r}")
        if kind == "detector":
            detectors.check_options(name, (key,))
        else:
            _validation.check_option_names(param, f"{kind} {name!r}", (key,),
                                           classifiers.option_names(name))
        out[key] = _options.parse_option(_option_target(kind, name), key, raw)
    return tuple(sorted(out.items()))


@dataclass(frozen=True)
class RunConfig:
    """Everything that defines one run; hashable, so runs can be cached and stored by key.

    Parameters
    ----------
    dataset
        A stream name of the registry (``pudd_core.streams.list_streams``).
    classifier
        A key of :data:`~pudd_core.classifiers.CLASSIFIERS` that can learn the stream.
    detector
        A key of :data:`~pudd_core.experiments.detectors.DETECTORS` (or an alias such as
        ``"ph"``): PUDD, its EK ablation, the river baselines, MCD-DD (label-free, on the
        chunk's features), ``"none"`` (never adapts) or ``"oracle"`` (adapts at the true
        drifts, on a stream whose drifts are known).
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
    regime: Regime = "incremental"
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
            object.__setattr__(self, name, _as_options(getattr(self, name)))
        object.__setattr__(self, "detector", ALIASES.get(self.detector, self.detector))

    def key(self) -> str:
        """Stable hash of the configuration (the results store's key).

        Examples
        --------
        >>> RunConfig(seed=1).key() == RunConfig(seed=1).key() != RunConfig(seed=2).key()
        True
        """
        fields_ = asdict(self)
        revised = {n: _REVISIONS[n] for n in (self.detector, self.classifier) if n in _REVISIONS}
        if revised:  # only these keys change: every other stored run stays valid
            fields_["revision"] = revised
        blob = json.dumps(fields_, sort_keys=True, default=str).encode()
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
        _validation.check_option_names(
            "classifier_options", f"classifier {self.classifier!r}",
            (k for k, _ in self.classifier_options), classifiers.option_names(self.classifier))
        detectors.check_options(self.detector, (k for k, _ in self.detector_options))
        _validation.check_open_unit("alpha", self.alpha)
        _validation.check_choice("regime", self.regime, REGIMES)
        _validation.check_choice("adaptation", self.adaptation, ("window", "chunk"))
        _validation.check_positive_int("seed", self.seed, minimum=0)
        _validation.check_positive_int("chunk_size", self.chunk_size, optional=True)
        _validation.check_positive_int("n_chunks", self.n_chunks, minimum=2, optional=True,
                                       why=" (chunk 0 trains, the rest are tested)")
        _validation.check_bool("double_initial_fit", self.double_initial_fit)
        _validation.check_bool("record_windows", self.record_windows)
        try:  # the detector's own checks of its option values, before any work
            detectors.run_detector(self, 0)
        except _validation.ParameterError:
            raise
        except (TypeError, ValueError) as exc:  # a class that raises its own errors (river)
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
        allowed = classifiers.compatible_classifiers(info.feature_shape)
        if self.classifier not in allowed:
            wanted = f"{', '.join(allowed[:-1])} or {allowed[-1]}"
            raise _validation.ParameterError(
                "classifier",
                f"classifier {self.classifier!r} cannot learn the {info.kind} stream "
                f"{self.dataset!r} (features {info.feature_shape}); choose {wanted}"
            )
        if stream is None:
            self._check_size(info)
        request = (self.classifier, self.classifier_options, tuple(info.feature_shape),
                   info.n_classes, self.dataset)
        try:
            refused = _classifier_refuses(*request)
        except TypeError:  # an unhashable option value: asked without the cache
            refused = _classifier_refuses.__wrapped__(*request)
        if refused:
            raise _validation.ParameterError(
                "classifier_options", f"classifier {self.classifier!r} refused its options "
                                      f"{dict(self.classifier_options)}: {refused}")

    def _check_size(self, info: Any) -> None:
        """Refuse a stream that cannot fit in this machine's memory, before drawing it."""
        n_chunks = self.n_chunks or info.n_chunks
        chunk_size = self.chunk_size or info.chunk_size
        need = 8 * n_chunks * chunk_size * int(np.prod(info.feature_shape))  # float64 features
        have = _memory_bytes()
        if need > have // 2:
            param = ("chunk_size" if self.chunk_size is not None
                     and self.chunk_size > info.chunk_size else "n_chunks")
            raise _validation.ParameterError(
                param, f"{n_chunks:,} chunks of {chunk_size:,} instances of {self.dataset} "
                       f"need {need / 2**30:,.1f} GiB for the features alone; this machine has "
                       f"{have / 2**30:,.1f} GiB available: choose fewer chunks or a smaller "
                       "chunk_size")


@dataclass(frozen=True)
class ChunkLog(ChunkTest):
    """What happened on one tested chunk: the ``ChunkTest``, then the runner's own fields.

    Examples
    --------
    >>> log = run_experiment(RunConfig("sea0", "gnb", "pudd", seed=0, n_chunks=4)).chunks[0]
    >>> log.chunk_index, round(log.accuracy, 3), round(log.error_rate, 3), log.adapted
    (1, 0.943, 0.057, False)
    """

    adapted: bool  # the model was adapted (after the previous chunk's alarm) before this test
    detections: tuple[int, ...]  # baselines: positions within the chunk where they fired
    predict_ms: float
    detect_ms: float
    train_ms: float
    window: WindowRecord | None = field(default=None, repr=False)
    #: Cells of the winning test's table the count floor raised (0: the data alone decided).
    floored_cells: int = 0
    #: Every cut's test (statistic, dof, skip, floor), kept with ``record_windows``.
    cut_tests: tuple[CutTest, ...] = field(default=(), repr=False)
    #: Why no test decided ``p_value`` (e.g. "fewer than two chunks since the last alarm",
    #: every cut skipped by the skip rule); None when a test did, and for other detectors.
    no_test: str | None = None

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
        """Flat summary for JSON and the results store: one row of :func:`runs_frame`.

        ``missed`` and ``false_alarms`` are ``None`` where the stream has no ground truth.
        """
        out: dict[str, Any] = {
            **{f.name: getattr(self.config, f.name) for f in fields(RunConfig)},
            "key": self.config.key(),
            "accuracy": self.accuracy,
            "n_alarms": self.n_alarms,
            "alarms": list(self.alarms),
            "elapsed_s": self.elapsed_s,
        }
        for k in ("detector_options", "classifier_options", "stream_options"):
            out[k] = _options.options_json(out[k])
        d = self.detection
        out["mean_delay"] = d.mean_delay if d else float("nan")
        out["missed"] = d.missed if d else None
        out["false_alarms"] = d.false_alarms if d else None
        return out

    def to_frame(self) -> pd.DataFrame:
        """Per-chunk log as a DataFrame (one row per tested chunk).

        Where no test ran (``no_test``, its reason, is set) ``p_value`` is missing (NaN),
        never the detector's conventional 1; a cut the skip rule spared has ``null`` for its
        p-value in ``cut_p_values`` (JSON).

        Examples
        --------
        >>> res = run_experiment(RunConfig("sea0", "gnb", "pudd", n_chunks=6))
        >>> frame = res.to_frame()
        >>> float(frame.loc[0, "p_value"]), frame.loc[0, "no_test"]  # chunk 1: one chunk
        (nan, 'fewer than two chunks since the last alarm')
        """
        import pandas as pd

        rows = []
        for c in self.chunks:
            row = {k: v for k, v in asdict(c).items()
                   if k not in ("window", "cut_p_values", "cut_tests")}
            row["error_rate"] = c.error_rate
            if c.no_test is not None:
                row["p_value"] = math.nan
            row["cut_p_values"] = json.dumps(
                [[cut, None if math.isnan(p) else p] for cut, p in c.cut_p_values])
            row["detections"] = json.dumps(list(c.detections))
            rows.append(row)
        return pd.DataFrame(rows)


#: Columns of :func:`runs_frame` after the config's fields (``RunConfig``'s, in order).
RUN_COLUMNS = ("key", "accuracy", "n_alarms", "alarms", "elapsed_s", "mean_delay", "missed",
               "false_alarms")


def runs_frame(results: Iterable[RunResult]) -> pd.DataFrame:
    """Finished runs as a table, one row per run: the one flattening of run results.

    Columns: every :class:`RunConfig` field (options as sorted JSON text), then ``key``,
    ``accuracy`` (mean per-chunk accuracy, 0-1), ``n_alarms``, ``alarms`` (chunk indices),
    ``elapsed_s``, ``mean_delay`` (chunks), ``missed`` and ``false_alarms``; the last three
    are NaN where the stream has no ground truth. Tables for people select and rename these.

    Examples
    --------
    >>> runs = [run_experiment(RunConfig("sea0", "gnb", d, n_chunks=25)) for d in ("pudd", "ddm")]
    >>> runs_frame(runs)[["detector", "n_alarms", "missed", "false_alarms"]].values.tolist()
    [['pudd', 1, 1, 0], ['ddm', 4, 1, 3]]
    """
    import pandas as pd

    columns = [*(f.name for f in fields(RunConfig)), *RUN_COLUMNS]
    frame = pd.DataFrame([r.summary() for r in results], columns=columns)
    for name in ("missed", "false_alarms"):  # None (no ground truth) -> NaN
        frame[name] = pd.to_numeric(frame[name])
    return frame


class RunSeeds(NamedTuple):
    """The seeds a run draws from its one ``seed``: stream, classifier, detector.

    Examples
    --------
    >>> seeds = run_seeds(0)
    >>> seeds.model, seeds == run_seeds(0), seeds.stream == run_seeds(1).stream
    (673228719, True, False)
    """

    stream: int
    model: int
    detector: int


def run_seeds(seed: int) -> RunSeeds:
    """The seeds ``run_experiment(RunConfig(seed=seed))`` gives its stream, model and detector.

    Three children are spawned from ``SeedSequence(seed)`` (STYLE.md section 6); each seed is
    its child's first word. The one place this derivation is written: the view models that
    load a run's stream without running it call this too.

    Examples
    --------
    >>> run_seeds(0)
    RunSeeds(stream=3757552657, model=673228719, detector=3241444873)
    """
    _validation.check_positive_int("seed", seed, minimum=0)
    children = np.random.SeedSequence(seed).spawn(3)
    return RunSeeds(*(int(child.generate_state(1)[0]) for child in children))


def run_stream(
    config: RunConfig, *, seed: int | None = None, data_dir: str | None = None, **options: Any
) -> Stream:
    """The registry stream ``run_experiment(config)`` tests on, to share between runs.

    ``seed`` is the stream's own seed (default: ``run_seeds(config.seed).stream``, as the run
    draws it); ``options`` go to :func:`~pudd_core.streams.load_stream` after the config's
    ``stream_options``. Runs of several detectors on one stream (the Stream explorer) load it
    once and pass it as ``run_experiment(cfg, stream=...)``: same results, faster.

    Examples
    --------
    >>> cfg = RunConfig("sea0", "gnb", "pudd", seed=4, n_chunks=12)
    >>> shared = run_experiment(cfg, stream=run_stream(cfg))
    >>> shared.alarms == run_experiment(cfg).alarms, shared.accuracy == run_experiment(cfg).accuracy
    (True, True)
    """
    return load_stream(
        config.dataset,
        seed=run_seeds(config.seed).stream if seed is None else seed,
        chunk_size=config.chunk_size,
        n_chunks=config.n_chunks,
        data_dir=data_dir,
        **{**dict(config.stream_options), **options},
    )


def _memory_bytes() -> int:
    """The memory a run may take now, in bytes: what the OS says is available.

    Linux's ``MemAvailable``; elsewhere the physical memory. A stream must fit in half of it.
    """
    try:
        with open("/proc/meminfo", encoding="ascii") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):  # not POSIX: assume 16 GiB
        return 16 * 2**30


#: Classifiers whose construction is itself long work (pretraining a backbone): their option
#: values are checked when a run builds them, not here.
_BUILT_AT_RUN = frozenset({"pretrained-cnn"})


@functools.lru_cache(maxsize=256)
def _classifier_refuses(name: str, options: tuple[tuple[str, Any], ...],
                        shape: tuple[int, ...], n_classes: int, dataset: str) -> str | None:
    """Why ``name`` refuses ``options`` (its constructor's message), or None.

    One build per distinct request, so a grid of a thousand runs builds each model kind once.
    """
    if name in _BUILT_AT_RUN or not options:
        return None
    try:
        make_classifier(name, input_shape=shape, n_classes=n_classes, seed=0, dataset=dataset,
                        **dict(options))
    except (ValueError, TypeError) as err:
        return " ".join(str(err).split())
    return None


def run_model(config: RunConfig, stream: Stream, *, seed: int | None = None) -> Any:
    """The untrained classifier of ``config`` for ``stream`` (``seed``: its own seed).

    The default seed is ``run_seeds(config.seed).model``, as the run draws it.

    Examples
    --------
    >>> cfg = RunConfig("sea0", "gnb", "pudd", seed=0, n_chunks=4)
    >>> type(run_model(cfg, run_stream(cfg))).__name__
    'GNBClassifier'
    """
    return make_classifier(
        config.classifier,
        input_shape=stream.feature_shape,
        n_classes=stream.n_classes,
        seed=run_seeds(config.seed).model if seed is None else seed,
        dataset=config.dataset,
        **dict(config.classifier_options),
    )


# --- the run ------------------------------------------------------------------------------
def run_chunks(
    stream: Stream,
    model: Any,
    detector: ChunkDetector,
    *,
    regime: Regime = "incremental",
    double_initial_fit: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> list[ChunkLog]:
    """The chunk loop of a run: train on chunk 0, then test (and train) every later chunk.

    Chunk 0 trains ``model`` (twice with ``double_initial_fit``). Each later chunk is
    predicted, scored and given to ``detector``; in the incremental regime the model then
    trains on it. An alarm takes effect at the next chunk: the model is adapted (reset and
    retrained) on the verdict's retraining window before that chunk is predicted.

    Examples
    --------
    >>> from pudd_core.experiments.detectors import FixedAlarms
    >>> cfg = RunConfig("sea0", "gnb", "pudd", seed=0, n_chunks=4)
    >>> stream = run_stream(cfg)
    >>> logs = run_chunks(stream, run_model(cfg, stream), FixedAlarms(frozenset({2})))
    >>> [(log.chunk_index, log.alarm, log.adapted) for log in logs]
    [(1, False, False), (2, True, False), (3, False, True)]
    """
    chunks: dict[int, tuple[NDArray[Any], NDArray[np.int64]]] = {0: stream.chunk(0)}
    model.fit(*chunks[0])
    if double_initial_fit:
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
        verdict = detector.test(t, u, ok, X)
        t2 = time.perf_counter()
        if regime == "incremental":
            model.partial_fit(X, y)
        t3 = time.perf_counter()
        if verdict.alarm:
            pending = verdict.retrain_chunks
        logs.append(ChunkLog(
            chunk_index=t, accuracy=float(ok.mean()), pu_mean=float(u.mean()),
            pu_median=float(np.median(u)), p_value=verdict.p_value,
            cut_p_values=verdict.cut_p_values, alarm=verdict.alarm, cut_point=verdict.cut_point,
            adapted=adapted, detections=verdict.detections, predict_ms=(t1 - t0) * 1e3,
            detect_ms=(t2 - t1) * 1e3, train_ms=(t3 - t2) * 1e3, window=verdict.window,
            floored_cells=verdict.floored_cells, cut_tests=verdict.cut_tests,
            no_test=verdict.no_test,
        ))
        if progress is not None:
            progress(t, stream.n_chunks - 1)
    return logs


def _run_result(
    config: RunConfig, logs: Sequence[ChunkLog], stream: Stream, elapsed_s: float
) -> RunResult:
    alarms = tuple(c.chunk_index for c in logs if c.alarm)
    drift = stream.drift_chunks
    return RunResult(
        config=config,
        chunks=tuple(logs),
        accuracy=mean_accuracy([c.accuracy for c in logs]),
        alarms=alarms,
        drift_chunks=drift,
        detection=match_alarms(alarms, drift, stream.n_chunks) if drift is not None else None,
        elapsed_s=elapsed_s,
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
    seeds = run_seeds(config.seed)
    if stream is None:
        stream = run_stream(config, seed=seeds.stream, data_dir=data_dir)
    if stream.n_chunks < 2:
        raise _validation.ParameterError(
            "n_chunks", "a run needs at least two chunks: chunk 0 trains, the rest are tested")
    model = run_model(config, stream, seed=seeds.model)
    detector = chunk_detector(config, seeds.detector, stream.drift_chunks)
    # a model with a frozen feature extractor computes the chunks' features ahead, alongside
    # the loop (the same features: each chunk alone, as the loop shows it)
    ahead = getattr(model, "features_ahead", None)
    with ahead(stream) if ahead is not None else contextlib.nullcontext():
        logs = run_chunks(stream, model, detector, regime=config.regime,
                          double_initial_fit=config.double_initial_fit, progress=progress)
    return _run_result(config, logs, stream, time.perf_counter() - start)
