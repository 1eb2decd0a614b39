"""Finding data files: explicit path, ``$PUDD_DATA_DIR``, the cache, a verified download.

Checksums come from the committed ``datasets/manifest.toml``. Hashing is lazy: a file's sha256
is remembered in the cache folder together with its size and mtime, so a file is hashed once.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import shutil
import tempfile
import tomllib
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

_PACKAGE_ROOT = Path(__file__).resolve().parents[2]
_VERIFIED_FILE = "verified.json"


class DatasetUnavailableError(FileNotFoundError):
    """A data file is not available locally (and no download was requested).

    Examples
    --------
    >>> issubclass(DatasetUnavailableError, FileNotFoundError)
    True

    """


class ChecksumMismatchError(ValueError):
    """A data file was found but its sha256 differs from the manifest.

    Examples
    --------
    >>> issubclass(ChecksumMismatchError, ValueError)
    True

    """


@dataclass(frozen=True)
class ManifestEntry:
    """One table of ``datasets/manifest.toml``: a known data file.

    ``file`` is relative to a data folder laid out like ``../shared/datasets``; when the file is
    gzipped, the uncompressed variant (what a download produces) is accepted too.

    Examples
    --------
    >>> entry = read_manifest()["powersupply"]
    >>> entry.uncompressed_file, entry.expected_sha256(Path("powersupply.arff"))[:8]
    ('powersupply/powersupply.arff', 'e1ee08c0')

    """

    key: str
    file: str
    source: str
    sha256: str | None
    bytes: int | None  # None for a file listed without a checksum (any copy is accepted)
    licence: str
    md5: str | None = None
    uncompressed_sha256: str | None = None
    uncompressed_bytes: int | None = None
    url: str | None = None
    download: str | None = None

    @property
    def uncompressed_file(self) -> str | None:
        """Return the relative name of the uncompressed variant, if the file is gzipped."""
        return self.file[:-3] if self.file.endswith(".gz") else None

    def expected_sha256(self, path: Path) -> str | None:
        """Return the checksum a file at ``path`` must have (gzipped or uncompressed variant)."""
        if path.suffix != ".gz" and self.uncompressed_sha256 is not None:
            return self.uncompressed_sha256
        return self.sha256


def project_root() -> Path | None:
    """Return the project folder holding ``datasets/`` (None when installed without it).

    Examples
    --------
    >>> (project_root() / "datasets" / "manifest.toml").is_file()
    True

    """
    return _PACKAGE_ROOT if (_PACKAGE_ROOT / "datasets").is_dir() else None


def cache_dir() -> Path:
    """Return the cache folder: ``$PUDD_CACHE_DIR``, else ``<project>/datasets/cache``.

    Installed without the project folder, it falls back to ``~/.cache/pudd_lab``.
    The folder is not created here.

    Examples
    --------
    >>> cache_dir().name in ("cache", "pudd_lab") or "PUDD_CACHE_DIR" in os.environ
    True

    """
    env = os.environ.get("PUDD_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    root = project_root()
    if root is not None:
        return root / "datasets" / "cache"
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path("~/.cache").expanduser())
    return Path(xdg) / "pudd_lab"


def data_folder(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """Return the data folder: ``explicit`` if given, else ``$PUDD_DATA_DIR``, else None.

    Examples
    --------
    >>> data_folder("/data/pudd")
    PosixPath('/data/pudd')

    """
    if explicit is not None:
        return Path(explicit).expanduser()
    env = os.environ.get("PUDD_DATA_DIR")
    return Path(env).expanduser() if env else None


def manifest_path() -> Path:
    """Return where the committed manifest lives.

    Examples
    --------
    >>> manifest_path().name
    'manifest.toml'

    """
    root = project_root() or _PACKAGE_ROOT
    return root / "datasets" / "manifest.toml"


def read_manifest() -> dict[str, ManifestEntry]:
    """Read ``datasets/manifest.toml`` (one table per known file).

    Examples
    --------
    >>> entry = read_manifest()["elec2"]
    >>> entry.file, entry.bytes
    ('elec2/electricity.csv.gz', 693377)

    """
    path = manifest_path()
    if not path.is_file():
        return {}
    with path.open("rb") as f:
        raw = tomllib.load(f)
    entries = {}
    for key, table in raw.items():
        fields = {k: table[k] for k in ManifestEntry.__dataclass_fields__ if k in table}
        fields.setdefault("sha256", None)
        fields.setdefault("bytes", None)
        entries[key] = ManifestEntry(key=key, **fields)
    return entries


def manifest_entry(key: str) -> ManifestEntry:
    """Return manifest entry ``key``; `DatasetUnavailableError` if the manifest lacks it.

    Examples
    --------
    >>> manifest_entry("airline").bytes
    763402

    """
    entries = read_manifest()
    if key not in entries:
        raise DatasetUnavailableError(
            f"no entry {key!r} in the data manifest {manifest_path()} (is the project's "
            "datasets/manifest.toml present?)"
        )
    return entries[key]


def candidates(entry: ManifestEntry, data_dir: Path | None = None) -> list[Path]:
    """List the paths where ``entry`` may be found, in lookup order (data folder, then cache).

    Examples
    --------
    >>> [str(p) for p in candidates(manifest_entry("elec2"), Path("/d"))][:2]
    ['/d/elec2/electricity.csv.gz', '/d/elec2/electricity.csv']

    """
    names = [entry.file] + ([entry.uncompressed_file] if entry.uncompressed_file else [])
    folders = ([data_dir] if data_dir is not None else []) + [cache_dir()]
    return [folder / name for folder in folders for name in names]


def find(entry: ManifestEntry, data_dir: Path | None = None) -> Path | None:
    """Return the first existing candidate for ``entry`` (existence only, no hashing).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (Path(d) / "elec2").mkdir()
    ...     _ = (Path(d) / "elec2" / "electricity.csv").write_text("x")
    ...     find(manifest_entry("elec2"), Path(d)).name
    'electricity.csv'

    """
    return next((p for p in candidates(entry, data_dir) if p.is_file()), None)


def sha256_of(path: Path) -> str:
    """Sha256 of a file, remembered by (size, mtime) in the cache folder.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "x.txt"
    ...     _ = p.write_bytes(b"abc")
    ...     sha256_of(p)[:16]
    'ba7816bf8f01cfea'

    """
    path = path.resolve()
    stat = path.stat()
    record_key = str(path)
    records = _read_verified()
    rec = records.get(record_key)
    if rec and rec.get("size") == stat.st_size and rec.get("mtime_ns") == stat.st_mtime_ns:
        return str(rec["sha256"])
    digest = hash_file(path)
    records[record_key] = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": digest}
    _write_verified(records)
    return digest


def hash_file(path: Path) -> str:
    """The sha256 hex digest of a file, read in 1 MiB blocks.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     (Path(d) / "f").write_bytes(b"abc" * 500_000)  # 1.5 MB: two blocks
    ...     hash_file(Path(d) / "f") == hashlib.sha256(b"abc" * 500_000).hexdigest()
    1500000
    True
    """
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _read_verified() -> dict[str, dict[str, Any]]:
    try:
        data = json.loads((cache_dir() / _VERIFIED_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_verified(records: Mapping[str, object]) -> None:
    kept = {k: v for k, v in records.items() if Path(k).exists()}  # forget deleted files
    with contextlib.suppress(OSError):  # a read-only cache only costs a re-hash next time
        atomic_write_bytes(cache_dir() / _VERIFIED_FILE, json.dumps(kept, indent=1).encode())


def verify(path: Path, entry: ManifestEntry) -> None:
    """Raise `ChecksumMismatchError` unless ``path`` has the manifest's sha256 (if it lists one).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "electricity.csv"
    ...     _ = p.write_text("not elec2")
    ...     verify(p, manifest_entry("elec2"))
    Traceback (most recent call last):
    ...
    pudd_core.streams.locate.ChecksumMismatchError: ... expected c10a4167...

    """
    expected = entry.expected_sha256(path)
    if expected is None:
        return
    actual = sha256_of(path)
    if actual != expected:
        raise ChecksumMismatchError(
            f"{path} does not match the manifest entry {entry.key!r}: sha256 {actual}, "
            f"expected {expected}. Replace the file with the one from {entry.source}."
        )


def locate(
    key: str,
    *,
    path: str | os.PathLike[str] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    download: bool = False,
    extra: Sequence[Path] = (),
    also: Sequence[str] = (),
    fetch: Callable[[ManifestEntry], Path] | None = None,
) -> Path:
    """Resolve a known data file, verifying its checksum.

    Lookup order: ``path`` (used as given, not checksummed: it may be a user's own copy);
    ``data_dir`` or ``$PUDD_DATA_DIR``; the cache folder; then, only when ``download`` is true,
    a download from the manifest's source into the cache, verified by sha256.
    ``extra`` lists further local places to look after the cache (river's data home for Elec2),
    ``also`` the ways to provide the file there, for the error message;
    ``fetch`` replaces the plain URL download (river's or torchvision's downloader).

    Raises
    ------
    DatasetUnavailableError
        No local copy and no download requested (or possible); the message names the file and
        the ways to provide it.
    ChecksumMismatchError
        A file was found in the data or cache folder but its sha256 differs from the manifest.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     own = Path(d) / "my_elec2.csv"
    ...     _ = own.write_text("date,day")
    ...     locate("elec2", path=own) == own
    True

    """
    entry = manifest_entry(key)
    if path is not None:
        explicit = Path(path).expanduser()
        if not explicit.is_file():
            raise DatasetUnavailableError(f"{key}: the path given does not exist: {explicit}")
        return explicit
    found = find(entry, data_folder(data_dir)) or next((p for p in extra if p.is_file()), None)
    if found is not None:
        verify(found, entry)
        return found
    if download and fetch is not None:
        fetched = fetch(entry)
        verify(fetched, entry)
        return fetched
    if download and entry.url is not None:
        return _download(entry, entry.url)
    raise DatasetUnavailableError(unavailable_message(entry, data_folder(data_dir), also))


def folder_state(folder: str | os.PathLike[str] | None) -> str:
    """How an error shows the data folder: its path, and why it holds nothing if it cannot.

    Examples
    --------
    >>> folder_state(None), folder_state("/no/such/folder")
    ('not set', '/no/such/folder, which does not exist')
    """
    if folder is None:
        return "not set"
    path = Path(folder)
    if path.is_dir():
        return str(path)
    if path.exists():
        return f"{path}, a file, not a folder"
    return f"{path}, which does not exist"


def unavailable_message(
    entry: ManifestEntry, data_dir: Path | None = None, also: Sequence[str] = ()
) -> str:
    """Build the error text for a missing file: which file, and the ways to provide it.

    ``also`` adds ways beyond the explicit path, the data folder and the cache (numbered on).

    Examples
    --------
    >>> print(unavailable_message(manifest_entry("airline"), Path("/d")).splitlines()[0])
    data file 'airline/airlines_2007_14col_head50482.arff.gz' for 'airline' was not found. ...

    """
    name = Path(entry.file).name
    folder = folder_state(data_dir)
    lines = [
        f"data file {entry.file!r} for {entry.key!r} was not found. "
        "Provide it in one of these ways:",
        f"  1. pass an explicit path: load_stream(..., path='/path/to/{name}');",
        f"  2. set PUDD_DATA_DIR to a folder containing {entry.file} (now: {folder});",
        f"  3. put it in the cache folder: {cache_dir() / entry.file}",
    ]
    if entry.url is not None:
        how = entry.download or entry.url
        lines.append(f"     or download it there with load_stream(..., download=True) ({how}).")
    lines.extend(f"  {n}. {way}" for n, way in enumerate(also, start=4))
    check = f"sha256 {entry.sha256}" if entry.sha256 else f"md5 {entry.md5}" if entry.md5 else ""
    size = f" ({entry.bytes} bytes)" if entry.bytes is not None else ""
    lines.append(f"  Source: {entry.source}; {check or 'no checksum'}{size}.")
    return "\n".join(lines)


def _download(entry: ManifestEntry, url: str) -> Path:
    """Fetch ``url`` into the cache and check it against the manifest."""
    # a plain URL serves the uncompressed upstream file unless it ends in .gz
    name = entry.file if url.endswith(".gz") else (entry.uncompressed_file or entry.file)
    dest = cache_dir() / name
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=dest.parent, delete=False, suffix=".part") as tmp:
        try:
            with urllib.request.urlopen(url) as response:
                shutil.copyfileobj(response, tmp)
        except BaseException:
            tmp.close()
            Path(tmp.name).unlink(missing_ok=True)
            raise
    part = Path(tmp.name)
    expected = entry.expected_sha256(dest)
    actual = hash_file(part)
    if expected is not None and actual != expected:
        part.unlink(missing_ok=True)
        raise ChecksumMismatchError(
            f"download of {url} has sha256 {actual}, expected {expected}; not kept"
        )
    os.replace(part, dest)
    return dest


def atomic_write_bytes(path: Path, payload: bytes) -> None:
    """Write a file atomically (temp file in the same folder, then rename).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     atomic_write_bytes(Path(d) / "sub" / "a.bin", b"xyz")
    ...     (Path(d) / "sub" / "a.bin").read_bytes()
    b'xyz'

    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, delete=False, suffix=".part") as tmp:
        tmp.write(payload)
    os.replace(tmp.name, path)


_CHECKSUMS = "checksums.json"
_verified_arrays: dict[tuple[str, int, int], str] = {}  # (path, size, mtime_ns) -> sha256


def _array_sha256(path: Path) -> str:
    """Sha256 of one cached array file, hashed once per (size, mtime) in this process."""
    stat = path.stat()
    memo = (str(path), stat.st_size, stat.st_mtime_ns)
    if memo not in _verified_arrays:
        _verified_arrays[memo] = hash_file(path)
    return _verified_arrays[memo]


@functools.lru_cache(maxsize=8)
def _warn_unwritable_cache(folder: str, reason: str) -> None:
    """Say once per folder that the cache cannot be written (every load would say it)."""
    logging.getLogger(__name__).warning(
        "the cache folder %s cannot be written (%s): what is read from the data files is not "
        "kept, so each load reads them again; set $PUDD_CACHE_DIR to a writable folder",
        folder, reason)


def save_arrays(folder: Path, arrays: Mapping[str, NDArray[Any]]) -> None:
    """Save arrays as ``<name>.npy`` in ``folder``, atomically (all or nothing).

    Each file's size and sha256 go to ``checksums.json`` beside them, which
    :func:`load_arrays` verifies. Failures to write (read-only cache) cost only the time: the
    cache is an optimisation; a folder that cannot be made is logged once as a warning naming
    ``$PUDD_CACHE_DIR``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     save_arrays(Path(d) / "set", {"x": np.arange(3)})
    ...     load_arrays(Path(d) / "set", ("x",))
    {'x': array([0, 1, 2])}

    """
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=folder.name + ".part"))
    except OSError as exc:
        _warn_unwritable_cache(str(folder.parent), exc.strerror or type(exc).__name__)
        return
    try:
        sums = {}
        for name, array in arrays.items():
            np.save(tmp / f"{name}.npy", array, allow_pickle=False)
            file = tmp / f"{name}.npy"
            sums[name] = {"bytes": file.stat().st_size, "sha256": hash_file(file)}
        (tmp / _CHECKSUMS).write_text(json.dumps(sums, indent=1))
        os.replace(tmp, folder)
    except OSError:
        pass  # another process won the race, or the disk is full: keep theirs / nothing
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def load_arrays(folder: Path, names: tuple[str, ...]) -> dict[str, NDArray[Any]] | None:
    """Load ``<name>.npy`` files saved by `save_arrays`; None if any is missing or unreadable.

    Every file is checked against the size and sha256 recorded when it was written; a cache
    that fails (edited, truncated, written before checksums were recorded) is removed with a
    warning, so the caller parses the source again and writes a fresh one.

    Examples
    --------
    >>> load_arrays(Path("/nonexistent"), ("x",)) is None
    True

    """
    if not folder.is_dir():
        return None
    problem = None
    if not (folder / _CHECKSUMS).is_file():  # written before checksums were kept: rebuild
        shutil.rmtree(folder, ignore_errors=True)
        return None
    try:
        sums = json.loads((folder / _CHECKSUMS).read_text())
        out = {}
        for n in names:
            file = folder / f"{n}.npy"
            want = sums.get(n) if isinstance(sums, dict) else None
            if not isinstance(want, dict):
                problem = f"{file.name} has no recorded checksum"
                break
            if file.stat().st_size != want.get("bytes"):
                problem = f"{file.name} has {file.stat().st_size} bytes, not {want.get('bytes')}"
                break
            if _array_sha256(file) != want.get("sha256"):
                problem = f"{file.name} does not match its recorded sha256 (edited?)"
                break
            out[n] = np.load(file, allow_pickle=False)
    except FileNotFoundError as exc:
        problem = f"{Path(str(exc.filename)).name} is missing"
    except (OSError, ValueError) as exc:
        problem = f"unreadable ({exc})"
    if problem is None:
        return out
    import warnings

    warnings.warn(f"parsed-data cache {folder} is damaged ({problem}); rebuilding it from the "
                  "source file", stacklevel=2)
    shutil.rmtree(folder, ignore_errors=True)
    return None
