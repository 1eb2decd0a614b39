"""Image networks for CIFAR-10-CD: the authors' ResNet-18 without BatchNorm, and a small CNN."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from pudd_core import _validation
from pudd_core.classifiers import _base

if TYPE_CHECKING:
    import torch

ARCHITECTURES = ("resnet18", "small-cnn")


def resnet18_network(n_outputs: int = 10) -> torch.nn.Module:
    """Build torchvision's ResNet-18, no weights, with each ``BatchNorm2d`` made ``Identity``.

    Build it inside :func:`torch_seeded` for reproducible weights.

    Examples
    --------
    >>> import torch
    >>> net = resnet18_network()
    >>> any(isinstance(m, torch.nn.BatchNorm2d) for m in net.modules()), net.fc.out_features
    (False, 10)
    """
    import torch
    import torchvision

    net: torch.nn.Module = torchvision.models.resnet18(weights=None, num_classes=n_outputs)
    for parent in list(net.modules()):
        for child_name, child in list(parent.named_children()):
            if isinstance(child, torch.nn.BatchNorm2d):
                setattr(parent, child_name, torch.nn.Identity())
    return net


def small_cnn_network(n_outputs: int = 10) -> torch.nn.Sequential:
    """Three 3x3 conv layers (16, 32, 64 channels), global average pooling and a linear head.

    The first convolution has stride 2 and each is followed by 2x2 max pooling (32 -> 8 -> 4
    pixels), which cuts the cost about fourfold: 24k parameters, and 10 training steps on 500
    CIFAR images take about 0.3 s on two CPU cores, where ResNet-18 needs about 9 s.

    Examples
    --------
    >>> import torch
    >>> small_cnn_network()(torch.zeros(2, 3, 32, 32)).shape
    torch.Size([2, 10])
    """
    from torch import nn

    return nn.Sequential(
        nn.Conv2d(3, 16, 3, stride=2, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(64, n_outputs),
    )


class CNNClassifier(_base.TorchLearner):
    """An image network trained with full-batch SGD as the authors train ResNet-18 (spec §3.5).

    Each training call runs ``epochs`` (10) full-batch SGD steps, lr 0.01, momentum 0.9.
    ``adapt`` keeps the weights (no reset): ``epochs`` steps on the window, then ``finetune_epochs``
    (20) steps on the head only at ``finetune_lr`` (1e-4), then the learning rate is restored and
    every layer unfrozen. Labels index the ``n_outputs`` (10) logits, as the authors use the
    binary CIFAR-10-CD labels, so ``predict_proba`` is the softmax over all 10 logits and the
    PU-index ``1 - softmax[y]`` counts mass on never-used logits too.

    Parameters
    ----------
    arch
        ``"resnet18"`` (trained from scratch, spec §10.16) or ``"small-cnn"``.
    n_classes
        Number of label values; must not exceed ``n_outputs``.
    n_outputs
        Number of logits (the authors' 10).
    lr, momentum
        SGD settings.
    epochs
        Steps per training call.
    finetune_epochs, finetune_lr
        The head-only steps that follow the window steps in ``adapt``.
    max_batch
        Most images per forward pass (1000). Each step sums the gradients of slices of at most
        ``max_batch`` images before one update: the authors' full-batch step up to rounding,
        not mini-batch SGD, so memory stays bounded when an alarm retrains on a long window
        (64 CIFAR-10-CD chunks would otherwise be one 32,000-image pass). ``None``: one pass
        over the whole input, as the authors' code.
    weights_path
        Optional local ``state_dict`` file loaded with ``torch.load`` after the seeded init;
        entries whose name or shape does not match (BatchNorm, a 1000-way ``fc``) are skipped.
        Nothing is ever downloaded.
    device
        ``"auto"`` (CUDA, then Apple MPS, then CPU), ``"cpu"``, ``"cuda"`` or ``"mps"``;
        weights are drawn on the CPU, so a seed gives the same initial network everywhere.
    seed
        Seeds the initial weights; the global torch RNG is untouched.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(8, 3, 32, 32)).astype(np.float32); y = np.array([0, 1] * 4)
    >>> clf = CNNClassifier("small-cnn", n_classes=2, seed=0)
    >>> clf.fit(X, y)
    >>> proba = clf.predict_proba(X)
    >>> proba.shape, bool(np.allclose(proba.sum(axis=1), 1.0))
    ((8, 10), True)
    """

    def __init__(
        self,
        arch: Literal["resnet18", "small-cnn"],
        n_classes: int,
        *,
        n_outputs: int = 10,
        lr: float = 0.01,
        momentum: float = 0.9,
        epochs: int = 10,
        finetune_epochs: int = 20,
        finetune_lr: float = 1e-4,
        max_batch: int | None = 1000,
        weights_path: str | Path | None = None,
        device: str = "auto",
        seed: int | None = None,
    ) -> None:
        self.device = _base.resolve_device(device)
        self.name = self.arch = _base.check_choice("arch", arch, ARCHITECTURES)
        self.n_classes, self.n_outputs = _base.check_logits(n_classes, n_outputs)
        self.lr = _base.check_positive_float("lr", lr)
        if not 0.0 <= momentum < 1.0:
            raise ValueError(f"momentum must be in [0, 1), got {momentum!r}.")
        self.momentum = float(momentum)
        self.epochs = _validation.check_positive_int("epochs", epochs)
        self.finetune_epochs = _validation.check_positive_int(
            "finetune_epochs", finetune_epochs, minimum=0
        )
        self.finetune_lr = _base.check_positive_float("finetune_lr", finetune_lr)
        if max_batch is not None:
            max_batch = _validation.check_positive_int("max_batch", max_batch)
        self.max_batch = max_batch
        _base.check_weights_file(weights_path, "a local state_dict file")
        self.weights_path = weights_path
        self.seed = seed
        self._reset()

    def _reset(self) -> None:
        """The seeded initial weights (then ``weights_path``'s) and a new SGD optimizer."""
        import torch

        self._rng = np.random.default_rng(self.seed)
        with _base.torch_seeded(_base.draw_seed(self._rng)):
            if self.arch == "resnet18":
                network = resnet18_network(self.n_outputs)
                head = network.get_submodule("fc")
            else:
                small = small_cnn_network(self.n_outputs)
                network, head = small, small[-1]
        self.network: torch.nn.Module = network
        self._head: torch.nn.Module = head
        if self.weights_path is not None:
            self._load_weights(Path(self.weights_path))
        self.network.to(self.device)
        self._optimizer = torch.optim.SGD(
            self.network.parameters(), lr=self.lr, momentum=self.momentum
        )

    def _load_weights(self, path: Path) -> None:
        import torch

        state = torch.load(path, map_location="cpu", weights_only=True)
        if isinstance(state, dict) and isinstance(state.get("state_dict"), dict):
            state = state["state_dict"]
        own = self.network.state_dict()
        usable = {
            k: v
            for k, v in state.items()
            if k in own and isinstance(v, torch.Tensor) and v.shape == own[k].shape
        }
        if not usable:
            raise ValueError(f"{path} holds no weights matching the {self.arch} network.")
        self.network.load_state_dict(usable, strict=False)

    def _tensors(self, X: ArrayLike, y: ArrayLike) -> tuple[torch.Tensor, torch.Tensor]:
        import torch

        Xa = _base.check_images(X)
        ya = _base.check_labels(y, self.n_classes, len(Xa))
        return torch.from_numpy(Xa).to(self.device), torch.from_numpy(ya).to(self.device)

    def _train(self, X: torch.Tensor, y: torch.Tensor, steps: int) -> None:
        import torch

        n = X.shape[0]
        if n == 0:
            return
        size = n if self.max_batch is None else self.max_batch
        self.network.train()
        for _ in range(steps):
            self._optimizer.zero_grad()
            for start in range(0, n, size):
                logits = self.network(X[start : start + size])
                # Summed slice losses over n: exactly the gradient of the full-batch mean loss.
                loss = torch.nn.functional.cross_entropy(
                    logits, y[start : start + size], reduction="sum"
                )
                torch.autograd.backward(loss / n)
            self._optimizer.step()

    def adapt(self, X: ArrayLike, y: ArrayLike) -> None:
        """No reset: ``epochs`` steps on the window, then head-only steps at ``finetune_lr``."""
        Xt, yt = self._tensors(X, y)
        self._train(Xt, yt, self.epochs)
        head = {id(p) for p in self._head.parameters()}
        body = [p for p in self.network.parameters() if id(p) not in head]
        for p in body:
            p.requires_grad_(False)
        for group in self._optimizer.param_groups:
            group["lr"] = self.finetune_lr
        try:
            # zero_grad() sets grads to None: SGD skips the frozen body and its momentum.
            self._train(Xt, yt, self.finetune_epochs)
        finally:
            for group in self._optimizer.param_groups:
                group["lr"] = self.lr
            for p in body:
                p.requires_grad_(True)

    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Softmax over all ``n_outputs`` logits in eval mode, ``(n, n_outputs)`` float64."""
        import torch

        Xt = torch.from_numpy(_base.check_images(X))
        size = max(1, len(Xt)) if self.max_batch is None else self.max_batch
        self.network.eval()
        with torch.inference_mode():
            parts = [self.network(Xt[i : i + size].to(self.device))
                     for i in range(0, len(Xt), size)]
            logits = torch.cat(parts) if parts else torch.zeros(0, self.n_outputs)
        return _base.softmax_proba(logits)
