"""pudd_core.views.cifar: the interest process without images equals the stream's; thumbnails."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pudd_core.experiments.runner import RunConfig, run_experiment
from pudd_core.streams import DatasetUnavailableError, load_stream
from pudd_core.views.cifar import (
    CIFAR10_CLASSES,
    chunk_thumbnails,
    interest_drift,
    stream_seed,
)

PER_CLASS = 20  # images per class in the fake image folder: 20 chunks of 10


@pytest.fixture
def fake_cifar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data folder with cifar10/train/<class>/*.png: 32x32 images, colour = class, index."""
    from PIL import Image

    monkeypatch.setenv("PUDD_CACHE_DIR", str(tmp_path / "cache"))
    data = tmp_path / "data"
    for c, name in enumerate(CIFAR10_CLASSES):
        folder = data / "cifar10" / "train" / name
        folder.mkdir(parents=True)
        for i in range(PER_CLASS):
            pixels = np.full((32, 32, 3), (25 * c, 10 * i, 0), dtype=np.uint8)
            Image.fromarray(pixels).save(folder / f"{i:04d}.png")
    return data


def test_stream_seed_is_the_first_child_seed_of_the_runs_seed_sequence() -> None:
    child = np.random.SeedSequence(5).spawn(3)[0]
    assert stream_seed(5) == int(child.generate_state(1)[0])
    with pytest.raises(ValueError, match="seed must be an integer >= 0"):
        stream_seed(-1)


def test_the_interest_process_is_consistent() -> None:
    drift = interest_drift(7, n_chunks=40)
    assert drift.transition_matrix.shape == (10, 10)
    assert np.allclose(drift.transition_matrix.sum(axis=1), 1.0)
    assert drift.interests[0].tolist() == [0, 1, 2]
    mask = drift.positive_mask()
    assert mask.shape == (10, 40)
    assert [tuple(np.flatnonzero(mask[:, t])) for t in range(40)] == list(
        drift.positive_classes)
    changed = tuple(t for t in range(1, 40) if (mask[:, t] != mask[:, t - 1]).any())
    assert drift.drift_chunks == changed
    assert 0.9 < drift.stay_probability < 1.0


def test_the_first_chunks_do_not_depend_on_the_streams_length() -> None:
    short, long = interest_drift(3, n_chunks=10), interest_drift(3, n_chunks=100)
    assert np.array_equal(short.interests, long.interests[:10])
    assert np.array_equal(short.transition_matrix, long.transition_matrix)


def test_a_runs_true_drifts_are_the_interest_process_of_its_seed(fake_cifar: Path) -> None:
    # seed 20 has two interest changes in six chunks; one SGD step per chunk keeps it quick
    cfg = RunConfig("cifar10-cd", "small-cnn", "none", seed=20, chunk_size=10, n_chunks=6,
                    classifier_options={"epochs": 1})
    result = run_experiment(cfg, data_dir=str(fake_cifar))
    drift = interest_drift(20, n_chunks=6, chunk_size=10)
    assert result.drift_chunks == drift.drift_chunks == (3, 4)


def test_thumbnails_are_the_uint8_images_of_the_chunk_with_its_labels(fake_cifar: Path) -> None:
    drift = interest_drift(0, n_chunks=PER_CLASS, chunk_size=10)
    thumbs = chunk_thumbnails(0, 8, n_chunks=PER_CLASS, chunk_size=10, per_class=1,
                              data_dir=fake_cifar)
    assert thumbs.images.dtype == np.uint8 and thumbs.images.shape == (10, 32, 32, 3)
    assert thumbs.classes.tolist() == list(range(10))
    assert thumbs.images[:, 0, 0, 0].tolist() == [25 * c for c in range(10)]  # red = class
    positive = set(drift.positive_classes[8])
    assert thumbs.labels.tolist() == [int(c in positive) for c in range(10)]
    stream = load_stream("cifar10-cd", seed=stream_seed(0), chunk_size=10, n_chunks=PER_CLASS,
                         data_dir=fake_cifar)
    assert sorted(thumbs.labels.tolist()) == sorted(stream.chunk(8)[1].tolist())
    assert thumbs.source.startswith("image folder")


def test_thumbnails_of_a_chunk_outside_the_stream_or_without_images_raise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ValueError, match=r"chunk must be in 0\.\.19, got 20"):
        chunk_thumbnails(0, 20, n_chunks=20)
    monkeypatch.setenv("PUDD_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(DatasetUnavailableError, match="Provide them in one of these ways"):
        chunk_thumbnails(0, 0, n_chunks=20, data_dir=tmp_path)


@pytest.mark.datasets
def test_the_real_streams_truth_equals_the_process_computed_without_images() -> None:
    stream = load_stream("cifar10-cd", seed=stream_seed(0), n_chunks=20)
    drift = interest_drift(0, n_chunks=20)
    assert np.array_equal(stream.truth["interests"], drift.interests)
    assert np.array_equal(stream.truth["transition_matrix"], drift.transition_matrix)
    assert stream.drift_chunks == drift.drift_chunks
    thumbs = chunk_thumbnails(0, 8, n_chunks=20)
    assert thumbs.images.shape == (60, 32, 32, 3)
    assert set(thumbs.classes[thumbs.labels == 1].tolist()) == set(drift.positive_classes[8])
