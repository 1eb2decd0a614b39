"""Lesson 3: PUDD's test of every cut of a chunk history with a drift near its end."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from pudd_core import _validation
from pudd_core.chi2 import PUTestResult, pu_chi2_test
from pudd_core.experiments.runner import RunConfig, run_model, run_stream
from pudd_core.pu_index import is_correct, pu_index
from pudd_core.views.course.questions import Question
from pudd_core.views.course.spread import CLASS_SEEDS, Spread, stored_entry, verdicts_from

__all__ = [
    "ALARM_VERDICTS",
    "CUT_ALPHA",
    "CUT_STREAMS",
    "CUT_VERDICTS",
    "CutLesson",
    "cut_lesson",
    "cut_spreads",
]

#: Lesson 3's threshold: PUDD-3's.
CUT_ALPHA = 1e-3

#: The streams lesson 3 can use, in words (scripts/course_defaults.py chooses among them).
CUT_STREAMS: dict[str, str] = {
    "sea0": "SEA without label noise: label 1 when x₀ + x₁ exceeds a threshold that a drift "
            "moves",
    "sea20": "SEA with 20% of labels flipped at random",
    "sine": "Sine: two features in [0, 1], label 1 on one side of a sine curve; a drift changes "
            "the curve or swaps the sides",
    "mixed": "Mixed: label 1 when two of three conditions on four features hold; a drift swaps "
             "the labels",
}


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

    @property
    def tested_cuts(self) -> tuple[int, ...]:
        """The cuts the authors' PUDD tests: recent windows of 1, 2, 4, 8, … chunks."""
        return tuple(c for c in self.cuts if c & (c - 1) == 0)

    @property
    def options(self) -> tuple[int, ...]:
        """The question's cuts: 1 chunk, the drift's, twice the drift's, all but one."""
        n = self.n_new
        return tuple(sorted({1, n, min(2 * n, self.cuts[-1]), self.cuts[-1]}))

    def smallest_tested_p(self) -> float:
        """The smallest p-value of :attr:`tested_cuts`: PUDD alarms when it is below α."""
        return min(self.test(c).p_value for c in self.tested_cuts)

    def verdicts(self, alpha: float = CUT_ALPHA) -> tuple[str, str]:
        """PUDD's verdict at ``alpha`` and the question's: the two words of lesson 3's point.

        ``"alarm"`` or ``"quiet"``: whether a tested cut's p-value is below ``alpha``;
        ``"drift"`` or ``"other"``: whether the cut at the drift has the smallest p-value of
        the question's options.
        """
        scan = {c: self.test(c).p_value for c in self.options}
        best = min(scan.values())
        return ("alarm" if self.smallest_tested_p() < alpha else "quiet",
                "drift" if scan[self.n_new] == best else "other")

    def question(self) -> Question:
        """"Of these cuts, which gives the smallest p-value?", answered by the scan."""
        scan = dict(zip(self.cuts, self.scan(), strict=True))
        n = self.n_new
        options = self.options
        best = min(scan[c] for c in options)
        answers = tuple(i for i, c in enumerate(options) if scan[c] == best)
        p_list = "; ".join(f"{c} chunk{'s' * (c > 1)}: {_p(scan[c])}" for c in options)
        why = (f"The p-values of these cuts: {p_list}. The drift is {n} chunk(s) before the "
               "end: a shorter recent window holds fewer new-concept predictions (less "
               "evidence), a longer one mixes old-concept chunks into it (a diluted "
               "difference), so the p-value tends to be smallest near the cut at the drift.")
        return Question(
            "lesson3_cut", f"{self.dataset}, seed {self.seed}",
            "Which recent window will give PUDD's test the smallest p-value?",
            tuple(f"the last {c} chunk{'s' * (c > 1)}" for c in options), answers, why)


def _p(p: float) -> str:
    """A p-value in words; one below float's range (computed as 0) is said to be so.

    >>> _p(0.0123), _p(0.0)
    ('p = 0.012', 'p < 1e-300')
    """
    return "p < 1e-300" if p < 1e-300 else f"p = {p:.2g}"


#: Lesson 3's verdicts (:meth:`CutLesson.verdicts`) in words, the lesson's point first.
ALARM_VERDICTS: dict[str, str] = {
    "alarm": f"a tested cut's p-value was below α = {CUT_ALPHA:g} (PUDD-3 alarms)",
    "quiet": "no tested cut reached α (PUDD-3 does not alarm)",
}
CUT_VERDICTS: dict[str, str] = {
    "drift": "the cut at the drift gave the smallest p-value of the question's four",
    "other": "another of the four cuts gave a smaller p-value",
}


def cut_spreads(seeds: Iterable[int] = CLASS_SEEDS, *, alpha: float = CUT_ALPHA,
                stored: bool = True, **settings: object) -> tuple[Spread, Spread]:
    """Lesson 3's two verdicts at every seed: PUDD's alarm, and the cut at the drift.

    ``settings`` are :func:`cut_lesson`'s (dataset, chunk_size, n_new). The defaults' spreads
    at the class seeds are read from :data:`spread.STORE` when ``stored``.

    Examples
    --------
    >>> alarm, cut = cut_spreads(range(2))
    >>> alarm.verdicts == tuple(cut_lesson(s).verdicts()[0] for s in range(2))
    True
    """
    chosen = tuple(int(s) for s in seeds)
    entry = stored_entry("lesson3", "defaults") if stored else None
    if entry is not None and chosen == CLASS_SEEDS and not settings and alpha == CUT_ALPHA:
        return (verdicts_from(entry, "alarm", ALARM_VERDICTS),
                verdicts_from(entry, "cut", CUT_VERDICTS))
    pairs = [cut_lesson(s, **settings).verdicts(alpha) for s in chosen]  # type: ignore[arg-type]
    return (Spread(chosen, tuple(a for a, _ in pairs), ALARM_VERDICTS),
            Spread(chosen, tuple(c for _, c in pairs), CUT_VERDICTS))


def cut_lesson(seed: int = 0, *, dataset: str = "mixed", chunk_size: int = 250,
               n_new: int = 3) -> CutLesson:
    """Lesson 3's history: chunks 1 .. drift + ``n_new`` − 1 under a model trained once.

    The default stream and chunk size were chosen by data (scripts/course_defaults.py,
    docs/teaching.md): among the candidates whose run at seed 0 alarms with the cut at the
    drift best, the one where both hold at the most of the 50 class seeds.

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
