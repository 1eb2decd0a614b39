"""Lesson 3: PUDD's test of every cut of a chunk history with a drift near its end."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from pudd_core import _validation
from pudd_core.chi2 import PUTestResult, pu_chi2_test
from pudd_core.experiments.runner import RunConfig, run_model, run_stream
from pudd_core.pu_index import is_correct, pu_index
from pudd_core.views.course.questions import Question

__all__ = [
    "CutLesson",
    "cut_lesson",
]


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
