"""The registry of named streams: cards, availability, and `load_stream`."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pudd_core import _validation
from pudd_core.streams import airline, cifar10_cd, images, locate, real, synth
from pudd_core.streams.chunking import Stream, StreamInfo

_SYNTH_TRUTH = (
    "abrupt drift every 10 chunks: drift_chunks = (10, 20, ..., 90); the concept of every chunk "
    "in truth['concepts']"
)
_RIVER = "river.datasets.synth, generated on the fly (seeded: one river seed per chunk)"
_RIVER_LICENCE = "BSD-3-Clause (river)"
_PAPER_SYNTH = (
    "100 chunks of 1000; a new random concept every 10 chunks, each chunk from a new generator "
    "instance (spec 4.1). Options: drift_period, drift_width (gradual drift, in samples)."
)
_REAL_TRUTH = "none: real drift points are unknown"

_DataDir = str | os.PathLike[str] | None


@dataclasses.dataclass(frozen=True)
class DataSource:
    """Where a real stream's data file goes, and whether the library can download it.

    Attributes
    ----------
    file
        The file's path inside a data folder (``$PUDD_DATA_DIR``) or the cache.
    cache_path
        The full path in this machine's cache, where a download or a copy goes.
    downloadable, size
        Whether ``load_stream(name, download=True)`` can fetch it (checksum-verified), and
        the download's size in bytes when known.

    Examples
    --------
    >>> src = data_source("elec2")
    >>> src.file, src.downloadable, src.cache_path.endswith("elec2/electricity.csv.gz")
    ('elec2/electricity.csv.gz', True, True)
    """

    file: str
    cache_path: str
    downloadable: bool
    size: int | None


def _no_variant(info: StreamInfo, data_dir: _DataDir) -> StreamInfo | None:
    return None


def _airline_variant(info: StreamInfo, data_dir: _DataDir) -> StreamInfo | None:
    return airline.paper_card(info) if airline.paper_file(data_dir) is not None else None


def _cifar_source() -> DataSource:
    return DataSource("cifar10/cifar-10-batches-py", str(locate.cache_dir() / "cifar10"),
                      True, 170_498_071)


@dataclasses.dataclass(frozen=True, kw_only=True)
class _Card:
    """One registry entry: the public card, how to load the stream and where its data are.

    How a stream is found follows its ``info.kind``: a synthetic one needs river, an image
    one CIFAR-10's images, a real one the manifest's file ``manifest_key``.
    """

    info: StreamInfo
    loader: Callable[..., Stream]
    options: frozenset[str] = frozenset({"path"})  # the loader's stream-specific options
    manifest_key: str | None = None  # the manifest entry of a real stream's data file
    other_copies: Callable[[], list[Path]] = list  # where else the file may be (elec2: river's)
    other_ways: Callable[[], list[str]] = list  # ... and how to put it there, for the message
    data_source: Callable[[], DataSource] | None = None  # when not the manifest entry's file
    reports_progress: bool = False  # the loader takes progress(done, total) while decoding
    variant: Callable[[StreamInfo, _DataDir], StreamInfo | None] = _no_variant
    """Another card, used when other data are present (airline: the paper's own file)."""


def _synthetic(name: str, title: str, description: str) -> _Card:
    return _Card(
        info=StreamInfo(
            name=name, title=title, description=f"{description} {_PAPER_SYNTH}",
            kind="synthetic", seeded=True, n_chunks=100,
            feature_shape=(synth.SPECS[name].n_features,), source=_RIVER,
            licence=_RIVER_LICENCE, ground_truth=_SYNTH_TRUTH,
        ),
        loader=synth.make_synth_stream,
        options=frozenset({"drift_period", "drift_width"}),
    )


def _real(name: str, title: str, *, n_chunks: int, n_features: int, description: str,
          source: str, licence: str, **card: Any) -> _Card:
    """A real stream's card: its file is the manifest entry of its name."""
    return _Card(
        info=StreamInfo(
            name=name, title=title, description=description, kind="real", n_chunks=n_chunks,
            feature_shape=(n_features,), source=source, licence=licence, ground_truth=_REAL_TRUTH,
        ),
        manifest_key=name,
        **card,
    )


_CARDS: dict[str, _Card] = {
    card.info.name: card
    for card in (
        _synthetic(
            "sea0", "SEA, no noise",
            "SEA: label x0 + x1 > threshold, thresholds 8 / 9 / 7 / 9.5 (variants 0-3); "
            "x in U[0, 10]^3, x2 irrelevant.",
        ),
        _synthetic(
            "sea10", "SEA, 10% label noise", "SEA variants 0-3 with 10% of the labels flipped."
        ),
        _synthetic(
            "sea20", "SEA, 20% label noise", "SEA variants 0-3 with 20% of the labels flipped."
        ),
        _synthetic(
            "sine", "Sine",
            "Sine's four classification functions (SINE1, reversed SINE1, SINE2, reversed "
            "SINE2) on x in U[0, 1]^2, noise-free.",
        ),
        _synthetic(
            "mixed", "Mixed",
            "Mixed's two classification functions (two booleans as 0/1, two U[0, 1] features); "
            "the concept alternates from a random start.",
        ),
        _real(
            "elec2", "Elec2 (NSW electricity)", n_chunks=45, n_features=len(real.ELEC2_COLUMNS),
            description="Electricity price up/down, 8 normalised features in the file's "
            "column order (date, day, period, nswprice, nswdemand, vicprice, vicdemand, "
            "transfer); label class == 'UP'. The paper's first 45,000 of 45,312 rows: 45 "
            "chunks of 1000.",
            source="Harries (1999), river.datasets.Elec2 file electricity.csv",
            licence="no explicit licence; redistributed for research by river, MOA and OpenML",
            loader=real.load_elec2, other_copies=real.river_elec2_path,
            other_ways=real.river_elec2_ways,
        ),
        _real(
            "powersupply", "Italian power supply", n_chunks=29, n_features=3,
            description="Features [1 (bias), supply_1 / max, supply_2 / max] with maxima "
            "over the whole file (as the authors); label hour < 12. The paper's first "
            "29,000 of 29,928 rows: 29 chunks of 1000.",
            source="Stream Data Mining Repository (Zhu 2010), DriftSurf's powersupply.arff",
            licence="no explicit licence; research dataset (Zhu 2010)",
            loader=real.load_powersupply,
        ),
        _real(
            "airline", "Airline delays (2007 substitute)", n_chunks=50, n_features=601,
            description="SUBSTITUTE for the paper's airline stream (58 chunks of DriftSurf's "
            "679-dim 2008 file, which is not publicly retrievable): the first 50,482 flights "
            "of 2007 in the same 14-column schema, one-hot encoded with DriftSurf's recipe to "
            "601 dims; label ArrDelay > 0. 50 chunks of 1000. Put DriftSurf's sparse "
            "airline.data in $PUDD_DATA_DIR/airline/ (or pass path=) to get the paper's "
            "679-dim stream.",
            source="Ikonomovska airline data (US DOT BTS), 2007 head via kosmag/FeatExtream",
            licence="US DOT BTS data: US government work, public domain",
            loader=airline.load_airline, variant=_airline_variant,
        ),
        _Card(
            info=StreamInfo(
                name="cifar10-cd",
                title="CIFAR-10-CD (interest drift)",
                description="CIFAR-10 training images, 100 chunks of 500 (50 per class, every "
                "image used once); label 1 when the class is one of 3 interests moving by a "
                "seeded Markov chain (U[0, 1) + 100 I, rows normalised; start airplane, "
                "automobile, bird). Images normalised, float32 (n, 3, 32, 32). Options: "
                "initial_interests, stay_weight.",
                kind="image",
                seeded=True,  # the interest chain and the images' order are drawn
                chunk_size=500,
                n_chunks=100,
                feature_shape=(3, 32, 32),
                source="CIFAR-10 (Krizhevsky 2009): official batches via torchvision, or the "
                "JPEG copy",
                licence="CIFAR-10: no formal licence; cite Krizhevsky (2009)",
                ground_truth="drift_chunks = chunks whose positive-class set changes; "
                "truth['transition_matrix'], truth['interests'], truth['positive_classes']",
            ),
            loader=cifar10_cd.load_cifar10_cd,
            options=frozenset({"path", "initial_interests", "stay_weight"}),
            data_source=_cifar_source,
            reports_progress=True,
        ),
    )
}


def _card(name: str) -> _Card:
    key = str(name).strip().lower()
    if key not in _CARDS:
        from pudd_core._validation import ParameterError

        raise ParameterError(
            "dataset", f"unknown stream {name!r}; known streams: {', '.join(_CARDS)}",
            tuple(_CARDS))
    return _CARDS[key]


def check_data(name: str, *, data_dir: str | os.PathLike[str] | None = None) -> None:
    """Verify a real stream's data file against the manifest's sha256, before any work.

    Raises :class:`~pudd_core.streams.ChecksumMismatchError` for a damaged or edited file;
    does nothing for synthetic streams or a missing file (see :func:`get_info`). A file's
    hash is remembered by its size and modification time, so this costs one hash per file.

    Examples
    --------
    >>> check_data("sea0")  # synthetic: nothing to verify
    """
    card = _card(name)
    if card.manifest_key is None or card.variant(card.info, data_dir) is not None:
        return
    entry = locate.manifest_entry(card.manifest_key)
    found = locate.find(entry, locate.data_folder(data_dir))
    if found is not None:
        locate.verify(found, entry)


def _availability(card: _Card, data_dir: _DataDir) -> tuple[bool, str | None]:
    """Whether a stream can be served now (existence checks only, no hashing)."""
    kind = card.info.kind
    if kind == "synthetic":
        if importlib.util.find_spec("river") is None:
            return False, "river is not installed: pip install river"
        return True, None
    folder = locate.data_folder(data_dir)
    if kind == "image":
        if images.find_image_source(None, data_dir) is not None:
            return True, None
        return False, str(images.unavailable_error(data_dir))
    assert card.manifest_key is not None, f"the real stream {card.info.name} names no file"
    entry = locate.manifest_entry(card.manifest_key)
    if locate.find(entry, folder) is not None or any(p.is_file() for p in card.other_copies()):
        return True, None
    return False, locate.unavailable_message(entry, folder, card.other_ways())


def data_source(name: str) -> DataSource | None:
    """The data file a stream needs (``None`` for the synthetic streams).

    Examples
    --------
    >>> src = data_source("powersupply")
    >>> src.file, src.downloadable, src.size
    ('powersupply/powersupply.arff.gz', True, 396873)
    >>> data_source("sea0") is None
    True
    """
    card = _card(name)
    if card.data_source is not None:
        return card.data_source()
    if card.manifest_key is None:
        return None
    entry = locate.manifest_entry(card.manifest_key)
    return DataSource(entry.file, str(locate.cache_dir() / entry.file), entry.url is not None,
                      entry.uncompressed_bytes or entry.bytes)


def get_info(name: str, *, data_dir: str | os.PathLike[str] | None = None) -> StreamInfo:
    """Return the registry card of one stream, with its availability checked now.

    The airline card describes the paper's file when `airline.paper_file` finds it, else the
    substitute.

    Examples
    --------
    >>> get_info("elec2").n_chunks
    45
    >>> get_info("nope")
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: unknown stream 'nope'; known streams: sea0, ...

    """
    card = _card(name)
    info = card.info
    try:
        variant = card.variant(info, data_dir)
        if variant is not None:
            info, available, reason = variant, True, None
        else:
            available, reason = _availability(card, data_dir)
    except Exception as exc:  # noqa: BLE001 - the registry must never crash the app
        available, reason = False, f"{type(exc).__name__}: {exc}"
    return dataclasses.replace(info, available=available, unavailable_reason=reason)


def drifts_known(dataset: str) -> bool:
    """Whether ``dataset``'s true drift chunks are known (synthetic streams, CIFAR-10-CD).

    Only then do an oracle row and detected / false-alarm / delay counts apply. A name the
    registry does not know (a user's stream) has none known.

    Examples
    --------
    >>> drifts_known("sea0"), drifts_known("elec2"), drifts_known("cifar10-cd")
    (True, False, True)
    >>> drifts_known("my-log")
    False
    """
    try:
        truth = get_info(dataset).ground_truth
    except _validation.ParameterError:
        return False
    return not truth.startswith("none")


def list_streams(*, data_dir: str | os.PathLike[str] | None = None) -> list[StreamInfo]:
    """All registered streams, in registry order, each with its availability; never raises.

    Examples
    --------
    >>> [info.name for info in list_streams()]
    ['sea0', 'sea10', 'sea20', 'sine', 'mixed', 'elec2', 'powersupply', 'airline', 'cifar10-cd']

    """
    return [get_info(name, data_dir=data_dir) for name in _CARDS]


def load_stream(
    name: str,
    *,
    seed: int = 0,
    chunk_size: int | None = None,
    n_chunks: int | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    download: bool = False,
    progress: Callable[[int, int], None] | None = None,
    **options: Any,
) -> Stream:
    """Load a registered stream as chunks of ``(X, y)`` with its ground truth.

    Same name, seed and options give byte-identical chunks; real data ignore ``seed``.

    Parameters
    ----------
    name
        A registry name (see `list_streams`).
    seed
        Non-negative seed; child seeds are spawned with `numpy.random.SeedSequence`.
    chunk_size
        Samples per chunk (registry default if None).
    n_chunks
        Number of chunks (registry default if None; real data: the paper's rows).
    data_dir
        Data folder to use instead of ``$PUDD_DATA_DIR``.
    download
        Allow a download from the canonical source into the cache if no local copy exists.
    progress
        ``progress(done, total)``, called while CIFAR-10 images are decoded.
    **options
        Stream-specific: ``drift_period``, ``drift_width`` (synthetic); ``path`` (real, image);
        ``initial_interests``, ``stay_weight`` (cifar10-cd).

    Raises
    ------
    ValueError
        Unknown name or invalid sizes.
    DatasetUnavailableError
        The data file is missing; the message says which file and how to provide it.

    Examples
    --------
    >>> s = load_stream("sea0", seed=42)
    >>> len(s), s.chunk_size, s.drift_chunks
    (100, 1000, (10, 20, 30, 40, 50, 60, 70, 80, 90))
    >>> X, y = s.chunk(0)
    >>> X[0].round(3).tolist(), int(y[0])
    ([8.484, 6.042, 2.213], 1)

    """
    card = _card(name)
    seed = _validation.check_positive_int("seed", seed, minimum=0)
    info, loader = card.info, card.loader
    unknown = sorted(set(options) - card.options)
    if unknown:
        raise TypeError(
            f"load_stream({info.name!r}) got unexpected option(s) {', '.join(unknown)}; "
            f"accepted: {', '.join(sorted(card.options)) or 'none'}"
        )
    size = _validation.check_positive_int(
        "chunk_size", chunk_size if chunk_size is not None else info.chunk_size)
    count = _validation.check_positive_int("n_chunks", n_chunks, optional=True)
    if info.kind == "synthetic":
        return loader(info, seed=seed, chunk_size=size, n_chunks=count or info.n_chunks, **options)
    extra: dict[str, Any] = {"progress": progress} if card.reports_progress else {}
    return loader(
        info,
        seed=seed,
        chunk_size=size,
        n_chunks=count,
        data_dir=data_dir,
        download=download,
        **extra,
        **options,
    )
