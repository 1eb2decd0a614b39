"""Seeded classifiers with class probabilities over a fixed class set, built by name.

The registry below is the one source of each classifier's facts: its description, whether it
learns images or feature vectors (:data:`IMAGE_CLASSIFIERS`, :data:`TABULAR_CLASSIFIERS`),
whether it runs on torch (:data:`TORCH_CLASSIFIERS`) and its options. torch and torchvision
are imported only when a network is built (STYLE.md section 5).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from pudd_core import _validation
from pudd_core.classifiers._amf import AMFClassifier
from pudd_core.classifiers._base import IMAGE_SHAPE, Classifier, resolve_device
from pudd_core.classifiers._cnn import CNNClassifier, resnet18_network, small_cnn_network
from pudd_core.classifiers._gbdt import ADLTERClassifier, NSClassifier
from pudd_core.classifiers._mlp import DNNClassifier, DNNEnsembleClassifier
from pudd_core.classifiers._pretrain import (
    BackboneInfo,
    PretrainRecipe,
    backbone_paths,
    build_backbone,
    cached_backbone,
    pretrained_backbone,
    shipped_backbone,
)
from pudd_core.classifiers._pretrained_cnn import PretrainedCNNClassifier, warm_up
from pudd_core.classifiers._tabular import GNBClassifier, VFDTClassifier

__all__ = [
    "ADLTERClassifier",
    "AMFClassifier",
    "BackboneInfo",
    "CLASSIFIERS",
    "CNNClassifier",
    "Classifier",
    "DNNClassifier",
    "DNNEnsembleClassifier",
    "GNBClassifier",
    "IMAGE_CLASSIFIERS",
    "NSClassifier",
    "PretrainRecipe",
    "PretrainedCNNClassifier",
    "SEEDED_CLASSIFIERS",
    "TABULAR_CLASSIFIERS",
    "TORCH_CLASSIFIERS",
    "VFDTClassifier",
    "backbone_paths",
    "build_backbone",
    "cached_backbone",
    "classifier_class",
    "compatible_classifiers",
    "make_classifier",
    "option_names",
    "pretrained_backbone",
    "resnet18_network",
    "resolve_device",
    "shipped_backbone",
    "small_cnn_network",
    "warm_up",
]


class _Entry(NamedTuple):
    factory: Callable[..., Classifier]
    description: str
    images: bool = False  # input (3, 32, 32) images rather than (d,) feature vectors
    torch: bool = False  # a torch network: takes a seed and a device
    seeded: bool = False  # draws from a seed without being a torch network (amf, ns, adlter)
    fixed: Mapping[str, object] = MappingProxyType({})


_ENTRIES: dict[str, _Entry] = {
    "gnb": _Entry(GNBClassifier, "Gaussian naive Bayes (sklearn), rebuilt on alarm"),
    "vfdt": _Entry(VFDTClassifier, "Hoeffding tree (river VFDT), regrown on alarm"),
    "dnn": _Entry(DNNClassifier, "MLP d-64-64-C, Adam; new last layer on alarm", torch=True),
    "dnn-ensemble": _Entry(DNNEnsembleClassifier, "Five MLPs, soft vote (Table 2)", torch=True),
    "pretrained-cnn": _Entry(
        PretrainedCNNClassifier, "CNN pretrained on CIFAR-10's test images (frozen), head "
        "trained per chunk; fast on CPU", images=True, torch=True),
    "small-cnn": _Entry(
        CNNClassifier, "Small CNN from scratch (learns nothing on CIFAR-10-CD: the honest "
        "failure mode)", images=True, torch=True, fixed={"arch": "small-cnn"}),
    "resnet18": _Entry(CNNClassifier, "ResNet-18 without BatchNorm, from scratch (slow on CPU)",
                       images=True, torch=True, fixed={"arch": "resnet18"}),
    # Table 2's SOTA learners: they adapt by themselves, so Table 2 runs them with
    # detector="none" (pudd_core.paper.SOTA_LEARNERS).
    "amf": _Entry(AMFClassifier, "AMF: aggregated Mondrian forest, 10 trees (river; SOTA, "
                  "Table 2)", seeded=True),
    "ns": _Entry(NSClassifier, "NS: boosted trees, naive/statistical LIR pruning (SOTA, "
                 "Table 2; binary)", seeded=True),
    "adlter": _Entry(ADLTERClassifier, "ADLTER: elastic boosted trees, adaptive iterations "
                     "(SOTA, Table 2; binary)", seeded=True),
}

#: Classifier name -> one-line description, in display order.
CLASSIFIERS: Mapping[str, str] = MappingProxyType({k: e.description for k, e in _ENTRIES.items()})
#: The classifiers that learn ``(3, 32, 32)`` images, in display order.
IMAGE_CLASSIFIERS: tuple[str, ...] = tuple(k for k, e in _ENTRIES.items() if e.images)
#: The classifiers that learn ``(d,)`` feature vectors, in display order.
TABULAR_CLASSIFIERS: tuple[str, ...] = tuple(k for k, e in _ENTRIES.items() if not e.images)
#: The torch networks (they take ``seed`` and ``device``).
TORCH_CLASSIFIERS: tuple[str, ...] = tuple(k for k, e in _ENTRIES.items() if e.torch)
#: The classifiers whose training depends on their seed: the networks (initial weights, batch
#: order) and the randomised trees (AMF's Mondrian splits, NS's and ADLTER's 80 % subsamples).
#: Gaussian naive Bayes and the Hoeffding tree (river's ``HoeffdingTreeClassifier`` takes no
#: seed: its splits follow the Hoeffding bound) are deterministic.
SEEDED_CLASSIFIERS: tuple[str, ...] = tuple(k for k, e in _ENTRIES.items()
                                            if e.torch or e.seeded)


def _either(names: tuple[str, ...]) -> str:
    return f"{', '.join(names[:-1])} or {names[-1]}"


def compatible_classifiers(feature_shape: tuple[int, ...]) -> tuple[str, ...]:
    """The classifiers that can learn instances of ``feature_shape``, in display order.

    A 3-D shape (channels, height, width) is an image; anything else a feature vector.

    Examples
    --------
    >>> compatible_classifiers((3,))
    ('gnb', 'vfdt', 'dnn', 'dnn-ensemble', 'amf', 'ns', 'adlter')
    >>> compatible_classifiers((3, 32, 32))
    ('pretrained-cnn', 'small-cnn', 'resnet18')
    """
    return IMAGE_CLASSIFIERS if len(feature_shape) == 3 else TABULAR_CLASSIFIERS


def _entry(name: str) -> _Entry:
    entry = _ENTRIES.get(name)
    if entry is None:
        valid = ", ".join(map(repr, _ENTRIES))
        raise ValueError(f"unknown classifier {name!r}; choose one of {valid}.")
    return entry


def classifier_class(name: str) -> Callable[..., Classifier]:
    """The class :func:`make_classifier` builds for ``name``; its keywords are the options.

    Examples
    --------
    >>> classifier_class("gnb").__name__, classifier_class("resnet18").__name__
    ('GNBClassifier', 'CNNClassifier')
    """
    return _entry(name).factory

# Settings the authors' code switches on by dataset name (spec §3.5, §7); explicit options win.
_DATASET_PRESETS: dict[tuple[str, str], dict[str, object]] = {
    ("vfdt", "airline"): {"leaf_prediction": "mc"},
    ("dnn", "airline"): {"hidden": (512, 256, 64)},
    ("dnn-ensemble", "airline"): {"reinit_on_adapt": False},
    # AdIter's scripts cap trees at 1000 on real streams, 10000 on synthetic ones
    **{("adlter", real): {"max_trees": 1000} for real in ("elec2", "powersupply", "airline")},
}


def _option_names(entry: _Entry) -> list[str]:
    params = inspect.signature(entry.factory).parameters.values()
    reserved = {"seed", *entry.fixed}
    return [p.name for p in params if p.kind is p.KEYWORD_ONLY and p.name not in reserved]


def option_names(name: str) -> list[str]:
    """Keyword options :func:`make_classifier` accepts for the classifier ``name``.

    Examples
    --------
    >>> option_names("gnb")
    ['var_smoothing']
    >>> "max_batch" in option_names("resnet18"), "arch" in option_names("resnet18")
    (True, False)
    """
    return _option_names(_entry(name))


def make_classifier(
    name: str,
    *,
    input_shape: tuple[int, ...],
    n_classes: int,
    seed: int | None = None,
    dataset: str | None = None,
    **options: Any,
) -> Classifier:
    """Build the classifier ``name`` (a key of :data:`CLASSIFIERS`) for one stream.

    Parameters
    ----------
    name
        ``"gnb"``, ``"vfdt"``, ``"dnn"``, ``"dnn-ensemble"``, ``"pretrained-cnn"``,
        ``"small-cnn"`` or ``"resnet18"``.
    input_shape
        Shape of one instance: ``(d,)`` for the tabular models, ``(3, 32, 32)`` for the image nets.
    n_classes
        Size of the stream's class set; labels are the indices ``0 .. n_classes - 1``.
    seed
        Makes the networks' weights reproducible; gnb and vfdt are deterministic and ignore it.
    dataset
        ``"airline"`` switches on the authors' airline settings (vfdt ``leaf_prediction="mc"``,
        dnn ``hidden=(512, 256, 64)``, dnn-ensemble ``reinit_on_adapt=False``); the real
        streams ``"elec2"``, ``"powersupply"`` and ``"airline"`` give adlter the authors'
        ``max_trees=1000``; other names change nothing.
    options
        Keyword options of the classifier's class, e.g. ``epochs=100`` or
        ``reproduce_frozen_head=True``; they override the dataset settings.

    Raises
    ------
    ValueError
        For an unknown name, an unknown or invalid option, or an incompatible ``input_shape``.

    Examples
    --------
    >>> clf = make_classifier("gnb", input_shape=(1,), n_classes=2)
    >>> clf.fit([[0.0], [0.2], [1.0], [1.2]], [0, 0, 1, 1])
    >>> clf.predict_proba([[0.1], [1.1]]).round(3).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    >>> make_classifier("vfdt", input_shape=(679,), n_classes=2, dataset="airline").leaf_prediction
    'mc'
    >>> [make_classifier("adlter", input_shape=(3,), n_classes=2, dataset=d).max_trees
    ...  for d in ("elec2", "sea0")]
    [1000, 10000]
    >>> make_classifier("svm", input_shape=(3,), n_classes=2)
    Traceback (most recent call last):
    ...
    ValueError: unknown classifier 'svm'; choose one of 'gnb', 'vfdt', 'dnn', ...
    """
    entry = _entry(name)
    shape = tuple(input_shape)
    if entry.images and shape != IMAGE_SHAPE:
        raise ValueError(
            f"{name} needs input_shape (3, 32, 32) (CIFAR-10 images), got {shape}; "
            f"use {_either(TABULAR_CLASSIFIERS)} for feature vectors."
        )
    if not entry.images and len(shape) != 1:
        raise ValueError(
            f"{name} needs a 1-D input_shape (d,), got {shape}; flatten the features, "
            f"or use {_either(IMAGE_CLASSIFIERS)} for (3, 32, 32) images."
        )
    _validation.check_option_names("options", f"classifier {name!r}", options,
                                   _option_names(entry))
    preset = _DATASET_PRESETS.get((name, (dataset or "").lower()), {})
    kwargs: dict[str, Any] = {**entry.fixed, **preset, **options, "n_classes": n_classes}
    if not entry.images:
        kwargs["n_features"] = shape[0]
    if entry.torch or entry.seeded:
        kwargs["seed"] = seed
    return entry.factory(**kwargs)
