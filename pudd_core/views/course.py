r"""The course's lessons as data: each lesson's live computation and its predict-then-see questions.

A :class:`Question` is built from a finished computation: its right option and the numbers
in its feedback come from that computation, never from typed text, so a new seed or setting
gives a new right answer with new numbers. Nothing here draws or knows Streamlit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import stats

from pudd_core import _validation
from pudd_core.chi2 import PUTestResult, pu_chi2_test
from pudd_core.experiments.runner import RunConfig, RunResult, run_experiment, run_model, run_stream
from pudd_core.experiments.sweep import (
    ALPHA_EXPONENTS,
    FLOOR_VARIANTS,
    FalseAlarmStudy,
    false_alarm_study,
    pu_false_alarm_rates,
    threshold_sweep,
)
from pudd_core.pu_index import is_correct, pu_index
from pudd_core.streams.synth import SPECS
from pudd_core.views.explorer import ExplorerConfig, PUDDSetting
from pudd_core.views.illustration import Theorem2Result

__all__ = [
    "LESSON1_STREAMS",
    "CutLesson",
    "DelayConfig",
    "DelayLesson",
    "Feedback",
    "FloorEffect",
    "STUDY_CHUNKS",
    "STUDY_CHUNK_SIZE",
    "SWEEP_CHUNKS",
    "SWEEP_DATASET",
    "PUPoints",
    "PowerComparison",
    "Question",
    "Sweep",
    "cifar_question",
    "cut_lesson",
    "delay_lesson",
    "drifting_sweep",
    "flipped_share",
    "floor_effect",
    "option_of",
    "power_comparison",
    "power_question",
    "pu_points",
    "stationary_study",
    "theorem2_question",
    "threshold_question",
]


# --- questions --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Feedback:
    """What the lab says to an answer: whether it was right, and why (with the numbers)."""

    correct: bool
    text: str


@dataclass(frozen=True)
class Question:
    """A predict-then-see question whose right option was computed.

    Attributes
    ----------
    key
        Stable name of the question (``"lesson1_delay"``): progress is kept under it.
    scenario
        The settings the right option depends on; a new scenario is a new question.
    prompt, options
        What the student reads and picks from.
    answers
        Index (or indices, on a tie) of the right option(s), computed.
    why
        The explanation shown after any answer, its numbers from the computation.
    hints
        Per option, an extra word for that wrong answer ("" for none).

    Examples
    --------
    >>> q = Question("q", "s", "2 + 2?", ("3", "4"), (1,), "2 + 2 = 4.", ("Off by one.", ""))
    >>> q.check(1)
    Feedback(correct=True, text='Right. 2 + 2 = 4.')
    >>> q.check(0).text
    'Not quite: you chose "3". Off by one. 2 + 2 = 4.'
    """

    key: str
    scenario: str
    prompt: str
    options: tuple[str, ...]
    answers: tuple[int, ...]
    why: str
    hints: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.answers or not all(0 <= a < len(self.options) for a in self.answers):
            raise ValueError(f"answers {self.answers} must index the {len(self.options)} options")

    def check(self, choice: int) -> Feedback:
        """The feedback to option ``choice``."""
        if not 0 <= choice < len(self.options):
            raise _validation.ParameterError(
                "choice", f"choice must be an option index from 0 to {len(self.options) - 1}, "
                          f"got {choice!r}")
        if choice in self.answers:
            return Feedback(True, f"Right. {self.why}")
        hint = self.hints[choice] if choice < len(self.hints) else ""
        return Feedback(False, " ".join(filter(None, (
            f'Not quite: you chose "{self.options[choice]}".', hint, self.why))))


def option_of(value: float | None, bounds: Sequence[float]) -> int:
    """Which range option ``value`` falls in: ``bounds`` are the options' upper ends.

    ``None`` (no value: nothing happened) is the option after the ranges.

    Examples
    --------
    >>> inf = float("inf")
    >>> [option_of(v, [0, 3, inf]) for v in (0, 2, 7, None)]
    [0, 1, 2, 3]
    """
    if value is None:
        return len(bounds)
    return int(np.searchsorted(np.asarray(bounds, dtype=np.float64), value, side="left"))


# --- lesson 1: a known drift, and how late an error-rate detector sees it ----------------------
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

    dataset: str = "sea10"
    seed: int = 0
    chunk_size: int = 500
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


def delay_lesson(config: DelayConfig) -> DelayLesson:
    """Run lesson 1: PUDD-3 and DDM on the same stream, model and seed.

    Examples
    --------
    >>> les = delay_lesson(DelayConfig("sea0", seed=2))
    >>> les.drift, les.first_alarm(les.ddm), les.delay_predictions(les.ddm)
    (10, 10, 168)
    >>> les.question().answers
    (0,)
    """
    pudd_cfg, ddm_cfg = config.explorer().run_configs()
    stream = run_stream(pudd_cfg)
    return DelayLesson(config, run_experiment(pudd_cfg, stream=stream),
                       run_experiment(ddm_cfg, stream=stream))


# --- lesson 2: from probabilities to the PU-index -----------------------------------------------
@dataclass(frozen=True)
class PUPoints:
    """A handful of real predictions: probabilities, true labels, PU-index and correctness.

    Gaussian NB trained on chunk 0 of a SEA stream predicts the first instances of chunk 1.
    """

    dataset: str
    seed: int
    chunk_size: int
    proba: NDArray[np.float64] = field(repr=False)
    labels: NDArray[np.int64] = field(repr=False)
    u: NDArray[np.float64] = field(repr=False)
    correct: NDArray[np.bool_] = field(repr=False)

    @property
    def asked(self) -> int:
        """The prediction the question is about: the first error, else the least sure one."""
        wrong = np.flatnonzero(~self.correct)
        return int(wrong[0]) if wrong.size else int(np.argmax(self.u))

    def question(self) -> Question:
        """"Where does this prediction land?", answered by ``pu_index`` and ``is_correct``."""
        j = self.asked
        p, y = self.proba[j], int(self.labels[j])
        u, top = float(self.u[j]), float(1.0 - p.max())
        ok = bool(self.correct[j])
        state = "correct" if ok else "misclassified"
        other = "misclassified" if ok else "correct"
        texts = [f"u = {u:.2f}, {state}", f"u = {top:.2f}, {state}", f"u = {u:.2f}, {other}",
                 f"u = {top:.2f}, {other}"]
        if abs(u - top) < 5e-3:  # a right prediction: 1 - max p is the PU-index
            texts[1] = f"u = {float(p[y]):.2f}, {state}"
            texts[3] = f"u = {float(p[y]):.2f}, {other}"
        why = (f"Prediction {j + 1} gives the true class {y} the probability {p[y]:.2f}, so "
               f"u = 1 − {p[y]:.2f} = {u:.2f}; the predicted class is {int(np.argmax(p))}, so it "
               f"is {state}. For two classes, u < 0.5 exactly when the prediction is right.")
        return Question(
            "lesson2_pu", f"{self.dataset}, seed {self.seed}",
            f"Prediction {j + 1}: p(class 0) = {p[0]:.2f}, p(class 1) = {p[1]:.2f}, true class "
            f"{y}. Where will its point land?", tuple(texts), (0,), why,
            ("", "That is 1 − the largest probability: the uncertainty of the *predicted* class, "
                 "not of the true one.", "", ""),
        )


def pu_points(seed: int = 0, *, n: int = 20, dataset: str = "sea10") -> PUPoints:
    """The first ``n`` predictions of Gaussian NB on chunk 1 of ``dataset``.

    Examples
    --------
    >>> pts = pu_points(0, n=5)
    >>> bool(np.allclose(pts.u, 1 - pts.proba[np.arange(5), pts.labels]))
    True
    >>> pts.question().answers
    (0,)
    """
    _validation.check_positive_int("n", n, minimum=1)
    cfg = RunConfig(dataset, "gnb", "none", seed=seed, chunk_size=max(n, 100), n_chunks=3)
    stream = run_stream(cfg)
    model = run_model(cfg, stream)
    model.fit(*stream.chunk(0))
    x, y = stream.chunk(1)
    proba = np.asarray(model.predict_proba(x[:n]), dtype=np.float64)
    labels = np.asarray(y[:n], dtype=np.int64)
    return PUPoints(dataset, seed, int(stream.info.chunk_size), proba, labels,
                    pu_index(proba, labels),
                    is_correct(proba, labels))


# --- lesson 3: PUDD's test ------------------------------------------------------------------------
@dataclass(frozen=True)
class CutLesson:
    """A chunk history with a drift near its end, and PUDD's test of every cut.

    ``u[i]``, ``correct[i]``: chunk ``i + 1`` of the stream as predicted by Gaussian NB trained
    on chunk 0 only; the concept changes at chunk ``drift`` (so the last ``n_new`` chunks hold
    the new concept).
    """

    dataset: str
    seed: int
    chunk_size: int
    drift: int
    u: tuple[NDArray[np.float64], ...] = field(repr=False)
    correct: tuple[NDArray[np.bool_], ...] = field(repr=False)

    @property
    def n_new(self) -> int:
        """Chunks of the new concept at the end of the history."""
        return len(self.u) + 1 - self.drift

    @property
    def cuts(self) -> tuple[int, ...]:
        """Every recent-window length a cut can give (1 chunk up to all but one)."""
        return tuple(range(1, len(self.u)))

    def test(self, cut: int) -> PUTestResult:
        """PUDD's χ² test of the last ``cut`` chunks against the chunks before them."""
        if cut not in self.cuts:
            raise _validation.ParameterError(
                "cut", f"cut must be a recent window of 1 to {len(self.u) - 1} chunks, got {cut!r}")
        old, new = slice(None, -cut), slice(-cut, None)
        return pu_chi2_test(np.concatenate(self.u[old]), np.concatenate(self.correct[old]),
                            np.concatenate(self.u[new]), np.concatenate(self.correct[new]),
                            seed=self.seed)

    def scan(self) -> tuple[float, ...]:
        """The p-value of every cut, in :attr:`cuts` order."""
        return tuple(self.test(c).p_value for c in self.cuts)

    def question(self) -> Question:
        """"Of these cuts, which gives the smallest p-value?", answered by the scan."""
        scan = dict(zip(self.cuts, self.scan(), strict=True))
        n = self.n_new
        options = tuple(sorted({1, n, min(2 * n, self.cuts[-1]), self.cuts[-1]}))
        best = min(scan[c] for c in options)
        answers = tuple(i for i, c in enumerate(options) if scan[c] == best)
        p_list = "; ".join(f"{c} chunk{'s' * (c > 1)}: p = {scan[c]:.2g}" for c in options)
        why = (f"The p-values of these cuts: {p_list}. The drift is {n} chunk(s) before the "
               "end: a shorter recent window holds fewer new-concept predictions (less "
               "evidence), a longer one mixes old-concept chunks into it (a diluted "
               "difference), so the p-value tends to be smallest near the cut at the drift.")
        return Question(
            "lesson3_cut", f"{self.dataset}, seed {self.seed}",
            "Which recent window will give PUDD's test the smallest p-value?",
            tuple(f"the last {c} chunk{'s' * (c > 1)}" for c in options), answers, why)


def cut_lesson(seed: int = 0, *, dataset: str = "sea0", chunk_size: int = 250,
               n_new: int = 3) -> CutLesson:
    """Lesson 3's history: SEA chunks 1 .. drift + ``n_new`` − 1 under a model trained once.

    Examples
    --------
    >>> les = cut_lesson(1)
    >>> les.drift, len(les.u), les.n_new, les.cuts[-1]
    (10, 12, 3, 11)
    >>> les.test(3).dof, les.test(3).p_value < 1e-50, les.question().answers
    (5, True, (1,))
    """
    _validation.check_positive_int("n_new", n_new)
    cfg = RunConfig(dataset, "gnb", "none", seed=seed, chunk_size=chunk_size, n_chunks=40)
    stream = run_stream(cfg)
    drift = (stream.drift_chunks or (10,))[0]
    model = run_model(cfg, stream)
    model.fit(*stream.chunk(0))
    us, oks = [], []
    for t in range(1, drift + n_new):
        x, y = stream.chunk(t)
        proba = np.asarray(model.predict_proba(x), dtype=np.float64)
        us.append(pu_index(proba, y))
        oks.append(is_correct(proba, y))
    return CutLesson(dataset, seed, chunk_size, drift, tuple(us), tuple(oks))


# --- lesson 4: what the error rate cannot see, and what it sees better ----------------------------
@dataclass(frozen=True)
class PowerComparison:
    r"""Power of the 2 × 2 error-rate test and of PUDD's 2 × (K + 1) test on a pure error change.

    Window 1 errs with probability ``error1``, window 2 with ``error2``; the correct
    predictions fall into K buckets with the same shares in both windows (nothing but the error
    rate changes). Each table's noncentrality is $\lambda = N \sum (p_{ij} - p_i p_j)^2 /
    (p_i p_j)$ over its cell probabilities; the power at ``alpha`` is
    $P(\chi'^2_{\nu}(\lambda) > \chi^2_{\nu, 1-\alpha})$ with $\nu$ its degrees of freedom.
    (Pearson's test without Yates' correction, which the authors apply to 2 × 2 tables.)
    """

    n: int
    error1: float
    error2: float
    k: int
    alpha: float
    lambda_2x2: float
    lambda_pu: float
    power_2x2: float
    power_pu: float


def _noncentrality(cells: NDArray[np.float64], n_total: int) -> float:
    rows, cols = cells.sum(axis=1, keepdims=True), cells.sum(axis=0, keepdims=True)
    expected = rows * cols
    keep = expected > 0
    return float(n_total * (((cells - expected) ** 2)[keep] / expected[keep]).sum())


def power_comparison(n: int, error1: float, error2: float, *, k: int = 5,
                     alpha: float = 1e-3) -> PowerComparison:
    """Both tests' noncentrality and power, from scipy's noncentral χ².

    Examples
    --------
    >>> c = power_comparison(1000, 0.10, 0.13, k=5, alpha=1e-3)
    >>> round(c.lambda_2x2, 4) == round(c.lambda_pu, 4), c.power_2x2 > c.power_pu
    (True, True)
    >>> power_comparison(1000, 0.1, 0.13, k=1).power_pu == power_comparison(1000, 0.1, 0.13,
    ...                                                                        k=1).power_2x2
    True
    """
    _validation.check_positive_int("n", n, minimum=2)
    _validation.check_positive_int("k", k)
    _validation.check_open_unit("alpha", alpha)
    for name, e in (("error1", error1), ("error2", error2)):
        if not 0.0 < _validation.finite_float(name, e) < 1.0:
            raise _validation.ParameterError(name, f"{name} must lie strictly between 0 and 1, "
                                                   f"got {e!r}")
    errors = np.array([[error1], [error2]])
    two = 0.5 * np.hstack((1.0 - errors, errors))  # equal windows: each row holds half of N
    pu = 0.5 * np.hstack(((1.0 - errors) * np.full((1, k), 1.0 / k), errors))
    out = []
    for cells, dof in ((two, 1), (pu, k)):
        lam = _noncentrality(cells, 2 * n)
        out += [lam, float(stats.ncx2.sf(stats.chi2.isf(alpha, dof), dof, lam))]
    return PowerComparison(n, float(error1), float(error2), k, float(alpha), out[0], out[2],
                           out[1], out[3])


def theorem2_question(result: Theorem2Result, alpha: float = 1e-3) -> Question:
    """"Which test notices Theorem 2's change?", answered by the two tests' p-values.

    A PUDD test that a shortcut decided (no χ² ran) counts as not noticing: a rule is no
    evidence.

    Examples
    --------
    >>> from pudd_core.views.illustration import Theorem2Config, theorem2_demo
    >>> q = theorem2_question(theorem2_demo(Theorem2Config(n=200, seed=0)))
    >>> q.options[q.answers[0]]
    "only PUDD's test of the PU table"
    """
    pudd = result.pudd.shortcut is None and result.pudd.p_value < alpha
    errors = result.error_test.p_value < alpha
    options = ("both tests", "only the 2 × 2 error-rate test", "only PUDD's test of the PU table",
               "neither test")
    answer = {(True, True): 0, (False, True): 1, (True, False): 2, (False, False): 3}
    s1, s2 = result.stats1, result.stats2
    why = (f"Window 1 errs {s1.error_rate:.1%} of the time, window 2 {s2.error_rate:.1%}, so the "
           f"2 × 2 test of the error rates gives p = {result.error_test.p_value:.3g} "
           f"({'below' if errors else 'not below'} α = {alpha:g}). PUDD's test compares where "
           f"the predictions fall by PU-index and gives p = {result.pudd.p_value:.3g} "
           f"({'below' if pudd else 'not below'} α). Same error rate, different certainty: "
           "that is Theorem 2.")
    c = result.config
    return Question(
        "lesson4_theorem2", f"n = {c.n}, errors {c.error_rate:g}, seed {c.seed}, α = {alpha:g}",
        f"Both windows of {c.n} predictions have the same error rate, but the correct ones "
        "became less sure and the wrong ones less wrong. At α = "
        f"{alpha:g}, which test notices the change?", options, (answer[(pudd, errors)],), why,
        ("", "The error rates are equal: the 2 × 2 table's two rows are the same.", "",
         "The PU-index histograms differ a lot; look at them."),
    )


def power_question(comparison: PowerComparison) -> Question:
    """"Which test is likelier to alarm on a pure error-rate change?", answered by the powers.

    Examples
    --------
    >>> q = power_question(power_comparison(1000, 0.10, 0.13, k=5))
    >>> q.options[q.answers[0]]
    'the 2 × 2 error-rate test'
    """
    c = comparison
    gap = c.power_2x2 - c.power_pu
    answer = 2 if abs(gap) < 1e-9 else (1 if gap > 0 else 0)
    why = (f"Only the error rate changed ({c.error1:.0%} → {c.error2:.0%}), so both tables carry "
           f"the same signal: noncentrality λ = {c.lambda_2x2:.2f} for the 2 × 2 table and "
           f"{c.lambda_pu:.2f} for the 2 × {c.k + 1} one. PUDD's table spreads it over {c.k} "
           f"degrees of freedom instead of 1, so at α = {c.alpha:g} its power is "
           f"{c.power_pu:.1%} against {c.power_2x2:.1%} for the 2 × 2 test (scipy's noncentral "
           "χ²). The PU-index loses nothing in what it *can* see (Theorem 1), but it pays for "
           "its extra columns when they carry no extra signal.")
    return Question(
        "lesson4_power", f"n = {c.n}, {c.error1:g} → {c.error2:g}, K = {c.k}, α = {c.alpha:g}",
        f"Two windows of {c.n} predictions: window 1 errs {c.error1:.0%} of the time, window 2 "
        f"{c.error2:.0%}; within the correct and the wrong predictions nothing else changes. "
        f"At α = {c.alpha:g}, which test is likelier to alarm: PUDD's 2 × (K + 1) with K = {c.k} "
        "buckets, or the 2 × 2 test of the error rates?",
        ("PUDD's 2 × (K + 1) test", "the 2 × 2 error-rate test", "equally likely"),
        (answer,), why,
        ("The PU-index sees more kinds of change, but this change is the error rate's alone.",
         "", ""),
    )


# --- lesson 5: thresholds -------------------------------------------------------------------------
#: Lesson 5's stream without drift: this many chunks of this many predictions.
STUDY_CHUNKS, STUDY_CHUNK_SIZE = 40, 500


def stationary_study(seed: int = 0, *, n_chunks: int = STUDY_CHUNKS) -> FalseAlarmStudy:
    """PUDD's tests on SEA without drift (Gaussian NB), for the threshold lesson.

    Examples
    --------
    >>> study = stationary_study(0, n_chunks=6)
    >>> list(study.chunk_p.columns), bool((study.chunk_p["min_p"] <= 1).all())
    (['chunk', 'min_p', 'n_cuts'], True)
    """
    return false_alarm_study("sea0", "gnb", n_chunks=n_chunks, chunk_size=STUDY_CHUNK_SIZE,
                             seed=seed)


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
    why = (f"{hits} of the {n} tested chunks ({share:.0%}) had a cut with p < {alpha:g}, though "
           f"the concept never changed. Each chunk runs {cuts:.1f} cut tests on average and "
           "alarms if any of them is below α, so the chance of a false alarm per chunk is up "
           f"to about {cuts:.1f} × α; over a long stream small α is what keeps alarms rare.")
    return Question(
        "lesson5_alpha", f"{n} chunks, α = {alpha:g}",
        f"A stream without drift: PUDD tests {n} chunks at α = {alpha:g}. How many of them "
        "will alarm (a false alarm, since nothing changed)?",
        ("none", f"up to 10% of them (at most {int(0.1 * n)})", "more than 10% of them"),
        (option_of(hits, [0, 0.1 * n, np.inf]),), why,
        ("", "α is the false-alarm rate of *one* test; a chunk runs several.", ""),
    )


# --- lesson 6: CIFAR-10-CD --------------------------------------------------------------------
def flipped_share(before: Sequence[int], after: Sequence[int], *, n_classes: int = 10) -> float:
    """Share of a CIFAR-10-CD chunk whose label flips when the positive classes change.

    Every chunk holds the same number of images of each class, so each class whose membership
    changed flips ``1 / n_classes`` of the chunk.

    Examples
    --------
    >>> flipped_share((0, 1, 2), (0, 1, 7))
    0.2
    """
    return len(set(before) ^ set(after)) / n_classes


def cifar_question(positive: Sequence[Sequence[int]], drift_chunks: Sequence[int],
                   class_names: Sequence[str]) -> Question | None:
    """"What share of the images changes label at the first drift?", from the interests.

    Examples
    --------
    >>> q = cifar_question([(0, 1, 2), (0, 1, 2), (0, 1, 7)], [2], [str(i) for i in range(10)])
    >>> q.options[q.answers[0]]
    '20%'
    """
    if not drift_chunks:
        return None
    d = drift_chunks[0]
    share = flipped_share(positive[d - 1], positive[d], n_classes=len(class_names))
    names = [", ".join(class_names[c] for c in positive[i]) for i in (d - 1, d)]
    options = ("0%", "10%", "20%", "30%", "40% or more")
    why = (f"Chunk {d - 1}'s positive classes are {names[0]}; chunk {d}'s are {names[1]}. "
           f"{len(set(positive[d - 1]) ^ set(positive[d]))} class(es) changed side, each "
           f"{1 / len(class_names):.0%} of a chunk, so {share:.0%} of the images changed label "
           "while the images themselves did not change at all: a detector on the images alone "
           "sees nothing; one on the classifier's predictions sees errors on that share.")
    return Question(
        "lesson6_share", f"drift at chunk {d}: {names[0]} → {names[1]}",
        f"At chunk {d} the positive classes change from {names[0]} to {names[1]}. What share "
        "of that chunk's images changes label?",
        options, (option_of(share, [0.0, 0.1, 0.2, 0.3, np.inf]),), why,
        ("The images do not change, but their labels do.", "", "", "", ""),
    )

