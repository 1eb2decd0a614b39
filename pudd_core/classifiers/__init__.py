"""Seeded classifiers with class probabilities over a fixed class set, built by name.

torch and torchvision are imported only when a network is built (STYLE.md section 5).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from pudd_core.classifiers._amf import AMFClassifier
from pudd_core.classifiers._base import IMAGE_SHAPE, Classifier
from pudd_core.classifiers._cnn import CNNClassifier, resnet18_network, small_cnn_network
from pudd_core.classifiers._gbdt import ADLTERClassifier, NSClassifier
from pudd_core.classifiers._mlp import DNNClassifier, DNNEnsembleClassifier
from pudd_core.classifiers._pretrained_cnn import PretrainedCNNClassifier
from pudd_core.classifiers._tabular import GNBClassifier, VFDTClassifier

__all__ = [
    "ADLTERClassifier",
    "AMFClassifier",
    "CLASSIFIERS",
    "CNNClassifier",
    "Classifier",
    "DNNClassifier",
    "DNNEnsembleClassifier",
    "GNBClassifier",
    "NSClassifier",
    "PretrainedCNNClassifier",
    "VFDTClassifier",
    "make_classifier",
    "option_names",
    "resnet18_network",
    "small_cnn_network",
]


class _Entry(NamedTuple):
    description: str
    factory: Callable[..., Classifier]
    images: bool  # input (3, 32, 32) images rather than (d,) feature vectors
    seeded: bool  # takes a seed (gnb and vfdt are deterministic)
    fixed: Mapping[str, object] = MappingProxyType({})


_ENTRIES: dict[str, _Entry] = {
    "gnb": _Entry("Gaussian naive Bayes (sklearn), rebuilt on alarm", GNBClassifier, False, False),
    "vfdt": _Entry("Hoeffding tree (river VFDT), regrown on alarm", VFDTClassifier, False, False),
    "dnn": _Entry("MLP d-64-64-C, Adam; new last layer on alarm", DNNClassifier, False, True),
    "dnn-ensemble": _Entry("Five MLPs, soft vote (Table 2)", DNNEnsembleClassifier, False, True),
    "pretrained-cnn": _Entry(
        "CNN pretrained on CIFAR-10's test images (frozen), head trained per chunk; fast on CPU",
        PretrainedCNNClassifier,
        True,
        True,
    ),
    "small-cnn": _Entry(
        "Small CNN from scratch (learns nothing on CIFAR-10-CD: the honest failure mode)",
        CNNClassifier,
        True,
        True,
        {"arch": "small-cnn"},
    ),
    "resnet18": _Entry(
        "ResNet-18 without BatchNorm, from scratch (slow on CPU)",
        CNNClassifier,
        True,
        True,
        {"arch": "resnet18"},
    ),
    # Table 2's SOTA learners: they adapt by themselves, so Table 2 runs them with
    # detector="none" (pudd_core.paper.SOTA_LEARNERS).
    "amf": _Entry("AMF: aggregated Mondrian forest, 10 trees (river; SOTA, Table 2)",
                  AMFClassifier, False, True),
    "ns": _Entry("NS: boosted trees, naive/statistical LIR pruning (SOTA, Table 2; binary)",
                 NSClassifier, False, True),
    "adlter": _Entry("ADLTER: elastic boosted trees, adaptive iterations (SOTA, Table 2; binary)",
                     ADLTERClassifier, False, True),
}

#: Classifier name -> one-line description, in display order.
CLASSIFIERS: Mapping[str, str] = MappingProxyType({k: e.description for k, e in _ENTRIES.items()})

# Settings the authors' code switches on by dataset name (spec §3.5, §7); explicit options win.
_DATASET_PRESETS: dict[tuple[str, str], dict[str, object]] = {
    ("vfdt", "airline"): {"leaf_prediction": "mc"},
    ("dnn", "airline"): {"hidden": (512, 256, 64)},
    ("dnn-ensemble", "airline"): {"reinit_on_adapt": False},
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
    entry = _ENTRIES.get(name)
    if entry is None:
        valid = ", ".join(map(repr, _ENTRIES))
        raise ValueError(f"unknown classifier {name!r}; choose one of {valid}.")
    return _option_names(entry)


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
        dnn ``hidden=(512, 256, 64)``, dnn-ensemble ``reinit_on_adapt=False``); other names
        change nothing.
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
    >>> make_classifier("svm", input_shape=(3,), n_classes=2)
    Traceback (most recent call last):
    ...
    ValueError: unknown classifier 'svm'; choose one of 'gnb', 'vfdt', 'dnn', ...
    """
    entry = _ENTRIES.get(name)
    if entry is None:
        valid = ", ".join(map(repr, _ENTRIES))
        raise ValueError(f"unknown classifier {name!r}; choose one of {valid}.")
    shape = tuple(input_shape)
    if entry.images and shape != IMAGE_SHAPE:
        raise ValueError(
            f"{name} needs input_shape (3, 32, 32) (CIFAR-10 images), got {shape}; "
            "use gnb, vfdt, dnn or dnn-ensemble for feature vectors."
        )
    if not entry.images and len(shape) != 1:
        raise ValueError(
            f"{name} needs a 1-D input_shape (d,), got {shape}; flatten the features, "
            "or use pretrained-cnn, small-cnn or resnet18 for (3, 32, 32) images."
        )
    allowed = _option_names(entry)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(
            f"unknown option(s) {', '.join(map(repr, unknown))} for {name}; "
            f"valid options: {', '.join(allowed) or 'none'}."
        )
    preset = _DATASET_PRESETS.get((name, (dataset or "").lower()), {})
    kwargs: dict[str, Any] = {**entry.fixed, **preset, **options, "n_classes": n_classes}
    if not entry.images:
        kwargs["n_features"] = shape[0]
    if entry.seeded:
        kwargs["seed"] = seed
    return entry.factory(**kwargs)
