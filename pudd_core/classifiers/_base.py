"""The classifier protocol and the input checks and torch seeding shared by its adapters."""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from pudd_core import _validation

if TYPE_CHECKING:
    import torch

#: Shape of one CIFAR-10 image, the only input the image networks accept.
IMAGE_SHAPE = (3, 32, 32)


@runtime_checkable
class Classifier(Protocol):
    """What the runner needs from a classifier: train, adapt on alarm, give class probabilities.

    Labels are class indices ``0 .. n_classes - 1``. ``predict_proba`` returns one column per
    network output (``n_outputs``, equal to ``n_classes`` except for the image networks, which
    keep the authors' 10 logits), so the PU-index of a row is ``1 - proba[i, y_i]``.

    Examples
    --------
    >>> from pudd_core.classifiers import make_classifier
    >>> isinstance(make_classifier("gnb", input_shape=(2,), n_classes=2), Classifier)
    True
    """

    name: str
    n_classes: int
    n_outputs: int

    def fit(self, X: ArrayLike, y: ArrayLike) -> None:
        """Train from the initial state on the first chunk."""

    def partial_fit(self, X: ArrayLike, y: ArrayLike) -> None:
        """Keep training on one tested chunk (the incremental "-I" regime)."""

    def adapt(self, X: ArrayLike, y: ArrayLike) -> None:
        """Apply the model's reset rule after an alarm, then train on the window ``X, y``."""

    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Return ``(n, n_outputs)`` float64 probabilities whose rows sum to 1."""


class RiverDictLearner:
    """A river classifier learning one row at a time, fed dense dicts ``{j: x_j}``.

    Subclasses set ``n_features``, ``n_classes``, ``n_outputs`` and build the river model in
    ``_new_model`` (``_options`` gives it theirs); ``fit`` and ``adapt`` start a new model,
    ``partial_fit`` keeps learning.
    """

    n_features: int
    n_classes: int
    n_outputs: int
    model: Any

    def _new_model(self) -> Any:
        raise NotImplementedError

    def _options(self) -> dict[str, Any]:
        """The keyword-only options but ``seed``, as set: the river model's of the same names."""
        params = inspect.signature(type(self)).parameters.values()
        return {p.name: getattr(self, p.name) for p in params
                if p.kind is p.KEYWORD_ONLY and p.name != "seed"}

    def _rows(self, X: ArrayLike) -> list[dict[int, float]]:
        # One dict per row built in a single comprehension: the per-instance cost that matters.
        return [dict(enumerate(row)) for row in check_features(X, self.n_features).tolist()]

    def fit(self, X: ArrayLike, y: ArrayLike) -> None:
        """A new model grown on ``X, y``."""
        self.adapt(X, y)

    def partial_fit(self, X: ArrayLike, y: ArrayLike) -> None:
        """Feed ``X, y`` to the model in row order, one ``learn_one`` per instance."""
        rows = self._rows(X)
        labels = check_labels(y, self.n_classes, len(rows)).tolist()
        learn_one = self.model.learn_one
        for x, label in zip(rows, labels, strict=True):
            learn_one(x, label)

    def adapt(self, X: ArrayLike, y: ArrayLike) -> None:
        """Reset: a new model trained on the window only (spec §3.5)."""
        self.model = self._new_model()
        self.partial_fit(X, y)

    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Dense ``(n, n_classes)`` probabilities; unseen classes 0, empty answers uniform."""
        rows = self._rows(X)
        proba = np.zeros((len(rows), self.n_outputs))
        predict_proba_one = self.model.predict_proba_one
        for i, x in enumerate(rows):
            for label, p in predict_proba_one(x).items():
                proba[i, int(label)] = p
        # Leaves can return unnormalised votes; an untrained model returns nothing at all.
        total = proba.sum(axis=1, keepdims=True)
        empty = total[:, 0] <= 0.0
        proba[~empty] /= total[~empty]
        proba[empty] = 1.0 / self.n_outputs
        return proba


class TorchLearner:
    """``fit`` and ``partial_fit`` of a torch network trained ``epochs`` steps at each call.

    Subclasses give ``_tensors`` (checked inputs as tensors on the device), ``_reset`` (the
    seeded initial weights and a new optimizer) and ``_train`` (that many steps), and their own
    ``adapt``: their reset rules differ.
    """

    epochs: int

    def _tensors(self, X: ArrayLike, y: ArrayLike) -> tuple[torch.Tensor, torch.Tensor]:
        raise NotImplementedError

    def _reset(self) -> None:
        raise NotImplementedError

    def _train(self, X: torch.Tensor, y: torch.Tensor, steps: int) -> None:
        raise NotImplementedError

    def fit(self, X: ArrayLike, y: ArrayLike) -> None:
        """Rebuild from the seeded initial weights, then ``epochs`` steps on ``X, y``."""
        Xt, yt = self._tensors(X, y)
        self._reset()
        self._train(Xt, yt, self.epochs)

    def partial_fit(self, X: ArrayLike, y: ArrayLike) -> None:
        """``epochs`` more steps on ``X, y``; the optimizer's state carries over."""
        self._train(*self._tensors(X, y), self.epochs)


def check_positive_float(name: str, value: object) -> float:
    """Return ``value`` as a float, or raise ValueError when it is not a finite number > 0."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.number):
        raise ValueError(f"{name} must be a positive number, got {value!r}.")
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive number, got {value!r}.")
    return float(value)


def check_choice(name: str, value: object, choices: Sequence[str]) -> str:
    """Return ``value`` when it is one of ``choices``, else raise ValueError listing them."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}.")
    return str(value)


def check_tabular(n_features: int, n_classes: int) -> tuple[int, int]:
    """``n_features`` >= 1 feature columns and ``n_classes`` >= 2 classes, checked.

    Examples
    --------
    >>> check_tabular(3, 2)
    (3, 2)
    """
    return (_validation.check_positive_int("n_features", n_features),
            _validation.check_positive_int("n_classes", n_classes, minimum=2))


def check_logits(n_classes: int, n_outputs: int) -> tuple[int, int]:
    """``n_classes`` >= 2 labels indexing ``n_outputs`` >= ``n_classes`` logits, checked.

    Examples
    --------
    >>> check_logits(2, 10)
    (2, 10)
    >>> check_logits(3, 2)
    Traceback (most recent call last):
    ...
    ValueError: n_classes (3) must not exceed n_outputs (2): labels index the network's logits.
    """
    n_classes = _validation.check_positive_int("n_classes", n_classes, minimum=2)
    n_outputs = _validation.check_positive_int("n_outputs", n_outputs, minimum=2)
    if n_classes > n_outputs:
        raise ValueError(
            f"n_classes ({n_classes}) must not exceed n_outputs ({n_outputs}): "
            "labels index the network's logits."
        )
    return n_classes, n_outputs


def check_weights_file(weights_path: str | Path | None, give: str) -> None:
    """Raise unless ``weights_path`` is None or an existing file (``give``: what to give)."""
    if weights_path is not None and not Path(weights_path).is_file():
        raise ValueError(f"weights_path {str(weights_path)!r} is not a file; give {give}.")


def check_features(X: ArrayLike, n_features: int) -> NDArray[np.float64]:
    """Return ``X`` as a float64 ``(n, n_features)`` array, or raise ValueError."""
    arr = np.asarray(X, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] != n_features:
        raise ValueError(
            f"X must have shape (n, {n_features}) for this classifier, got {arr.shape}; "
            "pass one row per instance with the input_shape given to make_classifier."
        )
    return arr


def check_images(X: ArrayLike) -> NDArray[np.float32]:
    """Return ``X`` as a contiguous float32 ``(n, 3, 32, 32)`` array, or raise ValueError."""
    arr = np.ascontiguousarray(X, dtype=np.float32)
    if arr.ndim != 4 or arr.shape[1:] != IMAGE_SHAPE:
        raise ValueError(f"X must have shape (n, 3, 32, 32) (CIFAR-10 images), got {arr.shape}.")
    return arr


def check_labels(y: ArrayLike, n_classes: int, n_rows: int) -> NDArray[np.int64]:
    """Return ``y`` as int64 class indices in ``[0, n_classes)``, one per row, or raise."""
    arr = np.asarray(y)
    if arr.ndim != 1 or arr.shape[0] != n_rows:
        raise ValueError(f"y must be 1-D with {n_rows} labels (one per row of X), got {arr.shape}.")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        if not np.array_equal(arr, np.round(arr)):
            raise ValueError("y must hold integer class indices 0 .. n_classes - 1.")
    labels = arr.astype(np.int64)
    if labels.size and (labels.min() < 0 or labels.max() >= n_classes):
        raise ValueError(
            f"y must hold class indices in [0, {n_classes}); got values from "
            f"{labels.min()} to {labels.max()}. Map labels to indices first."
        )
    return labels


def uniform_proba(n_rows: int, n_outputs: int) -> NDArray[np.float64]:
    """Return the uniform ``(n_rows, n_outputs)`` distribution, the answer of an untrained model."""
    return np.full((n_rows, n_outputs), 1.0 / n_outputs)


def draw_seed(rng: np.random.Generator) -> int:
    """Draw a seed for torch from a classifier's own generator."""
    return int(rng.integers(2**63 - 1))


@contextmanager
def torch_seeded(seed: int) -> Iterator[None]:
    """Run the block with torch's CPU generator seeded, then restore the caller's state.

    ``torch.random.fork_rng`` saves and restores the global CPU generator, so building a
    network here never changes the global torch RNG (STYLE.md section 6).
    """
    import torch

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


def softmax_proba(logits: torch.Tensor) -> NDArray[np.float64]:
    """Softmax computed in float64, so that rows sum to 1 to float64 precision."""
    proba: NDArray[np.float64] = logits.detach().double().softmax(dim=1).cpu().numpy()
    return proba


DEVICES = ("auto", "cpu", "cuda", "mps")


def resolve_device(device: str) -> str:
    """The torch device to use: ``"auto"`` picks CUDA, then Apple MPS, then the CPU.

    An explicit ``"cuda"`` or ``"mps"`` that this machine lacks raises ValueError.

    Examples
    --------
    >>> resolve_device("cpu")
    'cpu'
    >>> resolve_device("auto") in ("cuda", "mps", "cpu")
    True
    """
    import torch

    name = check_choice("device", device, DEVICES)
    cuda = torch.cuda.is_available()
    mps = bool(getattr(torch.backends, "mps", None) and torch.backends.mps.is_available())
    if name == "auto":
        return "cuda" if cuda else "mps" if mps else "cpu"
    if (name == "cuda" and not cuda) or (name == "mps" and not mps):
        raise ValueError(f"device {name!r} is not available on this machine; use 'auto' or 'cpu'.")
    return name


@contextmanager
def torch_threads(n: int) -> Iterator[None]:
    """Run the block with ``n`` torch intra-op threads, then restore the caller's number.

    Tiny networks (a head on 128 features) run faster on one thread, and many times faster
    when other processes share the cores: idle OpenMP workers spin for the busy ones.
    """
    import torch

    before = torch.get_num_threads()
    if before == n:
        yield
        return
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)
