from __future__ import annotations

import hashlib
import io

import numpy as np
import pandas as pd
import pytest

from pudd_core.streams import stream_from_csv

CSV = """temp,city,windy,label
20.5,Paris,True,no
18.0,Lyon,False,yes
22.0,Paris,False,no
15.5,Nice,True,maybe
19.0,Lyon,True,yes
"""


def test_one_hot_encoding_matches_a_hand_built_table():
    s = stream_from_csv(io.StringIO(CSV), label="label", chunk_size=2)
    assert s.truth["feature_names"] == (
        "temp",
        "city=Lyon",
        "city=Nice",
        "city=Paris",
        "windy=False",
        "windy=True",
    )
    expected = np.array(
        [
            [20.5, 0, 0, 1, 0, 1],
            [18.0, 1, 0, 0, 1, 0],
            [22.0, 0, 0, 1, 1, 0],
            [15.5, 0, 1, 0, 0, 1],
        ]
    )
    X = np.concatenate([s.chunk(0)[0], s.chunk(1)[0]])
    np.testing.assert_array_equal(X, expected)
    assert X.dtype == np.float64


def test_labels_map_to_sorted_distinct_values():
    s = stream_from_csv(io.StringIO(CSV), label="label", chunk_size=2)
    assert s.truth["label_mapping"] == {"maybe": 0, "no": 1, "yes": 2}
    assert s.n_classes == 3
    assert np.concatenate([y for _, y in s]).tolist() == [1, 2, 1, 0]


def test_numeric_labels_sort_numerically():
    csv = "x,y\n" + "".join(f"{i},{[10, 2, 7][i % 3]}\n" for i in range(6))
    s = stream_from_csv(io.StringIO(csv), label="y", chunk_size=3)
    assert s.truth["label_mapping"] == {2: 0, 7: 1, 10: 2}


def test_trailing_partial_chunk_is_dropped_and_reported():
    s = stream_from_csv(io.StringIO(CSV), label="label", chunk_size=2)
    assert (len(s), s.truth["dropped_rows"], s.truth["n_rows"]) == (2, 1, 5)
    assert "the last 1 rows (a partial chunk) are dropped" in s.info.description
    assert s.info.kind == "user" and s.drift_chunks is None


def test_path_bytes_binary_and_text_buffers_give_the_same_stream(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text(CSV)
    sources = [path, str(path), CSV.encode(), io.BytesIO(CSV.encode()), io.StringIO(CSV)]
    streams = [stream_from_csv(src, label="label", chunk_size=2) for src in sources]
    for s in streams[1:]:
        assert s.chunk(1)[0].tobytes() == streams[0].chunk(1)[0].tobytes()


def test_the_users_file_and_buffer_are_left_untouched(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text(CSV)
    before = hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns
    stream_from_csv(path, label="label", chunk_size=2)
    assert (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns) == before
    buf = io.BytesIO(CSV.encode())
    stream_from_csv(buf, label="label", chunk_size=2)
    assert buf.tell() == 0


def test_parquet_file_is_read(tmp_path):
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "k": ["x", "y", "x", "y"], "t": [0, 1, 1, 0]})
    path = tmp_path / "data.parquet"
    df.to_parquet(path)
    s = stream_from_csv(path, label="t", chunk_size=2)
    np.testing.assert_array_equal(s.chunk(1)[0], [[3.0, 1, 0], [4.0, 0, 1]])
    buf = io.BytesIO(path.read_bytes())  # uploaded bytes: recognised by the PAR1 magic
    assert stream_from_csv(buf, label="t", chunk_size=2).chunk(0)[1].tolist() == [0, 1]


def test_missing_label_column_lists_the_columns():
    with pytest.raises(
        ValueError,
        match=r"label column 'y' not found; the columns are: 'temp', 'city', 'windy', 'label'",
    ):
        stream_from_csv(io.StringIO(CSV), label="y", chunk_size=2)


def test_single_class_is_rejected():
    csv = "x,y\n1,a\n2,a\n3,a\n"
    with pytest.raises(ValueError, match=r"label column 'y' has a single class \('a'\)"):
        stream_from_csv(io.StringIO(csv), label="y", chunk_size=1)


def test_fewer_rows_than_one_chunk_is_rejected():
    with pytest.raises(ValueError, match="has 5 rows, fewer than one chunk of 10"):
        stream_from_csv(io.StringIO(CSV), label="label", chunk_size=10)


def test_nan_in_a_feature_names_the_row_and_column():
    csv = "x,z,y\n1,2,a\n2,,b\n3,4,a\n"
    with pytest.raises(ValueError, match=r"feature column 'z' at row 1 \(line 3 of the file\)"):
        stream_from_csv(io.StringIO(csv), label="y", chunk_size=1)


def test_nan_in_the_label_names_the_row_and_column():
    csv = "x,y\n1,a\n2,b\n3,\n"
    with pytest.raises(ValueError, match=r"NaN\) in label column 'y' at row 2 \(line 4"):
        stream_from_csv(io.StringIO(csv), label="y", chunk_size=1)


@pytest.mark.parametrize("value", ["inf", "-inf"])
def test_infinite_numeric_label_names_the_row_and_column(value):
    csv = f"x,y\n1,0\n2,1\n3,{value}\n4,0\n"
    with pytest.raises(
        ValueError, match=r"non-finite value -?inf in label column 'y' at row 2 \(line 4"
    ):
        stream_from_csv(io.StringIO(csv), label="y", chunk_size=1)


def test_infinite_label_in_a_parquet_file_is_rejected(tmp_path):
    path = tmp_path / "t.parquet"
    pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [0.0, np.inf, 1.0]}).to_parquet(path)
    with pytest.raises(ValueError, match=r"non-finite value inf in label column 'y' at row 1$"):
        stream_from_csv(path, label="y", chunk_size=1)


def test_non_numeric_value_in_a_numeric_column_is_rejected():
    csv = "x,y\n1.5,a\n2.5,b\noops,a\n4.0,b\n"
    with pytest.raises(
        ValueError,
        match=r"column 'x' is mostly numeric but has the non-numeric value 'oops' at row 2",
    ):
        stream_from_csv(io.StringIO(csv), label="y", chunk_size=2)


def test_values_of_an_unencodable_type_are_rejected(tmp_path):
    df = pd.DataFrame({"when": pd.date_range("2024-01-01", periods=4), "y": [0, 1, 0, 1]})
    path = tmp_path / "d.parquet"
    df.to_parquet(path)
    with pytest.raises(ValueError, match=r"column 'when' has type datetime64.*cannot be encoded"):
        stream_from_csv(path, label="y", chunk_size=2)


def test_text_column_with_too_many_categories_is_rejected():
    csv = "id,y\n" + "".join(f"u{i},{i % 2}\n" for i in range(20))
    with pytest.raises(ValueError, match="20 distinct text values, more than max_categories=10"):
        stream_from_csv(io.StringIO(csv), label="y", chunk_size=5, max_categories=10)


def test_size_limits_on_rows_and_bytes(tmp_path):
    with pytest.raises(ValueError, match="more than max_rows=4 rows"):
        stream_from_csv(io.StringIO(CSV), label="label", chunk_size=2, max_rows=4)
    path = tmp_path / "data.csv"
    path.write_text(CSV)
    with pytest.raises(ValueError, match="data.csv is 121 bytes, more than max_bytes=50"):
        stream_from_csv(path, label="label", chunk_size=2, max_bytes=50)
    with pytest.raises(ValueError, match="more than max_bytes=50 bytes"):
        stream_from_csv(io.BytesIO(CSV.encode()), label="label", chunk_size=2, max_bytes=50)


def test_no_feature_columns_is_rejected():
    with pytest.raises(ValueError, match="no feature columns besides the label 'y'"):
        stream_from_csv(io.StringIO("y\na\nb\n"), label="y", chunk_size=1)
