from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import numpy as np
import pytest

from pudd_core.streams import get_info, load_stream, markov_interest_stream
from pudd_core.streams.cifar10_cd import interest_stream, normalise_images
from pudd_core.streams.images import CIFAR10_CLASSES, cifar10_train_arrays, find_image_source


def _labels(per_class=20, n_classes=10, seed=0):
    labels = np.repeat(np.arange(n_classes), per_class)
    return np.random.default_rng(seed).permutation(labels)


def test_each_chunk_holds_exactly_chunk_size_over_k_images_per_class():
    y = _labels(per_class=20)
    res = markov_interest_stream(y, chunk_size=50, seed=1)  # 5 per class, 4 chunks
    assert res.indices.shape == (4, 50)
    for t in range(4):
        np.testing.assert_array_equal(np.bincount(y[res.indices[t]], minlength=10), 5)
        np.testing.assert_array_equal(res.classes[t], y[res.indices[t]])
        # class by class within a chunk, as the authors (no shuffle)
        assert np.all(np.diff(res.classes[t]) >= 0)


def test_every_image_is_used_exactly_once():
    y = _labels(per_class=20)
    res = markov_interest_stream(y, chunk_size=50, seed=2)
    np.testing.assert_array_equal(np.sort(res.indices.ravel()), np.arange(len(y)))


def test_unbalanced_classes_are_limited_by_the_rarest():
    y = np.concatenate([np.repeat(np.arange(10), 10), np.zeros(7, dtype=int)])
    res = markov_interest_stream(y, chunk_size=20, seed=0)
    assert res.indices.shape == (5, 20)
    assert len(np.unique(res.indices)) == 100
    with pytest.raises(ValueError, match="the rarest class fills 5 chunks"):
        markov_interest_stream(y, chunk_size=20, n_chunks=6, seed=0)


def test_label_is_one_exactly_when_the_class_is_a_current_interest():
    y = _labels(per_class=30)
    res = markov_interest_stream(y, chunk_size=20, stay_weight=2.0, seed=3)
    np.testing.assert_array_equal(res.interests[0], [0, 1, 2])
    for t in range(len(res.labels)):
        expected = np.isin(res.classes[t], res.interests[t]).astype(np.int64)
        np.testing.assert_array_equal(res.labels[t], expected)
        assert res.positive_classes[t] == tuple(sorted(set(res.interests[t].tolist())))


def test_transition_matrix_is_uniform_plus_stay_weight_rows_normalised():
    res = markov_interest_stream(_labels(), chunk_size=20, seed=4)
    m = res.transition_matrix
    assert m.shape == (10, 10)
    np.testing.assert_allclose(m.sum(axis=1), 1.0)
    # row sums before normalising lie in [100, 110): P(stay) in (100/110, 101/100)
    stay = np.diag(m)
    assert np.all((stay > 100 / 110) & (stay < 101 / 100))
    off = m[~np.eye(10, dtype=bool)]
    assert np.all((off >= 0) & (off < 1 / 100))


def test_interests_move_by_the_rows_of_the_matrix():
    # 3 classes, 1 image per class per chunk, 4000 chunks, low stay weight: many moves
    y = np.repeat(np.arange(3), 4000)
    res = markov_interest_stream(y, chunk_size=3, initial_interests=(0, 1), stay_weight=0.5, seed=5)
    counts = np.zeros((3, 3))
    for slot in range(2):
        path = res.interests[:, slot]
        np.add.at(counts, (path[:-1], path[1:]), 1)
    empirical = counts / counts.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(empirical, res.transition_matrix, atol=0.03)


def test_drift_chunks_are_where_the_positive_set_changes():
    res = markov_interest_stream(_labels(per_class=100), chunk_size=10, stay_weight=3.0, seed=6)
    sets = [set(p) for p in res.positive_classes]
    expected = tuple(t for t in range(1, len(sets)) if sets[t] != sets[t - 1])
    assert res.drift_chunks == expected and len(expected) > 5


def test_same_seed_same_stream_other_seed_other_stream():
    y = _labels()
    a, b = (markov_interest_stream(y, chunk_size=20, seed=9) for _ in range(2))
    c = markov_interest_stream(y, chunk_size=20, seed=10)
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.transition_matrix, b.transition_matrix)
    assert not np.array_equal(a.indices, c.indices)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"chunk_size": 25}, "must be a positive multiple of n_classes=10"),
        ({"initial_interests": (0, 10)}, r"initial_interests must be classes in 0\.\.9"),
        ({"stay_weight": -1.0}, "stay_weight must be >= 0"),
    ],
)
def test_invalid_arguments_are_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        markov_interest_stream(_labels(), **{"chunk_size": 20, **kwargs})


def test_normalisation_equals_torchvision_totensor_and_normalize():
    torch = pytest.importorskip("torch")
    transforms = pytest.importorskip("torchvision.transforms")
    images = np.random.default_rng(0).integers(0, 256, (4, 32, 32, 3), dtype=np.uint8)
    tf = transforms.Compose(
        [
            transforms.ToTensor(),
            transforms.Normalize((0.4914, 0.4822, 0.4465), (0.2023, 0.1994, 0.2010)),
        ]
    )
    with torch.no_grad():
        expected = np.stack([tf(im).numpy() for im in images])
    got = normalise_images(images)
    assert got.dtype == np.float32 and got.shape == (4, 3, 32, 32)
    assert got.tobytes() == expected.tobytes()


def test_stream_over_a_small_image_set_serves_normalised_chunks_and_truth():
    rng = np.random.default_rng(0)
    y = _labels(per_class=10)
    images = rng.integers(0, 256, (len(y), 8, 8, 3), dtype=np.uint8)
    s = interest_stream(get_info("cifar10-cd"), images, y, seed=1, chunk_size=20)
    assert (len(s), s.chunk_size, s.feature_shape) == (5, 20, (3, 8, 8))
    X, lab = s.chunk(2)
    idx = s.truth["image_indices"][2]
    np.testing.assert_array_equal(X, normalise_images(images[idx]))
    np.testing.assert_array_equal(lab, np.isin(y[idx], s.truth["interests"][2]))
    assert s.truth["transition_matrix"].shape == (10, 10)
    assert s.truth["interests"].shape == (5, 3)


def _write_tiny_tarball(path: Path, per_class: int = 2) -> np.ndarray:
    """A JPEG-free tarball of PNGs in the shared layout, train/<class>/<k>.png."""
    from PIL import Image

    rng = np.random.default_rng(0)
    pixels = []
    with tarfile.open(path, "w:gz") as tar:
        for c, name in enumerate(CIFAR10_CLASSES):
            for k in range(per_class):
                im = np.full((32, 32, 3), 20 * c + k, dtype=np.uint8)
                im[0, 0] = rng.integers(0, 256, 3)
                pixels.append(im)
                buf = io.BytesIO()
                Image.fromarray(im).save(buf, format="PNG")
                info = tarfile.TarInfo(f"train/{name}/{k:04d}.png")
                info.size = len(buf.getvalue())
                tar.addfile(info, io.BytesIO(buf.getvalue()))
    return np.stack(pixels)


def test_tarball_is_decoded_once_then_served_from_the_cache(tmp_path, isolated_cache):
    tar = tmp_path / "tiny.tar.gz"
    expected = _write_tiny_tarball(tar)
    calls = []
    with pytest.warns(UserWarning, match="image order"):  # PNGs: no matching index
        s = load_stream(
            "cifar10-cd",
            path=tar,
            chunk_size=10,
            seed=3,
            progress=lambda done, total: calls.append((done, total)),
        )
    assert calls[-1] == (20, 20)
    assert (len(s), s.feature_shape) == (2, (3, 32, 32))
    idx = s.truth["image_indices"]
    np.testing.assert_array_equal(s.chunk(0)[0], normalise_images(expected[idx[0]]))
    decoded = list((isolated_cache / "cifar10" / "decoded").glob("tarball-*/images.npy"))
    assert len(decoded) == 1
    with pytest.warns(UserWarning, match="image order"):
        again = load_stream("cifar10-cd", path=tar, chunk_size=10, seed=3)
    assert again.chunk(1)[0].tobytes() == s.chunk(1)[0].tobytes()


def test_image_folder_tree_is_found_in_the_data_folder(tmp_path, monkeypatch):
    from PIL import Image

    for c, name in enumerate(CIFAR10_CLASSES):
        folder = tmp_path / "cifar10" / "train" / name
        folder.mkdir(parents=True)
        Image.fromarray(np.full((32, 32, 3), c, dtype=np.uint8)).save(folder / "0000.png")
    monkeypatch.setenv("PUDD_DATA_DIR", str(tmp_path))
    assert find_image_source().kind == "folder"
    with pytest.warns(UserWarning, match="image order"):
        s = load_stream("cifar10-cd", chunk_size=10, initial_interests=(4,))
    assert len(s) == 1
    X, y = s.chunk(0)
    classes = s.truth["image_classes"][0]
    np.testing.assert_array_equal(classes, np.arange(10))
    np.testing.assert_array_equal(y, (classes == 4).astype(np.int64))


def test_two_seeds_give_two_different_streams(tmp_path):
    tar = tmp_path / "tiny.tar.gz"
    _write_tiny_tarball(tar, per_class=4)
    with pytest.warns(UserWarning, match="image order"):
        a, b = (load_stream("cifar10-cd", path=tar, chunk_size=10, seed=s) for s in (0, 1))
    assert len(a) == len(b) == 4
    assert not np.array_equal(a.truth["image_indices"], b.truth["image_indices"])
    assert not np.array_equal(a.truth["transition_matrix"], b.truth["transition_matrix"])
    assert any(a.chunk(t)[0].tobytes() != b.chunk(t)[0].tobytes() for t in range(4))


def _write_tiny_tree(root: Path, per_class: int = 3) -> dict[str, tuple[int, int]]:
    """An ImageFolder tree root/train/<class>/<k>.png, image (c, k) filled with 10 * k + c.

    Returns its index, member -> (orig_index, label): classes interleaved as in CIFAR-10 and,
    within a class, files in reverse order, so ImageFolder's order gives other chunks.
    """
    from PIL import Image

    index = {}
    for c, name in enumerate(CIFAR10_CLASSES):
        folder = root / "train" / name
        folder.mkdir(parents=True)
        for k in range(per_class):
            Image.fromarray(np.full((32, 32, 3), 10 * k + c, dtype=np.uint8)).save(
                folder / f"{k:04d}.png"
            )
            index[f"train/{name}/{k:04d}.png"] = ((per_class - 1 - k) * 10 + c, c)
    return index


def _write_index(path: Path, index: dict[str, tuple[int, int]]) -> None:
    import pandas as pd

    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [
        {"split": "train", "orig_index": i, "label": c, "jpg_member": m}
        for m, (i, c) in index.items()
    ]
    pd.DataFrame(rows).to_csv(path, index=False)  # gzip from the .gz suffix


@pytest.mark.parametrize("where", ["tree", "parent", "data_dir", "cache"])
def test_tree_follows_the_index_found_where_data_files_are_looked_for(where, tmp_path, monkeypatch):
    data, cache = tmp_path / "data", tmp_path / "cache"
    monkeypatch.setenv("PUDD_DATA_DIR", str(data))
    monkeypatch.setenv("PUDD_CACHE_DIR", str(cache))
    tree = tmp_path / "mine" / "cifar"
    index = _write_tiny_tree(tree)
    folder = {
        "tree": tree,
        "parent": tree.parent,
        "data_dir": data / "cifar10",
        "cache": cache / "cifar10",
    }[where]
    _write_index(folder / "cifar10_index.csv.gz", index)
    # canonical order: position i holds the image listed with orig_index i
    expected = np.empty((len(index), 32, 32, 3), dtype=np.uint8)
    for member, (i, _) in index.items():
        c, k = CIFAR10_CLASSES.index(member.split("/")[1]), int(member[-8:-4])
        expected[i] = 10 * k + c
    images, labels, source = cifar10_train_arrays(path=tree)
    assert source.index == folder / "cifar10_index.csv.gz"
    np.testing.assert_array_equal(images, expected)
    np.testing.assert_array_equal(labels, np.arange(len(index)) % 10)
    s = load_stream("cifar10-cd", path=tree, chunk_size=10, seed=5)
    assert s.truth["image_order"] == "torchvision (restored by cifar10_index.csv.gz)"
    for t in range(len(s)):
        np.testing.assert_array_equal(
            s.chunk(t)[0], normalise_images(expected[s.truth["image_indices"][t]])
        )


def test_tree_without_an_index_warns_and_records_imagefolder_order(tmp_path, monkeypatch):
    monkeypatch.setenv("PUDD_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PUDD_CACHE_DIR", str(tmp_path / "cache"))
    tree = tmp_path / "cifar"
    _write_tiny_tree(tree)
    for _ in ("cold", "warm"):  # decoded, then read from the cache: same warning and record
        with pytest.warns(UserWarning, match=r"put CIFAR-10's cifar10_index\.csv\.gz next to"):
            s = load_stream("cifar10-cd", path=tree, chunk_size=10, seed=5)
        assert s.truth["image_order"] == "imagefolder (no index: not torchvision's order)"
    assert list((tmp_path / "cache" / "cifar10" / "decoded").iterdir())
    # ImageFolder order: class by class, files sorted by name
    with pytest.warns(UserWarning, match="image order"):
        images, labels, source = cifar10_train_arrays(path=tree)
    assert source.index is None and source.order.startswith("imagefolder")
    np.testing.assert_array_equal(labels, np.repeat(np.arange(10), 3))
    np.testing.assert_array_equal(images[:3, 0, 0, 0], [0, 10, 20])
    # an index listing other images is not applied either, and says so
    _write_index(tree / "cifar10_index.csv.gz", {"train/cat/9999.png": (0, 3)})
    with pytest.warns(UserWarning, match="lists other images"):
        s = load_stream("cifar10-cd", path=tree, chunk_size=10, seed=5)
    assert s.truth["image_order"].startswith("imagefolder (cifar10_index.csv.gz lists other")


@pytest.mark.datasets
def test_real_cifar10_cd_from_the_jpeg_tarball(tmp_path, monkeypatch):
    monkeypatch.setenv("PUDD_CACHE_DIR", str(tmp_path / "cache"))  # cold: decode from scratch
    s = load_stream("cifar10-cd", seed=0)
    assert (len(s), s.chunk_size, s.feature_shape, s.n_classes) == (100, 500, (3, 32, 32), 2)
    classes = s.truth["image_classes"]
    np.testing.assert_array_equal(np.apply_along_axis(np.bincount, 1, classes, minlength=10), 50)
    np.testing.assert_array_equal(np.sort(s.truth["image_indices"].ravel()), np.arange(50_000))
    # canonical order restored from cifar10_index.csv.gz: labels equal the original pickles'
    exact = np.load(Path(os.environ["PUDD_DATA_DIR"]) / "cifar10" / "cifar10_exact_subset.npz")
    images, labels, source = cifar10_train_arrays()
    assert source.kind == "tarball" and source.index is not None
    assert s.truth["image_order"] == "torchvision (restored by cifar10_index.csv.gz)"
    np.testing.assert_array_equal(labels, exact["y_train_all"])
    error = np.abs(images[exact["orig_index_train_exact"]].astype(int) - exact["x_train_exact"])
    assert error.mean() < 7.0  # README: JPEG q~75, mean abs error 5.78
    X, y = s.chunk(0)
    assert X.dtype == np.float32 and X.shape == (500, 3, 32, 32)
    np.testing.assert_array_equal(y, np.isin(classes[0], [0, 1, 2]))
    assert s.truth["interests"][0].tolist() == [0, 1, 2]
    assert s.drift_chunks is not None and all(0 < t < 100 for t in s.drift_chunks)
    warm = load_stream("cifar10-cd", seed=0)  # from the decoded cache (times: BENCHMARKS.md)
    assert warm.chunk(99)[0].tobytes() == s.chunk(99)[0].tobytes()


def test_official_archive_with_a_wrong_md5_is_refused(tmp_path):
    from pudd_core.streams import ChecksumMismatchError

    archive = tmp_path / "cifar-10-python.tar.gz"
    with tarfile.open(archive, "w:gz"):
        pass
    with pytest.raises(ChecksumMismatchError, match="expected c58f30108f718f92721af3b95e74349a"):
        load_stream("cifar10-cd", path=archive)
