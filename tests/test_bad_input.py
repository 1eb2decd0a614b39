"""A table of bad inputs, tried as a new user would: each gives a clear error naming the problem.

Library calls raise :class:`~pudd_core._validation.ParameterError` (a ``ValueError``) with the
parameter's name; the command line (run as a subprocess) exits 2 with one line and no
traceback; user files and grid files are refused with the reason. Faults (full disk,
read-only store, corrupt files, SIGKILL) are in ``test_faults.py``.
"""

from __future__ import annotations

import gzip
import io
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pudd_core import PUDD, ChunkPUDD
from pudd_core._validation import ParameterError
from pudd_core.chi2 import pu_chi2_test
from pudd_core.experiments.detectors import DETECTORS, option_names, option_target
from pudd_core.experiments.grid import expand_grid, load_grid_file, parse_seeds
from pudd_core.experiments.runner import RunConfig, parse_option_pairs
from pudd_core.pu_index import is_correct, pu_index
from pudd_core.streams import stream_from_csv

ROOT = Path(__file__).resolve().parents[1]

# --- library: (call, parameter named, words the message must hold) ---------------------------
U = np.linspace(0.0, 0.9, 10)
LIBRARY: dict[str, tuple[Callable[[], Any], str, str]] = {
    "yates as the string 'no'": (lambda: ChunkPUDD(yates="no"), "yates", "True or False"),
    "yates as the string 'False'": (lambda: ChunkPUDD(yates="False"), "yates", "True or False"),
    "yates as 0": (lambda: ChunkPUDD(yates=0), "yates", "True or False"),
    "cache_buckets as 'False'": (lambda: ChunkPUDD(cache_buckets="False"), "cache_buckets",
                                 "True or False"),
    "online yates as 'no'": (lambda: PUDD(yates="no"), "yates", "True or False"),
    "skip_rule as the string 'None'": (lambda: ChunkPUDD(skip_rule="None"), "skip_rule",
                                       "'accuracy', 'pu_mean', None"),
    "cut_points 'foo'": (lambda: ChunkPUDD(cut_points="foo"), "cut_points", "'pow2', 'all'"),
    "partition 'x'": (lambda: ChunkPUDD(partition="x"), "partition", "'pu', 'ek'"),
    "reference_split 1": (lambda: ChunkPUDD(reference_split=1), "reference_split", "argmax"),
    "n_buckets 1.5": (lambda: ChunkPUDD(n_buckets=1.5), "n_buckets", "integer"),
    "n_buckets True": (lambda: ChunkPUDD(n_buckets=True), "n_buckets", "integer"),
    "n_buckets 0": (lambda: ChunkPUDD(n_buckets=0), "n_buckets", ">= 1"),
    "sample_size '100'": (lambda: ChunkPUDD(sample_size="100"), "sample_size", "integer"),
    "clamp_min -1": (lambda: ChunkPUDD(clamp_min=-1), "clamp_min", ">= 0"),
    "min_expected -1": (lambda: ChunkPUDD(min_expected=-1), "min_expected", ">= 0"),
    "min_expected '5'": (lambda: ChunkPUDD(min_expected="5"), "min_expected", "real number"),
    "min_bucket_size -2": (lambda: ChunkPUDD(min_bucket_size=-2), "min_bucket_size", ">= 0"),
    "min_accuracy 2": (lambda: ChunkPUDD(min_accuracy=2.0), "min_accuracy", "[0, 1]"),
    "min_accuracy 'x'": (lambda: ChunkPUDD(min_accuracy="x"), "min_accuracy", "real number"),
    "min_accuracy NaN": (lambda: ChunkPUDD(min_accuracy=float("nan")), "min_accuracy", "finite"),
    "alpha 0": (lambda: ChunkPUDD(alpha=0), "alpha", "between 0 and 1"),
    "alpha 1": (lambda: ChunkPUDD(alpha=1.0), "alpha", "between 0 and 1"),
    "alpha '0.01'": (lambda: ChunkPUDD(alpha="0.01"), "alpha", "between 0 and 1"),
    "alpha True": (lambda: ChunkPUDD(alpha=True), "alpha", "between 0 and 1"),
    "alpha complex": (lambda: ChunkPUDD(alpha=0.01 + 0j), "alpha", "between 0 and 1"),
    "alpha NaN": (lambda: ChunkPUDD(alpha=float("nan")), "alpha", "between 0 and 1"),
    "seed 'x'": (lambda: ChunkPUDD(seed="x"), "seed", "integer >= 0"),
    "seed -1": (lambda: ChunkPUDD(seed=-1), "seed", "integer >= 0"),
    "seed 1.5": (lambda: ChunkPUDD(seed=1.5), "seed", "integer >= 0"),
    "online seed 'x'": (lambda: PUDD(seed="x"), "seed", "integer >= 0"),
    "online cut_every 0": (lambda: PUDD(cut_every=0), "cut_every", ">= 1"),
    "online clock 2.5": (lambda: PUDD(clock=2.5), "clock", "integer"),
    "PUDD.update('0.3')": (lambda: PUDD().update("0.3"), "x", "one number"),
    "PUDD.update(array)": (lambda: PUDD().update(np.array([0.1])), "x", "shape (1,)"),
    "PUDD.update(complex)": (lambda: PUDD().update(0.3 + 0j), "x", "one number"),
    "PUDD.update(None)": (lambda: PUDD().update(None), "x", "one number"),
    "PUDD.update(1.5)": (lambda: PUDD().update(1.5), "x", "[0, 1]"),
    "PUDD.update(nan)": (lambda: PUDD().update(float("nan")), "x", "[0, 1]"),
    "PUDD.update correct='yes'": (lambda: PUDD().update(0.2, correct="yes"), "correct", "bool"),
    "update u as text": (lambda: ChunkPUDD().update(["0.3", "0.2"], [True, True]), "u", "text"),
    "update u complex": (lambda: ChunkPUDD().update(U + 0j, U < 0.5), "u", "complex"),
    "update u objects": (lambda: ChunkPUDD().update(np.array([0.1, None]), [1, 1]), "u",
                         "objects"),
    "update u 2-D": (lambda: ChunkPUDD().update(U.reshape(2, 5), U < 0.5), "u",
                     "one-dimensional"),
    "update u > 1": (lambda: ChunkPUDD().update(U + 0.5, U < 0.5), "u", "[0, 1]"),
    "update u with inf": (lambda: ChunkPUDD().update([0.1, np.inf], [1, 1]), "u", "infinity"),
    "update correct as text": (lambda: ChunkPUDD().update(U, ["yes"] * 10), "correct",
                               "boolean (or 0/1)"),
    "update correct too short": (lambda: ChunkPUDD().update(U, [True]), "correct", "10"),
    "update correct 2": (lambda: ChunkPUDD().update(U, np.full(10, 2)), "correct", "0/1"),
    "pu_index complex proba": (lambda: pu_index(np.array([[0.5 + 1j, 0.5]]), [0]), "proba",
                               "complex"),
    "pu_index text proba": (lambda: pu_index([["0.5", "0.5"]], [0]), "proba", "text"),
    "pu_index infinite label": (lambda: pu_index([[0.5, 0.5]], [np.inf]), "y", "infinity"),
    "pu_index -inf label": (lambda: pu_index([[0.5, 0.5]], [-np.inf]), "y", "infinity"),
    "pu_index fractional label": (lambda: pu_index([[0.5, 0.5]], [0.5]), "y", "y[0] is 0.5"),
    "pu_index text label": (lambda: pu_index([[0.5, 0.5]], ["a"]), "y", "integer"),
    "is_correct label 5": (lambda: is_correct([[0.5, 0.5]], [5]), "y", "0..1"),
    "pu_chi2_test text values": (lambda: pu_chi2_test(["0.1"], [True], [0.2], [True]), "u_ref",
                                 "text"),
    "pu_chi2_test yates 'no'": (lambda: pu_chi2_test([0.1], None, [0.2], None, yates="no"),
                                "yates", "True or False"),
    "RunConfig chunk_size True": (lambda: RunConfig(chunk_size=True).validate(), "chunk_size",
                                  ">= 1"),
    "RunConfig chunk_size 0": (lambda: RunConfig(chunk_size=0).validate(), "chunk_size", ">= 1"),
    "RunConfig n_chunks 1": (lambda: RunConfig(n_chunks=1).validate(), "n_chunks", ">= 2"),
    "RunConfig n_chunks -3": (lambda: RunConfig(n_chunks=-3).validate(), "n_chunks", ">= 2"),
    "RunConfig n_chunks '5'": (lambda: RunConfig(n_chunks="5").validate(), "n_chunks", ">= 2"),
    "RunConfig seed 'x'": (lambda: RunConfig(seed="x").validate(), "seed", "integer"),
    "RunConfig alpha float32 range": (lambda: RunConfig(alpha=np.float32(2)).validate(),
                                      "alpha", "between 0 and 1"),
    "RunConfig detector 'pud'": (lambda: RunConfig(detector="pud").validate(), "detector",
                                 "choose one of"),
    "RunConfig classifier 'svm'": (lambda: RunConfig(classifier="svm").validate(),
                                   "classifier", "choose one of"),
    "RunConfig regime 'sometimes'": (lambda: RunConfig(regime="sometimes").validate(),
                                     "regime", "incremental"),
    "RunConfig yates 'no'": (lambda: RunConfig(detector_options={"yates": "no"}).validate(),
                             "yates", "True or False"),
    "RunConfig unknown option": (lambda: RunConfig(detector_options={"yate": 1}).validate(),
                                 "detector_options", "valid options"),
    "RunConfig double_initial_fit 'no'": (
        lambda: RunConfig(double_initial_fit="no").validate(), "double_initial_fit", "True"),
    "option cut_points=foo": (lambda: parse_option_pairs("detector", "pudd", ["cut_points=foo"]),
                              "cut_points", "'pow2' or 'all'"),
    "option n_buckets=1.5": (lambda: parse_option_pairs("detector", "pudd", ["n_buckets=1.5"]),
                             "n_buckets", "an integer"),
    "option yates=maybe": (lambda: parse_option_pairs("detector", "pudd", ["yates=maybe"]),
                           "yates", "true or false"),
    "option without '='": (lambda: parse_option_pairs("detector", "pudd", ["yates"]),
                           "detector_options", "KEY=VALUE"),
    "option unknown name": (lambda: parse_option_pairs("detector", "pudd", ["stroe=1"]),
                            "detector_options", "valid options"),
    "option adwin delta=abc": (lambda: parse_option_pairs("detector", "adwin", ["delta=abc"]),
                               "delta", "a finite number"),
    "option gnb var_smoothing=x": (
        lambda: parse_option_pairs("classifier", "gnb", ["var_smoothing=x"]), "var_smoothing",
        "number"),
    "seeds '0-100000000'": (lambda: parse_seeds("0-100000000"), "seeds", "more than"),
    "seeds ['a']": (lambda: parse_seeds(["a"]), "seeds", "'a' is not an integer"),
    "seeds [1.5, 1.7]": (lambda: parse_seeds([1.5, 1.7]), "seeds", "1.5 is not an integer"),
    "seeds []": (lambda: parse_seeds([]), "seeds", "empty"),
    "seeds 0 (a count)": (lambda: parse_seeds(0), "seeds", "seed 0 alone: write the range '0-0'"),
    "seeds 'abc'": (lambda: parse_seeds("abc"), "seeds", "'abc' is not a seed"),
    "seeds '5-3'": (lambda: parse_seeds("5-3"), "seeds", "backwards"),
    "seeds True": (lambda: parse_seeds(True), "seeds", "boolean"),
    "seeds 0": (lambda: parse_seeds(0), "seeds", "at least 1"),
    "seeds 10**9": (lambda: parse_seeds(10**9), "seeds", "more than"),
    "grid dataset []": (lambda: expand_grid({"dataset": []}), "dataset", "empty list"),
    "grid seeds []": (lambda: expand_grid({"seeds": []}), "seeds", "empty"),
    "grid n_chunks '5'": (lambda: expand_grid({"n_chunks": "5"}), "n_chunks", ">= 2"),
    "grid unknown key": (lambda: expand_grid({"stroe": "x"}), "grid", "unknown grid keys"),
    "grid not a table": (lambda: expand_grid(5), "grid", "table"),  # type: ignore[arg-type]
}


@pytest.mark.parametrize("case", LIBRARY, ids=list(LIBRARY))
def test_library_rejects_bad_input_naming_the_parameter(case):
    call, param, words = LIBRARY[case]
    with pytest.raises(ParameterError) as info:
        call()
    assert isinstance(info.value, ValueError)  # existing `except ValueError` still works
    assert info.value.param == param, str(info.value)
    assert words in str(info.value)


def test_accepted_spellings_are_parsed_by_type():
    assert ChunkPUDD(alpha=np.float32(0.01)).alpha == np.float32(0.01)
    assert ChunkPUDD(seed=np.int64(3), n_buckets=np.int32(4)).seed == 3
    opts = dict(parse_option_pairs("detector", "pudd",
                                   ["yates=False", "skip_rule=None", "cache_buckets=no",
                                    "clamp_min=0", "cut_points=all"]))
    assert opts == {"yates": False, "skip_rule": None, "cache_buckets": False, "clamp_min": 0,
                    "cut_points": "all"}
    RunConfig(detector_options=opts).validate()
    assert parse_seeds(["1", 2][1:]) == [2] and parse_seeds([np.int64(4)]) == [4]


# --- user files: (file bytes, label, parameter, words) ----------------------------------------
def _rows(n: int, fmt: Callable[[int], str]) -> str:
    return "".join(fmt(i) for i in range(n))


def _parquet(table: Any) -> bytes:
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


def _parquet_cases() -> dict[str, tuple[bytes, str, str, str]]:
    import pyarrow as pa

    return {
        "parquet list label": (
            _parquet(pa.table({"x": [1, 2, 3, 4], "y": [[1], [2], [1], [2]]})), "y", "upload",
            "lists or records"),
        "parquet duplicate names": (
            _parquet(pa.Table.from_arrays([pa.array([1, 2]), pa.array([0, 1]),
                                           pa.array([1, 0])], names=["x", "y", "y"])),
            "y", "upload", "duplicate column names 'y'"),
        "parquet struct feature": (
            _parquet(pa.table({"x": [{"a": 1}, {"a": 2}], "y": [0, 1]})), "y", "upload",
            "lists or records"),
        "parquet truncated": (_parquet(pa.table({"x": [1, 2], "y": [0, 1]}))[:-30] + b"PAR1",
                              "y", "upload", "Parquet"),
        "parquet too many rows": (
            _parquet(pa.table({"x": np.zeros(6000), "y": np.arange(6000) % 2})), "y", "upload",
            "6000 rows, more than max_rows=5000"),
    }


CSV_CASES: dict[str, tuple[bytes, str, str, str]] = {
    "duplicate label column": (("a,y,y\n" + _rows(30, lambda i: f"{i},{i / 7:.3f},{i % 2}\n"))
                               .encode(), "y", "upload", "duplicate column names 'y'"),
    "duplicate feature names": (("a,a,y\n" + _rows(30, lambda i: f"{i},{i},{i % 2}\n")).encode(),
                                "y", "upload", "duplicate column names 'a'"),
    "every row one field longer": (("a,b,y\n" + _rows(30, lambda i: f"{i},{i},{i},{i % 2}\n"))
                                   .encode(), "y", "upload", "line 2 has 4 fields"),
    "one row one field longer": (("a,b,y\n" + _rows(20, lambda i: f"{i},{i},{i % 2}\n")
                                  + "1,2,3,4\n").encode(), "y", "upload", "line 22 has 4 fields"),
    "no header row": (_rows(30, lambda i: f"{i}.5,{i}.25,{i % 2}\n").encode(), "y", "upload",
                      "no header row"),
    "continuous label": (("x,y\n" + _rows(30, lambda i: f"{i},{(i * 0.37) % 1:.4f}\n"))
                         .encode(), "y", "label", "looks continuous"),
    "gzip file": (gzip.compress(b"x,y\n1,0\n2,1\n"), "y", "upload", "gzip"),
    "UTF-16 file": ("x,y\n1,0\n2,1\n".encode("utf-16"), "y", "upload", "UTF-16"),
    "UTF-16-LE without BOM": ("x,y\n1,0\n2,1\n".encode("utf-16-le"), "y", "upload", "UTF-16"),
    "binary file": (bytes(range(256)) * 4, "y", "upload", "binary"),
    "zip file": (b"PK\x03\x04" + bytes(100), "y", "upload", "ZIP"),
    "latin-1 file": ("x,y\n1,caf\u00e9\n2,th\u00e9\n".encode("latin-1"), "y", "upload",
                     "not UTF-8"),
    "empty file": (b"", "y", "upload", "empty"),
    "whitespace only": (b"  \n\n", "y", "upload", "empty"),
    "label missing": (b"x,z\n1,0\n2,1\n", "y", "label", "not found"),
    "single class": (("x,y\n" + _rows(10, lambda i: f"{i},a\n")).encode(), "y", "label",
                     "single class"),
    "missing label value": (b"x,y\n1,a\n2,\n3,b\n4,a\n", "y", "label", "missing value"),
    "missing feature value": (b"x,y\n1,a\n,b\n3,b\n4,a\n", "y", "upload", "missing value"),
    "infinite label": (b"x,y\n1,1\n2,inf\n3,0\n4,1\n", "y", "label", "non-finite"),
    "infinite feature": (b"x,y\n1,1\n2,0\ninf,0\n4,1\n", "y", "upload", "non-finite"),
    "stray word in numbers": (("x,y\n" + _rows(9, lambda i: f"{i},{i % 2}\n") + "oops,1\n")
                              .encode(), "y", "upload", "non-numeric value 'oops'"),
    "fewer rows than a chunk": (b"x,y\n1,0\n2,1\n", "y", "chunk_size", "fewer than one chunk"),
    "only the label": (b"y\n0\n1\n0\n1\n", "y", "label", "no feature columns"),
    "identifier column": (("x,id,y\n" + _rows(1200, lambda i: f"{i},id{i},{i % 2}\n"))
                          .encode(), "y", "upload", "max_categories"),
}


@pytest.mark.parametrize("case", list(CSV_CASES) + list(_parquet_cases()),
                         ids=list(CSV_CASES) + list(_parquet_cases()))
def test_user_file_is_refused_with_the_reason(case):
    raw, label, param, words = {**CSV_CASES, **_parquet_cases()}[case]
    with pytest.raises(ParameterError) as info:
        stream_from_csv(raw, label=label,
                        chunk_size=10 if case == "fewer rows than a chunk" else 2,
                        max_rows=5000)
    assert info.value.param == param, str(info.value)
    assert words in str(info.value)


def test_user_file_spellings_that_are_fine():
    # NA and None are class names, not missing values
    s = stream_from_csv(b"x,y\n1,NA\n2,None\n3,yes\n4,NA\n", label="y", chunk_size=2)
    assert s.truth["label_mapping"] == {"NA": 0, "None": 1, "yes": 2}
    # a CSV whose header starts with PAR1 is a CSV
    s = stream_from_csv(b"PAR1,y\n1,0\n2,1\n3,0\n4,1\n", label="y", chunk_size=2)
    assert s.truth["feature_names"] == ("PAR1",)
    # columns named 0, 1, 2 (as pandas writes them) are a header, not data
    s = stream_from_csv(b"0,1,2\n1,2,0\n3,4,1\n", label="2", chunk_size=1)
    assert s.n_chunks == 2
    # integer-valued float labels are classes
    s = stream_from_csv(b"x,y\n1,0.0\n2,1.0\n3,0.0\n4,1.0\n", label="y", chunk_size=2)
    assert s.n_classes == 2


def test_the_format_is_what_the_caller_chose(tmp_path):
    import pyarrow as pa

    raw = _parquet(pa.table({"x": [1.0, 2.0, 3.0, 4.0], "y": [0, 1, 0, 1]}))
    assert stream_from_csv(raw, label="y", chunk_size=2).n_chunks == 2  # auto: Parquet bytes
    with pytest.raises(ParameterError, match="is a Parquet file, not a CSV"):
        stream_from_csv(raw, label="y", chunk_size=2, format="csv")
    with pytest.raises(ParameterError, match="could not be read as Parquet"):
        stream_from_csv(b"x,y\n1,0\n2,1\n", label="y", chunk_size=1, format="parquet")
    with pytest.raises(ParameterError) as info:
        stream_from_csv(b"x,y\n1,0\n", label="y", format="xlsx")  # type: ignore[arg-type]
    assert info.value.param == "format" and info.value.choices == ("auto", "csv", "parquet")
    path = tmp_path / "table.csv"
    path.write_bytes(b"PAR1,y\n1,0\n2,1\n")
    assert stream_from_csv(path, label="y", chunk_size=1).n_chunks == 2


PARQUET_BOMB = """
import sys
import numpy as np, pyarrow as pa, pyarrow.parquet as pq
from pudd_core.streams import stream_from_csv
path, rows, fmt = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if rows:  # build the bomb in row groups of 1 M constant rows: a few KB each
    block = pa.table({"x": np.zeros(1_000_000), "y": np.zeros(1_000_000, np.int64)})
    with pq.ParquetWriter(path, block.schema, compression="zstd") as writer:
        for _ in range(rows // 1_000_000):
            writer.write_table(block)
    sys.exit()
try:
    stream_from_csv(path, label="y", format=fmt)
    print("accepted")
except ValueError as exc:
    print("refused:", exc)
# VmHWM: this process's peak RSS since exec (ru_maxrss would include the forked parent's)
with open("/proc/self/status") as fh:
    hwm_kb = next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:"))
print("peak_mb", hwm_kb / 1024)
"""


@pytest.mark.integration
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
@pytest.mark.parametrize("fmt", ["auto", "csv"])
def test_a_parquet_bomb_stays_under_300_mb(tmp_path, fmt):
    """60 M rows in a tiny file: refused from the metadata, in a child whose peak RSS is read."""
    path = tmp_path / ("bomb.parquet" if fmt == "auto" else "bomb.csv")
    subprocess.run([sys.executable, "-c", PARQUET_BOMB, str(path), "60000000", "auto"],
                   check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert path.stat().st_size < 200_000
    out = subprocess.run([sys.executable, "-c", PARQUET_BOMB, str(path), "0", fmt],
                         check=True, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout
    assert "refused:" in out, out
    assert ("60000000 rows, more than max_rows" in out if fmt == "auto"
            else "is a Parquet file, not a CSV" in out)
    peak = float(out.split("peak_mb")[1])
    assert peak < 300, out


# --- grid files: (TOML text, words) -------------------------------------------------------------
GRID_FILES: dict[str, tuple[str, str]] = {
    "misspelt [run] key": ('[grid]\nseeds = "0"\nn_chunks = 12\n[run]\nstroe = "x"\n',
                           "unknown key 'stroe'"),
    "unknown table": ('[grid]\nseeds = "0"\n[rnu]\nstore = "x"\n', "unknown table(s) [rnu]"),
    "grid = 5": ("grid = 5\n", "not grid = 5"),
    "no [grid]": ('[run]\nstore = "x"\n', "needs a [grid] table"),
    "float seeds": ("[grid]\nseeds = [1.5, 1.7]\n", "1.5 is not an integer"),
    "text seeds": ('[grid]\nseeds = ["a"]\n', "'a' is not an integer"),
    "empty seeds": ("[grid]\nseeds = []\n", "empty"),
    "empty datasets": ('[grid]\ndataset = []\nseeds = "0"\n', "'dataset' is an empty list"),
    "n_chunks as text": ('[grid]\nn_chunks = "5"\n', "n_chunks must be None or an integer"),
    "n_chunks 1": ("[grid]\nn_chunks = 1\n", "n_chunks must be None or an integer >= 2"),
    "not TOML": ("[grid\nseeds=", "not valid TOML"),
    "executor typo": ('[grid]\nseeds = "0"\n[run]\nexecutor = "jobllib"\n',
                      "[run] executor in"),
    "n_jobs as text": ('[grid]\nseeds = "0"\n[run]\nn_jobs = "4"\n', "[run] n_jobs in"),
    "unknown grid key": ('[grid]\nseeds = "0"\ndatset = "sea0"\n', "unknown grid keys"),
    "yates as text": ('[grid]\ndetector_options = {yates = "no"}\n', "yates must be True"),
    "run = 3": ("run = 3\n[grid]\nseeds = \"0\"\n", "must be a table"),
}


@pytest.mark.integration
@pytest.mark.parametrize("case", GRID_FILES, ids=list(GRID_FILES))
def test_grid_file_mistakes_are_errors_before_any_run(tmp_path, case):
    text, words = GRID_FILES[case]
    path = tmp_path / "grid.toml"
    path.write_text(text)
    with pytest.raises(ParameterError) as info:
        load_grid_file(path)
    assert words in str(info.value)


# --- the command line, as a user runs it ------------------------------------------------------
def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "pudd_core", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


CLI: dict[str, tuple[list[str], str]] = {
    "run --n-chunks 0": (["run", "--n-chunks", "0"], "n_chunks"),
    "run --n-chunks 1": (["run", "--n-chunks", "1"], "n_chunks"),
    "run --n-chunks -3": (["run", "--n-chunks", "-3"], "n_chunks"),
    "run --chunk-size 0": (["run", "--chunk-size", "0"], "chunk_size"),
    "run cut_points=foo": (["run", "--detector-option", "cut_points=foo"], "cut_points"),
    "run n_buckets=1.5": (["run", "--detector-option", "n_buckets=1.5"], "n_buckets"),
    "run yates=maybe": (["run", "--detector-option", "yates=maybe"], "yates"),
    "run unknown option": (["run", "--detector-option", "yate=1"], "valid options"),
    "run --seeds 0-100000000": (["run", "--seeds", "0-100000000"], "more than"),
    "run --seeds abc": (["run", "--seeds", "abc"], "'abc'"),
    "run --alpha 2": (["run", "--alpha", "2"], "alpha"),
    "run unknown dataset": (["run", "--dataset", "nope"], "nope"),
    "run --log in a missing folder": (["run", "--n-chunks", "5", "--log", "no/such/log.csv"],
                                      "does not exist"),
    "run --log a folder": (["run", "--n-chunks", "5", "--log", "."], "is a folder"),
    "run --store a file": (["run", "--n-chunks", "5", "--store", "afile"], "is a file"),
    "reproduce --seeds abc": (["reproduce", "--table", "1", "--seeds", "abc"], "'abc'"),
    "reproduce --out a file": (["reproduce", "--table", "1", "--seeds", "1", "--datasets",
                                "sea0", "--detectors", "ddm", "--n-chunks", "5", "--out",
                                "afile", "--store", "st"], "--out afile is a file"),
    "run --alpha abc (argparse)": (["run", "--alpha", "abc"], "invalid float value: 'abc'"),
    "run --executor bogus (argparse)": (["run", "--executor", "bogus"], "invalid choice"),
    "grid without a file (argparse)": (["grid"], "required: config"),
    "grid file is a folder": (["grid", "."], "is a folder"),
    "grid file missing": (["grid", "nope.toml"], "no grid file"),
    "grid = 5": (["grid", "g5.toml"], "grid = 5"),
    "grid [rnu]": (["grid", "rnu.toml"], "[rnu]"),
    "grid seeds ['a']": (["grid", "seeds.toml"], "'a' is not an integer"),
}


@pytest.fixture(scope="module")
def cli_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("cli")
    (d / "afile").write_text("x")
    (d / "g5.toml").write_text("grid = 5\n")
    (d / "rnu.toml").write_text('[grid]\nseeds = "0"\n[rnu]\nstore = "x"\n')
    (d / "seeds.toml").write_text('[grid]\nseeds = ["a"]\n')
    return d


@pytest.mark.integration
@pytest.mark.parametrize("case", CLI, ids=list(CLI))
def test_cli_bad_input_exits_2_with_one_line(cli_dir, case):
    args, words = CLI[case]
    res = _cli(*args, cwd=cli_dir)
    assert res.returncode == 2, res.stderr
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert words in lines[0] and "Traceback" not in res.stderr
    assert not (cli_dir / "no").exists()


@pytest.mark.integration
def test_cli_debug_shows_the_traceback(cli_dir):
    res = _cli("run", "--n-chunks", "0", "--debug", cwd=cli_dir)
    assert res.returncode == 2 and "Traceback" in res.stderr and "error: n_chunks" in res.stderr


def test_cli_yates_false_turns_yates_off(tmp_path, capsys):
    import json

    from pudd_core.cli import main

    common = ["run", "--n-chunks", "30", "--json", "--store", str(tmp_path), "--executor",
              "serial"]
    assert main([*common, "--detector-option", "yates=False"]) == 0
    off = json.loads(capsys.readouterr().out)
    assert off["config"]["detector_options"] == [["yates", False]]
    assert main([*common, "--detector-option", "skip_rule=None"]) == 0
    assert json.loads(capsys.readouterr().out)["config"]["detector_options"] == [
        ["skip_rule", None]]


# --- the class of problem: every constructor parameter, every text spelling -------------------
def _typed_parameters(cls: type) -> list[tuple[str, object]]:
    import inspect

    return [(p.name, p.default) for p in inspect.signature(cls).parameters.values()
            if p.default is not inspect.Parameter.empty]


@pytest.mark.parametrize("cls", [ChunkPUDD, PUDD], ids=["ChunkPUDD", "PUDD"])
def test_no_parameter_takes_a_string_for_a_number_or_flag(cls):
    """Text where a number, a flag or a seed belongs is refused for every parameter, by name."""
    for name, default in _typed_parameters(cls):
        if isinstance(default, str):
            continue  # a choice: its own check lists the choices
        for text in ("False", "1", "x"):
            with pytest.raises(ParameterError) as info:
                cls(**{name: text})
            assert info.value.param == name, (name, text, str(info.value))


@pytest.mark.parametrize("detector", [d for d in DETECTORS if option_names(d)])
def test_cli_option_text_is_parsed_to_the_parameter_type_or_refused(detector):
    """Whatever text a user writes, an option value is never a stray string for a non-text
    parameter: it parses to the parameter's type or raises, naming the option."""
    target = option_target(detector)
    defaults = dict(_typed_parameters(target))
    for name in option_names(detector):
        for text in ("False", "no", "None", "1", "1.5", "foo", "[1]"):
            try:
                value = dict(parse_option_pairs("detector", detector, [f"{name}={text}"]))[name]
            except ParameterError as exc:
                assert exc.param == name
                continue
            default = defaults.get(name)
            if isinstance(value, str):
                assert default is None or isinstance(default, str), (name, text)
            if isinstance(default, bool):
                assert isinstance(value, bool), (name, text, value)
            if text in ("False", "no") and isinstance(default, bool):
                assert value is False


@pytest.mark.parametrize("fmt", ["csv", "parquet", "auto"])
def test_damaged_files_give_a_value_error_never_another_exception(fmt):
    """Seeded random byte edits of a valid file: each one is read or refused with a message."""
    import pandas as pd

    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"a": rng.random(60).round(3), "c": rng.choice(["red", "blue"], 60),
                          "b": rng.integers(0, 5, 60), "y": rng.choice(["no", "yes"], 60)})
    if fmt == "csv":
        base = frame.to_csv(index=False).encode()
    else:
        buf = io.BytesIO()
        frame.to_parquet(buf)
        base = buf.getvalue()
    for _ in range(150):
        raw = bytearray(base)
        for _ in range(int(rng.integers(1, 6))):
            pos = int(rng.integers(0, len(raw)))
            op = int(rng.integers(0, 3))
            if op == 0:
                raw[pos] = int(rng.integers(0, 256))
            elif op == 1:
                del raw[pos:pos + int(rng.integers(1, 20))]
            else:
                raw[pos:pos] = bytes(rng.integers(0, 256, int(rng.integers(1, 5)), np.uint8))
        try:
            stream_from_csv(bytes(raw), label="y", chunk_size=10, format=fmt)
        except ValueError as exc:
            assert str(exc)


def test_edited_grid_files_are_read_or_refused_with_a_value_error(tmp_path):
    """Seeded random edits of a valid grid file: each is read or refused with a message."""
    base = (b'[grid]\ndataset = ["sea0", "sine"]\ndetector = ["pudd", "ddm"]\n'
            b'alpha = [1e-1, 1e-3]\nseeds = "0-2"\nn_chunks = 12\n'
            b"detector_options = {yates = false}\n"
            b'[run]\nstore = "x"\nexecutor = "serial"\nn_jobs = 2\n')
    alphabet = b"[]{}=,\"'0123456789.-_ abcdefghijklmnopqrstuvwxyz\n"
    rng = np.random.default_rng(0)
    path = tmp_path / "grid.toml"
    for _ in range(300):
        raw = bytearray(base)
        for _ in range(int(rng.integers(1, 4))):
            pos = int(rng.integers(0, len(raw)))
            op = int(rng.integers(0, 3))
            if op == 0:
                raw[pos] = alphabet[int(rng.integers(0, len(alphabet)))]
            elif op == 1:
                del raw[pos:pos + int(rng.integers(1, 8))]
            else:
                raw[pos:pos] = bytes(alphabet[int(rng.integers(0, len(alphabet)))]
                                     for _ in range(int(rng.integers(1, 4))))
        path.write_bytes(bytes(raw))
        try:
            load_grid_file(path)
        except ValueError as exc:
            assert str(exc)


# --- issue 25, item 10: the unclear messages left of the old catalogue (L9, L11, L20) ------
def test_a_label_far_outside_the_classes_is_named_with_its_value_not_a_cast_artifact():
    from pudd_core._validation import ParameterError
    from pudd_core.pu_index import pu_index

    with pytest.raises(ParameterError, match=r"y\[1\] = 1e\+20") as err:
        pu_index(np.array([[0.5, 0.5], [0.2, 0.8]]), [0, 1e20])
    assert err.value.param == "y"


def test_ragged_probability_rows_name_proba_and_their_lengths():
    from pudd_core._validation import ParameterError
    from pudd_core.pu_index import pu_index

    with pytest.raises(ParameterError, match="proba rows have different lengths \\(1, 2\\)"):
        pu_index([[0.5, 0.5], [1.0]], [0, 0])


@pytest.mark.parametrize("cut", ["1", 1.0, True, None, 0, 3])
def test_windows_of_a_cut_that_is_not_a_chunk_count_names_cut(cut):
    from pudd_core._validation import ParameterError
    from pudd_core.detector import ChunkPUDD

    det = ChunkPUDD()
    for u in (np.full(100, 0.1), np.full(100, 0.2), np.full(100, 0.3)):
        det.update(u, u < 0.5)
    with pytest.raises(ParameterError, match=r"cut must be in 1..2 \(an integer\)") as err:
        det.windows(cut)
    assert err.value.param == "cut"


@pytest.mark.parametrize("seed", ["x", -1, 1.5])
def test_pu_chi2_test_names_a_bad_seed(seed):
    from pudd_core._validation import ParameterError
    from pudd_core.chi2 import pu_chi2_test

    u = np.linspace(0, 1, 200)
    with pytest.raises(ParameterError, match="seed") as err:
        pu_chi2_test(u, None, u, None, seed=seed)
    assert err.value.param == "seed"
