from __future__ import annotations

import gzip
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pudd_core.streams import get_info, load_stream
from pudd_core.streams.real import ELEC2_COLUMNS


def _data_dir() -> Path:
    return Path(os.environ["PUDD_DATA_DIR"])


def _stack(stream):
    chunks = list(stream)
    return np.concatenate([x for x, _ in chunks]), np.concatenate([y for _, y in chunks])


@pytest.mark.datasets
def test_elec2_has_45_chunks_in_header_column_order_with_the_readme_balance():
    s = load_stream("elec2")
    assert (len(s), s.chunk_size, s.feature_shape, s.drift_chunks) == (45, 1000, (8,), None)
    X, y = _stack(s)
    assert int(y.sum()) == 19_073  # README: first 45,000 rows UP 19,073 / DOWN 25,927
    first = pd.read_csv(_data_dir() / "elec2" / "electricity.csv.gz", nrows=3)
    np.testing.assert_array_equal(X[:3], first[list(ELEC2_COLUMNS)].to_numpy(float))
    assert s.truth["feature_names"] == ELEC2_COLUMNS


@pytest.mark.datasets
def test_elec2_warm_load_reads_the_parsed_cache(isolated_cache):
    a = load_stream("elec2")
    assert list((isolated_cache / "parsed").glob("elec2-*/X.npy"))
    b = load_stream("elec2")
    assert a.chunk(44)[0].tobytes() == b.chunk(44)[0].tobytes()


@pytest.mark.datasets
def test_powersupply_scaling_matches_pandas_on_the_real_file():
    path = _data_dir() / "powersupply" / "powersupply.arff.gz"
    df = pd.read_csv(path, header=None, usecols=[0, 1, 2], names=["v1", "v2", "hour"])
    assert len(df) == 29_928
    expected = np.column_stack([np.ones(len(df)), df.v1 / df.v1.max(), df.v2 / df.v2.max()])[
        :29_000
    ]
    s = load_stream("powersupply")
    X, y = _stack(s)
    assert len(s) == 29 and X.shape == (29_000, 3)
    np.testing.assert_array_equal(X, expected)
    np.testing.assert_array_equal(y, (df.hour.to_numpy()[:29_000] < 12).astype(np.int64))
    assert int(y.sum()) == 14_504  # README


@pytest.mark.datasets
def test_airline_substitute_has_601_dims_and_driftsurfs_encoding():
    s = load_stream("airline")
    assert (len(s), s.feature_shape) == (50, (601,))
    assert s.info.n_chunks == 50 and "SUBSTITUTE" in s.info.description
    X, y = _stack(s)
    names = s.truth["feature_names"]
    assert len(names) == 601
    # 7 one-hot blocks: exactly one 1 per block and row
    for prefix in (
        "Year=",
        "Month=",
        "DayofMonth=",
        "DayofWeek=",
        "UniqueCarrier=",
        "Origin=",
        "Dest=",
    ):
        cols = [i for i, n in enumerate(names) if n.startswith(prefix)]
        np.testing.assert_array_equal(X[:, cols].sum(axis=1), 1.0)
    assert sum(n.startswith("UniqueCarrier=") for n in names) == 20
    assert sum(n.startswith("Origin=") for n in names) == 284
    scaled = [i for i, n in enumerate(names) if n.endswith("/max")]
    assert len(scaled) == 4 and X[:, scaled].max() <= 1.0
    # oracle: labels and the scaled distance from pandas
    from pudd_core.streams.airline import read_arff

    raw = gzip.decompress(
        (_data_dir() / "airline" / "airlines_2007_14col_head50482.arff.gz").read_bytes()
    ).decode()
    df = read_arff(raw)
    np.testing.assert_array_equal(y, (df.ArrDelay.to_numpy()[:50_000] > 0).astype(np.int64))
    dist = names.index("Distance/max")
    np.testing.assert_allclose(X[:, dist], (df.Distance / df.Distance.max()).to_numpy()[:50_000])
    carrier = names.index("UniqueCarrier=NW")
    np.testing.assert_array_equal(X[:, carrier], (df.UniqueCarrier == "NW").to_numpy()[:50_000])


def test_driftsurf_sparse_airline_file_gives_679_dims_with_a_bias(tmp_path):
    path = tmp_path / "airline.data"
    lines = ["3:1,10:0.5,678:1,-1", "4:1,11:0.25,1", "3:1,12:1,1", "5:1,-1"] * 3
    path.write_text("\n".join(lines) + "\n")
    s = load_stream("airline", path=path, chunk_size=4)
    assert (len(s), s.feature_shape, s.n_features) == (3, (679,), 679)
    X, y = s.chunk(0)
    assert y.tolist() == [0, 1, 1, 0]
    np.testing.assert_array_equal(X[:, 0], 1.0)  # the authors' bias feature
    assert X[0, 3] == 1.0 and X[0, 10] == 0.5 and X[0, 678] == 1.0
    assert X[1, 11] == 0.25 and X.sum() == pytest.approx(4 + 2.5 + 1.25 + 2 + 1)
    assert "sparse" in s.truth["variant"]


_SPARSE_LINES = ["3:1,10:0.5,678:1,-1", "4:1,11:0.25,1", "3:1,12:1,1", "5:1,-1"] * 3


def test_driftsurf_airline_data_in_the_data_folder_is_preferred_over_the_substitute(
    tmp_path, monkeypatch
):
    data = tmp_path / "data"
    (data / "airline").mkdir(parents=True)
    monkeypatch.setenv("PUDD_DATA_DIR", str(data))
    # a (fake) substitute: the card describes it while it is the only airline file
    (data / "airline" / "airlines_2007_14col_head50482.arff.gz").write_bytes(b"not checked")
    card = get_info("airline")
    assert card.available and "SUBSTITUTE" in card.description and card.n_features == 601
    paper = data / "airline" / "airline.data"
    paper.write_text("\n".join(_SPARSE_LINES) + "\n")
    card = get_info("airline")
    assert card.available and "SUBSTITUTE" not in card.description
    assert "DriftSurf" in card.title and "airline.data" in card.description
    assert (card.n_chunks, card.n_features, card.feature_shape) == (58, 679, (679,))
    s = load_stream("airline", chunk_size=4)  # no checksum error: the substitute is not read
    assert s.truth["file"] == str(paper) and "sparse" in s.truth["variant"]
    assert (len(s), s.n_features, s.info.title) == (3, 679, card.title)
    assert s.chunk(0)[1].tolist() == [0, 1, 1, 0]


def test_driftsurf_airline_data_in_the_cache_is_found(tmp_path, monkeypatch):
    monkeypatch.setenv("PUDD_DATA_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("PUDD_CACHE_DIR", str(tmp_path / "cache"))
    paper = tmp_path / "cache" / "airline" / "airline.data"
    paper.parent.mkdir(parents=True)
    paper.write_text("\n".join(_SPARSE_LINES) + "\n")
    assert get_info("airline").available and get_info("airline").n_features == 679
    s = load_stream("airline", chunk_size=4)
    assert s.truth["file"] == str(paper) and s.feature_shape == (679,)


def test_driftsurf_sparse_file_rejects_an_index_beyond_679(tmp_path):
    path = tmp_path / "airline.data"
    path.write_text("3:1,-1\n700:1,1\n")
    with pytest.raises(ValueError, match=r"line 2: feature index 700 is outside 0\.\.678"):
        load_stream("airline", path=path, chunk_size=1)


def test_real_stream_rejects_more_chunks_than_the_file_holds(tmp_path):
    path = tmp_path / "ps.csv"
    path.write_text("".join(f"{100 + i},{50 + i},{i % 24}\r\n" for i in range(30)))
    s = load_stream("powersupply", path=path, chunk_size=10)
    assert len(s) == 3
    with pytest.raises(ValueError, match="the file has 30 rows, so 1 to 3 chunks"):
        load_stream("powersupply", path=path, chunk_size=10, n_chunks=4)


def test_gzipped_driftsurf_file_is_read_too(tmp_path):
    path = tmp_path / "airline.data.gz"
    path.write_bytes(gzip.compress(b"3:1,-1\n4:1,1\n"))
    s = load_stream("airline", path=path, chunk_size=2)
    assert s.chunk(0)[1].tolist() == [0, 1] and s.n_features == 679
