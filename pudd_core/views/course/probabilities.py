"""Lesson 2: real predictions turned into the PU-index, one by one."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from pudd_core import _validation
from pudd_core.experiments.runner import RunConfig, run_model, run_stream
from pudd_core.pu_index import is_correct, pu_index
from pudd_core.views.course.questions import Question

__all__ = [
    "PUPoints",
    "pu_points",
]


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
