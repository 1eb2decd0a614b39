"""Detection delays as distributions, who detects a drift first, and each threshold's trade-off.

A run's mean delay hides its spread, and the tables' runs cannot say which detector caught a
drift first: after its first alarm each run adapts its own model, so two detectors no longer
see the same predictions. Here every detector reads **the same predictions**: the classifier
of a run with no detector (trained incrementally, never adapted) is run once per stream and
seed (:func:`record_predictions`), and each detector, at each of its thresholds, is fed its
chunks (:func:`replay_alarms`). Its alarms change nothing downstream, so each true drift is a
paired trial: :func:`drift_delays` lists every drift's delay per detector,
:func:`delay_summary` gives their quantiles, :func:`first_detection` the paired tests, and
:func:`trade_off` the early detections against the false alarms over each detector's
threshold. ``scripts/delay_study.py`` writes ``results/delays*.csv`` and ``delays.md``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import stats

from pudd_core import _validation
from pudd_core.experiments.detectors import ChunkVerdict, chunk_detector
from pudd_core.experiments.evaluation import match_alarms
from pudd_core.experiments.runner import RunConfig, run_chunks, run_model, run_seeds, run_stream
from pudd_core.paper import DISPLAY_NAMES
from pudd_core.reproduction.significance import holm

if TYPE_CHECKING:
    import os

__all__ = ["EARLY", "SWEEPS", "PairedDetection", "Predictions", "Setting", "delay_summary",
           "default_settings", "drift_delays", "first_detection", "first_against",
           "matched_early", "read_runs", "record_predictions", "replay_alarms", "study_tables",
           "sweep_settings", "trade_off"]

#: A drift counts as detected early when the first alarm of its segment is at most this many
#: chunks after its first chunk (the CIFAR comparison's rule).
EARLY = 2

#: Each detector's threshold swept for the trade-off curve: the option, its values (from the
#: most alarms to the fewest), and its default (the tables' runs). PUDD's is alpha.
SWEEPS: dict[str, tuple[str, tuple[float, ...], float]] = {
    "pudd": ("alpha", (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-8, 1e-10), 1e-3),
    "adwin": ("delta", (0.5, 0.1, 0.02, 0.002, 2e-4, 2e-5, 2e-7), 0.002),
    "ddm": ("drift_threshold", (2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0), 3.0),
    "eddm": ("beta", (0.94, 0.92, 0.9, 0.85, 0.8, 0.7, 0.6), 0.9),
    "hddma": ("drift_confidence", (0.1, 0.03, 0.01, 1e-3, 1e-4, 1e-5, 1e-7), 1e-3),
    "hddmw": ("drift_confidence", (0.1, 0.03, 0.01, 1e-3, 1e-4, 1e-5, 1e-7), 1e-3),
    # KSWIN's alpha: on 0/1 errors its KS statistic takes the values k/30 (stat_size 30), so
    # each of these thresholds admits a different smallest k (11, 12, 14, 15, 17, 21 of 30).
    "kswin": ("alpha", (0.05, 0.02, 0.005, 1e-3, 1e-4, 1e-6), 0.005),
    "pagehinkley": ("threshold", (5.0, 10.0, 20.0, 35.0, 50.0, 75.0, 100.0, 150.0), 50.0),
}


@dataclass(frozen=True)
class Setting:
    """One detector at one threshold: its row label, registry name and options.

    >>> s = Setting.of("pudd", 1e-5)
    >>> s.label, s.row, s.config("sea0", 0).alpha
    ('PUDD-5', 'pudd-5', 1e-05)
    >>> Setting.of("pagehinkley", 20.0).config("sea0", 0).detector_options
    (('threshold', 20.0),)
    >>> Setting.of("kswin", 0.005).config("sea0", 0).detector_options
    (('alpha', 0.005),)
    """

    detector: str
    value: float

    @classmethod
    def of(cls, detector: str, value: float) -> Setting:
        """The setting ``detector`` at threshold ``value`` (checked against :data:`SWEEPS`)."""
        if detector not in SWEEPS:
            raise _validation.ParameterError(
                "detector", f"no threshold sweep for {detector!r}: choose one of "
                            f"{', '.join(SWEEPS)}", tuple(SWEEPS))
        return cls(detector, float(value))

    @property
    def option(self) -> str:
        """The swept option's name."""
        return SWEEPS[self.detector][0]

    @property
    def is_default(self) -> bool:
        """Whether this is the threshold the tables' runs use."""
        return math.isclose(self.value, SWEEPS[self.detector][2])

    @property
    def row(self) -> str:
        """The tables' row name at the default (``pudd-3``, ``adwin``), else ``name@value``."""
        if self.detector == "pudd" and round(-math.log10(self.value)) == -math.log10(self.value):
            return f"pudd-{round(-math.log10(self.value))}"
        return self.detector if self.is_default else f"{self.detector}@{self.value:g}"

    @property
    def label(self) -> str:
        """The display name (``PUDD-3``, ``PH``), with the threshold where it is not the default."""
        if self.row.startswith("pudd-"):
            return self.row.upper()
        name = DISPLAY_NAMES.get(self.row)
        return name if name else f"{DISPLAY_NAMES[self.detector]} ({self.option}={self.value:g})"

    def config(self, dataset: str, seed: int, **fields: Any) -> RunConfig:
        """The run configuration of this setting on ``dataset`` and ``seed``."""
        if self.detector == "pudd":
            return RunConfig(dataset, fields.pop("classifier", "gnb"), "pudd", alpha=self.value,
                             seed=seed, **fields)
        options: tuple[tuple[str, Any], ...] = ((self.option, self.value),)
        if self.detector in ("hddma", "hddmw"):  # the warning level must stay above the drift's
            options += (("warning_confidence", max(0.005, 5 * self.value)),)
        return RunConfig(dataset, fields.pop("classifier", "gnb"), self.detector, seed=seed,
                         detector_options=options, **fields)


def sweep_settings(detectors: Iterable[str] | None = None) -> list[Setting]:
    """Every setting of the sweep (each detector at each of its thresholds).

    >>> [s.label for s in sweep_settings(["pudd"])][:3]
    ['PUDD-1', 'PUDD-2', 'PUDD-3']
    """
    return [Setting.of(d, v) for d in (detectors or SWEEPS) for v in SWEEPS[d][1]]


def default_settings() -> list[Setting]:
    """The tables' ten rows: PUDD-1/3/5 and the seven classic detectors at their defaults.

    >>> [s.row for s in default_settings()][:4]
    ['pudd-1', 'pudd-3', 'pudd-5', 'adwin']
    """
    return [*(Setting("pudd", a) for a in (1e-1, 1e-3, 1e-5)),
            *(Setting(d, SWEEPS[d][2]) for d in SWEEPS if d != "pudd")]


@dataclass(frozen=True)
class Predictions:
    """What a classifier that never adapts predicted on one stream, chunk by chunk.

    Every chunk's PU-index values and correctness, with the stream's true drifts.
    ``u[i]`` and ``correct[i]`` are chunk ``i + 1``'s (chunk 0 trains).

    >>> p = Predictions("toy", 0, (np.zeros(3),), (np.ones(3, dtype=bool),), (1,), 2)
    >>> p.n_tested
    1
    """

    dataset: str
    seed: int
    u: tuple[NDArray[np.float64], ...]
    correct: tuple[NDArray[np.bool_], ...]
    drift_chunks: tuple[int, ...]
    n_chunks: int

    @property
    def n_tested(self) -> int:
        """Tested chunks."""
        return len(self.u)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write to a ``.npz`` file (plain arrays, read back without pickle)."""
        np.savez_compressed(
            path, u=np.stack(self.u), correct=np.stack(self.correct),
            drift_chunks=np.asarray(self.drift_chunks, dtype=np.int64),
            meta=np.asarray([self.seed, self.n_chunks], dtype=np.int64),
            dataset=np.asarray(self.dataset))

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Predictions:
        """Read a file :meth:`save` wrote (``allow_pickle=False``: data, never code)."""
        with np.load(path, allow_pickle=False) as f:
            seed, n_chunks = (int(v) for v in f["meta"])
            return cls(str(f["dataset"]), seed, tuple(f["u"]), tuple(f["correct"]),
                       tuple(int(d) for d in f["drift_chunks"]), n_chunks)


@dataclass
class _Recorder:
    """A chunk-loop detector that keeps each chunk's values and never alarms."""

    u: list[NDArray[np.float64]]
    correct: list[NDArray[np.bool_]]

    def test(self, t: int, u: NDArray[np.float64], correct: NDArray[np.bool_],
             features: NDArray[Any] | None = None) -> ChunkVerdict:
        self.u.append(np.array(u, dtype=np.float64))
        self.correct.append(np.array(correct, dtype=bool))
        return ChunkVerdict(alarm=False)


def record_predictions(config: RunConfig, *, data_dir: str | None = None) -> Predictions:
    """The predictions of ``config``'s classifier with no detector, on its stream and seed.

    The same stream and model seeds as the tables' run of ``config`` (any detector): only the
    detector differs, and here there is none, so the model is never adapted.

    >>> p = record_predictions(RunConfig("sea0", "gnb", "none", seed=0, n_chunks=12))
    >>> p.n_tested, p.drift_chunks, p.u[0].shape
    (11, (10,), (1000,))
    """
    config = replace(config, detector="none", alpha=RunConfig.alpha, detector_options=())
    config.validate(data_dir)
    seeds = run_seeds(config.seed)
    stream = run_stream(config, seed=seeds.stream, data_dir=data_dir)
    if stream.drift_chunks is None:
        raise _validation.ParameterError(
            "dataset", f"{config.dataset!r} has no known drifts: the delays need a stream "
                       "whose drifts are known (a synthetic stream or CIFAR-10-CD)")
    recorder = _Recorder([], [])
    run_chunks(stream, run_model(config, stream, seed=seeds.model), recorder,
               regime=config.regime, double_initial_fit=config.double_initial_fit)
    return Predictions(config.dataset, config.seed, tuple(recorder.u),
                       tuple(recorder.correct), tuple(stream.drift_chunks), stream.n_chunks)


def replay_alarms(predictions: Predictions, setting: Setting) -> tuple[int, ...]:
    """The chunks where ``setting`` alarms on ``predictions`` (seeded as the tables' run).

    >>> p = record_predictions(RunConfig("sea0", "gnb", "none", seed=0, n_chunks=30))
    >>> replay_alarms(p, Setting.of("pudd", 1e-3))
    (20,)
    """
    config = setting.config(predictions.dataset, predictions.seed)
    detector = chunk_detector(config, run_seeds(predictions.seed).detector,
                              predictions.drift_chunks)
    return tuple(t for t, (u, ok) in enumerate(zip(predictions.u, predictions.correct,
                                                   strict=True), start=1)
                 if detector.test(t, u, ok).alarm)


def drift_delays(alarms: pd.DataFrame) -> pd.DataFrame:
    """One row per true drift per run: its delay in chunks (NaN: not detected).

    ``alarms``: one row per run with ``dataset``, ``seed``, ``row`` (the setting),
    ``alarms``, ``drift_chunks`` (sequences) and ``n_chunks``; other columns are kept.

    >>> runs = pd.DataFrame({"dataset": ["s"], "seed": [0], "row": ["a"], "alarms": [(3, 12)],
    ...                      "drift_chunks": [(10, 20)], "n_chunks": [30]})
    >>> drift_delays(runs)[["drift", "chunk", "delay"]].to_dict("list")
    {'drift': [0, 1], 'chunk': [10, 20], 'delay': [2.0, nan]}
    """
    out = []
    for run in alarms.to_dict("records"):
        found = match_alarms(run["alarms"], run["drift_chunks"], int(run["n_chunks"]))
        for i, (chunk, hit) in enumerate(zip(run["drift_chunks"], found.detected,
                                             strict=True)):
            out.append({**{k: v for k, v in run.items()
                           if k not in ("alarms", "drift_chunks")},
                        "drift": i, "chunk": int(chunk),
                        "delay": float(hit - chunk) if hit is not None else math.nan})
    return pd.DataFrame(out)


def delay_summary(delays: pd.DataFrame, by: Sequence[str] = ("row",)) -> pd.DataFrame:
    """Per ``by`` group: the drifts, how many were detected and early, and the delays' quantiles.

    Quantiles are over the detected drifts (chunks); ``mean`` is the tables' mean delay.

    >>> d = pd.DataFrame({"row": ["a"] * 5, "delay": [0, 0, 1, 4, np.nan]})
    >>> s = delay_summary(d).iloc[0]
    >>> [int(s[k]) for k in ("drifts", "detected", "early")], [round(float(s[k]), 2)
    ...                                                        for k in ("median", "q90", "max")]
    ([5, 4, 3], [0.5, 3.1, 4.0])
    """
    rows = []
    for key, group in delays.groupby(list(by), sort=False):
        found = group["delay"].dropna().to_numpy(dtype=float)
        q = np.quantile(found, [0.25, 0.5, 0.75, 0.9]) if len(found) else [math.nan] * 4
        rows.append({**dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True)),
                     "drifts": len(group), "detected": len(found),
                     "early": int((found <= EARLY).sum()),
                     "mean": float(found.mean()) if len(found) else math.nan,
                     "q25": float(q[0]), "median": float(q[1]), "q75": float(q[2]),
                     "q90": float(q[3]), "max": float(found.max()) if len(found) else math.nan})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class PairedDetection:
    """Two detectors on the same drifts: who detected each first, and two paired tests.

    ``first_a`` / ``first_b``: drifts one detected strictly before the other (a miss counts as
    later than any detection); ``ties``: both at the same chunk; ``neither``: both missed.
    ``sign_p``: two-sided binomial (sign) test of ``first_a`` against ``first_b``, ties left
    out; ``wilcoxon_p``: two-sided Wilcoxon signed-rank test of the delays on the ``both``
    drifts both detected (zero differences dropped; NaN when none differ).

    >>> r = PairedDetection("a", "b", 9, 1, 0, 0, 10, 0.021, 0.01, -1.0)
    >>> r.first_a + r.first_b + r.ties + r.neither, r.sign_p < 0.05
    (10, True)
    """

    a: str
    b: str
    first_a: int
    first_b: int
    ties: int
    neither: int
    both: int
    sign_p: float
    wilcoxon_p: float
    median_difference: float


def first_detection(delays: pd.DataFrame, a: str, b: str) -> PairedDetection:
    """Pair rows ``a`` and ``b`` drift by drift (same dataset, seed and drift) and test.

    >>> d = pd.DataFrame({"dataset": "s", "seed": 0, "drift": [0, 1, 2, 3] * 2,
    ...                   "row": ["a"] * 4 + ["b"] * 4,
    ...                   "delay": [0, 1, 0, np.nan, 2, 1, np.nan, np.nan]})
    >>> r = first_detection(d, "a", "b")
    >>> r.first_a, r.first_b, r.ties, r.neither, r.both, round(r.sign_p, 2)
    (2, 0, 1, 1, 2, 0.5)
    """
    keys = ["dataset", "seed", "drift"]
    wide = delays[delays["row"].isin([a, b])].pivot_table(
        index=keys, columns="row", values="delay", aggfunc="first", dropna=False)
    missing = [r for r in (a, b) if r not in wide.columns]
    if missing:
        raise _validation.ParameterError("row", f"no delays of {', '.join(missing)}")
    da = wide[a].to_numpy(dtype=float)
    db = wide[b].to_numpy(dtype=float)
    ia, ib = np.where(np.isnan(da), np.inf, da), np.where(np.isnan(db), np.inf, db)
    neither = int((np.isinf(ia) & np.isinf(ib)).sum())
    first_a, first_b = int((ia < ib).sum()), int((ib < ia).sum())
    ties = int(((ia == ib) & ~np.isinf(ia)).sum())
    decided = first_a + first_b
    sign_p = stats.binomtest(first_a, decided).pvalue if decided else math.nan
    both = ~np.isnan(da) & ~np.isnan(db)
    diff = da[both] - db[both]
    wilcoxon_p = (float(stats.wilcoxon(diff[diff != 0]).pvalue)
                  if np.count_nonzero(diff) else math.nan)
    return PairedDetection(a, b, first_a, first_b, ties, neither, int(both.sum()),
                           float(sign_p), wilcoxon_p,
                           float(np.median(diff)) if len(diff) else math.nan)


def first_against(delays: pd.DataFrame, a: str, others: Sequence[str]) -> pd.DataFrame:
    """:func:`first_detection` of ``a`` against each of ``others``, sign-test p Holm-adjusted.

    >>> d = pd.DataFrame({"dataset": "s", "seed": 0, "drift": [0, 1] * 3,
    ...                   "row": ["a", "a", "b", "b", "c", "c"],
    ...                   "delay": [0, 0, 1, 1, 0, np.nan]})
    >>> first_against(d, "a", ["b", "c"])[["b", "first_a", "first_b", "ties"]].values.tolist()
    [['b', 2, 0, 0], ['c', 1, 0, 1]]
    """
    results = [first_detection(delays, a, b) for b in others]
    frame = pd.DataFrame([r.__dict__ for r in results])
    finite = frame["sign_p"].notna()
    frame["sign_p_holm"] = math.nan
    if finite.any():
        frame.loc[finite, "sign_p_holm"] = holm(frame.loc[finite, "sign_p"].tolist())
    return frame


def trade_off(delays: pd.DataFrame, alarms: pd.DataFrame,
              by: Sequence[str] = ("detector", "value", "row")) -> pd.DataFrame:
    """Per setting: early detections (of all drifts) against false alarms per run.

    ``alarms`` are the runs :func:`drift_delays` read (``alarms`` and ``drift_chunks``);
    ``delays`` its result. A false alarm is an alarm that detected no drift
    (:func:`~pudd_core.experiments.evaluation.match_alarms`).

    >>> runs = pd.DataFrame({"dataset": "s", "seed": [0, 1], "detector": "x", "value": 1.0,
    ...                      "row": "x", "alarms": [(3, 12), (10,)],
    ...                      "drift_chunks": [(10, 20)] * 2, "n_chunks": 30})
    >>> trade_off(drift_delays(runs), runs)[["early", "drifts", "false_alarms"]].to_dict("list")
    {'early': [2], 'drifts': [4], 'false_alarms': [0.5]}
    """
    false = alarms.assign(false_alarms=[
        match_alarms(r["alarms"], r["drift_chunks"], int(r["n_chunks"])).false_alarms
        for r in alarms.to_dict("records")])
    per_run = false.groupby(list(by), sort=False)["false_alarms"].mean()
    summary = delay_summary(delays, by)
    return summary.merge(per_run.reset_index(), on=list(by))


def read_runs(path: str | os.PathLike[str]) -> pd.DataFrame:
    r"""``delays_runs.csv`` as ``scripts/delay_study.py`` writes it, lists parsed from JSON.

    >>> import io
    >>> text = ("dataset,classifier,seed,detector,value,row,default,alarms,drift_chunks,"
    ...         "n_chunks,run_s\nsea0,gnb,0,pudd,0.001,pudd-3,True,[20],\"[10, 20]\",30,0.1\n")
    >>> read_runs(io.StringIO(text)).loc[0, ["alarms", "drift_chunks"]].tolist()
    [(20,), (10, 20)]
    """
    import json

    runs = pd.read_csv(path)
    missing = {"dataset", "seed", "detector", "value", "row", "default", "alarms",
               "drift_chunks", "n_chunks"} - set(runs.columns)
    if missing:
        raise _validation.ParameterError(
            "path", f"not a delays_runs.csv: column(s) {', '.join(sorted(missing))} missing; "
                    "scripts/delay_study.py writes it")
    for column in ("alarms", "drift_chunks"):
        runs[column] = [tuple(int(v) for v in json.loads(text)) for text in runs[column]]
    return runs


def study_tables(runs: pd.DataFrame, rows: Sequence[str] | None = None
                 ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The study's three tables from its runs: delays, their summary, the trade-off curve.

    The delays per drift at the tables' thresholds, their summary per row, and the
    trade-off curve over every threshold.

    >>> runs = pd.DataFrame({"dataset": "s", "seed": 0, "detector": "pudd",
    ...     "value": [0.1, 1e-3], "row": ["pudd-1", "pudd-3"], "default": [False, True],
    ...     "alarms": [(3, 10), (11,)], "drift_chunks": [(10,)] * 2, "n_chunks": 20})
    >>> delays, summary, curve = study_tables(runs)
    >>> summary[["row", "early"]].values.tolist(), curve["false_alarms"].tolist()
    ([['pudd-1', 1], ['pudd-3', 1]], [1.0, 0.0])

    ``rows`` picks the default-threshold rows (default: every default row, PUDD-1/3/5 and
    the classic detectors' defaults).
    """
    defaults = runs[runs["default"].astype(bool) | runs["row"].isin(["pudd-1", "pudd-5"])]
    if rows is not None:
        defaults = defaults[defaults["row"].isin(rows)]
    delays = drift_delays(defaults)
    summary = delay_summary(delays)
    curve = trade_off(drift_delays(runs), runs, by=("detector", "value", "row", "default"))
    curve["default"] = curve["default"].astype(bool) | curve["row"].isin(["pudd-1", "pudd-5"])
    return delays, summary, curve


def matched_early(curve: pd.DataFrame, row: str) -> pd.DataFrame:
    """Each other detector read at ``row``'s false-alarm rate.

    Its best early count among its thresholds with no more false alarms per run (``early``
    NaN: none has so few).

    >>> c = pd.DataFrame({"detector": ["pudd", "ph", "ph"], "row": ["pudd-3", "ph@1", "ph"],
    ...                   "value": [1e-3, 1.0, 2.0], "early": [6, 9, 4], "drifts": 10,
    ...                   "false_alarms": [1.0, 5.0, 0.5]})
    >>> matched_early(c, "pudd-3")[["detector", "row", "early"]].values.tolist()
    [['ph', 'ph', 4]]
    """
    at = curve[curve["row"] == row].iloc[0]
    out = []
    for det, group in curve[curve["detector"] != at["detector"]].groupby("detector", sort=False):
        fit = group[group["false_alarms"] <= at["false_alarms"] + 1e-12]
        best = fit.loc[fit["early"].idxmax()] if len(fit) else None
        out.append({"detector": det, "row": best["row"] if best is not None else "",
                    "early": best["early"] if best is not None else math.nan,
                    "false_alarms": best["false_alarms"] if best is not None else math.nan})
    return pd.DataFrame(out)
