"""Aggregated Mondrian Forest (AMF), one of Table 2's SOTA methods, as a stream learner.

Mourtada, Gaïffas and Scornet, "AMF: Aggregated Mondrian forests for online learning",
Journal of the Royal Statistical Society Series B 83(3), 2021. The forest is river's
``river.forest.AMFClassifier``; Table 2 runs it with ``detector="none"``: it adapts by itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from river.forest import AMFClassifier as RiverAMF

from pudd_core import _validation
from pudd_core.classifiers import _base


class AMFClassifier(_base.RiverDictLearner):
    """river's ``AMFClassifier`` learning one row at a time, over a fixed class set.

    Rows are fed as *dense* dicts ``{j: x_j}`` with every feature, zeros included: a sparse
    dict (zeros left out) runs faster on one-hot data but the forest then stops learning,
    because a Mondrian split needs the feature's range, which a missing key never extends.
    ``fit`` and ``adapt`` start a new forest; ``partial_fit`` keeps learning (the forest is
    an online learner, so Table 2's "-I" regime is its own). The paper's setting is river's
    default of 10 trees.

    Parameters
    ----------
    n_features
        Number of input columns *d*.
    n_classes
        Size of the class set; labels are the indices ``0 .. n_classes - 1``.
    n_estimators
        Trees in the forest (10 in the paper: "AMF and IWE using 10 classifiers").
    step
        Step size of the aggregation weights.
    use_aggregation
        Aggregate the predictions of all subtrees (the "A" of AMF).
    dirichlet
        Dirichlet prior of the leaf predictions.
    seed
        Seeds the Mondrian process.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(0, 10, size=(300, 3)); y = (X[:, 0] + X[:, 1] <= 8).astype(int)
    >>> clf = AMFClassifier(n_features=3, n_classes=3, seed=0)
    >>> clf.predict_proba(X[:1]).round(3).tolist()     # untrained: uniform
    [[0.333, 0.333, 0.333]]
    >>> clf.fit(X, y)                                  # class 2 never seen: probability 0
    >>> proba = clf.predict_proba(X)
    >>> round(float((proba.argmax(axis=1) == y).mean()), 2), float(proba[:, 2].max())
    (0.8, 0.0)
    """

    def __init__(
        self,
        n_features: int,
        n_classes: int,
        *,
        n_estimators: int = 10,
        step: float = 1.0,
        use_aggregation: bool = True,
        dirichlet: float = 0.5,
        seed: int | None = None,
    ) -> None:
        self.name = "amf"
        self.n_features, self.n_classes = _base.check_tabular(n_features, n_classes)
        self.n_outputs = self.n_classes
        self.n_estimators = _validation.check_positive_int("n_estimators", n_estimators)
        self.step = _base.check_positive_float("step", step)
        if not isinstance(use_aggregation, bool):
            raise ValueError(f"use_aggregation must be True or False, got {use_aggregation!r}.")
        self.use_aggregation = use_aggregation
        self.dirichlet = _base.check_positive_float("dirichlet", dirichlet)
        self.seed = seed
        self._rng = np.random.default_rng(seed)
        self.model = self._new_model()

    def _new_model(self) -> Any:
        return RiverAMF(**self._options(), seed=int(self._rng.integers(2**31 - 1)))

    @property
    def forest(self) -> Any:
        """The river model (``model``)."""
        return self.model
