from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from pudd_core.streams import (
    ChecksumMismatchError,
    DatasetUnavailableError,
    get_info,
    list_streams,
    load_stream,
    locate,
)


@pytest.fixture
def offline(tmp_path, monkeypatch):
    """No data anywhere: empty PUDD_DATA_DIR, empty cache, empty river home."""
    data, cache, river = tmp_path / "data", tmp_path / "cache", tmp_path / "river"
    for d in (data, cache, river):
        d.mkdir()
    monkeypatch.setenv("PUDD_DATA_DIR", str(data))
    monkeypatch.setenv("PUDD_CACHE_DIR", str(cache))
    monkeypatch.setenv("RIVER_DATA", str(river))
    return data, cache


def test_missing_file_error_names_the_file_and_the_three_ways(offline):
    data, cache = offline
    with pytest.raises(DatasetUnavailableError) as err:
        load_stream("powersupply")
    msg = str(err.value)
    assert isinstance(err.value, FileNotFoundError)
    assert "'powersupply/powersupply.arff.gz'" in msg
    assert "path='/path/to/powersupply.arff.gz'" in msg  # 1. explicit path
    assert (
        f"PUDD_DATA_DIR to a folder containing powersupply/powersupply.arff.gz (now: {data})" in msg
    )
    assert str(cache / "powersupply" / "powersupply.arff.gz") in msg  # 3. the cache
    assert "download=True" in msg


def test_missing_elec2_error_also_names_rivers_data_home(offline, tmp_path):
    river_file = tmp_path / "river" / "Elec2" / "electricity.csv"
    with pytest.raises(DatasetUnavailableError) as err:
        load_stream("elec2")
    for msg in (str(err.value), get_info("elec2").unavailable_reason):
        assert "3. put it in the cache folder" in msg
        assert "4. put it where river keeps it: $RIVER_DATA/Elec2/electricity.csv" in msg
        assert f"(now: {river_file};" in msg
    # and that place is indeed searched
    river_file.parent.mkdir(parents=True)
    river_file.write_text("date,day,period,nswprice,nswdemand,vicprice,vicdemand,transfer,class\n")
    assert get_info("elec2").available


def test_missing_cifar_error_names_the_tarball_and_the_ways(offline):
    with pytest.raises(DatasetUnavailableError, match=r"cifar10_train_test_jpg\.tar\.gz") as err:
        load_stream("cifar10-cd")
    msg = str(err.value)
    assert "path=" in msg and "PUDD_DATA_DIR" in msg and "download=True" in msg


def test_registry_marks_missing_data_unavailable_instead_of_raising(offline):
    infos = {i.name: i for i in list_streams()}
    for name in ("elec2", "powersupply", "airline", "cifar10-cd"):
        assert not infos[name].available
        assert "PUDD_DATA_DIR" in infos[name].unavailable_reason
    assert infos["sea0"].available and infos["sea0"].unavailable_reason is None


def test_file_in_the_cache_folder_is_found(offline, tmp_path):
    _, cache = offline
    (cache / "powersupply").mkdir()
    # the uncompressed upstream file (what a download leaves) is accepted, checked by sha256
    shared = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "powersupply"
    if not shared.is_dir():
        pytest.skip("needs the shared powersupply file")
    raw = gzip.decompress((shared / "powersupply.arff.gz").read_bytes())
    (cache / "powersupply" / "powersupply.arff").write_bytes(raw)
    assert get_info("powersupply").available
    assert len(load_stream("powersupply")) == 29


@pytest.mark.parametrize("state", ["missing", "file"])
def test_a_data_folder_that_is_missing_or_a_file_is_named_in_the_error(
        offline: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, state: str) -> None:
    """$PUDD_DATA_DIR naming no folder: the error (raised, and the registry's reason the
    pages show) names the variable, its value and what is wrong with it, not a traceback."""
    data = tmp_path / ("no such folder" if state == "missing" else "data.txt")
    if state == "file":
        data.write_text("a file where the data folder should be")
    monkeypatch.setenv("PUDD_DATA_DIR", str(data))
    what = "which does not exist" if state == "missing" else "a file, not a folder"
    for name, needs in (("powersupply", "powersupply/powersupply.arff.gz"),
                        ("cifar10-cd", "cifar10/")):
        with pytest.raises(DatasetUnavailableError) as err:
            load_stream(name)
        for msg in (str(err.value), str(get_info(name).unavailable_reason)):
            assert f"set PUDD_DATA_DIR to a folder containing {needs} (now: {data}, {what})" \
                in msg, msg
    assert not data.is_dir()  # nothing created in its place


def test_a_cache_folder_that_is_a_file_or_missing_still_loads_the_data(
        offline: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """$PUDD_CACHE_DIR missing: created on first use. A file (or any folder that cannot be
    written): the data still load, the same, and one logged warning names the variable and
    says to set it to a writable folder (the cache only saves parsing again)."""
    shared = Path(__file__).resolve().parents[3] / "shared" / "datasets"
    if not (shared / "powersupply").is_dir():
        pytest.skip("needs the shared powersupply file")
    monkeypatch.setenv("PUDD_DATA_DIR", str(shared))
    missing = tmp_path / "no" / "cache"
    monkeypatch.setenv("PUDD_CACHE_DIR", str(missing))
    expected = load_stream("powersupply")
    assert (missing / "parsed").is_dir()
    assert not [r for r in caplog.records if "PUDD_CACHE_DIR" in r.getMessage()]

    blocked = tmp_path / "cache.txt"
    blocked.write_text("a file where the cache folder should be")
    monkeypatch.setenv("PUDD_CACHE_DIR", str(blocked))
    locate._warn_unwritable_cache.cache_clear()
    with caplog.at_level("WARNING", logger="pudd_core.streams.locate"):
        streams = [load_stream("powersupply") for _ in range(2)]
    for stream in streams:
        assert len(stream) == len(expected) == 29
        np.testing.assert_array_equal(stream.chunk(3)[0], expected.chunk(3)[0])
    [warned] = [r.getMessage() for r in caplog.records if "PUDD_CACHE_DIR" in r.getMessage()]
    assert str(blocked) in warned and "cannot be written" in warned and "writable" in warned
    assert blocked.read_text() == "a file where the cache folder should be"


def test_a_corrupt_file_in_the_data_folder_fails_its_checksum(offline):
    data, _ = offline
    (data / "powersupply").mkdir()
    (data / "powersupply" / "powersupply.arff.gz").write_bytes(gzip.compress(b"1,2,3\r\n"))
    with pytest.raises(ChecksumMismatchError, match="expected 5e917cad"):
        load_stream("powersupply")


def test_checksums_are_computed_once_and_remembered(offline, monkeypatch):
    data, cache = offline
    f = data / "file.bin"
    f.write_bytes(b"abc")
    calls = []
    real_hash = locate.hash_file
    monkeypatch.setattr(locate, "hash_file", lambda p: calls.append(p) or real_hash(p))
    first = locate.sha256_of(f)
    assert locate.sha256_of(f) == first and len(calls) == 1
    assert (cache / "verified.json").is_file()
    f.write_bytes(b"abcd")  # size changes: hashed again
    assert locate.sha256_of(f) != first and len(calls) == 2


def test_download_is_verified_against_the_manifest(offline, tmp_path, monkeypatch):
    _, cache = offline
    upstream = tmp_path / "upstream.arff"
    upstream.write_bytes(b"not the real file")
    entry = locate.manifest_entry("powersupply")
    patched = {
        **locate.read_manifest(),
        "powersupply": locate.ManifestEntry(**{**entry.__dict__, "url": upstream.as_uri()}),
    }
    monkeypatch.setattr(locate, "read_manifest", lambda: patched)
    with pytest.raises(DatasetUnavailableError):
        locate.locate("powersupply")  # no download unless asked
    with pytest.raises(ChecksumMismatchError, match="not kept"):
        locate.locate("powersupply", download=True)
    assert not list((cache / "powersupply").glob("*"))


def test_download_of_the_right_bytes_lands_in_the_cache(offline, tmp_path, monkeypatch):
    _, cache = offline
    shared = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "powersupply"
    if not shared.is_dir():
        pytest.skip("needs the shared powersupply file")
    upstream = tmp_path / "powersupply.arff"
    upstream.write_bytes(gzip.decompress((shared / "powersupply.arff.gz").read_bytes()))
    entry = locate.manifest_entry("powersupply")
    patched = {
        **locate.read_manifest(),
        "powersupply": locate.ManifestEntry(**{**entry.__dict__, "url": upstream.as_uri()}),
    }
    monkeypatch.setattr(locate, "read_manifest", lambda: patched)
    path = locate.locate("powersupply", download=True)
    assert path == cache / "powersupply" / "powersupply.arff"
    assert load_stream("powersupply").n_chunks == 29


def test_explicit_path_wins_over_the_data_folder(offline, tmp_path):
    own = tmp_path / "mine.csv"
    own.write_text("".join(f"{i},{2 * i},{i % 24}\n" for i in range(1, 41)))
    s = load_stream("powersupply", path=own, chunk_size=20)
    assert s.truth["file"] == str(own) and len(s) == 2


def test_manifest_lists_every_known_file_with_checksums():
    m = locate.read_manifest()
    assert {"elec2", "powersupply", "airline", "cifar10_jpg", "cifar10_index"} <= set(m)
    assert m["cifar10_jpg"].sha256 == (
        "0bfcb68717a0ecb0d51ed61034906a773d48d424d94b766a46d7d1c55702a4d9"
    )
    for entry in m.values():
        assert entry.licence and entry.source
        if entry.sha256 or entry.md5:
            assert entry.bytes is not None and entry.bytes > 0
    # the paper's airline file is not retrievable: any copy is accepted
    assert m["airline_driftsurf"].file == "airline/airline.data"
    assert m["airline_driftsurf"].sha256 is None and m["airline_driftsurf"].bytes is None


def test_elec2_download_goes_through_rivers_downloader_into_the_cache(
    offline, tmp_path, monkeypatch
):
    import zipfile

    _, cache = offline
    shared = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "elec2"
    if not shared.is_dir():
        pytest.skip("needs the shared elec2 file")
    archive = tmp_path / "electricity.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(
            "electricity.csv", gzip.decompress((shared / "electricity.csv.gz").read_bytes())
        )
    entry = locate.manifest_entry("elec2")
    patched = {
        **locate.read_manifest(),
        "elec2": locate.ManifestEntry(**{**entry.__dict__, "url": archive.as_uri()}),
    }
    monkeypatch.setattr(locate, "read_manifest", lambda: patched)
    with pytest.raises(DatasetUnavailableError):
        load_stream("elec2")
    s = load_stream("elec2", download=True)
    assert s.truth["file"] == str(cache / "elec2" / "electricity.csv") and len(s) == 45
    assert not (cache / "elec2" / "electricity.zip").exists()  # river removes the archive
