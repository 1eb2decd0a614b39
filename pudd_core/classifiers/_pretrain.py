"""A CIFAR image backbone pretrained by the project on CIFAR-10's *test* images, shipped.

The CIFAR-10-CD stream is built from the 50,000 training images only, so a backbone trained on
the 10,000 test images (10-class labels) has never seen a stream image. The default recipe's
weights ship with the package in ``pudd_core/classifiers/weights/`` (made by this recipe with
``python -m pudd_core backbone --out pudd_core/classifiers/weights``), next to a JSON record of
the recipe (hyper-parameters, seed, torch version, a hash of the test-image indices) and the
weights' sha256, checked at every load. Another recipe, or the default one when its shipped
file is absent, is built once into ``<cache>/backbones/`` with the same record; a cached file
whose checksum differs from its record (corrupt, truncated, edited) is rebuilt. A damaged
*shipped* file is an error that names it and says how to restore or rebuild it: it is never
pretrained again silently in a visitor's session (minutes of CPU).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from pudd_core.classifiers import _base
from pudd_core.streams.locate import hash_file

if TYPE_CHECKING:
    import torch

__all__ = [
    "BackboneInfo",
    "PretrainRecipe",
    "backbone_network",
    "build_backbone",
    "cached_backbone",
    "load_backbone",
    "load_network",
    "pretrain_network",
    "pretrained_backbone",
    "pretraining_indices",
    "shipped_backbone",
    "shipped_paths",
]

Progress = Callable[[int, int], None]
_FORMAT = 1  # bump when the file layout or the network changes
WIDTHS = (32, 64, 128)  # channels of the three conv blocks; the feature vector has WIDTHS[-1]
#: The folder of the shipped backbone (package data, installed with ``pudd_core``).
SHIPPED = Path(__file__).with_name("weights")
#: How to make the shipped file again, for the error a damaged one gives.
REBUILD = "python -m pudd_core backbone"


@dataclass(frozen=True)
class PretrainRecipe:
    """How the backbone is pretrained; its hash names the cached file.

    Attributes
    ----------
    epochs
        Passes over the pretraining images.
    batch_size
        Images per SGD step.
    lr
        Peak learning rate of the one-cycle schedule (SGD, Nesterov momentum 0.9).
    weight_decay
        L2 penalty.
    label_smoothing
        Cross-entropy label smoothing.
    augment
        Random 4-pixel-padded crops and horizontal flips.
    per_class
        Test images used per class (1000: all of them); a smaller number gives a quick,
        class-balanced subset (tests).
    holdout_per_class
        Test images per class kept out of training to report the backbone's 10-class accuracy.
    seed
        Seeds the initial weights, the subset, the shuffling and the augmentation.

    Examples
    --------
    >>> PretrainRecipe().key() == PretrainRecipe().key() != PretrainRecipe(seed=1).key()
    True
    """

    epochs: int = 10
    batch_size: int = 128
    lr: float = 0.1
    weight_decay: float = 5e-4
    label_smoothing: float = 0.1
    augment: bool = True
    per_class: int = 1000
    holdout_per_class: int = 50
    seed: int = 0

    def key(self) -> str:
        """Short hash of the recipe and the file format."""
        blob = json.dumps({**dataclasses.asdict(self), "format": _FORMAT}, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class BackboneInfo:
    """A cached backbone: where its weights are and what its JSON record says."""

    path: Path
    record: dict[str, Any]
    built: bool  # built by this call (False: the shipped file or the cache's)

    @property
    def sha256(self) -> str:
        """The weights' checksum."""
        return str(self.record["sha256"])

    @property
    def shipped(self) -> bool:
        """Whether these are the weights shipped with the package (not a build of this machine)."""
        return self.path.parent.resolve() == SHIPPED.resolve()


def backbone_network(n_outputs: int = 10) -> torch.nn.Sequential:
    """Three conv blocks (conv 3x3, BatchNorm, ReLU, 2x2 max pool), global pooling, a head.

    Widths 32, 64, 128: 94,762 parameters (about 0.09 M; 380 KB as float32), 10 M
    multiply-adds per image. Everything but the last layer (``net[:-1]``) maps an image to a
    128-feature vector.

    Examples
    --------
    >>> import torch
    >>> net = backbone_network()
    >>> net(torch.zeros(2, 3, 32, 32)).shape, net[:-1](torch.zeros(2, 3, 32, 32)).shape
    (torch.Size([2, 10]), torch.Size([2, 128]))
    >>> sum(p.numel() for p in net.parameters())
    94762
    """
    from torch import nn

    layers: list[nn.Module] = []
    c_in = 3
    for c_out in WIDTHS:
        layers += [
            nn.Conv2d(c_in, c_out, 3, padding=1, bias=False),
            nn.BatchNorm2d(c_out),
            nn.ReLU(),
            nn.MaxPool2d(2),
        ]
        c_in = c_out
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c_in, n_outputs)]
    return nn.Sequential(*layers)


def pretraining_indices(
    labels: NDArray[np.int64], recipe: PretrainRecipe
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Positions (in the test set) of the training and the held-out pretraining images.

    Class-balanced: per class, a seeded permutation; the first ``holdout_per_class`` are held
    out, the next ``per_class - holdout_per_class`` train.

    Examples
    --------
    >>> labels = np.repeat(np.arange(10), 4)
    >>> train, held = pretraining_indices(labels, PretrainRecipe(per_class=3, holdout_per_class=1))
    >>> len(train), len(held), sorted(set(labels[held].tolist())) == list(range(10))
    (20, 10, True)
    """
    rng = np.random.default_rng(recipe.seed)
    train, held = [], []
    for c in range(int(labels.max()) + 1):
        members = rng.permutation(np.flatnonzero(labels == c))[: recipe.per_class]
        held.append(members[: recipe.holdout_per_class])
        train.append(members[recipe.holdout_per_class :])
    return np.sort(np.concatenate(train)), np.sort(np.concatenate(held))


def _augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Random crops of the 4-pixel zero-padded images and random horizontal flips."""
    import torch

    n, _, h, w = x.shape
    padded = torch.nn.functional.pad(x, (4, 4, 4, 4))
    dy = torch.randint(0, 9, (n,), generator=gen)
    dx = torch.randint(0, 9, (n,), generator=gen)
    rows = (dy[:, None] + torch.arange(h)[None, :])[:, None, :, None]
    cols = (dx[:, None] + torch.arange(w)[None, :])[:, None, None, :]
    batch = torch.arange(n)[:, None, None, None]
    chan = torch.arange(x.shape[1])[None, :, None, None]
    out = padded[batch, chan, rows, cols]
    flip = torch.rand(n, generator=gen) < 0.5
    out[flip] = out[flip].flip(-1)
    return out


def pretrain_network(
    images: NDArray[np.float32],
    labels: NDArray[np.int64],
    recipe: PretrainRecipe,
    *,
    progress: Progress | None = None,
) -> torch.nn.Sequential:
    """Train :func:`backbone_network` on normalised ``(n, 3, 32, 32)`` images, 10-class labels.

    Deterministic for a recipe on one machine: the seed fixes the initial weights, the order of
    the mini-batches and the augmentation; the global torch RNG is untouched. ``progress(done,
    total)`` is called after every step.
    """
    import torch

    x = torch.from_numpy(np.ascontiguousarray(images, dtype=np.float32))
    y = torch.from_numpy(np.asarray(labels, dtype=np.int64))
    with _base.torch_seeded(recipe.seed):
        net = backbone_network(10)
    gen = torch.Generator().manual_seed(recipe.seed + 1)
    steps_per_epoch = -(-len(x) // recipe.batch_size)
    total = recipe.epochs * steps_per_epoch
    opt = torch.optim.SGD(net.parameters(), lr=recipe.lr, momentum=0.9, nesterov=True,
                          weight_decay=recipe.weight_decay)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=recipe.lr, total_steps=total)
    net.train()
    done = 0
    for _ in range(recipe.epochs):
        order = torch.randperm(len(x), generator=gen)
        for start in range(0, len(x), recipe.batch_size):
            idx = order[start : start + recipe.batch_size]
            xb = _augment(x[idx], gen) if recipe.augment else x[idx]
            loss = torch.nn.functional.cross_entropy(
                net(xb), y[idx], label_smoothing=recipe.label_smoothing
            )
            opt.zero_grad()
            torch.autograd.backward(loss)
            opt.step()
            sched.step()
            done += 1
            if progress is not None:
                progress(done, total)
    net.eval()
    return net


def _accuracy(
    net: torch.nn.Module, images: NDArray[np.float32], labels: NDArray[np.int64]
) -> float:
    import torch

    if len(labels) == 0:
        return float("nan")
    net.eval()
    with torch.inference_mode():
        pred = torch.cat([net(torch.from_numpy(images[i : i + 500])).argmax(1)
                          for i in range(0, len(images), 500)])
    return float((pred.numpy() == labels).mean())


def backbone_paths(recipe: PretrainRecipe, cache: Path | None = None) -> tuple[Path, Path]:
    """The weights file and its JSON record for ``recipe`` in the cache folder.

    Examples
    --------
    >>> w, r = backbone_paths(PretrainRecipe(), Path("/c"))
    >>> w.parent.as_posix(), w.suffix, r.suffix
    ('/c/backbones', '.pt', '.json')
    """
    from pudd_core.streams import locate

    folder = (cache if cache is not None else locate.cache_dir()) / "backbones"
    return _named(recipe, folder)


def shipped_paths(recipe: PretrainRecipe | None = None) -> tuple[Path, Path]:
    """Where the shipped weights of ``recipe`` and their record are (whether or not they exist).

    Examples
    --------
    >>> w, r = shipped_paths()
    >>> w.parent == SHIPPED, w.name == backbone_paths(PretrainRecipe(), Path("/c"))[0].name
    (True, True)
    """
    return _named(recipe or PretrainRecipe(), SHIPPED)


def _named(recipe: PretrainRecipe, folder: Path) -> tuple[Path, Path]:
    stem = f"cifar-cnn-{recipe.key()}"
    return folder / f"{stem}.pt", folder / f"{stem}.json"


def _read_record(record_path: Path, recipe: PretrainRecipe) -> dict[str, Any] | None:
    """The JSON record when it is one and describes ``recipe`` (never evaluated: JSON only)."""
    try:
        record = json.loads(record_path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("recipe") != dataclasses.asdict(recipe):
        return None
    return record


def _valid_record(
    weights: Path, record_path: Path, recipe: PretrainRecipe
) -> dict[str, Any] | None:
    """The JSON record when it describes ``recipe`` and the weights match its checksum."""
    if not (weights.is_file() and record_path.is_file()):
        return None
    record = _read_record(record_path, recipe)
    if record is None or record.get("sha256") != hash_file(weights):
        return None
    return record


def shipped_backbone(recipe: PretrainRecipe | None = None) -> BackboneInfo | None:
    """The shipped backbone of ``recipe``; None when none is shipped (or it was deleted).

    Raises
    ------
    ChecksumMismatchError
        When the shipped weights do not match the sha256 of their record, or the record is
        missing or names another recipe.
    """
    from pudd_core.streams.locate import ChecksumMismatchError

    recipe = recipe or PretrainRecipe()
    weights, record_path = shipped_paths(recipe)
    if not weights.is_file():
        return None
    record = _read_record(record_path, recipe) if record_path.is_file() else None
    actual = hash_file(weights)
    if record is None or record.get("sha256") != actual:
        why = ("its record " + record_path.name + " is missing or names another recipe"
               if record is None else
               f"its sha256 is {actual[:12]}…, its record {record_path.name} says "
               f"{str(record.get('sha256'))[:12]}…")
        raise ChecksumMismatchError(
            f"the shipped CIFAR backbone {weights} is damaged or edited ({why}). Restore it "
            f"from the repository (git checkout -- {weights.name} in {weights.parent}), or "
            f"rebuild it into the data cache with `{REBUILD}` (pretrains it by the same recipe "
            "on CIFAR-10's test images: about 3 min on 2 free CPU cores); later runs use that "
            "one.")
    return BackboneInfo(weights, record, built=False)


def _cached(recipe: PretrainRecipe, cache: Path | None) -> BackboneInfo | None:
    weights, record_path = backbone_paths(recipe, cache)
    record = _valid_record(weights, record_path, recipe)
    return BackboneInfo(weights, record, built=False) if record is not None else None


def cached_backbone(
    recipe: PretrainRecipe | None = None, *, cache: Path | None = None
) -> BackboneInfo | None:
    """The backbone for ``recipe`` that is ready to load, else None (nothing is built).

    The shipped file when it matches its record, else a cached one that matches its record.
    A damaged shipped file counts as missing here (:func:`pretrained_backbone` names it).

    Examples
    --------
    >>> cached_backbone(PretrainRecipe(seed=99), cache=Path("/nonexistent")) is None
    True
    """
    recipe = recipe or PretrainRecipe()
    try:
        shipped = shipped_backbone(recipe)
    except ValueError:
        shipped = None
    return shipped if shipped is not None else _cached(recipe, cache)


def pretrained_backbone(
    recipe: PretrainRecipe | None = None,
    *,
    data_dir: str | None = None,
    cache: Path | None = None,
    progress: Progress | None = None,
    decode_progress: Progress | None = None,
) -> BackboneInfo:
    """The backbone for ``recipe``: the shipped one, else the cache's, else built into the cache.

    Every file is used only when its sha256 equals the one its JSON record names and the record
    names the same recipe. The default recipe's backbone ships with the package; where that
    file is absent (deleted, or installed without it) or for another recipe, the backbone is
    taken from the cache or pretrained into it (on CIFAR-10's test images; about 3 min on 2
    free CPU cores for the default recipe, BENCHMARKS.md). A damaged cached file is rebuilt.
    ``decode_progress`` follows the first decoding of the test images, ``progress(step,
    steps)`` the training. ``cache`` replaces the cache folder for the weights (the decoded
    images stay in the usual cache).

    Raises
    ------
    ChecksumMismatchError
        When the shipped file does not match its record and the cache holds no intact
        rebuild: the message names the file and how to restore or rebuild it.
    DatasetUnavailableError
        When the backbone must be built and no CIFAR-10 images are found.
    """
    recipe = recipe or PretrainRecipe()
    cached = _cached(recipe, cache)
    try:
        shipped = shipped_backbone(recipe)
    except ValueError:
        if cached is None:
            raise
        return cached  # the rebuild the error asks for
    if shipped is not None:
        return shipped
    if cached is not None:
        return cached
    folder = backbone_paths(recipe, cache)[0].parent
    return build_backbone(recipe, folder, data_dir=data_dir, progress=progress,
                          decode_progress=decode_progress)


def build_backbone(
    recipe: PretrainRecipe,
    folder: Path,
    *,
    data_dir: str | None = None,
    progress: Progress | None = None,
    decode_progress: Progress | None = None,
) -> BackboneInfo:
    """Pretrain the backbone by ``recipe`` now and write its weights and record into ``folder``.

    The files are named after the recipe (``cifar-cnn-<key>.pt`` and ``.json``), as
    :func:`pretrained_backbone` looks for them; an older pair there is replaced. The weights
    are a plain ``state_dict`` of tensors (``torch.save``), read back with
    ``torch.load(..., weights_only=True)``, which builds tensors and containers only.

    Raises
    ------
    DatasetUnavailableError
        When no CIFAR-10 images are found.
    """
    import torch

    from pudd_core.streams import locate
    from pudd_core.streams.cifar10_cd import normalise_images
    from pudd_core.streams.images import cifar10_test_arrays

    weights, record_path = _named(recipe, folder)
    start = time.perf_counter()
    images, labels, source = cifar10_test_arrays(data_dir=data_dir, progress=decode_progress)
    train, held = pretraining_indices(labels, recipe)
    x = normalise_images(images)
    net = pretrain_network(x[train], labels[train], recipe, progress=progress)
    seconds = time.perf_counter() - start
    record = {
        "recipe": dataclasses.asdict(recipe),
        "format": _FORMAT,
        "network": f"backbone_network: conv blocks {list(WIDTHS)}, BatchNorm, 10-way head",
        "parameters": sum(p.numel() for p in net.parameters()),
        "images": "CIFAR-10 test split (never in the CIFAR-10-CD stream, which uses the "
                  "training split)",
        "image_source": f"{source.kind}: {source.path.name}",
        "image_order": source.order,
        "n_train_images": len(train),
        "n_holdout_images": len(held),
        "train_indices_sha256": hashlib.sha256(train.astype(np.int64).tobytes()).hexdigest(),
        "holdout_accuracy": _accuracy(net, x[held], labels[held]),
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "seconds": round(seconds, 1),
    }
    buffer = _state_bytes(net)
    locate.atomic_write_bytes(weights, buffer)
    record["bytes"] = len(buffer)
    record["sha256"] = hashlib.sha256(buffer).hexdigest()
    locate.atomic_write_bytes(record_path, (json.dumps(record, indent=1) + "\n").encode())
    return BackboneInfo(weights, record, built=True)


def _state_bytes(net: torch.nn.Module) -> bytes:
    import io

    import torch

    out = io.BytesIO()
    torch.save({k: v.detach().cpu().clone() for k, v in net.state_dict().items()}, out)
    return out.getvalue()


def load_network(path: Path) -> torch.nn.Sequential:
    """The whole pretrained network (backbone and 10-way head) from a weights file, in eval mode.

    Loaded with ``torch.load(..., weights_only=True)``: tensors and containers only, never
    arbitrary objects.

    Raises
    ------
    ValueError
        When the file is not a state dict of :func:`backbone_network` (a torch archive of other
        weights, a truncated file, any other file).
    """
    import torch

    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
        net = backbone_network(10)
        net.load_state_dict(state)
    except Exception as exc:  # noqa: BLE001 - torch's weights-only reader of any bytes
        # raises what the bytes lead it to (UnpicklingError, KeyError, EOFError, RuntimeError)
        first = " ".join(str(exc).split())[:160]
        raise ValueError(f"{path} is not a weights file of this backbone ({first}); give a "
                         f"file written by `{REBUILD} --out FOLDER`") from None
    net.eval()
    return net


def load_backbone(path: Path) -> torch.nn.Sequential:
    """The feature extractor (the network without its 10-way head) from a weights file.

    Loaded as :func:`load_network` (``weights_only=True``); in eval mode, gradients off.
    """
    features = load_network(path)[:-1]
    features.eval()
    for p in features.parameters():
        p.requires_grad_(False)
    return features
