"""CIFAR-10 training images: find them (official batches, JPEG tarball, image tree), decode once.

The decoded uint8 ``(N, 32, 32, 3)`` array, labels and image order are cached as ``.npy`` under
``<cache>/cifar10/decoded/``, keyed by the source's checksum, so later loads only read arrays.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gzip
import hashlib
import io
import os
import re
import tarfile
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pudd_core.streams import locate

CIFAR10_CLASSES = (
    "airplane",
    "automobile",
    "bird",
    "cat",
    "deer",
    "dog",
    "frog",
    "horse",
    "ship",
    "truck",
)
_IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")
_DECODED_FORMAT = 2  # 2: the image order is cached with the arrays
_INDEX_NAME = "cifar10_index.csv.gz"
TORCHVISION_ORDER = "torchvision"
IMAGEFOLDER_ORDER = "imagefolder"

Progress = Callable[[int, int], None]
PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class ImageSource:
    """Where the CIFAR-10 training images come from.

    ``kind`` is ``"official"`` (``root/cifar-10-batches-py``, read by torchvision), ``"archive"``
    (the official ``cifar-10-python.tar.gz``, extracted into the cache first), ``"tarball"``
    (the JPEG tarball of ../shared/datasets) or ``"folder"`` (an ImageFolder tree
    ``root/train/<class>/*.jpg|png``); ``index`` is ``cifar10_index.csv.gz`` when present.
    ``order`` is set once the images are decoded: ``"torchvision"`` (the official order,
    restored by the index for JPEGs) or ``"imagefolder (...)"`` (class by class, and why).

    Examples
    --------
    >>> import dataclasses
    >>> src = ImageSource("tarball", Path("cifar10/cifar10.tar.gz"))
    >>> src.index, src.checked, src.order  # not decoded yet
    (None, False, '')
    >>> dataclasses.replace(src, order="torchvision").order
    'torchvision'
    """

    kind: str
    path: Path
    index: Path | None = None
    checked: bool = False  # whether the manifest checksum applies (data folder or cache)
    order: str = ""


def _classify(path: Path, index: Path | None, checked: bool) -> ImageSource | None:
    if path.is_file() and path.name == "cifar-10-python.tar.gz":
        return ImageSource("archive", path)
    if path.is_file() and path.name.endswith((".tar.gz", ".tgz", ".tar")):
        return ImageSource("tarball", path, index, checked)
    if (path / "data_batch_1").is_file() and path.name == "cifar-10-batches-py":
        return ImageSource("official", path.parent)
    if (path / "cifar-10-batches-py" / "data_batch_1").is_file():
        return ImageSource("official", path)
    if (path / "train").is_dir():
        return ImageSource("folder", path, index)
    return None


def find_index(near: Sequence[Path] = (), data_dir: PathLike | None = None) -> Path | None:
    """Find ``cifar10_index.csv.gz``: in ``near``, else where `locate` looks for data files.

    That is ``<data folder>/cifar10/`` then ``<cache>/cifar10/`` (existence only).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (Path(d) / "cifar10").mkdir()
    ...     _ = (Path(d) / "cifar10" / "cifar10_index.csv.gz").write_bytes(b"")
    ...     find_index((Path(d) / "elsewhere",), data_dir=d).relative_to(d).as_posix()
    'cifar10/cifar10_index.csv.gz'

    """
    for folder in near:
        if (folder / _INDEX_NAME).is_file():
            return folder / _INDEX_NAME
    entry = locate.read_manifest().get("cifar10_index")
    return locate.find(entry, locate.data_folder(data_dir)) if entry is not None else None


def find_image_source(
    path: PathLike | None = None, data_dir: PathLike | None = None
) -> ImageSource | None:
    """Find CIFAR-10: ``path``, then ``<data folder>/cifar10/``, then ``<cache>/cifar10/``.

    In each folder the official batches win over the JPEG tarball, which wins over an
    extracted tree. A tarball's or tree's ``cifar10_index.csv.gz`` is looked for next to it
    (in the folder given, and its parent), then by `find_index`. Only existence is checked here.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (Path(d) / "train" / "cat").mkdir(parents=True)
    ...     find_image_source(d).kind
    'folder'

    """
    if path is not None:
        p = Path(path).expanduser()
        near = (p.parent,) if p.is_file() else (p, p.parent)
        found = _classify(p, find_index(near, data_dir), checked=False)
        if found is None:
            raise locate.DatasetUnavailableError(
                f"cifar10-cd: {p} is neither a CIFAR-10 tarball, a cifar-10-batches-py folder "
                "nor a folder with train/<class>/ images"
            )
        return found
    folders = [f for f in (locate.data_folder(data_dir), locate.cache_dir()) if f is not None]
    for folder in folders:
        base = folder / "cifar10"
        found_index = find_index((base,), data_dir)
        tarball = base / "cifar10_train_test_jpg.tar.gz"
        if (base / "cifar-10-batches-py" / "data_batch_1").is_file():
            return ImageSource("official", base)
        if (base / "cifar-10-python.tar.gz").is_file():
            return ImageSource("archive", base / "cifar-10-python.tar.gz")
        if tarball.is_file():
            return ImageSource("tarball", tarball, found_index, checked=True)
        if (base / "train").is_dir():
            return ImageSource("folder", base, found_index)
    return None


def unavailable_error(data_dir: PathLike | None) -> locate.DatasetUnavailableError:
    """Build the error for missing CIFAR-10 images: which files, and the ways to provide them.

    Examples
    --------
    >>> print(str(unavailable_error("/d")).splitlines()[0])
    CIFAR-10 training images for 'cifar10-cd' were not found (file ...

    """
    folder = locate.folder_state(locate.data_folder(data_dir))
    return locate.DatasetUnavailableError(
        "CIFAR-10 training images for 'cifar10-cd' were not found "
        "(file 'cifar10/cifar10_train_test_jpg.tar.gz' or folder 'cifar10/cifar-10-batches-py'). "
        "Provide them in one of these ways:\n"
        "  1. pass an explicit path: load_stream('cifar10-cd', path='/path/to/"
        "cifar10_train_test_jpg.tar.gz' or a folder holding cifar-10-batches-py/ or train/);\n"
        f"  2. set PUDD_DATA_DIR to a folder containing cifar10/ (now: {folder});\n"
        f"  3. put them in the cache folder {locate.cache_dir() / 'cifar10'}, or download the "
        "official batches there with load_stream('cifar10-cd', download=True) "
        "(torchvision.datasets.CIFAR10, 170 MB, md5-checked)."
    )


def _fingerprint(source: ImageSource, split: str = "train") -> str:
    """Cache key of the decoded arrays: content checksums where cheap, else names/sizes/mtimes."""
    h = hashlib.sha256(source.kind.encode())
    if split != "train":  # the training split keeps the key it always had
        h.update(split.encode())
    if source.kind == "tarball":
        h.update(locate.sha256_of(source.path).encode())
    else:
        root = source.path / ("cifar-10-batches-py" if source.kind == "official" else split)
        for f in sorted(p for p in root.rglob("*") if p.is_file()):
            st = f.stat()
            h.update(f"{f.relative_to(root)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    if source.index is not None:
        h.update(locate.sha256_of(source.index).encode())
    return f"{source.kind}-{h.hexdigest()[:16]}-v{_DECODED_FORMAT}"


def _decode_image(data: bytes) -> NDArray[np.uint8]:
    from PIL import Image

    with Image.open(io.BytesIO(data)) as im:
        return np.asarray(im.convert("RGB"), dtype=np.uint8)


Reader = Callable[[int], bytes]


def _members(source: ImageSource, split: str = "train") -> tuple[list[str], Reader]:
    """One split's images (tar or tree): their names ``"<split>/<class>/<file>"``, and a reader.

    ``read(i)`` gives the bytes of the ``i``-th. Nothing is decoded here, and only the images
    read are extracted: a tarball is decompressed into memory once (a gzip stream cannot seek
    back to an earlier member) and its headers listed by tarfile.
    """
    if source.kind == "tarball":
        data = source.path.read_bytes()
        if source.path.name.endswith((".gz", ".tgz")):
            data = gzip.decompress(data)
        tar = tarfile.open(fileobj=io.BytesIO(data), mode="r:")
        found: list[tuple[str, tarfile.TarInfo]] = []
        for member in tar:
            parts = member.name.split("/")
            if (
                member.isfile()
                and len(parts) >= 3
                and parts[-3] == split
                and parts[-1].lower().endswith(_IMAGE_SUFFIXES)
            ):
                found.append(("/".join(parts[-3:]), member))

        def read_member(i: int) -> bytes:
            f = tar.extractfile(found[i][1])
            return b"" if f is None else f.read()

        return [name for name, _ in found], read_member
    files = [f for f in sorted((source.path / split).glob("*/*"))
             if f.suffix.lower() in _IMAGE_SUFFIXES]
    return [f"{split}/{f.parent.name}/{f.name}" for f in files], lambda i: files[i].read_bytes()


def _index_order(source: ImageSource, split: str) -> dict[str, tuple[int, int]] | None:
    """``cifar10_index.csv.gz``'s member -> (position, label) for ``split``; None without it."""
    if source.index is None:
        return None
    import pandas as pd

    idx = pd.read_csv(source.index)
    idx = idx[idx["split"] == split]
    return dict(
        zip(idx["jpg_member"], zip(idx["orig_index"], idx["label"], strict=True), strict=True)
    )


def _placement(
    names: Sequence[str], order: dict[str, tuple[int, int]] | None
) -> tuple[NDArray[np.int64], NDArray[np.int64], str]:
    """Each member's position in the image set, the labels by position, and the order's name.

    With an index listing exactly these members: torchvision's order. Otherwise ImageFolder's
    (class folders sorted, files sorted), labels from the class folders.
    """
    if order is not None and set(names) == set(order):
        position = np.array([order[n][0] for n in names], dtype=np.int64)
        labels = np.empty(len(names), dtype=np.int64)
        labels[position] = [order[n][1] for n in names]
        return position, labels, f"{TORCHVISION_ORDER} (restored by {_INDEX_NAME})"
    perm = sorted(range(len(names)), key=lambda i: tuple(names[i].split("/")[1:]))
    class_names = sorted({n.split("/")[1] for n in names})
    if set(class_names) <= set(CIFAR10_CLASSES):
        class_names = list(CIFAR10_CLASSES)  # alphabetical = CIFAR-10 label order
    position = np.empty(len(names), dtype=np.int64)
    position[perm] = np.arange(len(names))
    labels = np.array([class_names.index(names[i].split("/")[1]) for i in perm], dtype=np.int64)
    why = "no index" if order is None else f"{_INDEX_NAME} lists other images"
    return position, labels, f"{IMAGEFOLDER_ORDER} ({why}: not torchvision's order)"


def _decode_members(
    where: Path, read: Reader, members: NDArray[np.intp] | NDArray[np.int64],
    progress: Progress | None,
) -> NDArray[np.uint8]:
    """Decode the members ``members`` (in that order) into one uint8 array."""
    decoded: list[NDArray[np.uint8]] = []
    for i in members:
        decoded.append(_decode_image(read(int(i))))
        if progress is not None and len(decoded) % 1000 == 0:
            progress(len(decoded), len(members))
    shapes = {im.shape for im in decoded}
    if len(shapes) > 1:
        raise ValueError(f"{where}: images of different sizes {sorted(shapes)[:3]}")
    if progress is not None:
        progress(len(decoded), len(members))
    return np.stack(decoded) if decoded else np.zeros((0, 32, 32, 3), dtype=np.uint8)


def decode_images(
    source: ImageSource,
    *,
    progress: Progress | None = None,
    download: bool = False,
    split: str = "train",
) -> tuple[NDArray[np.uint8], NDArray[np.int64], str]:
    """Decode the training (or test) images to ``(N, 32, 32, 3)`` uint8, labels and order.

    With ``cifar10_index.csv.gz`` the JPEGs are put back in torchvision's order; without it (or
    when it lists other images) a tarball or tree keeps ImageFolder's order (class by class,
    files sorted), and the order string says so.

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> with tempfile.TemporaryDirectory() as d:
    ...     for c in ("cat", "airplane"):
    ...         _ = (Path(d) / "train" / c).mkdir(parents=True)
    ...         Image.new("RGB", (32, 32)).save(Path(d) / "train" / c / "0000.png")
    ...     images, labels, order = decode_images(ImageSource("folder", Path(d)))
    >>> images.shape, labels.tolist(), order
    ((2, 32, 32, 3), [0, 3], "imagefolder (no index: not torchvision's order)")

    """
    if source.kind == "official":
        import torchvision

        data = torchvision.datasets.CIFAR10(
            str(source.path), train=split == "train", download=download
        )
        images = np.asarray(data.data, dtype=np.uint8)
        if progress is not None:
            progress(len(images), len(images))
        return images, np.asarray(data.targets, dtype=np.int64), TORCHVISION_ORDER

    order = _index_order(source, split)
    names, read = _members(source, split)
    if not names:
        raise ValueError(f"{source.path}: no images under {split}/<class>/")
    position, labels, how = _placement(names, order)
    return _decode_members(source.path, read, np.argsort(position), progress), labels, how


def _extract_official(archive: Path) -> ImageSource:
    """Check the official archive's md5 and extract it into ``<cache>/cifar10``."""
    root = locate.cache_dir() / "cifar10"
    if not (root / "cifar-10-batches-py" / "data_batch_1").is_file():
        entry = locate.manifest_entry("cifar10_python")
        digest = hashlib.md5(archive.read_bytes(), usedforsecurity=False).hexdigest()
        if entry.md5 is not None and digest != entry.md5:
            raise locate.ChecksumMismatchError(
                f"{archive} has md5 {digest}, expected {entry.md5} (the official CIFAR-10 archive)"
            )
        root.mkdir(parents=True, exist_ok=True)
        with tarfile.open(archive, "r:gz") as tar:
            tar.extractall(root, filter="data")
    return ImageSource("official", root)


def _usable_source(path: PathLike | None, data_dir: PathLike | None) -> ImageSource | None:
    """`find_image_source`, with the official archive extracted (None: nothing found)."""
    source = find_image_source(path, data_dir)
    if source is not None and source.kind == "archive":
        source = _extract_official(source.path)
    return source


def cifar10_train_arrays(
    *,
    path: PathLike | None = None,
    data_dir: PathLike | None = None,
    download: bool = False,
    progress: Progress | None = None,
) -> tuple[NDArray[np.uint8], NDArray[np.int64], ImageSource]:
    """Return CIFAR-10 training images (uint8 ``(50000, 32, 32, 3)``) and labels, decoded once.

    The returned source's ``order`` says whether the images are in torchvision's order; when
    they are not (a tree or tarball without a matching ``cifar10_index.csv.gz``) a
    `UserWarning` says so. Raises `DatasetUnavailableError` when no source is found and
    ``download`` is false.

    Examples
    --------
    >>> cifar10_train_arrays(path="/nonexistent/cifar-10-batches-py")
    Traceback (most recent call last):
    ...
    pudd_core.streams.locate.DatasetUnavailableError: cifar10-cd: ... is neither ...

    """
    images, labels, source, order = _decoded_split(
        "train", path, data_dir, download=download, progress=progress
    )
    return images, labels, _with_order(source, order)


def _decoded_split(
    split: str,
    path: PathLike | None,
    data_dir: PathLike | None,
    *,
    download: bool = False,
    progress: Progress | None = None,
) -> tuple[NDArray[np.uint8], NDArray[np.int64], ImageSource, str]:
    """One split's images, labels, source and image order, decoded once (kept in the cache).

    Without a source, ``download`` fetches the official batches into the cache; else raises
    `DatasetUnavailableError`.
    """
    source = _usable_source(path, data_dir)
    if source is None:
        if not download:
            raise unavailable_error(data_dir)
        source = ImageSource("official", locate.cache_dir() / "cifar10")
        images, labels, order = decode_images(source, progress=progress, download=True,
                                              split=split)
    else:
        if source.kind == "folder" and not (source.path / split).is_dir():
            raise locate.DatasetUnavailableError(
                f"{source.path} has no {split}/<class>/ folder: the CIFAR-10 {split} images "
                "are needed"
            )
        if source.kind == "tarball" and source.checked:
            locate.verify(source.path, locate.manifest_entry("cifar10_jpg"))
        folder = locate.cache_dir() / "cifar10" / "decoded" / _fingerprint(source, split)
        cached = locate.load_arrays(folder, ("images", "labels", "order"))
        if cached is not None:
            if progress is not None:
                progress(len(cached["labels"]), len(cached["labels"]))
            return cached["images"], cached["labels"], source, str(cached["order"])
        images, labels, order = decode_images(source, progress=progress, split=split)
    # named after decoding: a download has only now written the files the name is taken from
    locate.save_arrays(
        locate.cache_dir() / "cifar10" / "decoded" / _fingerprint(source, split),
        {"images": images, "labels": labels, "order": np.array(order)},
    )
    return images, labels, source, order


def _with_order(source: ImageSource, order: str) -> ImageSource:
    """Record the image order in the source; warn when it is not torchvision's."""
    if not order.startswith(TORCHVISION_ORDER):
        warnings.warn(
            f"cifar10-cd: image order {order!r} for {source.path}: the images are class by "
            "class, files sorted by name, so truth['image_indices'] are not CIFAR-10 indices and "
            "a seed gives the same chunks as the official batches only if each class's files "
            f"sort in CIFAR-10 order. To use torchvision's order, put CIFAR-10's {_INDEX_NAME} "
            "next to the tree (or in $PUDD_DATA_DIR/cifar10/).",
            stacklevel=3,
        )
    return dataclasses.replace(source, order=order)


#: At least this share of the training images in one request, or in the subsets cached so far
#: with it, and the whole set is decoded instead (and kept: later requests only read it).
WHOLE_SET_SHARE = 0.5


@dataclass(frozen=True, eq=False)
class ImageSubset:
    """Some CIFAR-10 training images (those a stream uses), with every image's label.

    Attributes
    ----------
    images
        ``(m, H, W, 3)`` uint8: the images at ``positions``, in that order.
    positions
        Sorted positions (CIFAR-10 indices in torchvision's order) of ``images``.
    labels
        The label of every training image (``(N,)``, all of them, decoded or not).
    source
        Where the images come from, with their order.

    Examples
    --------
    >>> sub = ImageSubset(np.zeros((2, 32, 32, 3), np.uint8), np.array([3, 7]),
    ...                   np.arange(10) % 10, ImageSource("folder", Path("cifar")))
    >>> subset_rows(sub.positions, np.array([[7, 3]])).tolist()
    [[1, 0]]
    """

    images: NDArray[np.uint8]
    positions: NDArray[np.int64]
    labels: NDArray[np.int64]
    source: ImageSource


def subset_rows(positions: NDArray[np.int64], indices: NDArray[np.int64]) -> NDArray[np.int64]:
    """The rows of a subset's images (at sorted ``positions``) holding the images ``indices``.

    Raises ValueError when one of ``indices`` is not in the subset.

    Examples
    --------
    >>> subset_rows(np.array([2, 5, 9]), np.array([9, 2])).tolist()
    [2, 0]
    >>> subset_rows(np.array([2, 5, 9]), np.array([4]))
    Traceback (most recent call last):
    ...
    ValueError: the subset lacks 1 of these 1 images (positions 4)
    """
    rows = np.searchsorted(positions, indices)
    found = np.zeros(np.shape(indices), dtype=bool)
    inside = rows < len(positions)
    found[inside] = positions[rows[inside]] == np.asarray(indices)[inside]
    if not found.all():
        lacking = np.asarray(indices)[~found]
        raise ValueError(f"the subset lacks {lacking.size} of these {found.size} images "
                         f"(positions {', '.join(map(str, lacking[:5].tolist()))})")
    return rows.astype(np.int64)


Select = Callable[[NDArray[np.int64]], NDArray[np.int64]]


def cifar10_train_subset(
    select: Select,
    *,
    path: PathLike | None = None,
    data_dir: PathLike | None = None,
    download: bool = False,
    progress: Progress | None = None,
) -> ImageSubset:
    """The training images ``select(labels)`` names, decoding only those on a first use.

    ``select`` gets every training image's label and returns the positions wanted (a stream's
    images: its chunks are drawn from the labels alone). The labels and order of a JPEG
    tarball or tree come from its index, or from its members' names, without decoding an
    image; then only the images wanted are decoded. Each such subset is kept in the cache
    beside the whole set (``<cache>/cifar10/decoded/``, written all at once and checked by
    sha256 as `cifar10_train_arrays`' is); a request for at least ``WHOLE_SET_SHARE`` of the
    images, alone or with the subsets kept so far, decodes and keeps the whole set instead,
    which serves every later request. One process decodes a source at a time (the kernel's
    ``flock`` on a lock file in the cache): another one waits for it, then reads what it
    kept. The official batches (read whole by torchvision in about a second) are always
    read whole. The images are those of `cifar10_train_arrays`, byte for byte.

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> with tempfile.TemporaryDirectory() as d:
    ...     for c, name in enumerate(CIFAR10_CLASSES):
    ...         _ = (Path(d) / "train" / name).mkdir(parents=True)
    ...         for k in range(2):
    ...             im = Image.new("RGB", (32, 32), (c, k, 0))
    ...             im.save(Path(d) / "train" / name / f"{k}.png")
    ...     with warnings.catch_warnings():
    ...         warnings.simplefilter("ignore")  # no index: ImageFolder's order
    ...         sub = cifar10_train_subset(lambda labels: np.flatnonzero(labels == 3), path=d)
    >>> sub.positions.tolist(), sub.images[:, 0, 0].tolist(), len(sub.labels)
    ([6, 7], [[3, 0, 0], [3, 1, 0]], 20)
    """
    source = _usable_source(path, data_dir)
    if source is None or source.kind == "official":
        images, labels, found, order = _decoded_split(
            "train", path, data_dir, download=download, progress=progress
        )
        whole = np.arange(len(labels), dtype=np.int64)
        return ImageSubset(images, whole, labels, _with_order(found, order))
    if source.kind == "folder" and not (source.path / "train").is_dir():
        raise locate.DatasetUnavailableError(
            f"{source.path} has no train/<class>/ folder: the CIFAR-10 train images are needed"
        )
    if source.kind == "tarball" and source.checked:
        locate.verify(source.path, locate.manifest_entry("cifar10_jpg"))
    key = _fingerprint(source)
    decoded = locate.cache_dir() / "cifar10" / "decoded"
    whole_set = _cached_whole(decoded / key, source, progress)
    if whole_set is not None:
        return whole_set
    with _one_decoder(decoded / f"{key}.lock"):
        whole_set = _cached_whole(decoded / key, source, progress)  # kept while we waited
        if whole_set is not None:
            return whole_set
        return _decoded_subset(select, source, decoded, key, progress)


def _cached_whole(
    folder: Path, source: ImageSource, progress: Progress | None
) -> ImageSubset | None:
    cached = locate.load_arrays(folder, ("images", "labels", "order"))
    if cached is None:
        return None
    n = len(cached["labels"])
    if progress is not None:
        progress(n, n)
    return ImageSubset(cached["images"], np.arange(n, dtype=np.int64), cached["labels"],
                       _with_order(source, str(cached["order"])))


def _decoded_subset(
    select: Select, source: ImageSource, decoded: Path, key: str, progress: Progress | None
) -> ImageSubset:
    """`cifar10_train_subset` once the whole set is known not to be cached (lock held)."""
    members: tuple[list[str], Reader] | None = None
    catalogue = locate.load_arrays(decoded / f"{key}-labels", ("labels", "order"))
    if catalogue is None:
        members = _members(source)
        if not members[0]:
            raise ValueError(f"{source.path}: no images under train/<class>/")
        _, labels, order = _placement(members[0], _index_order(source, "train"))
        locate.save_arrays(decoded / f"{key}-labels",
                           {"labels": labels, "order": np.array(order)})
    else:
        labels, order = catalogue["labels"], str(catalogue["order"])
    found = _with_order(source, order)
    wanted = np.unique(np.asarray(select(labels), dtype=np.int64))
    if wanted.size and not 0 <= wanted[0] <= wanted[-1] < len(labels):
        raise ValueError(f"select named images outside 0..{len(labels) - 1}")
    subsets = decoded / f"{key}-subsets"
    name = f"{len(wanted)}-{hashlib.sha256(wanted.tobytes()).hexdigest()[:16]}"
    covering = _covering_subset(subsets, name, wanted)
    if covering is not None:
        if progress is not None:
            progress(len(wanted), len(wanted))
        return ImageSubset(covering["images"], covering["positions"], labels, found)
    if members is None:
        members = _members(source)
    names, read = members
    position, _, _ = _placement(names, _index_order(source, "train"))
    kept = sum(count for count, _ in _kept_subsets(subsets))
    if len(wanted) + kept >= WHOLE_SET_SHARE * len(labels) or 2 * len(wanted) >= len(labels):
        images = _decode_members(source.path, read, np.argsort(position), progress)
        locate.save_arrays(decoded / key,
                           {"images": images, "labels": labels, "order": np.array(order)})
        return ImageSubset(images, np.arange(len(labels), dtype=np.int64), labels, found)
    member_at = np.empty(len(position), dtype=np.int64)
    member_at[position] = np.arange(len(position))
    images = _decode_members(source.path, read, member_at[wanted], progress)
    locate.save_arrays(subsets / name, {"positions": wanted, "images": images})
    return ImageSubset(images, wanted, labels, found)


def _kept_subsets(subsets: Path) -> list[tuple[int, Path]]:
    """The subsets kept for a source, with their sizes (``<count>-<16 hex>`` folders).

    A folder that another process is still writing (``save_arrays``' ``….part…``), or that
    a killed one left, is not one of them.
    """
    return [(int(p.name.split("-")[0]), p) for p in subsets.glob("*-*")
            if p.is_dir() and re.fullmatch(r"\d+-[0-9a-f]{16}", p.name)]


def _covering_subset(
    subsets: Path, name: str, wanted: NDArray[np.int64]
) -> dict[str, NDArray[Any]] | None:
    """A kept subset holding every image of ``wanted``: its own (``name``), else a larger one.

    A shorter stream's chunks are the first chunks of a longer one of the same seed, so the
    subset of a 10-chunk stream serves its first 5 chunks.
    """
    larger = [p for count, p in sorted(_kept_subsets(subsets)) if count > len(wanted)]
    for folder in [subsets / name, *larger]:
        positions = locate.load_arrays(folder, ("positions",))
        if positions is not None and np.isin(wanted, positions["positions"]).all():
            found = locate.load_arrays(folder, ("positions", "images"))
            if found is not None:
                return found
    return None


#: A process waits at most this long for another one's decoding, then decodes alongside.
DECODE_WAIT_S = 600.0


@contextlib.contextmanager
def _one_decoder(lock: Path, wait_s: float = DECODE_WAIT_S) -> Iterator[None]:
    """Hold ``lock`` while decoding, so two visitors do not decode the same images at once.

    The second waits, then reads what the first kept. The lock is the kernel's ``flock``, gone
    with the process however it ends. Without ``flock`` (Windows) or a writable cache: no
    lock, each decodes.
    """
    try:
        import fcntl

        lock.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except (ImportError, OSError):
        yield
        return
    try:
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.1)
        yield
    finally:
        os.close(fd)  # releases the lock


def cifar10_test_arrays(
    *,
    path: PathLike | None = None,
    data_dir: PathLike | None = None,
    progress: Progress | None = None,
) -> tuple[NDArray[np.uint8], NDArray[np.int64], ImageSource]:
    """Return CIFAR-10's 10,000 test images (uint8 ``(N, 32, 32, 3)``) and labels, decoded once.

    Found where `cifar10_train_arrays` finds the training images (same source); the CIFAR-10-CD
    stream never reads them, so a model pretrained on them has seen no stream image. With
    ``cifar10_index.csv.gz`` (or the official batches) the images are in ``test_batch`` order,
    so position *i* is CIFAR-10 test image *i*. Raises `DatasetUnavailableError` when no
    source is found, or when the source holds no test split.

    Examples
    --------
    >>> cifar10_test_arrays(path="/nonexistent/cifar-10-batches-py")
    Traceback (most recent call last):
    ...
    pudd_core.streams.locate.DatasetUnavailableError: cifar10-cd: ... is neither ...

    """
    images, labels, source, order = _decoded_split("test", path, data_dir, progress=progress)
    return images, labels, dataclasses.replace(source, order=order)
