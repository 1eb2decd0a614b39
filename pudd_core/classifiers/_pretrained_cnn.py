"""A head trained chunk by chunk on the frozen features of the project's pretrained backbone."""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from pudd_core import _validation
from pudd_core.classifiers import _base

if TYPE_CHECKING:
    import torch

    from pudd_core.streams import Stream


#: Most images whose backbone features are remembered per backbone file and device: all of
#: CIFAR-10's 50,000 training images (128 float32 each, about 26 MB), since a 100-chunk stream
#: of any seed uses every one of them; a smaller cache, least recently used first, would miss
#: on every image of the next run. A backbone pass of 500 images gives every image the same
#: features whichever other images share its batch (checked on CPU), so a feature is the same
#: whether it was computed for this run's chunk or for another seed's.
FEATURE_CACHE = 50_000
# Shared by every classifier on the same weights file and device, so the runs of several
# detectors on one stream (the CIFAR-10-CD page) pass each image through the backbone once.
_CACHES: dict[tuple[str, int, int, str], OrderedDict[bytes, torch.Tensor]] = {}
# The images whose features a thread is computing now: ``ahead`` by features_ahead (the event
# is set when they are remembered: a run that needs them waits for them), ``busy`` by a run
# itself (features_ahead leaves them to it). A run never makes features_ahead wait, so two
# threads never wait for each other.
_AHEAD: dict[tuple[str, int, int, str], dict[bytes, threading.Event]] = {}
_BUSY: dict[tuple[str, int, int, str], dict[bytes, int]] = {}
_LOCK = threading.Lock()


def _feature_cache(
    path: Path, device: str
) -> tuple[OrderedDict[bytes, torch.Tensor], dict[bytes, threading.Event], dict[bytes, int]]:
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns, device)
    with _LOCK:
        return (_CACHES.setdefault(key, OrderedDict()), _AHEAD.setdefault(key, {}),
                _BUSY.setdefault(key, {}))


class PretrainedCNNClassifier:
    """A small head on the frozen 128-feature backbone pretrained on CIFAR-10's test images.

    The backbone (:func:`~pudd_core.classifiers._pretrain.pretrained_backbone`) never saw a
    CIFAR-10-CD image; it ships with the package (380 KB, its sha256 checked against its
    record at every load) and loads in well under a second; only where that file is absent is
    it pretrained once into the data cache (about 3 min on 2 free CPU cores). Each training
    call runs ``epochs`` passes of mini-batch Adam (``batch_size`` images) over the chunk's
    features, so a 500-image chunk trains in a fraction of a second on a CPU. The head keeps
    the authors' 10 logits (labels index them), so the PU-index is ``1 - softmax[y]`` over 10
    outputs as for ResNet-18.

    Parameters
    ----------
    n_classes
        Number of label values; must not exceed ``n_outputs``.
    n_outputs
        Number of logits (the authors' 10).
    hidden
        Width of the head's hidden layer (0: a linear head).
    epochs
        Passes over the data per training call.
    batch_size
        Mini-batch size.
    lr, weight_decay
        Adam settings; the optimizer state persists across calls until an adaptation.
    reset_on_adapt
        ``adapt`` re-initialises the head (and its optimizer) before training on the window.
        Off by default, as the authors' CIFAR rule (no reset): a new head trained on one
        chunk is weak, keeps improving over the next chunks, and PUDD sees that change as
        drift (BENCHMARKS.md: 3.4 against 1.8 false alarms per 50 chunks, 10 epochs).
    class_weight
        ``"balanced"``: each training call weighs the labels present by
        ``n / (n_labels * count)`` (scikit-learn's ``compute_class_weight``), so the minority
        positives count as much as the negatives; ``None`` (default): every image weighs the
        same. Balanced weights lift the positives' recall, so PUDD sees a positive class
        being dropped (detected within 2 chunks: 4 of 6 such drifts against 0 of 7), at a
        price: accuracy 80-82 % instead of 82-84 % and 1.8-2.2 false alarms per 50 chunks
        instead of 0.5-1.4 (BENCHMARKS.md, CIFAR-10-CD diagnosis).
    weights_path
        A backbone weights file; None uses the shipped default (built into the cache where
        that file is absent).
    device
        ``"auto"`` (CUDA, then MPS, then CPU), ``"cpu"``, ``"cuda"`` or ``"mps"``.
    seed
        Seeds the head's weights and the mini-batch order; the global torch RNG is untouched.
    """

    def __init__(
        self,
        n_classes: int,
        *,
        n_outputs: int = 10,
        hidden: int = 64,
        epochs: int = 20,
        batch_size: int = 50,
        lr: float = 0.003,
        weight_decay: float = 0.0,
        reset_on_adapt: bool = False,
        class_weight: str | None = None,
        weights_path: str | Path | None = None,
        device: str = "auto",
        seed: int | None = None,
    ) -> None:
        self.name = "pretrained-cnn"
        self.n_classes, self.n_outputs = _base.check_logits(n_classes, n_outputs)
        self.hidden = _validation.check_positive_int("hidden", hidden, minimum=0)
        self.epochs = _validation.check_positive_int("epochs", epochs)
        self.batch_size = _validation.check_positive_int("batch_size", batch_size)
        self.lr = _base.check_positive_float("lr", lr)
        if not (np.isfinite(weight_decay) and weight_decay >= 0):
            raise ValueError(f"weight_decay must be >= 0, got {weight_decay!r}.")
        self.weight_decay = float(weight_decay)
        self.reset_on_adapt = bool(reset_on_adapt)
        if class_weight not in (None, "balanced"):
            raise ValueError(f"class_weight must be None or 'balanced', got {class_weight!r}.")
        self.class_weight = class_weight
        _base.check_weights_file(weights_path, "a backbone weights file")
        self.device = _base.resolve_device(device)
        self.seed = seed
        from pudd_core.classifiers import _pretrain

        if weights_path is None:
            weights_path = _pretrain.pretrained_backbone().path
        self.weights_path = Path(weights_path)
        self.backbone = _pretrain.load_backbone(self.weights_path).to(self.device)
        self._n_features = int(_pretrain.WIDTHS[-1])
        self._features, self._ahead, self._busy = _feature_cache(self.weights_path,
                                                                 self.device)
        self._rng = np.random.default_rng(seed)
        self._new_head()

    def _new_head(self) -> None:
        import torch
        from torch import nn

        with _base.torch_seeded(_base.draw_seed(self._rng)):
            if self.hidden:
                head: nn.Module = nn.Sequential(
                    nn.Linear(self._n_features, self.hidden), nn.ReLU(),
                    nn.Linear(self.hidden, self.n_outputs),
                )
            else:
                head = nn.Linear(self._n_features, self.n_outputs)
        self.head = head.to(self.device)
        self._optimizer = torch.optim.Adam(
            self.head.parameters(), lr=self.lr, weight_decay=self.weight_decay
        )
        self._gen = torch.Generator().manual_seed(_base.draw_seed(self._rng))

    def features(self, X: ArrayLike) -> torch.Tensor:
        """The backbone's ``(n, 128)`` features of ``X``.

        The backbone is frozen, so an image's features never change: they are remembered by
        the image's hash (up to ``FEATURE_CACHE`` images per weights file and device, shared
        by all instances), so retraining on a window of chunks already seen, or a second
        detector's run on the same stream, costs no backbone pass.
        """
        arr = _base.check_images(X)
        keys = [hashlib.blake2b(row.tobytes(), digest_size=16).digest() for row in arr]
        while True:
            with _LOCK:
                missing = [k for k in dict.fromkeys(keys) if k not in self._features]
                waits = {self._ahead[k] for k in missing if k in self._ahead}
                if not waits:  # none under way ahead: this thread computes the missing ones
                    for k in missing:
                        self._busy[k] = self._busy.get(k, 0) + 1
                    break
            for event in waits:  # features_ahead is computing them: wait, not compute again
                event.wait()
        try:
            return self._computed(arr, keys)
        finally:
            with _LOCK:
                for k in missing:
                    self._busy[k] -= 1
                    if not self._busy[k]:
                        del self._busy[k]

    def _computed(self, arr: NDArray[np.float32], keys: list[bytes]) -> torch.Tensor:
        """The features of ``arr`` (hashed as ``keys``): remembered, else computed."""
        import torch

        with _LOCK:
            known = {k: self._features[k] for k in keys if k in self._features}
        if len(known) < len(set(keys)):
            # The whole input in blocks of 500, not only the missing rows: a backbone pass
            # can differ in the last bit with the batch's size, and the runner always shows a
            # chunk alone first, so every run gets the same features whatever ran before.
            x = torch.from_numpy(arr)
            with torch.no_grad():
                new = torch.cat([self.backbone(x[i : i + 500].to(self.device))
                                 for i in range(0, len(x), 500)])
            known.update((k, row) for k, row in zip(keys, new, strict=True) if k not in known)
        with _LOCK:
            for k in keys:
                self._features[k] = known[k]
                self._features.move_to_end(k)
            while len(self._features) > FEATURE_CACHE:
                self._features.popitem(last=False)
        if not keys:
            return torch.zeros(0, self._n_features, device=self.device)
        return torch.stack([known[k] for k in keys])

    @contextlib.contextmanager
    def features_ahead(self, stream: Stream) -> Iterator[None]:
        """While the block runs, compute the features of ``stream``'s chunks on a thread.

        From chunk 1 (the loop starts on chunk 0), in order, each chunk alone, as a run first
        shows it, so each image gets the features the run would compute (the same batch).
        The run's loop then finds them remembered, or waits for the chunk under way; a chunk
        the loop is computing is left to it, so no image passes the backbone twice. The
        backbone's passes (half a run's time on a CPU) then overlap the head's training
        instead of preceding each chunk's test. The thread stops at the end of the block
        (after the chunk it is on); an error there is left for the run to meet.

        Examples
        --------
        >>> from pudd_core.streams import get_info
        >>> from pudd_core.streams.cifar10_cd import interest_stream
        >>> images = np.random.default_rng(0).integers(0, 256, (40, 32, 32, 3), dtype=np.uint8)
        >>> stream = interest_stream(get_info("cifar10-cd"), images, np.arange(40) % 10,
        ...                          seed=0, chunk_size=20)
        >>> model = PretrainedCNNClassifier(2, device="cpu", seed=0)
        >>> with model.features_ahead(stream):
        ...     pass
        >>> model.features(stream.chunk(1)[0]).shape  # remembered, or computed here
        torch.Size([20, 128])
        """
        stop = threading.Event()

        def compute() -> None:
            for t in range(1, stream.n_chunks):  # the loop starts on chunk 0 itself
                if stop.is_set():
                    return
                done, mine = threading.Event(), []
                try:
                    arr = _base.check_images(stream.chunk(t)[0])
                    keys = [hashlib.blake2b(row.tobytes(), digest_size=16).digest()
                            for row in arr]
                    with _LOCK:  # the chunk, unless remembered or (in part) under way
                        missing = [k for k in dict.fromkeys(keys) if k not in self._features]
                        if not any(k in self._ahead or k in self._busy for k in missing):
                            mine = missing
                        self._ahead.update((k, done) for k in mine)
                    if mine:
                        self._computed(arr, keys)
                except Exception:  # noqa: BLE001 - the run computes it again and raises
                    return
                finally:
                    with _LOCK:
                        for k in mine:
                            del self._ahead[k]
                    done.set()

        thread = threading.Thread(target=compute, name="pudd-features-ahead", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()

    def _train(self, X: ArrayLike, y: ArrayLike) -> None:
        import torch

        feats = self.features(X)
        labels = torch.from_numpy(_base.check_labels(y, self.n_classes, len(feats))).to(self.device)
        n = len(feats)
        if n == 0:
            return
        weight = None
        if self.class_weight is not None:
            from sklearn.utils.class_weight import compute_class_weight

            y_np = labels.cpu().numpy()
            present = np.unique(y_np)
            w = np.ones(self.n_outputs, dtype=np.float32)
            w[present] = compute_class_weight("balanced", classes=present, y=y_np)
            weight = torch.from_numpy(w).to(self.device)
        self.head.train()
        with _base.torch_threads(1):
            self._epochs(feats, labels, weight)

    def _epochs(self, feats: torch.Tensor, labels: torch.Tensor,
                weight: torch.Tensor | None = None) -> None:
        import torch

        n = len(feats)
        for _ in range(self.epochs):
            order = torch.randperm(n, generator=self._gen).to(self.device)
            for start in range(0, n, self.batch_size):
                idx = order[start : start + self.batch_size]
                loss = torch.nn.functional.cross_entropy(self.head(feats[idx]), labels[idx],
                                                         weight=weight)
                self._optimizer.zero_grad()
                torch.autograd.backward(loss)
                self._optimizer.step()

    def fit(self, X: ArrayLike, y: ArrayLike) -> None:
        """A new seeded head (the backbone is fixed), then ``epochs`` passes over ``X, y``."""
        self._rng = np.random.default_rng(self.seed)
        self._new_head()
        self._train(X, y)

    def partial_fit(self, X: ArrayLike, y: ArrayLike) -> None:
        """``epochs`` more passes over ``X, y``; the head and its Adam state carry over."""
        self._train(X, y)

    def adapt(self, X: ArrayLike, y: ArrayLike) -> None:
        """``epochs`` passes on the window (on a new head when ``reset_on_adapt``)."""
        if self.reset_on_adapt:
            self._new_head()
        self._train(X, y)

    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Softmax over the ``n_outputs`` logits, ``(n, n_outputs)`` float64."""
        import torch

        feats = self.features(X)
        self.head.eval()
        with torch.inference_mode(), _base.torch_threads(1):
            logits = self.head(feats)
        return _base.softmax_proba(logits)


def warm_up(device: str = "auto") -> str:
    """Import and run once what a pretrained-CNN run needs; returns the device it would use.

    A fresh process pays torch's imports (torch, then ``torch.optim``'s first step, which
    imports torch's compiler stack) and the backbone's loading on its first run: seconds on
    an idle machine, tens of seconds on a busy one. The app's torch child calls this as soon
    as a page that runs networks opens, so that this work overlaps the page's own. The
    backbone (the shipped or cached one: nothing is pretrained here) runs one batch of zeros
    outside the features cache, and a throwaway layer takes one Adam step: no classifier's
    state, no cached feature and no global random state is touched.

    Examples
    --------
    >>> warm_up("cpu")
    'cpu'
    """
    import torch

    from pudd_core.classifiers import _pretrain

    name = _base.resolve_device(device)
    found = _pretrain.cached_backbone()
    with torch.no_grad():
        if found is not None:
            _pretrain.load_backbone(found.path).to(name)(torch.zeros(2, 3, 32, 32, device=name))
    layer = torch.nn.Linear(2, 2).to(name)
    optimizer = torch.optim.Adam(layer.parameters())
    optimizer.zero_grad()
    torch.autograd.backward(layer(torch.zeros(1, 2, device=name)).sum())
    optimizer.step()
    return name
