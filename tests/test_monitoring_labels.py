"""Text labels are read by their distinct values (issue 32 item 12): the same classes and
missing rows as reading every row's text, for any labels (a reference reading row by row)."""

from __future__ import annotations

import unicodedata

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from pudd_core.monitoring import LogFormat
from pudd_core.monitoring._score import LabelMap, _missing

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
@given(labels=st.lists(_LABEL, max_size=40), string_dtype=st.booleans())
def test_text_labels_read_by_their_distinct_values_as_row_by_row(labels, string_dtype):
    values = pd.Series(labels, dtype="string" if string_dtype else object)
    assert _missing(values).tolist() == _missing_by_row(values).tolist()
    labelled = values[~_missing_by_row(values)]
    want = _indices_by_row(labelled)
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
