"""The log shapes serving stacks write (issue 32 items 7 and 8), read against a reference.

A drawn log (classes, rows, missing labels, probabilities) is written in every shape: CSV
columns (the reference), a CSV cell holding a JSON array, JSON lines with an array field, a
Parquet ``list<double>`` column, each text form plain or compressed (gzip, bz2, xz), as a path
or as an upload without a name. The monitor's result on each equals its result on the plain
CSV columns, chunk for chunk; followed as it grows, a JSON lines log gives the batch chunks.
Bad arrays are refused naming the row and the column; a compressed file is not followed.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pudd_core import monitor
from pudd_core._validation import ParameterError
from pudd_core.cli import main
from pudd_core.monitoring import Follower, LogFormat, Monitor, chunk_json
from tests._logs import follow_in_pieces

#: The drawn logs are short: a short last chunk or a single one is warned about, as it should be.
pytestmark = pytest.mark.filterwarnings("ignore:the last tested chunk:UserWarning",
                                        "ignore:the log makes a single tested chunk:UserWarning")

COMPRESS = {"": lambda b: b, ".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}
SHAPES = ("csv_columns", "csv_cell", "jsonl", "parquet_list")


@st.composite
def logs(draw: st.DrawFn) -> dict:
    """A log: K classes (numbers or names), rows with probabilities, a few labels missing."""
    k = draw(st.integers(2, 4))
    n = draw(st.integers(20, 240))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    names = draw(st.sampled_from([None, ("a", "b", "c", "d")[:k], ("NA", "x y", "1.5", "z")[:k]]))
    drift = n // 2
    y = rng.integers(0, k, n)
    shape = np.ones((n, k))
    shape[np.arange(n), y] += np.where(np.arange(n) < drift, 8.0, 1.0)
    p = rng.gamma(shape)
    p /= p.sum(axis=1, keepdims=True)
    if draw(st.booleans()):  # a few round numbers (0, 1, exact halves) as logs hold them
        p[: n // 10] = np.eye(k)[y[: n // 10]]
    labels: list = [str(names[c]) if names else int(c) for c in y]
    missing = rng.random(n) < draw(st.sampled_from([0.0, 0.1]))
    labels = [None if m else v for v, m in zip(labels, missing, strict=True)]
    ts = pd.date_range("2024-03-01", periods=n, freq="7min").strftime("%Y-%m-%dT%H:%M:%S")
    return {"k": k, "names": names, "labels": labels, "p": p, "ts": list(ts)}


def _columns_csv(log: dict) -> bytes:
    """The reference: one probability column per class, ``proba_<class>``."""
    classes = log["names"] or range(log["k"])
    frame = pd.DataFrame({"ts": log["ts"], "label": log["labels"]})
    for j, c in enumerate(classes):
        frame[f"proba_{c}"] = log["p"][:, j]
    return frame.to_csv(index=False).encode()


def _write(log: dict, shape: str) -> bytes:
    rows = [list(map(float, r)) for r in log["p"]]
    if shape == "csv_columns":
        return _columns_csv(log)
    if shape == "csv_cell":
        return pd.DataFrame({"ts": log["ts"], "label": log["labels"],
                             "proba": [json.dumps(r) for r in rows]}).to_csv(index=False).encode()
    if shape == "jsonl":
        return "".join(json.dumps({"ts": t, "label": y, "proba": r}) + "\n"
                       for t, y, r in zip(log["ts"], log["labels"], rows, strict=True)).encode()
    assert shape == "parquet_list"
    label_type = pa.string() if log["names"] else pa.int64()
    table = pa.table({"ts": pa.array(log["ts"]), "label": pa.array(log["labels"], label_type),
                      "proba": pa.array(rows, pa.list_(pa.float64()))})
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


def _format(log: dict, shape: str, window: str | None) -> dict:
    kw: dict = {"label": "label", "time_column": "ts" if window else None}
    if shape == "csv_columns":
        kw["proba_prefix"] = "proba_"
    else:
        kw["proba_array"] = "proba"
        if log["names"]:
            kw["classes"] = log["names"]
    return kw


SUFFIX = {"csv_columns": ".csv", "csv_cell": ".csv", "jsonl": ".jsonl",
          "parquet_list": ".parquet"}


def _run(source, log: dict, shape: str, chunk: int, window: str | None):
    return monitor(source, chunk_size=None if window else chunk, window=window,
                   **_format(log, shape, window))


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(log=logs(), chunk=st.integers(10, 60), window=st.sampled_from([None, "2h"]),
       compression=st.sampled_from(list(COMPRESS)), upload=st.booleans())
def test_every_shape_gives_the_plain_csv_columns_result_chunk_for_chunk(
        tmp_path_factory, log, chunk, window, compression, upload):
    folder = tmp_path_factory.mktemp("shapes")
    reference = folder / "reference.csv"
    reference.write_bytes(_columns_csv(log))
    try:
        want = _run(reference, log, "csv_columns", chunk, window).to_frame()
    except ParameterError as err:  # a chunk with no labelled row, or nothing labelled yet
        assume("no labelled row" not in str(err) and "has a label yet" not in str(err))
        raise
    for shape in SHAPES:
        raw = _write(log, shape)
        if shape != "parquet_list":
            raw = COMPRESS[compression](raw)
        name = f"log{SUFFIX[shape]}{compression if shape != 'parquet_list' else ''}"
        if upload:  # an upload: bytes without a name, or a file object with one
            source = io.BytesIO(raw)
        else:
            source = folder / name
            source.write_bytes(raw)
        got = _run(source, log, shape, chunk, window).to_frame()
        pd.testing.assert_frame_equal(got, want, obj=f"{shape} ({name})")


# --- regressions: red before ---------------------------------------------------------------
def _small(k: int = 2, n: int = 60) -> dict:
    return {  # fixed, not drawn: the regressions' own log
        "k": k, "names": None, "labels": [i % k for i in range(n)],
        "p": np.tile(np.eye(k) * 0.6 + 0.4 / k, (n // k + 1, 1))[:n],
        "ts": list(pd.date_range("2024-03-01", periods=n, freq="h").strftime("%Y-%m-%d %H:%M")),
    }


def test_a_parquet_list_column_given_as_one_column_is_named_not_a_crash(tmp_path):
    """Was: ``can only convert an array of size 1 to a Python scalar`` (formatting its own
    message); now the message says the column holds arrays and which option reads them."""
    path = tmp_path / "log.parquet"
    path.write_bytes(_write(_small(), "parquet_list"))
    for kw in ({"proba_columns": ["proba"]}, {"proba_prefix": "proba"}):
        with pytest.raises(ParameterError, match=r"column 'proba' holds an array per row.*"
                                                 r"proba_array \(--proba-array proba\)"):
            monitor(path, label="label", chunk_size=20, **kw)
    assert monitor(path, label="label", proba_array="proba", chunk_size=20).n_chunks == 3


def test_json_lines_are_read_as_json_not_as_csv(tmp_path, capsys):
    """Was: read as a CSV whose columns are the first JSON object's text."""
    log = _small(3, 90)
    path = tmp_path / "log.jsonl"
    rows = [{"ts": t, "label": y, **{f"proba_{j}": float(v) for j, v in enumerate(r)}}
            for t, y, r in zip(log["ts"], log["labels"], log["p"], strict=True)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    ref = tmp_path / "log.csv"
    ref.write_bytes(_columns_csv(log))
    got = monitor(path, label="label", proba_prefix="proba_", chunk_size=30).to_frame()
    pd.testing.assert_frame_equal(got, monitor(ref, label="label", proba_prefix="proba_",
                                               chunk_size=30).to_frame())
    # a JSON lines log without the suffix is told by its first byte
    plain = tmp_path / "log.txt"
    plain.write_bytes(path.read_bytes())
    assert main(["monitor", str(plain), "--label", "label", "--proba-prefix", "proba_",
                 "--chunk-size", "30", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n_chunks"] == 3


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz"])
def test_a_compressed_csv_is_read_again(tmp_path, capsys, suffix):
    """Was (.gz, a regression): "is gzip-compressed; decompress it"; .bz2, .xz: "a binary
    file". The stream reader's header check now sees the decompressed header."""
    log = _small()
    path = tmp_path / f"log.csv{suffix}"
    path.write_bytes(COMPRESS[suffix](_columns_csv(log)))
    assert main(["monitor", str(path), "--label", "label", "--proba-prefix", "proba_",
                 "--chunk-size", "20", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    ref = tmp_path / "log.csv"
    ref.write_bytes(_columns_csv(log))
    main(["monitor", str(ref), "--label", "label", "--proba-prefix", "proba_",
          "--chunk-size", "20", "--json"])
    want = json.loads(capsys.readouterr().out)
    assert {k: v for k, v in got.items() if k not in ("source", "elapsed_s")} == \
        {k: v for k, v in want.items() if k not in ("source", "elapsed_s")}


def test_zstd_without_its_package_is_refused_naming_it(tmp_path):
    try:
        import zstandard  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("zstandard is installed: .zst logs are read")
    path = tmp_path / "log.csv.zst"
    path.write_bytes(b"\x28\xb5\x2f\xfd" + b"\x00" * 20)  # a zstd frame's magic
    with pytest.raises(ParameterError, match=r"zstd-compressed.*package zstandard.*"
                                             r"pip install zstandard.*zstd -d"):
        monitor(path, label="label", proba_prefix="proba_")


def test_a_compressed_parquet_file_is_refused_with_what_to_do(tmp_path):
    path = tmp_path / "log.parquet.gz"
    path.write_bytes(gzip.compress(_write(_small(), "parquet_list")))
    with pytest.raises(ParameterError, match="gzip-compressed Parquet file.*decompress"):
        monitor(path, label="label", proba_array="proba")


# --- bad arrays: the row and the column named -----------------------------------------------
GOOD = "[0.25, 0.75]"
BAD_CELLS = {  # cell at row 3 -> what the message says (the CSV cell and the JSON field)
    "ragged": ("[0.2, 0.3, 0.5]", r"row 3, column 'proba': holds 3 probabilities where the "
                                  r"arrays hold 2"),
    "text element": ('["a", 0.5]', r"row 3, column 'proba': element 0 \('a'\) is not a number"),
    "boolean element": ("[true, false]", r"row 3, column 'proba': element 0 \(True\) is not"),
    "NaN": ("[NaN, 1.0]", r"row 3, column 'proba\[0\]': the probability is empty \(NaN\)"),
    "null element": ("[null, 1.0]", r"row 3, column 'proba\[0\]': the probability is empty"),
    "empty": (None, r"row 3, column 'proba': is empty: every row needs its array"),
    "a number": ("0.5", r"row 3, column 'proba': 0.5 is not an array of probabilities"),
    "above 1": ("[1.5, -0.5]", r"row 3, column 'proba\[0\]': the probability is 1.5, above 1"),
    "sum": ("[0.5, 0.6]", r"row 3: the probabilities in columns proba\[0\] .. proba\[1\] sum "
                          r"to 1.1"),
}


def _cells_log(cell: str | None, where: str) -> bytes:
    cells = [GOOD] * 8
    cells[3] = cell  # type: ignore[call-overload]
    if where == "csv":  # (pandas quotes the cells as a CSV writer does)
        return pd.DataFrame({"label": [i % 2 for i in range(8)],
                             "proba": cells}).to_csv(index=False).encode()
    return "".join(json.dumps({"label": i % 2}) [:-1] +
                   ("" if c is None else f', "proba": {c}') + "}\n"
                   for i, c in enumerate(cells)).encode()


@pytest.mark.parametrize("where", ["csv", "jsonl"])
@pytest.mark.parametrize("case", list(BAD_CELLS))
def test_a_bad_array_is_refused_naming_its_row_and_column(case, where):
    cell, message = BAD_CELLS[case]
    raw = _cells_log(cell, where)
    with pytest.raises(ParameterError, match=message):
        monitor(io.BytesIO(raw), label="label", proba_array="proba", chunk_size=4)


def test_a_text_cell_that_is_no_json_array_is_named():
    raw = b'label,proba\n0,"[0.5, 0.5]"\n1,"[0.5, 0.5"\n'
    with pytest.raises(ParameterError, match=r"row 1, column 'proba': '\[0.5, 0.5' is not a "
                                             r"JSON array"):
        monitor(io.BytesIO(raw), label="label", proba_array="proba", chunk_size=1)


def test_arrays_of_another_length_than_the_classes_are_refused():
    raw = _cells_log(GOOD, "jsonl")
    with pytest.raises(ParameterError, match=r"row 0, column 'proba': holds 2 probabilities "
                                             r"where the arrays hold 3"):
        monitor(io.BytesIO(raw), label="label", proba_array="proba", classes=[0, 1, 2],
                chunk_size=4)
    one = b"".join(b'{"label": 0, "proba": [1.0]}\n' for _ in range(4))
    with pytest.raises(ParameterError, match=r"an array of 1 probabilities; the arrays hold "
                                             r"one per class, two or more"):
        monitor(io.BytesIO(one), label="label", proba_array="proba", chunk_size=2)


def test_a_label_without_a_place_in_the_arrays_is_named():
    raw = b"".join(b'{"label": %d, "proba": [0.5, 0.5]}\n' % (i % 3) for i in range(6))
    with pytest.raises(ParameterError, match=r"row 2, column 'label': label 2 has no "
                                             r"probability column \(the columns are proba\[0\], "
                                             r"proba\[1\]"):
        monitor(io.BytesIO(raw), label="label", proba_array="proba", chunk_size=2)


# --- the library: Monitor.feed and monitor() take arrays from a DataFrame ------------------
def test_the_library_reads_a_dataframe_of_arrays_and_a_fed_monitor_agrees():
    log = _small(3, 300)
    arrays = pd.DataFrame({"label": log["labels"], "proba": list(log["p"])})
    columns = pd.DataFrame({"label": log["labels"],
                            **{f"proba_{j}": log["p"][:, j] for j in range(3)}})
    want = monitor(columns, label="label", proba_prefix="proba_", chunk_size=50).to_frame()
    got = monitor(arrays, label="label", proba_array="proba", chunk_size=50)
    pd.testing.assert_frame_equal(got.to_frame(), want)
    assert any("arrays of 3 probabilities, read as the classes 0 .. 2" in n for n in got.notes)
    m = Monitor(LogFormat(label="label", proba_array="proba"), chunk_size=50)
    for start in range(0, 300, 70):
        m.feed(arrays.iloc[start:start + 70])
    m.finish()
    pd.testing.assert_frame_equal(m.result().to_frame(), want)
    m = Monitor(LogFormat(label="label", proba_array="proba"), chunk_size=50)
    m.feed({"label": arrays["label"], "proba": arrays["proba"]})  # a mapping of Series
    m.finish()
    pd.testing.assert_frame_equal(m.result().to_frame(), want)


# --- following a JSON lines log ---------------------------------------------------------------
def _expected(log: dict, chunk: int) -> list[dict]:
    res = monitor(io.BytesIO(_columns_csv(log)), label="label", proba_prefix="proba_",
                  chunk_size=chunk)
    lines = [chunk_json(s, r, {}) for s, r in zip(res.spans, res.records, strict=True)]
    return [json.loads(json.dumps(x)) for x in lines[:-1]]  # the last: still open


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cuts=st.lists(st.integers(1, 10**6), min_size=1, max_size=8, unique=True),
       restart=st.integers(0, 8))
def test_a_json_lines_log_followed_as_it_grows_gives_the_batch_chunks(tmp_path_factory, cuts,
                                                                       restart):
    folder = tmp_path_factory.mktemp("follow")
    log = _small(3, 600)
    log["labels"][100] = None  # a label not there yet: the row is untested, as in the batch
    text = _write(log, "jsonl")
    cuts = sorted(c % len(text) for c in cuts)
    path, state = folder / "log.jsonl", folder / "state"
    path.write_bytes(b"")

    def make() -> Monitor:
        return Monitor(LogFormat(label="label", proba_array="proba"), chunk_size=100)

    lines = follow_in_pieces(path, text, cuts,
                             lambda: Follower(path, make, {"chunk_size": 100}, state), restart)
    assert lines == _expected(log, 100)


def test_a_followed_json_lines_log_rotated_away_is_said(tmp_path):
    log = _small(2, 200)
    path = tmp_path / "log.ndjson"
    text = _write(log, "jsonl")
    path.write_bytes(text[: len(text) // 2])

    def make() -> Monitor:
        return Monitor(LogFormat(label="label", proba_array="proba"), chunk_size=40)

    f = Follower(path, make, {}, None)
    assert f.read()
    f.outbox.clear()
    os.rename(path, tmp_path / "log.ndjson.1")
    path.write_bytes(text[len(text) // 2:])
    with pytest.raises(ParameterError, match="replaced by another file.*--on-rotation continue"):
        while f.read():
            f.outbox.clear()
    f.close()


@pytest.mark.parametrize("suffix", [".csv.gz", ".jsonl.bz2", ".csv.xz", ".csv.zst"])
def test_following_a_compressed_log_is_refused_with_what_to_do(tmp_path, capsys, suffix):
    path = tmp_path / f"log{suffix}"
    raw = _columns_csv(_small())
    path.write_bytes(COMPRESS.get(Path(suffix).suffix, lambda b: b)(raw))
    code = main(["monitor", str(path), "--follow", "--label", "label", "--proba-prefix",
                 "proba_", "--chunk-size", "20"])
    err = capsys.readouterr().err
    assert code == 2
    assert re.search(r"compressed.*a compressed file cannot be followed \(it does not grow by "
                     r"appending rows.*run the monitor without --follow", err), err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
