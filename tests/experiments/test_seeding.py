"""Every seed declaration checked by running two seeds: equal when declared seed-free, and
different somewhere when declared dependent (issue 34 item 7)."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pandas as pd
import pytest

from pudd_core.classifiers import (
    IMAGE_CLASSIFIERS,
    SEEDED_CLASSIFIERS,
    TABULAR_CLASSIFIERS,
    make_classifier,
)
from pudd_core.experiments.detectors import DETECTORS
from pudd_core.experiments.runner import RunConfig, RunResult, run_experiment
from pudd_core.experiments.seeding import seed_dependence
from pudd_core.streams import Stream, list_streams, load_stream, stream_from_csv

SEEDS = (0, 1)
#: Small networks, so that training twice takes a second (the seed enters them all the same).
SMALL: dict[str, dict[str, Any]] = {"dnn": {"hidden": (8,), "epochs": 1},
                                    "dnn-ensemble": {"hidden": (8,), "epochs": 1, "n_models": 2}}


def _run_facts(result: RunResult) -> list[tuple[Any, ...]]:
    """What a run shows, chunk by chunk (times aside): a missing p-value compares equal."""
    return [(c.accuracy, c.alarm, c.adapted, repr(c.p_value), c.cut_p_values, c.detections)
            for c in result.chunks]


# --- streams ---------------------------------------------------------------------------------
@pytest.mark.parametrize("info", [i for i in list_streams() if i.kind != "image"],
                         ids=lambda i: i.name)
def test_a_streams_data_differ_between_seeds_exactly_when_declared_seeded(info: Any) -> None:
    if not info.available:
        pytest.skip(f"{info.name}: {info.unavailable_reason}")
    chunks = [load_stream(info.name, seed=s, n_chunks=3) for s in SEEDS]
    same = all(np.array_equal(a, b) for t in range(3)
               for a, b in zip(chunks[0].chunk(t), chunks[1].chunk(t), strict=True))
    assert same is (not info.seeded)


def test_cifar10_cd_is_declared_seeded_as_its_interest_chain_is_drawn() -> None:
    # its images take minutes to decode, so its draw is checked on the chain alone
    from pudd_core.streams.cifar10_cd import markov_interest_stream

    info = next(i for i in list_streams() if i.name == "cifar10-cd")
    classes = np.arange(200) % 10
    runs = [markov_interest_stream(classes, chunk_size=10, seed=s) for s in SEEDS]
    assert info.seeded and repr(runs[0]) != repr(runs[1])


def test_a_users_file_is_the_same_for_every_seed() -> None:
    stream = _user_stream(chunk_size=100, n_rows=1000)
    assert not stream.info.seeded


# --- classifiers -----------------------------------------------------------------------------
def _proba_after_training(name: str, seed: int) -> Any:
    rng = np.random.default_rng(5)
    image = name in IMAGE_CLASSIFIERS
    shape = (3, 32, 32) if image else (3,)
    X = rng.normal(size=(64 if image else 400, *shape)).astype(np.float32)
    y = (X.reshape(len(X), -1)[:, 0] + X.reshape(len(X), -1)[:, 1] > 0).astype(int)
    clf = make_classifier(name, input_shape=shape, n_classes=2, seed=seed,
                          **SMALL.get(name, {}))
    half = len(X) // 2
    clf.fit(X[:half], y[:half])
    clf.partial_fit(X[half:], y[half:])
    return clf.predict_proba(X[:50])


@pytest.mark.parametrize("name", [*TABULAR_CLASSIFIERS, "small-cnn"])
def test_a_classifier_differs_between_seeds_exactly_when_declared_seeded(name: str) -> None:
    a, b = (_proba_after_training(name, s) for s in SEEDS)
    assert np.array_equal(a, b) is (name not in SEEDED_CLASSIFIERS)


def test_the_image_networks_are_declared_seeded() -> None:
    # pretrained-cnn's head and resnet18 start from seeded random weights, as small-cnn
    # (checked above); training them here would take minutes
    assert set(IMAGE_CLASSIFIERS) <= set(SEEDED_CLASSIFIERS)


# --- detectors: one stream and a deterministic model, so only the detector can differ ---------
@pytest.fixture(scope="module")
def sea20() -> Stream:
    return load_stream("sea20", seed=11, n_chunks=30)


@pytest.mark.parametrize("detector", [d for d in DETECTORS if d != "mcd-dd"])
def test_a_detector_differs_between_seeds_exactly_when_declared_seeded(
    detector: str, sea20: Stream
) -> None:
    configs = [RunConfig("sea20", "gnb", detector, seed=s, n_chunks=30) for s in SEEDS]
    declared = seed_dependence(configs[0]).detector
    a, b = (_run_facts(run_experiment(c, stream=sea20)) for c in configs)
    assert (a == b) is (not declared)


def test_mcd_dd_is_declared_seeded_and_its_distances_differ_between_seeds() -> None:
    # its run on SEA alarms alike for both seeds (a run log keeps only the alarms), but its
    # sets, initial weights and thresholds are drawn: the distances it tests differ
    from pudd_core.experiments.mcdd import MCDDD

    assert seed_dependence(RunConfig("sea20", "gnb", "mcd-dd")).detector
    rng = np.random.default_rng(0)
    data = [rng.normal(size=(5000, 3)), *(rng.normal(size=(1000, 3)) for _ in range(3))]
    tests = []
    for seed in SEEDS:
        det = MCDDD(seed=seed)
        for X in data:
            det.update(X)
        tests.append(det.tests)
    assert tests[0] and tests[0] != tests[1]


def test_pudd_ignores_its_seed_while_no_reference_window_outgrows_its_sample() -> None:
    small = RunConfig("sea20", "gnb", "pudd", n_chunks=10, chunk_size=100)  # at most 900 values
    assert not seed_dependence(small).detector
    assert seed_dependence(RunConfig("sea20", "gnb", "pudd", n_chunks=12, chunk_size=100)).detector
    assert not seed_dependence(RunConfig("sea20", "gnb", "ek", n_chunks=30)).detector
    stream = load_stream("sea20", seed=11, n_chunks=10, chunk_size=100)
    a, b = (_run_facts(run_experiment(RunConfig("sea20", "gnb", "pudd", alpha=0.05, seed=s,
                                                n_chunks=10, chunk_size=100), stream=stream))
            for s in SEEDS)
    assert a == b


# --- whole runs on a user's file: every part declared, in both regimes -------------------------
def _user_stream(*, chunk_size: int, n_rows: int) -> Stream:
    sea = load_stream("sea10", seed=7, chunk_size=n_rows, n_chunks=2)
    X, y = sea.chunk(1)  # a drift at the middle: the second concept in the second half
    X0, y0 = sea.chunk(0)
    X = np.concatenate([X0[: n_rows // 2], X[n_rows // 2:]])
    y = np.concatenate([y0[: n_rows // 2], y[n_rows // 2:]])
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(label=y)
    return stream_from_csv(io.BytesIO(frame.to_csv(index=False).encode()), label="label",
                           chunk_size=chunk_size, name="mine")


@pytest.mark.parametrize("regime", ["incremental", "train-once"])
@pytest.mark.parametrize("classifier", ["gnb", "vfdt", "dnn"])
@pytest.mark.parametrize("detector", ["pudd", "ddm", "ek", "kswin"])
@pytest.mark.parametrize("chunk_size", [100, 200])  # 10 chunks: 900 or 1,800 reference values
def test_a_run_is_the_same_for_every_seed_when_declared_seed_free(
    regime: str, classifier: str, detector: str, chunk_size: int
) -> None:
    stream = _user_stream(chunk_size=chunk_size, n_rows=10 * chunk_size)
    configs = [RunConfig("mine", classifier, detector, alpha=0.05, seed=s, regime=regime,
                         chunk_size=chunk_size, n_chunks=10,
                         classifier_options=tuple(SMALL.get(classifier, {}).items()))
               for s in SEEDS]  # type: ignore[arg-type]
    declared = seed_dependence(configs[0], info=stream.info)
    assert not declared.stream
    assert declared.model is (classifier == "dnn")
    a, b = (_run_facts(run_experiment(c, stream=stream)) for c in configs)
    if not declared.depends:
        assert a == b
    elif classifier == "dnn":  # the networks' weights: every run differs
        assert a != b
