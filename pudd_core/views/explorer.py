"""The Stream explorer's data: PUDD settings and baselines on one stream, seen up to a cursor.

Each PUDD setting (a threshold and variant options) and each baseline is its own run of the
same stream, classifier and seed (each adapts its own model), over one or several seeds; this
module builds those runs' configs and cuts the finished runs at a cursor
(``explorer_upload`` reads a user's CSV and says which control an error is about,
``explorer_downloads`` exports the runs' numbers). Nothing here draws.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
import re
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pudd_core import _validation, classifiers
from pudd_core.detector import ChunkPUDD
from pudd_core.experiments.detectors import DETECTORS, detector_names, needs_drifts
from pudd_core.experiments.runner import (
    ChunkLog,
    RunConfig,
    RunResult,
    WindowRecord,
    parse_option_pairs,
    run_stream,
    runs_frame,
)
from pudd_core.experiments.seeding import SeedDependence, seed_dependence
from pudd_core.online import PUDD
from pudd_core.paper import Regime
from pudd_core.streams import StreamInfo, drifts_known

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "MAX_SEEDS",
    "MAX_SETTINGS",
    "VARIANTS",
    "Comparison",
    "ExplorerConfig",
    "ExplorerView",
    "PUDDSetting",
    "VariantOption",
    "compared_detectors",
    "comparison_log_frame",
    "compatible_classifiers",
    "read_setting",
    "explorer_view",
    "run_log_frame",
    "run_stream",
    "summary_frame",
]


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
    return classifiers.compatible_classifiers(info.feature_shape)


# --- PUDD settings: a threshold and variant options ------------------------------------------
#: At most this many PUDD settings side by side, and this many seeds.
MAX_SETTINGS = 4


MAX_SEEDS = 10


@dataclass(frozen=True)
class VariantOption:
    """One of ``ChunkPUDD``'s variant options, as the library declares it.

    ``choices`` is ``None`` for an integer, whose control offers ``bounds`` (smallest,
    largest); ``online`` says whether the instance-based :class:`~pudd_core.online.PUDD`
    (Algorithm 2) has the option too.
    """

    name: str
    default: Any
    choices: tuple[Any, ...] | None
    help: str
    online: bool
    bounds: tuple[int, int] | None = None


def _choices(hint: Any, default: Any) -> tuple[Any, ...] | None:
    if hint is bool:
        return (True, False)
    if hint is int:
        return None
    values: list[Any] = []
    for arg in (typing.get_args(hint) if typing.get_origin(hint) is not Literal else (hint,)):
        if arg is type(None):
            values.append(None)
        elif typing.get_origin(arg) is Literal:
            values.extend(typing.get_args(arg))
    return tuple(values) or (default,)


def _variant_options() -> dict[str, VariantOption]:
    hints = typing.get_type_hints(ChunkPUDD.__init__)
    params = inspect.signature(ChunkPUDD).parameters
    online = set(inspect.signature(PUDD).parameters)
    return {n: VariantOption(n, params[n].default, _choices(hints[n], params[n].default),
                             text.replace("``", "`"), n in online,  # RST literals as Markdown
                             _INT_BOUNDS.get(n))
            for n, text in ChunkPUDD.variant_options.items()}


#: The integer options' control ranges: a count floor above 1000 leaves no test of a chunk of
#: the explorer's default size, so its control stops there (the library takes any).
_INT_BOUNDS = {"clamp_min": (0, 1000)}


#: The variant options the explorer offers (``ChunkPUDD.variant_options``), with
#: ``ChunkPUDD``'s own defaults and help.
VARIANTS: Mapping[str, VariantOption] = types.MappingProxyType(_variant_options())


_SHORT: dict[str, dict[Any, str]] = {
    "cut_points": {"all": "all cuts"}, "skip_rule": {"pu_mean": "PU-mean skip", None: "no skip"},
    "yates": {False: "no Yates"}, "partition": {"ek": "EK"},
    "cache_buckets": {False: "refit buckets"}, "refit": {"doubling": "doubling refits"}}


@dataclass(frozen=True)
class PUDDSetting:
    """One PUDD setting of the explorer: PUDD-x (``alpha = 10**-x``) and variant options.

    ``options`` holds only values that differ from ``ChunkPUDD``'s defaults, sorted by name,
    so equal settings compare (and cache) equal however they were written.

    Examples
    --------
    >>> s = PUDDSetting(5, {"cut_points": "all", "yates": True})
    >>> s.options, s.label, s.text
    ((('cut_points', 'all'),), 'PUDD-5 (all cuts)', '5,cut_points=all')
    >>> PUDDSetting.parse("3,clamp_min=0,skip_rule=None").label
    'PUDD-3 (floor 0, no skip)'
    >>> PUDDSetting.parse("3,yates=maybe")
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: option yates expects true or false, got 'maybe'
    """

    alpha_exponent: int = 3
    options: tuple[tuple[str, Any], ...] = ()  # a mapping is accepted too

    def __post_init__(self) -> None:
        _validation.check_positive_int("alpha_exponent", self.alpha_exponent)
        if self.alpha_exponent > 300:
            raise _validation.ParameterError(
                "alpha_exponent", f"alpha_exponent must be at most 300, got {self.alpha_exponent}")
        given: Any = self.options
        items = dict(given.items() if isinstance(given, Mapping) else given)
        unknown = sorted(set(items) - set(VARIANTS))
        if unknown:
            raise _validation.ParameterError(
                "options", f"unknown option(s) {', '.join(unknown)}; the explorer offers "
                           f"{', '.join(VARIANTS)}")
        kept = tuple(sorted((k, v) for k, v in items.items() if v != VARIANTS[k].default
                            or type(v) is not type(VARIANTS[k].default)))
        object.__setattr__(self, "options", kept)
        ChunkPUDD(self.alpha, **dict(kept))  # the library's own checks of each value

    @property
    def alpha(self) -> float:
        """The threshold, ``10**-alpha_exponent``."""
        return float(10.0 ** -self.alpha_exponent)

    def value(self, name: str) -> Any:
        """The setting's value of variant option ``name`` (its default unless changed)."""
        return dict(self.options).get(
            name, VARIANTS[name].default)

    @property
    def label(self) -> str:
        """``PUDD-x``, with the changed options in short words: a chart's trace name."""
        opts = self.options
        words = [f"floor {v}" if k == "clamp_min" else _SHORT.get(k, {}).get(v, f"{k}={v}")
                 for k, v in opts]
        return f"PUDD-{self.alpha_exponent}" + (f" ({', '.join(words)})" if words else "")

    @property
    def text(self) -> str:
        """The setting in a link: ``x`` then ``,name=value`` per changed option."""
        opts = self.options
        return ",".join([str(self.alpha_exponent), *(f"{k}={v}" for k, v in opts)])

    @classmethod
    def parse(cls, text: str) -> PUDDSetting:
        """The setting written as :attr:`text`; a ``ParameterError`` names what is wrong."""
        head, *pairs = [part.strip() for part in text.split(",")]
        if not head.isdigit():
            raise _validation.ParameterError(
                "alpha_exponent", f"a setting starts with x of PUDD-x (an integer), got {head!r}")
        unknown = [p.partition("=")[0] for p in pairs if p.partition("=")[0] not in VARIANTS]
        if unknown:
            raise _validation.ParameterError(
                "options", f"unknown option(s) {', '.join(unknown)}; the explorer offers "
                           f"{', '.join(VARIANTS)}")
        return cls(int(head), parse_option_pairs("detector", "pudd", pairs))

    def notes(self) -> tuple[str, ...]:
        """What the chosen options mean for this setting beyond their own help.

        Examples
        --------
        >>> PUDDSetting(3, {"partition": "ek", "cache_buckets": False}).notes()[0][:45]
        'Only the chunk detector (ChunkPUDD) has this:'
        """
        out = []
        lacking = [k for k, _ in self.options
                   if not VARIANTS[k].online]
        if lacking:
            out.append(f"Only the chunk detector (ChunkPUDD) has this: the online PUDD "
                       f"(Algorithm 2) lacks {', '.join(lacking)}, so this setting has no "
                       "instance-by-instance counterpart.")
        if self.value("partition") == "ek":
            out.append("EK buckets every prediction and has no misclassified column: its table "
                       "is 2 x K, and the skip rule still reads accuracy or PU means.")
        if not self.value("yates"):
            out.append("Yates' correction acts only on 2 x 2 tables (one bucket): other tests "
                       "are unchanged.")
        return tuple(out)


def read_setting(text: str) -> tuple[PUDDSetting, tuple[str, ...]]:
    """A setting's link text read leniently: the setting made of what parsed, and each problem.

    The explorer runs a setting only when its text has no problem; the controls show the
    parts that parsed, and the problems are shown next to them.

    Examples
    --------
    >>> read_setting("5,cut_points=all")
    (PUDDSetting(alpha_exponent=5, options=(('cut_points', 'all'),)), ())
    >>> setting, problems = read_setting("12,yates=maybe,cut_points=all,speed=9")
    >>> setting.label
    'PUDD-3 (all cuts)'
    >>> for p in problems: print(p)
    `12`: the threshold is PUDD-x with x an integer from 1 to 10
    `yates=maybe`: option yates expects true or false, got 'maybe'
    `speed=9`: the explorer's options are cut_points, skip_rule, clamp_min, yates, ...
    >>> read_setting("3,clamp_min=1001")[1]
    ("`clamp_min=1001`: the explorer's clamp_min goes from 0 to 1000",)
    """
    head, *pairs = [part.strip() for part in text.split(",")]
    problems = []
    exponent = int(head) if head.isdigit() else 0
    if not 1 <= exponent <= 10:
        problems.append(f"`{head}`: the threshold is PUDD-x with x an integer from 1 to 10")
        exponent = PUDDSetting.alpha_exponent
    options: dict[str, Any] = {}
    for pair in pairs:
        name = pair.partition("=")[0].strip()
        if name not in VARIANTS:
            problems.append(f"`{pair}`: the explorer's options are {', '.join(VARIANTS)}")
            continue
        try:
            parsed = dict(parse_option_pairs("detector", "pudd", [pair]))
            ChunkPUDD(**parsed)  # the value alone, checked by the detector
        except ValueError as err:
            problems.append(f"`{pair}`: {err}")
            continue
        bounds = VARIANTS[name].bounds
        if bounds is not None and not bounds[0] <= parsed[name] <= bounds[1]:
            problems.append(f"`{pair}`: the explorer's {name} goes from {bounds[0]} to "
                            f"{bounds[1]}")
            continue
        options.update(parsed)
    try:
        return PUDDSetting(exponent, tuple(options.items())), tuple(problems)
    except ValueError as err:  # a combination the detector refuses
        return PUDDSetting(exponent), (*problems, f"`{text}`: {err}")


@dataclass(frozen=True)
class Comparison:
    """The finished runs of an exploration, grouped: ``settings[i][j]`` is setting i, seed j."""

    labels: tuple[str, ...]
    seeds: tuple[int, ...]
    settings: tuple[tuple[RunResult, ...], ...]
    baselines: tuple[tuple[RunResult, ...], ...]


def compared_detectors() -> tuple[str, ...]:
    """The detectors the explorer can run beside PUDD: the baselines and the references.

    Three kinds, in this order: the registry's river baselines (fed the errors), MCD-DD
    (Table 2's label-free SOTA detector, fed the features), and the references (the same
    model with no detector, and the oracle adapting at the stream's true drifts, only where
    they are known: :meth:`ExplorerConfig.dropped` says when it was left out).

    Examples
    --------
    >>> compared_detectors()
    ('adwin', 'ddm', 'eddm', 'hddma', 'hddmw', 'kswin', 'pagehinkley', 'mcd-dd',
     'none', 'oracle')
    """
    return detector_names("errors", "features", "reference")


def _and(names: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


@dataclass(frozen=True)
class ExplorerConfig:
    """One exploration: a stream, a classifier, PUDD settings and the baselines beside them.

    Parameters
    ----------
    dataset
        A registry stream, or the name of a user stream (see
        :func:`~pudd_core.views.explorer_upload.upload_name`).
    classifier, regime, seed
        As in :class:`~pudd_core.experiments.runner.RunConfig`.
    settings
        One to four :class:`PUDDSetting`, each its own run; their labels must differ.
    baselines
        Detectors run beside PUDD, each on its own model: the river baselines, the
        label-free SOTA detector MCD-DD and the references (:func:`compared_detectors`); the
        oracle is left out (``dropped``) on a stream whose drifts are unknown.
    seeds
        Runs over seeds ``seed .. seed + seeds - 1`` (at most ``MAX_SEEDS``).
    chunk_size, n_chunks
        Samples per chunk, and how many chunks (``None``: the stream's own).

    Examples
    --------
    >>> cfg = ExplorerConfig(settings=(PUDDSetting(3), PUDDSetting(5, {"cut_points": "all"})),
    ...                      baselines=("ddm",), n_chunks=20, seeds=2)
    >>> [(c.detector, c.alpha, c.seed, c.detector_options) for c in cfg.run_configs()]
    [('pudd', 0.001, 0, ()), ('pudd', 1e-05, 0, (('cut_points', 'all'),)),
     ('ddm', 0.001, 0, ()), ('pudd', 0.001, 1, ()),
     ('pudd', 1e-05, 1, (('cut_points', 'all'),)), ('ddm', 0.001, 1, ())]
    """

    dataset: str = "sea0"
    classifier: str = "gnb"
    regime: Regime = "incremental"
    settings: tuple[PUDDSetting, ...] = (PUDDSetting(),)
    baselines: tuple[str, ...] = ("adwin", "ddm", "none", "oracle")
    seed: int = 0
    seeds: int = 1
    chunk_size: int | None = 1000
    n_chunks: int | None = None
    dropped: tuple[str, ...] = field(default=(), init=False, compare=False)
    """Baselines asked for but not run: the oracle on a stream whose drifts are unknown."""

    def __post_init__(self) -> None:
        compared = compared_detectors()
        unknown = [b for b in self.baselines if b not in compared]
        if unknown:
            raise ValueError(f"unknown baseline(s) {', '.join(unknown)}; choose from "
                             f"{', '.join(compared)}")
        needing = tuple(b for b in compared if b in self.baselines and needs_drifts(b))
        dropped = needing if needing and not drifts_known(self.dataset) else ()
        object.__setattr__(self, "baselines", tuple(
            b for b in compared if b in self.baselines and b not in dropped))
        object.__setattr__(self, "dropped", dropped)
        if not 1 <= len(self.settings) <= MAX_SETTINGS:
            raise _validation.ParameterError(
                "settings", f"choose 1 to {MAX_SETTINGS} PUDD settings, got {len(self.settings)}")
        labels = [s.label for s in self.settings]
        if len(set(labels)) < len(labels):
            raise _validation.ParameterError("settings", "two PUDD settings are the same")
        _validation.check_positive_int("seeds", self.seeds)
        if self.seeds > MAX_SEEDS:
            raise _validation.ParameterError(
                "seeds", f"seeds must be at most {MAX_SEEDS}, got {self.seeds}")

    @property
    def alpha(self) -> float:
        """The first setting's threshold."""
        return self.settings[0].alpha

    @property
    def alpha_exponent(self) -> int:
        """The first setting's x of PUDD-x."""
        return self.settings[0].alpha_exponent

    def _first_seed_configs(self) -> list[RunConfig]:
        base = RunConfig(self.dataset, self.classifier, "pudd", regime=self.regime,
                         seed=self.seed, chunk_size=self.chunk_size, n_chunks=self.n_chunks)
        return [*(dataclasses.replace(base, alpha=s.alpha, record_windows=True,
                                      detector_options=s.options) for s in self.settings),
                *(dataclasses.replace(base, detector=b) for b in self.baselines)]

    def seed_dependence(self) -> tuple[SeedDependence, ...]:
        """Which parts of each setting's and baseline's run depend on the seed (in order)."""
        return tuple(seed_dependence(c) for c in self._first_seed_configs())

    @property
    def seeds_run(self) -> int:
        """How many seeds are run: one where no run depends on the seed, else ``seeds``.

        Examples
        --------
        >>> ExplorerConfig("elec2", seeds=5, chunk_size=100, n_chunks=10).seeds_run
        1
        >>> ExplorerConfig("elec2", seeds=5).seeds_run  # PUDD samples windows over 1,000 values
        5
        """
        if self.seeds == 1 or not any(d.depends for d in self.seed_dependence()):
            return 1
        return self.seeds

    def seed_note(self) -> str | None:
        """What the seeds change here, for several seeds where some run ignores them.

        Examples
        --------
        >>> print(ExplorerConfig("elec2", seeds=5, chunk_size=100, n_chunks=10).seed_note())
        elec2 × gnb does not depend on the seed with these settings: one run shown, not a mean
        of 5 identical ones.
        >>> print(ExplorerConfig("elec2", seeds=5, baselines=("ddm", "none")).seed_note())
        Only PUDD-3 depends on the seed here (through PUDD's bucketing sample (reference
        windows over 1,000 values)); DDM and No detector (ref.) are the same for every seed:
        one run each, not a band.
        >>> ExplorerConfig("sea0", seeds=5).seed_note() is None
        True
        >>> from pudd_core.views.explorer_upload import upload_name
        >>> ExplorerConfig(upload_name(b"x,y"), seeds=2, baselines=("ddm",), chunk_size=100,
        ...                n_chunks=5).seed_note()[:45]
        'your file × gnb does not depend on the seed w'
        >>> ExplorerConfig(upload_name(b"x,y"), seeds=2).seeds_run  # the length not known: PUDD
        2
        """
        if self.seeds == 1:
            return None
        deps = self.seed_dependence()
        if not any(d.depends for d in deps):
            stream = "your file" if self.dataset.startswith("csv-") else self.dataset
            return (f"{stream} × {self.classifier} does not depend on the seed with "
                    f"these settings: one run shown, not a mean of {self.seeds} identical ones.")
        names = [*(s.label for s in self.settings), *(DETECTORS[b] for b in self.baselines)]
        free = [n for n, d in zip(names, deps, strict=True) if not d.depends]
        if not free:
            return None
        parts = sorted({p for d in deps for p in d.parts()})
        depending = [n for n, d in zip(names, deps, strict=True) if d.depends]
        return (f"Only {_and(depending)} depend{'s' if len(depending) == 1 else ''} on the "
                f"seed here (through {_and(parts)}); {_and(free)} "
                f"{'is' if len(free) == 1 else 'are'} the same for every seed: one run "
                "each, not a band.")

    def run_configs(self) -> tuple[RunConfig, ...]:
        """Per seed: each setting's run (with windows and tests recorded), then each baseline's.

        The baselines ignore the threshold, so their configs keep the default ``alpha``:
        changing a setting reuses their cached runs. A run that does not depend on the seed
        (:meth:`seed_dependence`) is the first seed's at every seed: computed once.
        """
        first = self._first_seed_configs()
        free = [not d.depends for d in self.seed_dependence()]
        out: list[RunConfig] = []
        for seed in range(self.seed, self.seed + self.seeds_run):
            out += [c if seed == self.seed or f else dataclasses.replace(c, seed=seed)
                    for c, f in zip(first, free, strict=True)]
        return tuple(out)

    def comparison(self, results: Sequence[RunResult]) -> Comparison:
        """``results`` of :meth:`run_configs` (in its order), grouped by setting and seed."""
        per_seed = len(self.settings) + len(self.baselines)
        if len(results) != per_seed * self.seeds_run:
            raise ValueError(f"expected {per_seed * self.seeds_run} runs, got {len(results)}")
        rows = [results[i:i + per_seed] for i in range(0, len(results), per_seed)]
        n = len(self.settings)
        return Comparison(
            labels=tuple(s.label for s in self.settings),
            seeds=tuple(range(self.seed, self.seed + self.seeds_run)),
            settings=tuple(tuple(row[i] for row in rows) for i in range(n)),
            baselines=tuple(tuple(row[n + j] for row in rows)
                            for j in range(len(self.baselines))),
        )

    def file_stem(self) -> str:
        """The downloads' common file name: stream, classifier, every setting and the seeds.

        Each setting's label becomes letters, digits, dots and dashes (as the player names
        its figures), so two explorations' files never take each other's name.

        Examples
        --------
        >>> ExplorerConfig(settings=(PUDDSetting(3), PUDDSetting(5, {"cut_points": "all"})),
        ...                seeds=3).file_stem()
        'pudd_sea0_gnb_PUDD-3+PUDD-5-all-cuts_seed0-2'
        >>> ExplorerConfig(seed=4).file_stem()
        'pudd_sea0_gnb_PUDD-3_seed4'
        """
        settings = "+".join(re.sub(r"[^A-Za-z0-9.]+", "-", s.label).strip("-")
                            for s in self.settings)
        seeds = f"{self.seed}" if self.seeds == 1 else f"{self.seed}-{self.seed + self.seeds - 1}"
        return f"pudd_{self.dataset}_{self.classifier}_{settings}_seed{seeds}"

    def as_python(self) -> str:
        """The equivalent ``pudd_core`` calls, for a "show the code" panel."""
        lines = ["from pudd_core.experiments.runner import RunConfig, run_experiment", ""]
        if self.seeds > 1:
            lines.append(f"# and the same for seeds {self.seed + 1} .. "
                         f"{self.seed + self.seeds - 1}")
        for i, cfg in enumerate(self.run_configs()[: len(self.settings) + len(self.baselines)]):
            name = cfg.detector if i >= len(self.settings) or len(self.settings) == 1 else (
                f"pudd_{i + 1}")
            args = (f'"{cfg.dataset}", "{cfg.classifier}", "{cfg.detector}", '
                    f"alpha={cfg.alpha:g}, regime=\"{cfg.regime}\", seed={cfg.seed}")
            if cfg.chunk_size is not None:
                args += f", chunk_size={cfg.chunk_size}"
            if cfg.n_chunks is not None:
                args += f", n_chunks={cfg.n_chunks}"
            if cfg.detector_options:
                args += f", detector_options={dict(cfg.detector_options)!r}"
            if cfg.record_windows:
                args += ", record_windows=True"
            lines.append(f"{name} = run_experiment(RunConfig({args}))")
        return "\n".join(lines)


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
    (24, 21, ['PUDD', 'ADWIN', 'DDM', 'No detector (ref.)', 'Oracle (ref.)'], (20,), (10, 20))
    >>> v.alarms["Oracle (ref.)"], v.alarms["No detector (ref.)"]  # the true drifts; none
    ((10, 20), ())
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
    >>> cfg = ExplorerConfig(n_chunks=12, baselines=("adwin", "ddm"))
    >>> runs = [run_experiment(c) for c in cfg.run_configs()]
    >>> frame = run_log_frame(runs[0], runs[1:])
    >>> len(frame), list(frame.columns[-3:])
    (11, ['alarm_ddm', 'error_rate_ddm', 'detections_ddm'])
    >>> bool(frame.loc[0, "tested"]), float(frame.loc[0, "p_value"])  # chunk 1: no history yet
    (False, nan)
    """
    # PUDD tests chunks, it has no positions within them: detections are the baselines'
    frame = pudd.to_frame().drop(columns=["predict_ms", "detect_ms", "train_ms", "detections"])
    # no test is not p = 1 (the UI: "no test"); to_frame already leaves p missing there
    tested = [c.no_test is None for c in pudd.chunks]
    frame.insert(frame.columns.get_loc("p_value"), "tested", tested)
    if pudd.drift_chunks is not None:
        frame["true_drift"] = frame["chunk_index"].isin(pudd.drift_chunks)
    for run in baselines:
        name = run.config.detector
        frame[f"alarm_{name}"] = [c.alarm for c in run.chunks]
        frame[f"error_rate_{name}"] = [c.error_rate for c in run.chunks]
        frame[f"detections_{name}"] = [json.dumps(list(c.detections)) for c in run.chunks]
    return frame


def comparison_log_frame(comparison: Comparison) -> pd.DataFrame:
    """Every setting's and seed's :func:`run_log_frame`, one under the other, for the CSV.

    Columns ``setting`` (its label) and ``seed`` come first; the baselines' columns are those of
    the same seed. (The download held setting 1's first seed only.)

    Examples
    --------
    >>> from pudd_core.experiments.runner import run_experiment
    >>> cfg = ExplorerConfig(n_chunks=6, seeds=2, baselines=("ddm",),
    ...                      settings=(PUDDSetting(3), PUDDSetting(5, {"cut_points": "all"})))
    >>> frame = comparison_log_frame(cfg.comparison([run_experiment(c)
    ...                                              for c in cfg.run_configs()]))
    >>> frame.groupby(["setting", "seed"], sort=False).size().to_dict()
    {('PUDD-3', 0): 5, ('PUDD-3', 1): 5, ('PUDD-5 (all cuts)', 0): 5, ('PUDD-5 (all cuts)', 1): 5}
    >>> list(frame.columns[:3]), frame.columns[-1]
    (['setting', 'seed', 'chunk_index'], 'detections_ddm')
    """
    import pandas as pd

    parts = []
    for label, runs in zip(comparison.labels, comparison.settings, strict=True):
        for j, run in enumerate(runs):
            frame = run_log_frame(run, [group[j] for group in comparison.baselines])
            frame.insert(0, "seed", run.config.seed)
            frame.insert(0, "setting", label)
            parts.append(frame)
    return pd.concat(parts, ignore_index=True)


def summary_frame(runs: Sequence[RunResult], labels: Sequence[str] = ()) -> pd.DataFrame:
    """One row per detector: alarms, mean accuracy and, when drifts are known, detection.

    The first ``len(labels)`` runs are named by ``labels`` (PUDD settings), the others by
    their detector.

    Examples
    --------
    >>> from pudd_core.experiments.runner import run_experiment
    >>> runs = [run_experiment(c) for c in ExplorerConfig(n_chunks=25).run_configs()]
    >>> summary_frame(runs)[["alarms", "missed", "false alarms"]]
                        alarms  missed  false alarms
    PUDD                     1       1             0
    ADWIN                    1       1             0
    DDM                      4       1             3
    No detector (ref.)       0       2             0
    Oracle (ref.)            2       0             0
    """
    frame = runs_frame(runs)
    out = frame[["n_alarms", "accuracy", "mean_delay", "missed", "false_alarms"]].round(
        {"accuracy": 4, "mean_delay": 2})
    out.columns = ["alarms", "accuracy", "mean delay (chunks)", "missed", "false alarms"]
    out.index = [labels[i] if i < len(labels) else _name(run) for i, run in enumerate(runs)]
    return out.astype({"missed": "Int64", "false alarms": "Int64"})  # NA without ground truth
