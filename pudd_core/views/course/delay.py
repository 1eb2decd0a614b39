"""Lesson 1: a stream with a known drift, and how many predictions DDM needs to see it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import numpy as np

from pudd_core.experiments.runner import RunResult, run_experiment, run_stream
from pudd_core.streams.synth import SPECS
from pudd_core.views.course.questions import Question, option_of
from pudd_core.views.course.spread import (
    CLASS_SEEDS,
    Spread,
    spread_of,
    stored_entry,
    verdicts_from,
)
from pudd_core.views.explorer import ExplorerConfig, PUDDSetting

__all__ = [
    "DelayConfig",
    "DELAY_VERDICTS",
    "DelayLesson",
    "LESSON1_STREAMS",
    "delay_lesson",
    "delay_setting",
    "delay_spread",
]


#: Lesson 1's streams: SEA with its label noise (the share of labels flipped at random).
LESSON1_STREAMS: dict[str, str] = {
    name: f"{SPECS[name].noise:.0%} label noise" if SPECS[name].noise else "no label noise"
    for name in ("sea0", "sea10", "sea20")}


@dataclass(frozen=True)
class DelayConfig:
    """Lesson 1's run: a SEA stream with one drift, Gaussian NB trained once, DDM and PUDD-3.

    The model is trained on chunk 0 and never on later chunks (-O), so its errors after the
    drift come from the drift alone; the same runs are the explorer's (:meth:`explorer`).
    """

    dataset: str = "sea20"  # chosen by data: docs/teaching.md, scripts/course_defaults.py
    seed: int = 0
    chunk_size: int = 750
    n_chunks: int = 20

    def explorer(self) -> ExplorerConfig:
        """The Stream explorer's exploration whose runs these are."""
        return ExplorerConfig(self.dataset, "gnb", "train-once", (PUDDSetting(3),), ("ddm",),
                              self.seed, 1, self.chunk_size, self.n_chunks)


@dataclass(frozen=True)
class DelayLesson:
    """Lesson 1's two runs on one stream, and where each first alarmed after the drift."""

    config: DelayConfig
    pudd: RunResult = field(repr=False)
    ddm: RunResult = field(repr=False)

    @property
    def drift(self) -> int:
        """The chunk where the new concept starts."""
        return (self.ddm.drift_chunks or (0,))[0]

    def first_alarm(self, run: RunResult) -> int | None:
        """The first alarm chunk at or after the drift (None: no alarm)."""
        return next((a for a in run.alarms if a >= self.drift), None)

    def delay_predictions(self, run: RunResult) -> int | None:
        """Predictions seen from the drift's first one to the alarm, inclusive.

        A river baseline alarms at a prediction inside its chunk; PUDD tests at the end
        of a chunk, so it has seen the whole chunk.
        """
        chunk = self.first_alarm(run)
        if chunk is None:
            return None
        log = next(c for c in run.chunks if c.chunk_index == chunk)
        within = log.detections[0] + 1 if log.detections else self.config.chunk_size
        return (chunk - self.drift) * self.config.chunk_size + within

    def verdict(self) -> str:
        """Which detector alarmed first after the drift: ``"pudd"``, ``"ddm"`` or ``"tie"``.

        Counted in predictions since the drift; a detector that never alarmed after it is later
        than any that did, and two that never alarmed tie.
        """
        delays = [self.delay_predictions(r) for r in (self.pudd, self.ddm)]
        pudd, ddm = (np.inf if d is None else d for d in delays)
        return "pudd" if pudd < ddm else "ddm" if ddm < pudd else "tie"

    def error_rates(self) -> tuple[float, float]:
        """Mean chunk error rate of the (never retrained) model before and after the drift."""
        before = [c.error_rate for c in self.ddm.chunks if c.chunk_index < self.drift]
        after = [c.error_rate for c in self.ddm.chunks if c.chunk_index >= self.drift]
        return float(np.mean(before)), float(np.mean(after))

    def false_alarms(self, run: RunResult) -> int:
        """Alarms before the drift: the concept had not changed."""
        return sum(a < self.drift for a in run.alarms)

    def question(self) -> Question:
        """"When will DDM first alarm?", answered by the DDM run."""
        d = self.drift
        chunk = self.first_alarm(self.ddm)
        late = None if chunk is None else chunk - d
        before, after = self.error_rates()
        size = self.config.chunk_size
        if chunk is None:
            seen = (f"DDM did not alarm at all in the {self.config.n_chunks - d} chunks after the "
                    "drift")
        else:
            seen = (f"DDM first alarmed in chunk {chunk}, {self.delay_predictions(self.ddm)} "
                    f"predictions after the drift began")
        pudd = self.first_alarm(self.pudd)
        pudd_text = ("PUDD-3 did not alarm after the drift either" if pudd is None else
                     f"PUDD-3, which tests at the end of each chunk, alarmed at the end of chunk "
                     f"{pudd} ({self.delay_predictions(self.pudd)} predictions after the drift)")
        why = (f"{seen}. The model's error rate went from {before:.1%} before the drift to "
               f"{after:.1%} after it. DDM alarms only when the running error rate p plus its "
               "standard deviation s passes the lowest p_min + 3 s_min it has seen, so a rise "
               "that label noise partly hides takes many errors to show. "
               f"{pudd_text}. DDM also raised {self.false_alarms(self.ddm)} false alarm(s) "
               f"before the drift, PUDD-3 {self.false_alarms(self.pudd)}.")
        return Question(
            "lesson1_delay", f"{self.config.dataset}, seed {self.config.seed}",
            f"The concept changes at the first prediction of chunk {d} (of {size} predictions "
            "per chunk). When will DDM, watching the 0/1 errors, first alarm?",
            (f"Within chunk {d}, the drift's own chunk", f"1 to 3 chunks later ({d + 1}–{d + 3})",
             f"4 or more chunks later (chunk {d + 4} or after)",
             "Not at all before the stream ends"),
            (option_of(late, [0, 3, np.inf]),), why,
            ("", "", "", "A detector that never alarms never adapts the model; here it did."),
        )


#: Lesson 1's verdicts (:meth:`DelayLesson.verdict`) in words, the lesson's point first.
DELAY_VERDICTS: dict[str, str] = {
    "pudd": "PUDD-3 alarmed first after the drift",
    "ddm": "DDM alarmed first",
    "tie": "neither was first (the same delay, or no alarm from either)",
}


def delay_setting(config: DelayConfig) -> str:
    """The stored spreads' name of ``config``'s stream (its seed left out)."""
    return f"{config.dataset}, {config.n_chunks} chunks of {config.chunk_size}"


def delay_spread(config: DelayConfig, seeds: Iterable[int] = CLASS_SEEDS, *,
                 stored: bool = True) -> Spread:
    """Which detector alarmed first at every seed of ``seeds``, with ``config``'s stream.

    At the class seeds a stored spread is read (``stored``; :data:`spread.STORE`) when
    there is one for the stream, else computed.

    Examples
    --------
    >>> s = delay_spread(DelayConfig("sea0", chunk_size=250), seeds=range(3))
    >>> s.verdicts == tuple(delay_lesson(DelayConfig("sea0", seed=i, chunk_size=250)).verdict()
    ...                     for i in range(3))
    True
    """
    chosen = tuple(int(s) for s in seeds)
    entry = stored_entry("lesson1", delay_setting(config)) if stored else None
    if entry is not None and chosen == CLASS_SEEDS:
        return verdicts_from(entry, "verdicts", DELAY_VERDICTS)
    return spread_of(lambda seed: delay_lesson(replace(config, seed=seed)).verdict(),
                     DELAY_VERDICTS, chosen)


def delay_lesson(config: DelayConfig) -> DelayLesson:
    """Run lesson 1: PUDD-3 and DDM on the same stream, model and seed.

    Examples
    --------
    >>> les = delay_lesson(DelayConfig("sea0", seed=2, chunk_size=500))
    >>> les.drift, les.first_alarm(les.ddm), les.delay_predictions(les.ddm)
    (10, 10, 168)
    >>> les.question().answers
    (0,)
    """
    pudd_cfg, ddm_cfg = config.explorer().run_configs()
    stream = run_stream(pudd_cfg)
    return DelayLesson(config, run_experiment(pudd_cfg, stream=stream),
                       run_experiment(ddm_cfg, stream=stream))
