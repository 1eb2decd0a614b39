"""CIFAR-10-CD decodes only the images its chunks use, keeps them safely, equals the whole set."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pudd_core.streams import get_info, images, load_stream
from pudd_core.streams.cifar10_cd import interest_stream
from pudd_core.streams.images import CIFAR10_CLASSES, cifar10_train_arrays, cifar10_train_subset
from tests.streams.test_cifar10_cd import _write_index, _write_tiny_tarball

PER_CLASS = 10  # 100 images: 10 chunks of 10


@pytest.fixture
def tarball(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, np.ndarray]:
    """A PNG tarball with its index (torchvision's order: classes interleaved), empty cache."""
    monkeypatch.setenv("PUDD_CACHE_DIR", str(tmp_path / "cache"))
    tar = tmp_path / "data" / "cifar.tar.gz"
    tar.parent.mkdir()
    pixels = _write_tiny_tarball(tar, per_class=PER_CLASS)  # class by class
    index = {f"train/{name}/{k:04d}.png": (k * 10 + c, c)
             for c, name in enumerate(CIFAR10_CLASSES) for k in range(PER_CLASS)}
    _write_index(tar.parent / "cifar10_index.csv.gz", index)
    canonical = np.empty_like(pixels)
    for c in range(10):
        for k in range(PER_CLASS):
            canonical[k * 10 + c] = pixels[c * PER_CLASS + k]
    return tar, canonical


@pytest.fixture
def decoded(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the images decoded (one entry per image)."""
    calls: list[int] = []
    real = images._decode_image

    def counting(data: bytes) -> np.ndarray:
        calls.append(1)
        return real(data)

    monkeypatch.setattr(images, "_decode_image", counting)
    return calls


def _cache(tmp_path: Path) -> tuple[list[Path], list[Path]]:
    """The whole sets and the subsets kept in the cache."""
    folder = tmp_path / "cache" / "cifar10" / "decoded"
    wholes = [p for p in folder.glob("tarball-*") if (p / "images.npy").is_file()]
    return wholes, sorted(folder.glob("tarball-*-subsets/*"))


def _chunks(stream) -> list[bytes]:
    return [stream.chunk(t)[0].tobytes() + stream.chunk(t)[1].tobytes()
            for t in range(len(stream))]


def test_a_short_stream_decodes_only_its_images_and_equals_the_whole_sets_stream(
    tarball, decoded, tmp_path
):
    tar, canonical = tarball
    short = load_stream("cifar10-cd", path=tar, chunk_size=10, n_chunks=2, seed=3)
    assert len(decoded) == 20  # its two chunks, not the 100 images
    assert short.truth["image_order"] == "torchvision (restored by cifar10_index.csv.gz)"
    wholes, subsets = _cache(tmp_path)
    assert wholes == [] and [p.name.split("-")[0] for p in subsets] == ["20"]
    # the same chunks as the stream over the whole decoded set, pixel for pixel
    every, labels, _ = cifar10_train_arrays(path=tar)
    np.testing.assert_array_equal(every, canonical)
    whole = interest_stream(get_info("cifar10-cd"), every, labels, seed=3, chunk_size=10,
                            n_chunks=2)
    assert _chunks(short) == _chunks(whole)
    np.testing.assert_array_equal(short.truth["image_indices"], whole.truth["image_indices"])
    assert short.drift_chunks == whole.drift_chunks


def test_kept_subsets_serve_again_until_the_whole_set_is_cheaper(
    tarball, decoded, tmp_path, monkeypatch
):
    tar, _ = tarball
    first = load_stream("cifar10-cd", path=tar, chunk_size=10, n_chunks=2, seed=3)
    again = load_stream("cifar10-cd", path=tar, chunk_size=10, n_chunks=2, seed=3)
    assert len(decoded) == 20 and _chunks(first) == _chunks(again)  # read back, not decoded
    load_stream("cifar10-cd", path=tar, chunk_size=10, n_chunks=2, seed=4)
    assert len(decoded) == 40 and len(_cache(tmp_path)[1]) == 2
    load_stream("cifar10-cd", path=tar, chunk_size=10, n_chunks=1, seed=3)
    assert len(decoded) == 40  # its one chunk is the first of seed 3's two: read back
    # 40 kept + 20 wanted >= half of the 100: the whole set is decoded and kept instead
    load_stream("cifar10-cd", path=tar, chunk_size=10, n_chunks=2, seed=5)
    assert len(decoded) == 140 and len(_cache(tmp_path)[0]) == 1
    for seed in (6, 7):  # then every stream reads it
        load_stream("cifar10-cd", path=tar, chunk_size=10, n_chunks=3, seed=seed)
    assert len(decoded) == 140
    # a stream of half the set or more decodes the whole set at once
    decoded.clear()
    monkeypatch.setenv("PUDD_CACHE_DIR", str(tmp_path / "empty"))
    subset = cifar10_train_subset(lambda labels: np.arange(50), path=tar)
    assert len(decoded) == 100 and len(subset.positions) == 100


def test_two_visitors_at_once_decode_the_images_once_and_get_the_same(
    tarball, decoded, tmp_path, monkeypatch
):
    tar, _ = tarball
    slow = images._decode_image

    def slower(data: bytes) -> np.ndarray:
        time.sleep(0.02)  # long enough for the two to overlap
        return slow(data)

    monkeypatch.setattr(images, "_decode_image", slower)
    start = threading.Barrier(2)
    got: list[list[bytes]] = []

    def visit() -> None:
        start.wait()
        got.append(_chunks(load_stream("cifar10-cd", path=tar, chunk_size=10, n_chunks=2,
                                       seed=3)))

    visitors = [threading.Thread(target=visit) for _ in range(2)]
    for v in visitors:
        v.start()
    for v in visitors:
        v.join()
    assert len(got) == 2 and got[0] == got[1]
    assert len(decoded) == 20  # the second waited for the first, then read its subset
    assert len(_cache(tmp_path)[1]) == 1


def test_a_decode_stopped_midway_leaves_nothing_a_later_visit_trusts(
    tarball, decoded, tmp_path, monkeypatch
):
    tar, canonical = tarball
    real = images._decode_image

    def leaves(data: bytes) -> np.ndarray:
        if len(decoded) == 10:
            raise KeyboardInterrupt  # the visitor left: the work is stopped mid-decode
        decoded.append(1)
        return real(data)

    monkeypatch.setattr(images, "_decode_image", leaves)
    with pytest.raises(KeyboardInterrupt):
        load_stream("cifar10-cd", path=tar, chunk_size=10, n_chunks=2, seed=3)
    assert _cache(tmp_path) == ([], [])  # no half subset, no whole set
    folder = tmp_path / "cache" / "cifar10" / "decoded"
    assert not [p for p in folder.rglob("*") if ".part" in p.name]
    # what a writer killed mid-save leaves (its temporary folder) is neither read nor counted
    subsets = next(folder.glob("tarball-*-labels")).parent / (
        next(folder.glob("tarball-*-labels")).name.removesuffix("-labels") + "-subsets")
    left = subsets / f"90-{'0' * 16}.partk1ll3d"
    left.mkdir(parents=True)
    (left / "images.npy").write_bytes(b"half")
    monkeypatch.setattr(images, "_decode_image", real)  # the counting one
    before = len(decoded)
    later = load_stream("cifar10-cd", path=tar, chunk_size=10, n_chunks=2, seed=3)
    # its 20 images again: the leftover's 90 were not counted towards decoding the whole set
    assert len(decoded) - before == 20 and _cache(tmp_path)[0] == []
    assert left.is_dir()
    idx = later.truth["image_indices"]
    for t in range(2):
        np.testing.assert_array_equal(later.chunk(t)[0],
                                      load_stream_chunk(canonical, idx[t]))
    # a kept subset edited on disk is not trusted either: it is decoded again, with a warning
    subset = _cache(tmp_path)[1][0]
    (subset / "images.npy").write_bytes((subset / "images.npy").read_bytes()[:-100])
    with pytest.warns(UserWarning, match="damaged"):
        again = load_stream("cifar10-cd", path=tar, chunk_size=10, n_chunks=2, seed=3)
    assert _chunks(again) == _chunks(later)


def load_stream_chunk(canonical: np.ndarray, idx: np.ndarray) -> np.ndarray:
    from pudd_core.streams.cifar10_cd import normalise_images

    return normalise_images(canonical[idx])


def test_select_naming_images_outside_the_set_is_refused(tarball):
    tar, _ = tarball
    with pytest.raises(ValueError, match=r"outside 0\.\.99"):
        cifar10_train_subset(lambda labels: np.array([5, 100]), path=tar)


@pytest.mark.datasets
@pytest.mark.integration
def test_the_pages_runs_are_the_same_from_their_subset_as_from_the_whole_set(
    tmp_path, monkeypatch
):
    """The page's runs (PUDD-3 and DDM, pretrained CNN) from a cold cache, then from all 50,000."""
    from pudd_core.experiments.runner import RunConfig, run_experiment, run_stream

    monkeypatch.setenv("PUDD_CACHE_DIR", str(tmp_path / "cache"))
    page = RunConfig("cifar10-cd", "pretrained-cnn", "pudd", alpha=1e-3, seed=0, n_chunks=10)
    configs = [RunConfig("cifar10-cd", "pretrained-cnn", d, alpha=1e-3, seed=0, n_chunks=4)
               for d in ("pudd", "ddm")]
    stream = run_stream(page)
    cold = [run_experiment(c) for c in configs]
    assert _cache(tmp_path)[0] == []  # nothing but the 10 chunks' 5,000 images decoded
    # the 4-chunk runs' images are the first 4 chunks' of the page's 10: read, not decoded
    assert [p.name.split("-")[0] for p in _cache(tmp_path)[1]] == ["5000"]
    every, labels, _ = cifar10_train_arrays()  # decodes and keeps all 50,000
    assert len(_cache(tmp_path)[0]) == 1
    assert _chunks(run_stream(page)) == _chunks(stream)  # now read from the whole set
    for was, now in zip(cold, [run_experiment(c) for c in configs], strict=True):
        assert (was.alarms, was.accuracy) == (now.alarms, now.accuracy)
        pd.testing.assert_frame_equal(_untimed(was.to_frame()), _untimed(now.to_frame()))


def _untimed(frame: pd.DataFrame) -> pd.DataFrame:
    """A run's per-chunk log without its times (``*_ms``, ``*_s``), which vary run to run."""
    return frame.drop(columns=[c for c in frame if c.endswith(("_ms", "_s"))])
