"""Gaussian naive Bayes and the Hoeffding tree (VFDT) over a fixed class set."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import sklearn
from numpy.typing import ArrayLike, NDArray
from river.tree import HoeffdingTreeClassifier
from sklearn.naive_bayes import GaussianNB

from pudd_core import _validation
from pudd_core.classifiers import _base


class GNBClassifier:
    """scikit-learn's ``GaussianNB`` trained with ``partial_fit`` over the stream's class set.

    ``fit`` and ``adapt`` both start a new ``GaussianNB`` (spec §3.5: on an alarm the authors
    build a new model and ``partial_fit`` it on the window); ``partial_fit`` accumulates the
    sufficient statistics since the last reset. The model is deterministic.

    Parameters
    ----------
    n_features
        Number of input columns *d*.
    n_classes
        Size of the class set; labels are the indices ``0 .. n_classes - 1``.
    var_smoothing
        scikit-learn's variance smoothing, default ``1e-9`` as in the authors' code.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2)); y = (X[:, 0] > 0).astype(int)
    >>> clf = GNBClassifier(n_features=2, n_classes=3)
    >>> clf.fit(X, y)
    >>> proba = clf.predict_proba(X[:2])
    >>> proba.shape, proba[:, 2].tolist()    # class 2 never seen: probability 0
    ((2, 3), [0.0, 0.0])
    """

    def __init__(self, n_features: int, n_classes: int, *, var_smoothing: float = 1e-9) -> None:
        self.name = "gnb"
        self.n_features, self.n_classes = _base.check_tabular(n_features, n_classes)
        self.n_outputs = self.n_classes
        self.var_smoothing = _base.check_positive_float("var_smoothing", var_smoothing)
        self._classes = np.arange(self.n_classes)
        self.estimator = GaussianNB(var_smoothing=self.var_smoothing)
        self._fitted = False

    def fit(self, X: ArrayLike, y: ArrayLike) -> None:
        """Start a new ``GaussianNB`` and train it on ``X, y``."""
        self.adapt(X, y)

    def partial_fit(self, X: ArrayLike, y: ArrayLike) -> None:
        """Add ``X, y`` to the sufficient statistics gathered since the last reset."""
        Xa = _base.check_features(X, self.n_features)
        ya = _base.check_labels(y, self.n_classes, Xa.shape[0])
        if Xa.shape[0] == 0:
            return
        # var_smoothing was checked in __init__: skipping scikit-learn's re-validation of the
        # hyper-parameters on every call makes a chunk's partial_fit about a third faster; the
        # class set goes with the first call only (scikit-learn re-checks it on every call
        # where it is given: another fifth of the call)
        classes = None if self._fitted else self._classes
        with sklearn.config_context(skip_parameter_validation=True):
            self.estimator.partial_fit(Xa, ya, classes=classes)
        self._fitted = True

    def adapt(self, X: ArrayLike, y: ArrayLike) -> None:
        """Reset: a new ``GaussianNB``, ``partial_fit`` on the window only (spec §3.5)."""
        self.estimator = GaussianNB(var_smoothing=self.var_smoothing)
        self._fitted = False
        self.partial_fit(X, y)

    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Class probabilities ``(n, n_classes)``; uniform before any training."""
        Xa = _base.check_features(X, self.n_features)
        if not self._fitted:
            return _base.uniform_proba(Xa.shape[0], self.n_outputs)
        # A class not seen since the reset has prior 0, whose log is -inf: exact, so no warning.
        with np.errstate(divide="ignore"):
            proba: NDArray[np.float64] = self.estimator.predict_proba(Xa)
        return proba


class VFDTClassifier(_base.RiverDictLearner):
    """river's ``HoeffdingTreeClassifier`` with the authors' settings, learning one row at a time.

    The defaults are the scikit-multiflow defaults the authors used, which are also river 0.26's
    (spec §10.12); ``leaf_prediction="mc"`` is their airline setting. Probabilities cover the
    fixed class set: a class the tree has not seen gets 0, and an untrained tree answers with the
    uniform distribution. ``fit`` and ``adapt`` grow a brand-new tree (spec §3.5).

    Parameters
    ----------
    n_features
        Number of input columns *d*; feature ``j`` is the river key ``j``.
    n_classes
        Size of the class set; labels are the indices ``0 .. n_classes - 1``.
    grace_period
        Instances a leaf sees between split attempts.
    delta
        Split confidence (scikit-multiflow's ``split_confidence``).
    tau
        Tie threshold.
    split_criterion
        ``"info_gain"``, ``"gini"`` or ``"hellinger"``.
    leaf_prediction
        ``"nba"`` (adaptive naive Bayes), ``"nb"`` or ``"mc"`` (majority class).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(0, 10, size=(500, 3)); y = (X[:, 0] + X[:, 1] <= 8).astype(int)
    >>> clf = VFDTClassifier(n_features=3, n_classes=3)
    >>> clf.predict_proba(X[:1]).tolist()       # untrained: uniform
    [[0.333..., 0.333..., 0.333...]]
    >>> clf.fit(X, y)
    >>> clf.predict_proba(X[:2]).round(3).tolist()     # class 2 never seen: probability 0
    [[0.822, 0.178, 0.0], [0.751, 0.249, 0.0]]
    """

    def __init__(
        self,
        n_features: int,
        n_classes: int,
        *,
        grace_period: int = 200,
        delta: float = 1e-7,
        tau: float = 0.05,
        split_criterion: Literal["info_gain", "gini", "hellinger"] = "info_gain",
        leaf_prediction: Literal["nba", "nb", "mc"] = "nba",
    ) -> None:
        self.name = "vfdt"
        self.n_features, self.n_classes = _base.check_tabular(n_features, n_classes)
        self.n_outputs = self.n_classes
        self.grace_period = _validation.check_positive_int("grace_period", grace_period)
        self.delta = _base.check_positive_float("delta", delta)
        self.tau = _base.check_positive_float("tau", tau)
        self.split_criterion = _base.check_choice(
            "split_criterion", split_criterion, ("info_gain", "gini", "hellinger")
        )
        self.leaf_prediction = _base.check_choice(
            "leaf_prediction", leaf_prediction, ("nba", "nb", "mc")
        )
        self.model = self._new_model()

    def _new_model(self) -> Any:
        return HoeffdingTreeClassifier(**self._options())

    @property
    def tree(self) -> Any:
        """The river model (``model``)."""
        return self.model
