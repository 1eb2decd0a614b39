"""Text labels are read by their distinct values (issue 32 item 12): the same classes and
missing rows as reading every row's text, for any labels (a reference reading row by row)."""

from __future__ import annotations

import unicodedata

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from pudd_core.monitoring import LogFormat
from pudd_core.monitoring._score import LabelMap, is_missing

CLASSES = ("cat", "dog", "café", "7", "a b")


def _missing_by_row(values: pd.Series) -> np.ndarray:
    """The reading before: each row's text stripped."""
    miss = values.isna().to_numpy()
    if values.dtype == object or str(values.dtype) == "string":
        miss |= values.astype(str).str.strip().eq("").to_numpy()
    return np.asarray(miss, dtype=bool)


def _indices_by_row(values: pd.Series) -> np.ndarray:
    text = values.astype(str).str.strip()
    idx = pd.Index(CLASSES).get_indexer(text)
    nfc = pd.Index([unicodedata.normalize("NFC", c) for c in CLASSES])
    miss = np.flatnonzero(idx < 0)
    idx[miss] = nfc.get_indexer(text.iloc[miss].str.normalize("NFC"))
    return idx


_LABEL = st.one_of(
    st.sampled_from(CLASSES),
    st.sampled_from(CLASSES).map(lambda c: f"  {c}\t"),
    st.just(unicodedata.normalize("NFD", "café")),
    st.sampled_from(["", " ", "nan", "None"]),
    st.none(),
    st.text(max_size=4),
)


@settings(max_examples=200, deadline=None)
@given(labels=st.lists(_LABEL, max_size=40),
       dtype=st.sampled_from(["object", "string", "category"]))
def test_text_labels_read_by_their_distinct_values_as_row_by_row(labels, dtype):
    """Object, string and Categorical columns (Parquet text labels come dictionary-encoded)."""
    values = pd.Series(labels, dtype=dtype)
    reference = values.astype(object) if dtype == "category" else values
    assert is_missing(values).tolist() == _missing_by_row(reference).tolist()
    labelled = values[~_missing_by_row(reference)]
    want = _indices_by_row(reference[~_missing_by_row(reference)])
    fmt = LogFormat(label="y", proba_columns=tuple(f"p{k}" for k in range(len(CLASSES))),
                    classes=CLASSES)
    lm = LabelMap(fmt.resolve(["y", *fmt.proba_columns]))
    rows = np.arange(len(labelled), dtype=np.int64)
    if (want < 0).any():  # a label with no column: refused, naming the first such row
        try:
            lm(labelled, rows)
        except Exception as err:  # noqa: BLE001 - ParameterError expected
            assert f"row {int(np.flatnonzero(want < 0)[0])}," in str(err)
        else:
            raise AssertionError("a label without a column was accepted")
    else:
        assert lm(labelled, rows).tolist() == want.tolist()


def test_a_parquet_log_with_text_labels_gives_the_dataframe_result(tmp_path):
    """Its label column comes dictionary-encoded (a Categorical), the result row for row the
    same as the same log read as a DataFrame of strings, blanks and missing labels included."""
    from pudd_core import monitor

    rng = np.random.default_rng(3)
    n = 3000
    y = rng.integers(0, 3, n)
    shape = np.ones((n, 3))
    shape[np.arange(n), y] += np.where(np.arange(n) < n // 2, 12.0, 3.0)
    g = rng.gamma(shape)
    p = g / g.sum(axis=1, keepdims=True)
    names = np.array(["cat", "dog", "café"], dtype=object)
    label = names[y].copy()
    label[rng.choice(n, 30, replace=False)] = " "  # blank: not labelled
    label[rng.choice(n, 30, replace=False)] = None
    frame = pd.DataFrame({"label": label, **{f"proba_{c}": p[:, k] for k, c in
                                             enumerate(names)}})
    frame.to_parquet(tmp_path / "log.parquet")
    a = monitor(tmp_path / "log.parquet", label="label", proba_prefix="proba_", chunk_size=250)
    b = monitor(frame, label="label", proba_prefix="proba_", chunk_size=250)
    assert a.to_frame().drop(columns=["ms"], errors="ignore").equals(
        b.to_frame().drop(columns=["ms"], errors="ignore"))
    assert a.alarms == b.alarms and a.n_rows == n
