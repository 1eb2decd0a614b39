"""Lesson 5: false alarms without drift, delay against alpha, and the count floor."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pudd_core.experiments.runner import RunConfig, run_stream
from pudd_core.experiments.sweep import (
    ALPHA_EXPONENTS,
    FLOOR_VARIANTS,
    FalseAlarmStudy,
    false_alarm_study,
    pu_false_alarm_rates,
    threshold_sweep,
)
from pudd_core.monitoring import CalibrationResult, MonitorResult
from pudd_core.views.course.questions import Question, option_of
from pudd_core.views.course.spread import CLASS_SEEDS, Spread, stored_entry, verdicts_from

__all__ = [
    "STUDY_VERDICTS",
    "FloorEffect",
    "LessonCalibration",
    "StudySpread",
    "STUDY_CHUNKS",
    "STUDY_CHUNK_SIZE",
    "SWEEP_CHUNKS",
    "SWEEP_DATASET",
    "Sweep",
    "calibrated_alpha",
    "drifting_sweep",
    "floor_effect",
    "stationary_study",
    "study_spread",
    "study_verdict",
    "threshold_question",
]


#: Lesson 5's stream without drift: this many chunks of this many predictions (chosen by
#: data: docs/teaching.md, scripts/course_defaults.py).
STUDY_CHUNKS, STUDY_CHUNK_SIZE = 60, 500


def stationary_study(seed: int = 0, *, n_chunks: int = STUDY_CHUNKS,
                     chunk_size: int = STUDY_CHUNK_SIZE) -> FalseAlarmStudy:
    """PUDD's tests on SEA without drift (Gaussian NB), for the threshold lesson.

    Examples
    --------
    >>> study = stationary_study(0, n_chunks=6)
    >>> list(study.chunk_p.columns), bool((study.chunk_p["min_p"] <= 1).all())
    (['chunk', 'min_p', 'n_cuts'], True)
    """
    return false_alarm_study("sea0", "gnb", n_chunks=n_chunks, chunk_size=chunk_size,
                             seed=seed)


#: Lesson 5's verdicts (:func:`study_verdict`): the question's options, the point first.
STUDY_VERDICTS: dict[str, str] = {
    "many": "more than 10% of the tested chunks alarmed at α = 0.05",
    "few": "up to 10% of them alarmed",
    "none": "none alarmed",
}


def study_verdict(study: FalseAlarmStudy, alpha: float = 0.05) -> str:
    """How many of the study's chunks alarm at ``alpha``, in the question's three ranges.

    ``"none"``, ``"few"`` (at most 10%) or ``"many"``: :func:`threshold_question`'s options.
    """
    n = len(study.chunk_p)
    hits = int((study.chunk_p["min_p"] < alpha).sum())
    return ("none", "few", "many")[option_of(hits, [0, 0.1 * n, np.inf])]


@dataclass(frozen=True)
class StudySpread:
    """Lesson 5's stream without drift at many seeds: the verdict, and alarms at two α."""

    spread: Spread
    tested: tuple[int, ...]
    hits_005: tuple[int, ...]
    hits_1e3: tuple[int, ...]

    def rates(self) -> tuple[float, float]:
        """The share of all tested chunks (every seed) alarming at α = 0.05 and at 10⁻³."""
        total = sum(self.tested)
        return sum(self.hits_005) / total, sum(self.hits_1e3) / total

    def rates_text(self) -> str:
        """The pooled rates, and what they make of a long stream, in words."""
        loose, strict = self.rates()
        return (f"Of all {sum(self.tested):,} chunks tested at these {len(self.tested)} seeds, "
                f"{loose:.1%} alarmed at α = 0.05 and {strict:.1%} at α = 10⁻³: on a stream of "
                f"1,000 chunks without drift, about {round(1000 * loose):,} false alarms "
                f"against {round(1000 * strict):,}.")


def study_spread(seeds: Iterable[int] = CLASS_SEEDS, *, n_chunks: int = STUDY_CHUNKS,
                 chunk_size: int = STUDY_CHUNK_SIZE, stored: bool = True) -> StudySpread:
    """:func:`stationary_study` at every seed of ``seeds``.

    At the class seeds a stored spread (:data:`spread.STORE`) is read when ``stored`` and
    there is one for these settings, else computed.

    Examples
    --------
    >>> s = study_spread(range(2), n_chunks=6)
    >>> s.spread.verdicts == tuple(study_verdict(stationary_study(i, n_chunks=6))
    ...                            for i in range(2))
    True
    """
    chosen = tuple(int(s) for s in seeds)
    entry = stored_entry("lesson5", f"{n_chunks} chunks of {chunk_size}") if stored else None
    if entry is not None and chosen == CLASS_SEEDS:
        counts = [tuple(int(v) for v in entry.get(k, ())) for k in ("tested", "hits_005",
                                                                   "hits_1e3")]
        if any(len(c) != len(CLASS_SEEDS) for c in counts):
            raise ValueError("the stored lesson 5 spread must count every class seed: run "
                             "scripts/course_defaults.py --write")
        return StudySpread(verdicts_from(entry, "verdicts", STUDY_VERDICTS), *counts)
    studies = [stationary_study(s, n_chunks=n_chunks, chunk_size=chunk_size) for s in chosen]
    return StudySpread(
        Spread(chosen, tuple(study_verdict(st) for st in studies), STUDY_VERDICTS),
        tuple(len(st.chunk_p) for st in studies),
        tuple(int((st.chunk_p["min_p"] < 0.05).sum()) for st in studies),
        tuple(int((st.chunk_p["min_p"] < 1e-3).sum()) for st in studies))


#: Lesson 5's drifting stream and its length (one of the Threshold lab's lengths).
SWEEP_DATASET, SWEEP_CHUNKS = "sea10", 30


@dataclass(frozen=True)
class Sweep:
    """Lesson 5's sweep (one row per exponent) and its stream's true drift chunks."""

    frame: pd.DataFrame = field(repr=False)
    drift_chunks: tuple[int, ...]


def drifting_sweep(seed: int = 0) -> Sweep:
    """PUDD at α = 10⁻¹ … 10⁻¹⁰ on :data:`SWEEP_DATASET` (:data:`SWEEP_CHUNKS` chunks).

    One row per exponent, as :func:`~pudd_core.experiments.sweep.threshold_sweep`: the
    Threshold lab's sweep of the same stream, classifier, length and seed.
    """
    cfg = RunConfig(SWEEP_DATASET, "gnb", n_chunks=SWEEP_CHUNKS, seed=seed)
    return Sweep(threshold_sweep(cfg, ALPHA_EXPONENTS, (seed,)),
                 tuple(run_stream(cfg).drift_chunks or ()))


#: Lesson 5's calibration on its drifting stream: the target false alarms per chunk and the
#: resamples (50 resamples of the first 6 chunks: 300 chunks, enough for an interval's upper
#: end under 0.02 when no false alarm is seen).
CALIB_TARGET, CALIB_RESAMPLES = 0.02, 50


@dataclass(frozen=True)
class LessonCalibration:
    """α chosen on the drifting stream's chunks before its first drift, and the rest at it.

    Chunks are the runner's (chunk 0 trains the model; the log starts at chunk 1). The
    stretch is the monitor's reference: its chunks are PUDD's history for the first test
    after it (``rest.reference_chunks``), their alarms kept apart.
    """

    calibration: CalibrationResult = field(repr=False)
    rest: MonitorResult = field(repr=False)
    stretch: int  # chunks 1 .. stretch are the stable stretch
    drift_chunks: tuple[int, ...]

    @property
    def alarms(self) -> tuple[int, ...]:
        """The alarms after the stretch at the chosen α, as the runner numbers chunks."""
        return tuple(a + self.stretch + 1 for a in self.rest.alarms)

    def text(self) -> str:
        """What the calibration chose and what it then did, in words, from the numbers."""
        cal = self.calibration
        best = cal.recommended
        assert best is not None
        q = best.delay_quantiles()
        alarms = ", ".join(map(str, self.alarms)) or "none"
        return (
            f"Chunks 1 to {self.stretch} come before the first drift (chunk "
            f"{self.drift_chunks[0]}): resampled {cal.n_resamples} times, they give each α's "
            f"false alarms per chunk. The largest α whose 95 % interval stays under "
            f"{cal.target:g} is **α = {best.alpha:g}**: {best.n_alarms} false alarm"
            f"{'s' if best.n_alarms != 1 else ''} in "
            f"{best.n_chunks} resampled chunks ({best.false_alarm_rate:.1%}, interval "
            f"{best.ci[0]:.1%} to {best.ci[1]:.1%}), and a confidence shift injected half-way "
            f"is caught within {best.within} chunks in {best.detection_rate:.0%} of the "
            f"resamples (median delay {q[0.5]:g} chunks). Monitored at that α with the "
            f"stretch as its reference (PUDD's history for the first chunk after it), chunks "
            f"{self.stretch + 1} to {self.stretch + self.rest.n_chunks} alarm at: {alarms} "
            f"(true drifts at {', '.join(map(str, self.drift_chunks))}): a monitor only "
            f"watches, so this model, updated on every chunk, is never retrained at an alarm, "
            f"unlike the sweep's runs above.")


def calibrated_alpha(seed: int = 0, *, n_resamples: int = CALIB_RESAMPLES,
                     target: float = CALIB_TARGET) -> LessonCalibration:
    """α calibrated on :data:`SWEEP_DATASET`'s chunks before its first drift (Gaussian NB).

    The lesson's drifting stream as a prediction log (``export_predictions``), its chunks
    before the first drift the stable stretch of ``monitoring.calibrate_log`` and the
    monitor's reference, the rest monitored at the α chosen for ``target`` false alarms per
    chunk.

    Examples
    --------
    >>> c = calibrated_alpha(0, n_resamples=20, target=0.05)
    >>> c.stretch, c.drift_chunks, c.rest.n_chunks, c.rest.reference_chunks
    (9, (10, 20), 20, 9)
    >>> c.calibration.recommended.ci[1] <= 0.05
    True
    """
    from pudd_core.experiments.export import export_predictions
    from pudd_core.monitoring import calibrate_log

    cfg = RunConfig(SWEEP_DATASET, "gnb", n_chunks=SWEEP_CHUNKS, seed=seed)
    log = export_predictions(cfg)
    drifts = tuple(run_stream(cfg).drift_chunks or ())
    chunk_size = int((log["chunk"] == 1).sum())
    stretch = drifts[0] - 1  # every chunk before the drift: the reference of its first test
    cal, rest = calibrate_log(log, label="label", proba_prefix="proba_",
                              chunk_size=chunk_size, calibrate_on=stretch * chunk_size,
                              false_alarm_rate=target, n_resamples=n_resamples, seed=seed,
                              variant="authors")
    return LessonCalibration(cal, rest, stretch, drifts)


@dataclass(frozen=True)
class FloorEffect:
    """Alarms per chunk on chunks of 100 predictions without any error, at α = 10⁻³.

    ``with_floor``: the authors' floor of 5 on every cell; ``without``: no floor, sparse
    columns merged until every expected count reaches 5 (the calibrated variant).
    """

    n_chunks: int
    with_floor: float
    without: float


def floor_effect(seed: int = 0, *, n_chunks: int = 200) -> FloorEffect:
    """What the count floor does where a column is empty: the false-alarm rate with and without.

    Examples
    --------
    >>> f = floor_effect(0, n_chunks=100)
    >>> f.with_floor > 0.05, f.without
    (True, 0.0)
    """
    rates = [pu_false_alarm_rates(100, 0.0, n_chunks=n_chunks, seed=seed,
                                  detector_options=dict(FLOOR_VARIANTS[v]))["per_chunk"]
             for v in ("default (floor 5)", "clamp_min=0, min_expected=5")]
    return FloorEffect(n_chunks, float(rates[0]), float(rates[1]))


def threshold_question(study: FalseAlarmStudy, alpha: float = 0.05) -> Question:
    """"How many chunks of a stream without drift alarm at ``alpha``?", answered by ``study``.

    Examples
    --------
    >>> chunks = pd.DataFrame({"chunk": [2, 3, 4, 5], "min_p": [0.5, 0.01, 0.2, 0.04],
    ...                        "n_cuts": [1, 2, 2, 3]})
    >>> q = threshold_question(FalseAlarmStudy(pd.DataFrame(), chunks))
    >>> q.options[q.answers[0]]
    'more than 10% of them'
    """
    n = len(study.chunk_p)
    hits = int((study.chunk_p["min_p"] < alpha).sum())
    share = hits / n if n else 0.0
    cuts = float(study.chunk_p["n_cuts"].mean()) if n else 0.0
    bound = min(1.0, cuts * alpha)  # the union bound, were every test wrong at rate alpha
    why = (f"{hits} of the {n} tested chunks ({share:.0%}) had a cut with p < {alpha:g}, though "
           f"the concept never changed. Each chunk runs {cuts:.1f} cut tests on average and "
           "alarms if any of them is below α: were each test wrong at rate α, at most about "
           f"{cuts:.1f} × α = {bound:.0%} of the chunks would alarm")
    tests = study.cut_p["p_value"] if "p_value" in study.cut_p else pd.Series(dtype=float)
    if share > bound and len(tests):
        why += (f"; here more did, because a single test was below α in "
                f"{float((tests < alpha).mean()):.0%} of its {len(tests)} runs, not {alpha:.0%}")
    why += ". Over a long stream, a small α is what keeps alarms rare."
    return Question(
        "lesson5_alpha", f"{n} chunks, α = {alpha:g}",
        f"A stream without drift: PUDD tests {n} chunks at α = {alpha:g}. How many of them "
        "will alarm (a false alarm, since nothing changed)?",
        ("none", f"up to 10% of them (at most {int(0.1 * n)})", "more than 10% of them"),
        (option_of(hits, [0, 0.1 * n, np.inf]),), why,
        ("", "α is the false-alarm rate of *one* test; a chunk runs several.", ""),
    )
