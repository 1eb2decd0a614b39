"""The authors' PyTorch MLP ("DNN") and the five-MLP soft-vote ensemble of Table 2."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from pudd_core import _validation
from pudd_core.classifiers import _base

if TYPE_CHECKING:
    import torch


class DNNClassifier(_base.TorchLearner):
    """A ReLU MLP trained with full-batch Adam and cross-entropy, as the authors train it.

    Every training call runs ``epochs`` full-batch steps with one Adam optimizer (lr 0.01)
    whose state persists across calls; inputs are not normalised (spec §3.5). ``fit`` rebuilds
    the network from its seeded initial weights. On ``adapt`` the last layer is re-created and
    Adam is rebuilt over all parameters before ``epochs`` steps on the window (spec §10.11).

    Parameters
    ----------
    n_features
        Input width *d*.
    n_classes
        Number of outputs *C*; labels are the indices ``0 .. C - 1``.
    hidden
        Hidden widths: ``(64, 64)``, or the authors' airline net ``(512, 256, 64)``.
    lr
        Adam learning rate.
    epochs
        Full-batch steps per training call (100 in the authors' code).
    reproduce_frozen_head
        Reproduce the authors' bug (spec §8.1 item 1): ``adapt`` re-creates the last layer but
        keeps the old optimizer, so the new layer is never trained again and only the hidden
        layers learn. Off by default; the published DNN numbers were produced with it on.
    device
        ``"auto"`` (CUDA, then Apple MPS, then CPU), ``"cpu"``, ``"cuda"`` or ``"mps"``;
        weights are drawn on the CPU, so a seed gives the same initial network everywhere.
    seed
        Seeds the initial weights and every re-created layer; the global torch RNG is untouched.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2)); y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> clf = DNNClassifier(n_features=2, n_classes=2, seed=0)
    >>> clf.fit(X, y)
    >>> float((clf.predict_proba(X).argmax(axis=1) == y).mean()) > 0.95
    True
    >>> clf.predict_proba(X[:3]).sum(axis=1).tolist()
    [1.0, 1.0, 1.0]
    """

    def __init__(
        self,
        n_features: int,
        n_classes: int,
        *,
        hidden: Sequence[int] = (64, 64),
        lr: float = 0.01,
        epochs: int = 100,
        reproduce_frozen_head: bool = False,
        device: str = "auto",
        seed: int | None = None,
    ) -> None:
        self.name = "dnn"
        self.device = _base.resolve_device(device)
        self.n_features, self.n_classes = _base.check_tabular(n_features, n_classes)
        self.n_outputs = self.n_classes
        if isinstance(hidden, str | bytes) or not isinstance(hidden, Sequence) or not hidden:
            raise ValueError(f"hidden must be a non-empty sequence of widths, got {hidden!r}.")
        self.hidden = tuple(_validation.check_positive_int("hidden width", h) for h in hidden)
        self.lr = _base.check_positive_float("lr", lr)
        self.epochs = _validation.check_positive_int("epochs", epochs)
        self.reproduce_frozen_head = bool(reproduce_frozen_head)
        self.seed = seed
        self._reset()

    def _reset(self) -> None:
        self._rng = np.random.default_rng(self.seed)
        self._rebuild()

    def _rebuild(self) -> None:
        """Build a new network with freshly drawn weights, and a new Adam optimizer over it."""
        import torch

        widths = (self.n_features, *self.hidden)
        layers: list[torch.nn.Module] = []
        with _base.torch_seeded(_base.draw_seed(self._rng)):
            for n_in, n_out in zip(widths[:-1], widths[1:], strict=True):
                layers += [torch.nn.Linear(n_in, n_out), torch.nn.ReLU()]
            layers.append(torch.nn.Linear(widths[-1], self.n_classes))
        self.network = torch.nn.Sequential(*layers).to(self.device)
        self._optimizer = self._new_optimizer(self.lr)

    def _new_optimizer(self, lr: float) -> torch.optim.Adam:
        import torch

        return torch.optim.Adam(self.network.parameters(), lr=lr)

    def _tensors(self, X: ArrayLike, y: ArrayLike) -> tuple[torch.Tensor, torch.Tensor]:
        import torch

        Xa = _base.check_features(X, self.n_features)
        ya = _base.check_labels(y, self.n_classes, Xa.shape[0])
        return (
            torch.from_numpy(Xa.astype(np.float32)).to(self.device),
            torch.from_numpy(ya).to(self.device),
        )

    def _train(self, X: torch.Tensor, y: torch.Tensor, steps: int) -> None:
        import torch

        if X.shape[0] == 0:
            return
        self.network.train()
        for _ in range(steps):
            self._optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(self.network(X), y)
            torch.autograd.backward(loss)
            self._optimizer.step()

    def adapt(self, X: ArrayLike, y: ArrayLike) -> None:
        """Re-create the last layer and rebuild Adam, then ``epochs`` steps on the window."""
        import torch

        Xt, yt = self._tensors(X, y)
        with _base.torch_seeded(_base.draw_seed(self._rng)):
            head = torch.nn.Linear(self.hidden[-1], self.n_classes)
        self.network[-1] = head.to(self.device)
        if not self.reproduce_frozen_head:
            self._optimizer = self._new_optimizer(self.lr)
        self._train(Xt, yt, self.epochs)

    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Softmax of the logits in eval mode, ``(n, n_classes)`` float64."""
        import torch

        Xa = _base.check_features(X, self.n_features)
        self.network.eval()
        with torch.inference_mode():
            logits = self.network(torch.from_numpy(Xa.astype(np.float32)).to(self.device))
        return _base.softmax_proba(logits)


class DNNEnsembleClassifier:
    """Five independently seeded MLPs with a soft vote: the paper's Table 2 setting (spec §7).

    Probabilities are the mean of the members' softmax outputs, so the PU-index is
    ``1 - mean_proba[y]``. Each training call trains every member ``epochs`` steps (50 in the
    authors' code; the paper says 100). On ``adapt`` every member is rebuilt with new weights
    and a new optimizer and trained ``2 * epochs`` steps on the window (two training calls, as
    the authors do). With ``reinit_on_adapt=False`` (their airline setting) the weights are kept:
    each optimizer is re-created at ``adapt_lr``, trained ``epochs`` steps, then re-created at
    ``lr`` with fresh state.

    Parameters
    ----------
    n_features
        Input width *d*.
    n_classes
        Number of outputs *C*.
    n_models
        Ensemble size.
    hidden
        Hidden widths of every member; ``(64, 64)`` also on airline (679-64-64-2).
    lr
        Adam learning rate of every member.
    epochs
        Full-batch steps per training call.
    reinit_on_adapt
        ``True``: brand-new members on adaptation. ``False``: the airline rule above.
    adapt_lr
        Learning rate of the adaptation steps when ``reinit_on_adapt`` is ``False``.
    device
        Where every member runs: ``"auto"`` (CUDA, then MPS, then CPU) or a device name.
    seed
        Spawns one child seed per member.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 2)); y = (X[:, 0] > 0).astype(int)
    >>> ens = DNNEnsembleClassifier(n_features=2, n_classes=2, n_models=3, epochs=20, seed=0)
    >>> ens.fit(X, y)
    >>> mean = np.mean([m.predict_proba(X) for m in ens.members], axis=0)
    >>> bool(np.allclose(ens.predict_proba(X), mean))
    True
    """

    def __init__(
        self,
        n_features: int,
        n_classes: int,
        *,
        n_models: int = 5,
        hidden: Sequence[int] = (64, 64),
        lr: float = 0.01,
        epochs: int = 50,
        reinit_on_adapt: bool = True,
        adapt_lr: float = 0.1,
        device: str = "auto",
        seed: int | None = None,
    ) -> None:
        self.name = "dnn-ensemble"
        self.device = _base.resolve_device(device)
        self.n_models = _validation.check_positive_int("n_models", n_models)
        self.adapt_lr = _base.check_positive_float("adapt_lr", adapt_lr)
        self.reinit_on_adapt = bool(reinit_on_adapt)
        self.seed = seed
        children = np.random.SeedSequence(seed).spawn(self.n_models)
        self.members = tuple(
            DNNClassifier(
                n_features,
                n_classes,
                hidden=hidden,
                lr=lr,
                epochs=epochs,
                device=self.device,
                seed=int(child.generate_state(1, np.uint64)[0]),
            )
            for child in children
        )
        first = self.members[0]
        self.n_features, self.n_classes, self.n_outputs = (
            first.n_features,
            first.n_classes,
            first.n_outputs,
        )
        self.hidden, self.lr, self.epochs = first.hidden, first.lr, first.epochs

    def fit(self, X: ArrayLike, y: ArrayLike) -> None:
        """Fit every member from its seeded initial weights."""
        for member in self.members:
            member.fit(X, y)

    def partial_fit(self, X: ArrayLike, y: ArrayLike) -> None:
        """``epochs`` more steps for every member."""
        for member in self.members:
            member.partial_fit(X, y)

    def adapt(self, X: ArrayLike, y: ArrayLike) -> None:
        """Rebuild and train ``2 * epochs`` steps, or the airline learning-rate rule."""
        Xt, yt = self.members[0]._tensors(X, y)
        for member in self.members:
            if self.reinit_on_adapt:
                member._rebuild()
                member._train(Xt, yt, 2 * self.epochs)
            else:
                member._optimizer = member._new_optimizer(self.adapt_lr)
                member._train(Xt, yt, self.epochs)
                member._optimizer = member._new_optimizer(self.lr)

    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Soft vote: the mean of the members' probabilities."""
        proba: NDArray[np.float64] = np.mean([m.predict_proba(X) for m in self.members], axis=0)
        return proba
