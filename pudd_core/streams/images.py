"""CIFAR-10 training images: find them (official batches, JPEG tarball, image tree), decode once.

The decoded uint8 ``(N, 32, 32, 3)`` array, labels and image order are cached as ``.npy`` under
``<cache>/cifar10/decoded/``, keyed by the source's checksum, so later loads only read arrays.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import os
import tarfile
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

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


def _train_members(source: ImageSource, split: str = "train") -> Iterable[tuple[str, bytes]]:
    """Yield ``("<split>/<class>/<file>", bytes)`` for each image of one split (tar or tree)."""
    if source.kind == "tarball":
        with tarfile.open(source.path, "r:*") as tar:
            for member in tar:
                parts = member.name.split("/")
                if (
                    member.isfile()
                    and len(parts) >= 3
                    and parts[-3] == split
                    and parts[-1].lower().endswith(_IMAGE_SUFFIXES)
                ):
                    f = tar.extractfile(member)
                    if f is not None:
                        yield "/".join(parts[-3:]), f.read()
    else:
        for file in sorted((source.path / split).glob("*/*")):
            if file.suffix.lower() in _IMAGE_SUFFIXES:
                yield f"{split}/{file.parent.name}/{file.name}", file.read_bytes()


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

    order: dict[str, tuple[int, int]] | None = None
    if source.index is not None:
        import pandas as pd

        idx = pd.read_csv(source.index)
        idx = idx[idx["split"] == split]
        order = dict(
            zip(idx["jpg_member"], zip(idx["orig_index"], idx["label"], strict=True), strict=True)
        )
    total = len(order) if order is not None else (50_000 if split == "train" else 10_000)
    names: list[str] = []
    decoded: list[NDArray[np.uint8]] = []
    for name, payload in _train_members(source, split):
        names.append(name)
        decoded.append(_decode_image(payload))
        if progress is not None and len(decoded) % 1000 == 0:
            progress(len(decoded), max(total, len(decoded)))
    if not decoded:
        raise ValueError(f"{source.path}: no images under {split}/<class>/")
    shapes = {im.shape for im in decoded}
    if len(shapes) != 1:
        raise ValueError(f"{source.path}: images of different sizes {sorted(shapes)[:3]}")
    if order is not None and set(names) == set(order):
        position = np.array([order[n][0] for n in names])
        labels = np.empty(len(names), dtype=np.int64)
        labels[position] = [order[n][1] for n in names]
        images = np.empty((len(names), *decoded[0].shape), dtype=np.uint8)
        images[position] = np.stack(decoded)
        how = f"{TORCHVISION_ORDER} (restored by {_INDEX_NAME})"
    else:  # ImageFolder order and labels: class folders sorted, files sorted
        perm = sorted(range(len(names)), key=lambda i: tuple(names[i].split("/")[1:]))
        class_names = sorted({n.split("/")[1] for n in names})
        if set(class_names) <= set(CIFAR10_CLASSES):
            class_names = list(CIFAR10_CLASSES)  # alphabetical = CIFAR-10 label order
        labels = np.array([class_names.index(names[i].split("/")[1]) for i in perm])
        images = np.stack([decoded[i] for i in perm])
        why = "no index" if order is None else f"{_INDEX_NAME} lists other images"
        how = f"{IMAGEFOLDER_ORDER} ({why}: not torchvision's order)"
    if progress is not None:
        progress(len(images), len(images))
    return images, labels, how


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
