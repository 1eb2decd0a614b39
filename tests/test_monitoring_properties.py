"""Property-based tests of the monitor's log reader: any log works or says what is wrong.

Whatever the cells of a CSV (numbers out of range, text, empty cells, class names such as
``NA``, stray commas), ``monitor`` returns a result or raises a ``ParameterError`` (naming the
parameter, and the row and column where one is at fault); never another exception. A valid log
gives the same result from a CSV, a Parquet file and a DataFrame.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pudd_core import monitor
from pudd_core._validation import ParameterError

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

CELLS = st.one_of(
    st.floats(-0.5, 1.5).map(repr),
    st.sampled_from(["", "0", "1", "0.5", "NA", "null", "None", "n/a", "nan", "true", "abc",
                     "1e20", "-1", " ", "inf", "2024-01-01", '"x,y"', "1,2"]),
    st.text(alphabet="ab01.,-\" ", max_size=4),
)


@st.composite
def csv_logs(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A small CSV with a label, one to three probability columns and a time column."""
    n_proba = draw(st.integers(1, 3))
    header = ["label", *(f"proba_{k}" for k in range(n_proba)), "ts"]
    n_rows = draw(st.integers(0, 12))
    rows = [[draw(CELLS) for _ in header] for _ in range(n_rows)]
    text = "\n".join(",".join(r) for r in [header, *rows]) + "\n"
    return text, header


def _message_is_pointed(err: ParameterError) -> None:
    text = str(err)
    assert err.param and text and "Traceback" not in text
    assert "\n" not in text.strip()


@SETTINGS
@given(log=csv_logs(), chunk=st.integers(1, 5),
       form=st.sampled_from(["prefix", "single", "p_true"]),
       window=st.sampled_from([None, "1D", "2"]), positive=st.sampled_from([None, "1", "NA"]))
def test_any_csv_log_works_or_raises_a_parameter_error(log, chunk, form, window, positive):
    text, header = log
    kwargs: dict[str, object] = {"label": "label"}
    if form == "prefix":
        kwargs["proba_prefix"] = "proba_"
    elif form == "single":
        kwargs.update(proba_columns=[header[1]], positive_label=positive)
    else:
        kwargs = {"p_true": header[1], "correct": "label"}
    if window is None:
        kwargs["chunk_size"] = chunk
    else:
        kwargs.update(time_column="ts", window=window)
    try:
        res = monitor(io.BytesIO(text.encode()), batch_rows=chunk + 2, **kwargs)
    except ParameterError as err:
        _message_is_pointed(err)
        return
    except UserWarning:
        return
    assert res.n_rows == len(pd.read_csv(io.StringIO(text), keep_default_na=False,
                                         na_values=[""], dtype=str))
    for p, rec in zip(res.p_values, res.records, strict=True):
        assert (np.isnan(p) and rec.no_test) or (0.0 <= p <= 1.0 and rec.no_test is None)
    assert sum(s.n_rows for s in res.spans) + res.n_pending_rows == res.n_rows


@st.composite
def valid_logs(draw: st.DrawFn) -> pd.DataFrame:
    """A valid log: labels among the classes (some empty at the end), rows summing to 1."""
    k = draw(st.integers(2, 4))
    n = draw(st.integers(1, 80))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    g = rng.gamma(np.ones((n, k)) + 3 * np.eye(k)[rng.integers(0, k, n)])
    frame = pd.DataFrame(g / g.sum(axis=1, keepdims=True),
                         columns=[f"proba_{c}" for c in ("NA", "b", "c", "d")[:k]])
    labels = np.array(["NA", "b", "c", "d"][:k], dtype=object)[rng.integers(0, k, n)]
    tail = draw(st.integers(0, n))
    labels[n - tail:] = None if draw(st.booleans()) else labels[n - tail:]
    frame.insert(0, "label", labels)
    return frame


@SETTINGS
@given(frame=valid_logs(), chunk=st.integers(1, 20))
def test_a_valid_log_reads_the_same_from_csv_parquet_and_a_dataframe(tmp_path_factory, frame,
                                                                     chunk):
    folder = tmp_path_factory.mktemp("logs")
    frame.to_csv(folder / "log.csv", index=False)
    frame.to_parquet(folder / "log.parquet", index=False)
    results = []
    for source in (frame, folder / "log.csv", folder / "log.parquet"):
        try:
            results.append(monitor(source, label="label", proba_prefix="proba_",
                                   chunk_size=chunk, batch_rows=7))
        except ParameterError as err:
            results.append(re.sub(r"\S*log\.\w+|DataFrame", "SOURCE", str(err)))
    first = results[0]
    for other in results[1:]:
        if isinstance(first, str) or isinstance(other, str):
            assert other == first
            continue
        assert other.spans == first.spans and other.pending == first.pending
        np.testing.assert_array_equal(other.p_values, first.p_values)
        assert other.accuracy == first.accuracy


@pytest.mark.slow
@settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))
@given(log=csv_logs(), chunk=st.integers(1, 5))
def test_any_csv_log_works_or_raises_a_parameter_error_at_length(log, chunk):
    text, _ = log
    try:
        monitor(io.BytesIO(text.encode()), label="label", proba_prefix="proba_",
                chunk_size=chunk)
    except ParameterError as err:
        _message_is_pointed(err)


def _score(frame: pd.DataFrame, normalize: bool):
    """The scored batch, or the message of the error it raised."""
    from pudd_core.monitoring._log import LogFormat
    from pudd_core.monitoring._score import Scorer

    fmt = LogFormat(label="label", proba_prefix="p").resolve(list(frame.columns))
    try:
        s = Scorer(fmt, normalize=normalize)(frame, len(frame), 10)
    except ParameterError as err:
        return str(err)
    return s.u.dtype, s.u.tobytes(), s.ok.tolist(), s.labelled.tolist()


_P32 = st.one_of(st.floats(0.0, 1.0, width=32), st.sampled_from([0.0, 0.5, 1.0, 0.25]))


@settings(max_examples=150, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 2), st.lists(_P32, min_size=3, max_size=3)),
                     min_size=1, max_size=30),
       normalize=st.booleans(), mixed=st.booleans(),
       bad=st.none() | st.tuples(st.integers(0, 29), st.integers(0, 2),
                                 st.sampled_from([float("nan"), -0.25, 1.5])))
def test_float32_probability_columns_score_as_their_float64_copies(rows, normalize, mixed, bad):
    probs = np.array([p for _, p in rows], dtype=np.float32)
    if not normalize:  # mostly rows that sum to 1 in float32, as a model's softmax gives
        with np.errstate(invalid="ignore", divide="ignore"):
            scaled = probs / probs.sum(axis=1, keepdims=True, dtype=np.float32)
        probs = np.where(np.arange(len(rows))[:, None] % 3 == 0, probs, scaled)
    if bad is not None:
        probs[bad[0] % len(rows), bad[1]] = bad[2]
    labels = [y for y, _ in rows]
    as32 = pd.DataFrame({"label": labels, **{f"p{k}": probs[:, k] for k in range(3)}})
    as64 = as32.astype({f"p{k}": np.float64 for k in range(3)})
    if mixed:  # one float64 column among float32 ones
        as32["p1"] = as64["p1"]
    assert _score(as32, normalize) == _score(as64, normalize)


# --- correctness without the arg-max: is_argmax against np.argmax ---------------------------
@settings(max_examples=300, deadline=None)
@given(data=st.data(), k=st.integers(1, 12), n=st.integers(1, 40),
       dtypes=st.lists(st.sampled_from([np.float32, np.float64]), min_size=1, max_size=1))
def test_is_argmax_equals_numpys_arg_max_with_ties_to_the_lowest_class(data, k, n, dtypes):
    """The monitor decides a row correct where its label's column is the row's arg-max (ties
    to the lowest class, as np.argmax); is_argmax finds that without the arg-max. Values
    drawn from a few levels make ties common; float32 and float64 columns mix."""
    from pudd_core.monitoring._score import argmax, is_argmax

    levels = st.sampled_from([0.0, 0.1, 0.25, 0.5, 1 / 3, 1.0])
    cols = [np.array(data.draw(st.lists(levels, min_size=n, max_size=n)),
                     dtype=data.draw(st.sampled_from([np.float32, np.float64, dtypes[0]])))
            for _ in range(k)]
    idx = np.array(data.draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)),
                   dtype=np.intp)
    stacked = np.stack(cols).astype(np.result_type(*cols))
    values = stacked[idx, np.arange(n)]
    expected = np.argmax(stacked, axis=0) == idx
    assert is_argmax(cols, values, idx).tolist() == expected.tolist()
    assert argmax(cols, n).tolist() == np.argmax(stacked, axis=0).tolist()
