"""The detector registry: every detector a run can use, and how the chunk loop feeds it.

One :class:`DetectorSpec` per detector in ``_ENTRIES`` (its display name, what it reads of a
chunk, the class whose keyword parameters are its options, its chunk-loop adapter, its colour)
is the one source of every list of detectors: the runner's :data:`DETECTORS` and checks, the
command line's choices, the grids, the explorer's detectors and the figures' colours all read
it. A river detector is one :class:`~pudd_core.experiments.baselines.BaselineSpec` in
``baselines.BASELINES``, which this table takes in whole. docs/architecture.md, "How to add a
detector", walks through adding one.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, NamedTuple, Protocol

import numpy as np
from numpy.typing import NDArray

from pudd_core import _validation
from pudd_core.detector import ChunkPUDD
from pudd_core.experiments import baselines
from pudd_core.experiments.baselines import ALIASES, BASELINES, BaselineSpec, feed_errors
from pudd_core.experiments.mcdd import MCDDD
from pudd_core.experiments.records import CutTest, WindowRecord, cut_tests, window_record

__all__ = [
    "DETECTORS", "KINDS", "BaselineAdapter", "ChunkDetector", "ChunkPUDDAdapter", "ChunkVerdict",
    "DetectorSpec", "FeatureAdapter", "FixedAlarms", "Kind", "chunk_detector",
    "check_options", "detector_colours", "detector_names", "detector_spec", "make_detector",
    "needs_drifts", "option_names", "run_detector",
    "option_target", "takes_alpha",
]

#: What a detector reads of each tested chunk: the PU-index values and correctness
#: (``"pu-index"``), the 0/1 errors in order (``"errors"``), the chunk's features
#: (``"features"``, label-free), or nothing: alarms fixed in advance (``"reference"``).
Kind = Literal["pu-index", "errors", "features", "reference"]
KINDS: tuple[Kind, ...] = ("pu-index", "errors", "features", "reference")


# --- detectors, as the chunk loop sees them -------------------------------------------------
@dataclass(frozen=True)
class ChunkVerdict:
    """A detector's answer on one tested chunk: the detector part of the runner's ``ChunkLog``.

    Examples
    --------
    >>> v = ChunkVerdict(alarm=True, retrain_chunks=3)
    >>> v.retrain_chunks, math.isnan(v.p_value), v.cut_point  # no test gave a p-value
    (3, True, None)
    """

    alarm: bool
    #: Chunks to retrain on at the next chunk, when ``alarm`` (the last one: the current chunk).
    retrain_chunks: int = 1
    p_value: float = float("nan")
    cut_point: int | None = None
    cut_p_values: tuple[tuple[int, float], ...] = ()
    detections: tuple[int, ...] = ()
    floored_cells: int = 0
    window: WindowRecord | None = None
    cut_tests: tuple[CutTest, ...] = ()
    #: Why no test decided ``p_value`` (PUDD: ``ScanResult.no_test``); None when one did.
    no_test: str | None = None


class ChunkDetector(Protocol):
    """What the runner's chunk loop asks of a detector: one verdict per tested chunk.

    Examples
    --------
    >>> detector: ChunkDetector = FixedAlarms(frozenset({2}))
    >>> u = np.full(4, 0.1)
    >>> [detector.test(t, u, u < 0.5).alarm for t in (1, 2)]
    [False, True]
    """

    def test(self, t: int, u: NDArray[np.float64], correct: NDArray[np.bool_],
             features: NDArray[Any] | None = None) -> ChunkVerdict:
        """Take chunk ``t``'s PU values and correctness; say whether it is an alarm.

        ``features`` is the chunk's input (what a label-free detector such as MCD-DD reads);
        the others ignore it.
        """
        ...


@dataclass
class ChunkPUDDAdapter:
    """:class:`~pudd_core.detector.ChunkPUDD` (PUDD and its EK ablation): one update per chunk.

    On an alarm the model retrains on the winning cut's recent window (``adaptation="window"``)
    or on the current chunk only (``"chunk"``); ChunkPUDD clears its own history.

    Examples
    --------
    >>> adapter = ChunkPUDDAdapter(ChunkPUDD(alpha=1e-3, seed=0))
    >>> rng, alarms = np.random.default_rng(0), []
    >>> for t in range(1, 8):  # the PU-index moves up by 0.3 from chunk 5 on
    ...     u = np.clip(rng.uniform(0, 0.5, 500) + (0.3 if t >= 5 else 0.0), 0, 1)
    ...     alarms.append(adapter.test(t, u, u < 0.5).alarm)
    >>> alarms
    [False, False, False, False, True, False, False]
    """

    detector: ChunkPUDD
    adaptation: Literal["window", "chunk"] = "window"
    record_windows: bool = False

    def test(self, t: int, u: NDArray[np.float64], correct: NDArray[np.bool_],
             features: NDArray[Any] | None = None) -> ChunkVerdict:
        """One ``update`` of the detector with the chunk."""
        det = self.detector
        det.update(u, correct)
        cut = det.cut_point
        scan = det.last_scan
        win = scan.winner if scan is not None else None
        return ChunkVerdict(
            alarm=det.drift_detected,
            retrain_chunks=(cut or 1) if self.adaptation == "window" else 1,
            p_value=float(det.p_value),
            cut_point=cut,
            # a cut the skip rule spared ran no test: its p is missing (NaN), not 1
            cut_p_values=tuple((c.cut, math.nan if c.skipped else c.p_value)
                               for c in scan.cuts) if scan else (),
            floored_cells=win.test.floored_cells if win is not None and win.test is not None
            else 0,
            window=window_record(det) if self.record_windows else None,
            cut_tests=cut_tests(scan) if self.record_windows and scan is not None else (),
            no_test=det.no_test,
        )


@dataclass
class BaselineAdapter:
    """A river detector fed the chunk's 0/1 errors in order; a fresh clone after each alarm.

    Examples
    --------
    >>> correct = np.ones(1000, dtype=bool)
    >>> correct[600:] = np.random.default_rng(0).random(400) < 0.5  # half wrong from 600 on
    >>> v = BaselineAdapter(baselines.make("ddm")).test(1, np.zeros(1000), correct)
    >>> v.alarm, v.detections  # positions within the chunk where DDM fired
    (True, (600,))
    """

    detector: baselines.Detector

    def test(self, t: int, u: NDArray[np.float64], correct: NDArray[np.bool_],
             features: NDArray[Any] | None = None) -> ChunkVerdict:
        """Feed the chunk's errors; any detection within it is the chunk's alarm."""
        hits = feed_errors(self.detector, (~correct).astype(np.int64))
        if hits:
            self.detector = self.detector.clone()
        return ChunkVerdict(alarm=bool(hits), detections=hits)


@dataclass(frozen=True)
class FixedAlarms:
    """No detector: an alarm at the given chunks only.

    ``"none"`` gives no chunks; ``"oracle"`` the stream's true drifts.

    Examples
    --------
    >>> oracle, u = FixedAlarms(frozenset({3})), np.zeros(10)
    >>> [oracle.test(t, u, u < 0.5).alarm for t in (1, 2, 3, 4)]
    [False, False, True, False]
    """

    chunks: frozenset[int] = frozenset()

    def test(self, t: int, u: NDArray[np.float64], correct: NDArray[np.bool_],
             features: NDArray[Any] | None = None) -> ChunkVerdict:
        """An alarm exactly when ``t`` is one of the given chunks."""
        return ChunkVerdict(alarm=t in self.chunks)


@dataclass
class FeatureAdapter:
    """A label-free detector (MCD-DD) fed the chunk's features; the model retrains on the chunk.

    Examples
    --------
    >>> FeatureAdapter(MCDDD()).test(1, np.zeros(3), np.ones(3, dtype=bool))
    Traceback (most recent call last):
    ...
    ValueError: MCD-DD reads the chunk's features: pass features=X
    """

    detector: MCDDD

    def test(self, t: int, u: NDArray[np.float64], correct: NDArray[np.bool_],
             features: NDArray[Any] | None = None) -> ChunkVerdict:
        """Update the detector with the chunk's features."""
        if features is None:
            raise ValueError("MCD-DD reads the chunk's features: pass features=X")
        self.detector.update(features)
        return ChunkVerdict(alarm=self.detector.drift_detected)


class RunSettings(Protocol):
    """What an adapter reads of a run's configuration (``RunConfig`` has these fields).

    Examples
    --------
    >>> from pudd_core.experiments.runner import RunConfig
    >>> settings: RunSettings = RunConfig("sea0", "gnb", "pudd", alpha=1e-5)
    >>> settings.detector, settings.alpha, settings.adaptation, settings.record_windows
    ('pudd', 1e-05, 'window', False)
    """

    @property
    def detector(self) -> str: ...  # noqa: D102
    @property
    def alpha(self) -> float: ...  # noqa: D102
    @property
    def adaptation(self) -> Literal["window", "chunk"]: ...  # noqa: D102
    @property
    def record_windows(self) -> bool: ...  # noqa: D102
    @property
    def detector_options(self) -> tuple[tuple[str, Any], ...]: ...  # noqa: D102


#: ``adapter(detector, config, drift_chunks)``: the built detector (None for a reference)
#: behind what the chunk loop calls.
Adapter = Callable[[Any, RunSettings, Sequence[int] | None], ChunkDetector]


def _pu_adapter(detector: Any, config: RunSettings, drift: Sequence[int] | None) -> ChunkDetector:
    return ChunkPUDDAdapter(detector, config.adaptation, config.record_windows)


def _errors_adapter(detector: Any, config: RunSettings,
                    drift: Sequence[int] | None) -> ChunkDetector:
    return BaselineAdapter(detector)


def _features_adapter(detector: Any, config: RunSettings,
                      drift: Sequence[int] | None) -> ChunkDetector:
    return FeatureAdapter(detector)


def _no_alarms(detector: Any, config: RunSettings, drift: Sequence[int] | None) -> ChunkDetector:
    return FixedAlarms(frozenset())


def _true_drifts(detector: Any, config: RunSettings,
                 drift: Sequence[int] | None) -> ChunkDetector:
    if drift is None:
        raise _validation.ParameterError(
            "detector", "the oracle alarms at the stream's true drifts, and this stream's are "
                        "unknown (a real stream or your file): use a synthetic stream, or "
                        "detector='none' for a model that never adapts")
    return FixedAlarms(frozenset(drift))


# --- the registry ----------------------------------------------------------------------------
class DetectorSpec(NamedTuple):
    """One detector of the registry.

    Examples
    --------
    >>> detector_spec("ek").fixed, detector_spec("ek").defaults
    (mappingproxy({'partition': 'ek'}), mappingproxy({'clamp_min': 0}))
    """

    display_name: str
    """The name in tables, legends and the app's pickers (a chart's trace name)."""
    kind: Kind
    """What it reads of a chunk (:data:`Kind`)."""
    adapter: Adapter
    """Wraps the built detector for the chunk loop: ``adapter(detector, config, drift_chunks)``."""
    target: Callable[..., Any] | None = None
    """The class built for a run; its keyword parameters are the options (None: none)."""
    colour: str | None = None
    """Its colour in every figure: an Okabe-Ito colour name or a CSS colour (None: a palette
    colour by position)."""
    fixed: Mapping[str, object] = MappingProxyType({})
    """Keywords the entry sets itself (not options), e.g. EK's ``partition="ek"``."""
    defaults: Mapping[str, object] = MappingProxyType({})
    """The entry's own defaults, overridden by the run's options."""
    alpha: bool = False
    """Takes the run's ``alpha`` (PUDD-x is ``alpha = 10**-x``)."""
    needs_drifts: bool = False
    """Adapts at the stream's true drifts, so runs only on a stream whose drifts are known."""


def _river(spec: BaselineSpec) -> DetectorSpec:
    return DetectorSpec(spec.display_name, "errors", _errors_adapter, spec.detector_class,
                        colour=spec.colour)


#: Every entry has its own colour, none repeated (12 detectors in one chart must be told
#: apart): seven Okabe-Ito colours, Paul Tol's "muted" wine, indigo and olive (HDDM-W: not
#: black, which the no-detector reference's dark grey would be taken for), two greys.
_ENTRIES: dict[str, DetectorSpec] = {
    "pudd": DetectorSpec("PUDD", "pu-index", _pu_adapter, ChunkPUDD, colour="blue", alpha=True),
    "ek": DetectorSpec("EK (Ei-kMeans ablation)", "pu-index", _pu_adapter, ChunkPUDD,
                       colour="#882255", fixed=MappingProxyType({"partition": "ek"}),
                       defaults=MappingProxyType({"clamp_min": 0}), alpha=True),
    **{name: _river(spec) for name, spec in BASELINES.items()},
    # short: the name is a legend entry and a lane label (the label-free SOTA of Table 2,
    # reading the features)
    "mcd-dd": DetectorSpec("MCD-DD (label-free)", "features",
                           _features_adapter, MCDDD, colour="#332288"),
    "none": DetectorSpec("No detector (ref.)", "reference", _no_alarms, colour="#222222"),
    "oracle": DetectorSpec("Oracle (ref.)", "reference", _true_drifts, colour="#9A9A9A",
                           needs_drifts=True),
}


class _Field(Mapping[str, Any]):
    """A read-only view of one field of the registry, current as entries come and go."""

    def __init__(self, pick: Callable[[DetectorSpec], Any]) -> None:
        self._pick = pick

    def __getitem__(self, name: str) -> Any:
        value = self._pick(_ENTRIES[name])
        if value is None:
            raise KeyError(name)
        return value

    def __iter__(self) -> Iterator[str]:
        return (k for k, e in _ENTRIES.items() if self._pick(e) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return repr(dict(self))


#: Detector name -> display name, in the registry's order. PUDD-x is ``detector="pudd"`` with
#: ``alpha=10**-x``.
DETECTORS: Mapping[str, str] = _Field(lambda e: e.display_name)


def detector_colours() -> Mapping[str, str]:
    """Display name -> colour (as its entry names it) of the detectors that have one.

    Examples
    --------
    >>> detector_colours()["PUDD"], detector_colours()["DDM"]
    ('blue', 'orange')
    """
    return MappingProxyType({e.display_name: e.colour for e in _ENTRIES.values()
                             if e.colour is not None})


def detector_spec(name: str) -> DetectorSpec:
    """The registry entry of detector ``name`` (an alias such as ``"ph"`` too).

    Raises :class:`~pudd_core._validation.ParameterError` (``detector``) for an unknown name.

    Examples
    --------
    >>> detector_spec("ph").display_name, detector_spec("mcd-dd").kind
    ('PH', 'features')
    """
    spec = _ENTRIES.get(ALIASES.get(name, name)) if isinstance(name, str) else None
    if spec is None:
        raise _validation.ParameterError(
            "detector", f"unknown detector {name!r}; choose one of {', '.join(_ENTRIES)}",
            tuple(_ENTRIES))
    return spec


def detector_names(*kinds: Kind) -> tuple[str, ...]:
    """The detectors of the given kinds (all without any), in the registry's order.

    Examples
    --------
    >>> detector_names("features", "errors")
    ('adwin', 'ddm', 'eddm', 'hddma', 'hddmw', 'kswin', 'pagehinkley', 'mcd-dd')
    >>> detector_names("reference")
    ('none', 'oracle')
    """
    return tuple(k for k, e in _ENTRIES.items() if not kinds or e.kind in kinds)


def takes_alpha(name: str) -> bool:
    """Whether detector ``name`` reads the run's ``alpha`` (PUDD and EK).

    Examples
    --------
    >>> takes_alpha("ek"), takes_alpha("ddm")
    (True, False)
    """
    return detector_spec(name).alpha


def needs_drifts(name: str) -> bool:
    """Whether detector ``name`` adapts at the stream's true drifts (runs only where known).

    A name the registry does not know (a paper's row such as PUDD-3, a SOTA learner) needs
    none.

    Examples
    --------
    >>> needs_drifts("oracle"), needs_drifts("none"), needs_drifts("ddm"), needs_drifts("ns")
    (True, False, False, False)
    """
    spec = _ENTRIES.get(ALIASES.get(name, name))
    return spec is not None and spec.needs_drifts


def _reserved(spec: DetectorSpec) -> dict[str, str]:
    """The class's parameters a run sets itself, each with what to do instead."""
    reserved = {"seed": "the run's seed sets it; set RunConfig.seed (--seeds) instead"}
    reserved.update({k: f"this detector fixes it to {v!r}" for k, v in spec.fixed.items()})
    if spec.alpha:
        reserved["alpha"] = "it is the run's threshold; set RunConfig.alpha (--alpha) instead"
    return reserved


def check_options(name: str, given: Iterable[str]) -> None:
    """Refuse an option detector ``name`` does not take, naming a run's own setting as such.

    A run sets a detector's ``seed`` (and PUDD's and EK's ``alpha``, its threshold) itself;
    given as an option, such a name is refused with the run's setting to use instead. A river
    detector's own ``alpha`` (EDDM, KSWIN, PH) is an option like any other.

    Examples
    --------
    >>> check_options("kswin", ["alpha", "window_size"])
    >>> check_options("pudd", ["alpha"])
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: detector 'pudd' takes no option 'alpha': it is the ...
    """
    given, spec = list(given), detector_spec(name)
    params = inspect.signature(spec.target).parameters if spec.target is not None else {}
    reserved = {k: why for k, why in _reserved(spec).items() if k in params}
    for option in given:
        if option in reserved:
            raise _validation.ParameterError(
                "detector_options",
                f"detector {name!r} takes no option {option!r}: {reserved[option]}"
                + (f"; valid options: {', '.join(option_names(name))}"
                   if option in spec.fixed else ""))
    _validation.check_option_names("detector_options", f"detector {name!r}", given,
                                   option_names(name))


def option_names(name: str) -> list[str]:
    """The options detector ``name`` takes: its class's parameters but those the run sets.

    Examples
    --------
    >>> option_names("ph")
    ['min_instances', 'delta', 'threshold', 'alpha', 'mode']
    >>> "partition" in option_names("pudd"), "partition" in option_names("ek")
    (True, False)
    >>> option_names("oracle")
    []
    """
    spec = detector_spec(name)
    if spec.target is None:
        return []
    reserved = _reserved(spec)
    return [p for p in inspect.signature(spec.target).parameters if p not in reserved]


def option_target(name: str) -> Callable[..., Any]:
    """The class whose parameter types read detector ``name``'s option values.

    Examples
    --------
    >>> option_target("ek").__name__, option_target("ph").__name__
    ('ChunkPUDD', 'PageHinkley')
    """
    target = detector_spec(name).target
    if target is None:
        raise _validation.ParameterError("detector_options", f"detector {name!r} has no options")
    return target


def make_detector(name: str, /, *, seed: int | None = None, **options: Any) -> Any:
    """Build detector ``name`` with ``options`` (None for a reference: no detector).

    ``options`` are keyword parameters of the detector's class: ``alpha`` is PUDD's and EK's
    threshold, and EDDM's, KSWIN's and PH's own option (river's). ``seed`` goes to those whose
    class has one. An unknown option raises :class:`~pudd_core._validation.ParameterError`;
    a bad value whatever the detector's class raises. A run builds its detector with
    :func:`run_detector`.

    Examples
    --------
    >>> make_detector("ek", alpha=1e-5).clamp_min, make_detector("kswin", seed=3).seed
    (0, 3)
    >>> make_detector("kswin", alpha=0.01).alpha, make_detector("ph", alpha=0.5).alpha
    (0.01, 0.5)
    >>> make_detector("none") is None
    True
    """
    spec = detector_spec(name)
    run_alpha = {"alpha": options.pop("alpha")} if spec.alpha and "alpha" in options else {}
    check_options(name, options)
    if spec.target is None:
        return None
    name = ALIASES.get(name, name)
    if name in BASELINES:  # river takes any value: ADWIN's delta=-1, a negative seed
        baselines.check_params(name, options, seed)
    else:
        _validation.check_seed("seed", seed)
    kwargs: dict[str, Any] = {**spec.defaults, **options, **spec.fixed, **run_alpha}
    if "seed" in inspect.signature(spec.target).parameters:
        kwargs["seed"] = seed
    return spec.target(**kwargs)


def run_detector(config: RunSettings, seed: int | None) -> Any:
    """The detector a run of ``config`` builds: its options, and its ``alpha`` where it has one.

    The run's ``alpha`` is PUDD's and EK's threshold; the other detectors ignore it, and
    take their own ``alpha`` (EDDM, KSWIN, PH) from ``config.detector_options``.

    Examples
    --------
    >>> from pudd_core.experiments.runner import RunConfig
    >>> run_detector(RunConfig(detector="pudd", alpha=1e-5), 0).alpha
    1e-05
    >>> run_detector(RunConfig(detector="kswin", alpha=1e-5,
    ...                        detector_options={"alpha": 0.01}), 0).alpha
    0.01
    """
    run_alpha = {"alpha": config.alpha} if detector_spec(config.detector).alpha else {}
    return make_detector(config.detector, seed=seed, **dict(config.detector_options),
                         **run_alpha)


def chunk_detector(
    config: RunSettings, seed: int, drift_chunks: Sequence[int] | None = None
) -> ChunkDetector:
    """The detector of ``config`` (seeded with ``seed``) behind its chunk-loop adapter.

    ``drift_chunks`` are the stream's true drifts (the oracle alarms there; it refuses a
    stream whose drifts are unknown, ``None``).

    Examples
    --------
    >>> from pudd_core.experiments.runner import RunConfig
    >>> type(chunk_detector(RunConfig(detector="ek"), 0)).__name__
    'ChunkPUDDAdapter'
    >>> chunk_detector(RunConfig(detector="oracle"), 0, (10, 20))
    FixedAlarms(chunks=frozenset({10, 20}))
    """
    detector = run_detector(config, seed)
    return detector_spec(config.detector).adapter(detector, config, drift_chunks)
