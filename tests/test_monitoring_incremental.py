"""The incremental monitor (issue 22 item 6): fed in any batches, saved and restored, rewound
when late labels arrive, it equals the batch monitor chunk for chunk."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pudd_core import monitor
from pudd_core._validation import ParameterError
from pudd_core.monitoring import LogFormat, Monitor


def _log(n: int = 4000, seed: int = 0) -> pd.DataFrame:
    """A 3-class log, worse from the middle on, one row every 5 minutes."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    shape = np.ones((n, 3))
    shape[np.arange(n), y] += np.where(np.arange(n) < n // 2, 12.0, 3.0)
    g = rng.gamma(shape)
    frame = pd.DataFrame(g / g.sum(axis=1, keepdims=True),
                         columns=["proba_0", "proba_1", "proba_2"])
    frame.insert(0, "label", y.astype(float))
    frame.insert(0, "ts", pd.Timestamp("2024-03-01") + pd.to_timedelta(np.arange(n) * 5,
                                                                         unit="min"))
    return frame


FMT = LogFormat(label="label", proba_prefix="proba_")


def _same(a, b) -> None:
    assert a.spans == b.spans and a.pending == b.pending and a.n_rows == b.n_rows
    np.testing.assert_array_equal(a.p_values, b.p_values)
    assert a.accuracy == b.accuracy and a.alarms == b.alarms
    for x, y in zip(a.records, b.records, strict=True):
        assert np.array_equal(np.array(x.cut_p_values, float).reshape(-1, 2),
                              np.array(y.cut_p_values, float).reshape(-1, 2), equal_nan=True)
        assert x.no_test == y.no_test
    assert a.baselines == b.baselines


def _feed(m: Monitor, frame: pd.DataFrame, cuts: list[int]) -> list[int]:
    tested: list[int] = []
    for a, b in zip([0, *cuts], [*cuts, len(frame)], strict=True):
        tested += [r.chunk_index for r in m.feed(frame.iloc[a:b])]
    return tested


@settings(max_examples=25, deadline=None)
@given(cuts=st.lists(st.integers(1, 3999), max_size=8, unique=True).map(sorted),
       by_time=st.booleans())
def test_fed_in_any_batches_it_equals_the_batch_monitor_chunk_for_chunk(cuts, by_time):
    frame = _log()
    how = {"time_column": "ts", "window": "6h"} if by_time else {"chunk_size": 300}
    fmt = LogFormat(label="label", proba_prefix="proba_", time_column=how.get("time_column"))
    kw = {k: v for k, v in how.items() if k != "time_column"}
    batch = monitor(frame, fmt, baselines=["ddm"], **kw)
    m = Monitor(fmt, baselines=["ddm"], **kw)
    tested = _feed(m, frame, cuts)
    tested += [r.chunk_index for r in m.finish()]
    assert tested == list(range(batch.n_chunks))  # each chunk returned once, in order
    _same(m.result("DataFrame"), batch)


def test_saved_mid_chunk_and_restored_it_loses_and_repeats_nothing(tmp_path):
    frame = _log()
    batch = monitor(frame, FMT, chunk_size=300, baselines=["adwin"])
    m = Monitor(FMT, chunk_size=300, baselines=["adwin"])
    first = _feed(m, frame.iloc[:1450], [700])
    m.save(tmp_path / "state")
    del m  # the process is killed here
    again = Monitor.restore(tmp_path / "state")
    assert again.next_row == 1450
    rest = _feed(again, frame.iloc[1450:], [])
    rest += [r.chunk_index for r in again.finish()]
    assert first + rest == list(range(batch.n_chunks))
    _same(again.result("DataFrame"), batch)


@pytest.mark.parametrize("opts", [{}, {"max_chunks": 16}])
def test_the_doubling_refit_state_survives_a_save_and_restore(tmp_path, opts):
    # 100 chunks of 40 rows: fitted prefixes of up to 64 chunks (or, bounded to 16, forgotten
    # and refitted several times) and their cumulative counts are in the saved state
    frame = _log()
    batch = monitor(frame, FMT, chunk_size=40, detector_options=opts)
    assert dict(batch.detector_options)["refit"] == "doubling"
    m = Monitor(FMT, chunk_size=40, detector_options=opts)
    first = _feed(m, frame.iloc[:2630], [1000])
    assert m.chunks.det._history.fitted  # buckets fitted, counts kept: part of the state
    m.save(tmp_path / "state")
    del m
    again = Monitor.restore(tmp_path / "state")
    rest = _feed(again, frame.iloc[2630:], [3111])
    rest += [r.chunk_index for r in again.finish()]
    assert first + rest == list(range(batch.n_chunks))
    _same(again.result("DataFrame"), batch)


def test_a_pending_tail_is_picked_up_where_it_stopped_when_the_labels_arrive(tmp_path):
    frame = _log()
    late = frame.copy()
    late.loc[3100:, "label"] = np.nan  # not labelled yet at the first pass
    for how in ({"chunk_size": 300}, {"window": "6h"}):
        fmt = LogFormat(label="label", proba_prefix="proba_",
                        time_column="ts" if "window" in how else None)
        m = Monitor(fmt, **how)
        m.feed(late.iloc[:2000])
        m.feed(late.iloc[2000:])
        so_far = m.result("DataFrame")
        assert so_far.pending and so_far.pending[0].first_row <= 3100
        m.save(tmp_path / "state")
        m = Monitor.restore(tmp_path / "state")
        start = m.rewind()  # the labels have arrived: feed the log again from there
        assert start == so_far.pending[0].first_row
        m.feed(frame.iloc[start:])
        m.finish()
        _same(m.result("DataFrame"), monitor(frame, fmt, **how))


def test_bad_use_is_refused_with_a_message(tmp_path):
    m = Monitor(FMT, chunk_size=300)
    with pytest.raises(ParameterError, match="no column 'label'"):
        m.feed(pd.DataFrame({"y": [1], "proba_0": [0.5], "proba_1": [0.5]}))
    m = Monitor(FMT, chunk_size=300)
    m.feed(_log(600))
    m.finish()
    with pytest.raises(ParameterError, match="finished"):
        m.feed(_log(10))
    from pudd_core.monitoring._state import dumps

    (tmp_path / "x.state").write_bytes(dumps({"not": "a monitor"}, kind="pudd-lab monitor"))
    with pytest.raises(ParameterError, match="holds no saved monitor"):
        Monitor.restore(tmp_path / "x.state")
    with pytest.raises(ParameterError, match="has a label yet|no rows"):
        Monitor(FMT, chunk_size=300).result()


def test_a_state_of_another_version_or_no_state_at_all_is_refused_by_name(tmp_path):
    import pickle

    from pudd_core.monitoring._state import FORMAT, HEADER

    m = Monitor(FMT, chunk_size=300)
    m.feed(_log(450))
    m.save(tmp_path / "ok.state")
    assert Monitor.restore(tmp_path / "ok.state").chunks.drained == m.chunks.drained
    # a pickle, as states were written before they became data, is never loaded
    (tmp_path / "old.pkl").write_bytes(pickle.dumps(("pudd-lab monitor state", 3, None)))
    with pytest.raises(ParameterError, match="earlier version of PUDD Lab as a Python pickle"):
        Monitor.restore(tmp_path / "old.pkl")
    ok = (tmp_path / "ok.state").read_bytes()
    import hashlib
    import io
    import zipfile

    body = io.BytesIO()  # the same state, as a later version would label it
    with zipfile.ZipFile(io.BytesIO(ok[HEADER:])) as src, \
            zipfile.ZipFile(body, "w", zipfile.ZIP_STORED) as dst:
        for name in src.namelist():
            data = src.read(name)
            if name == "state.json":
                data = data.replace(f'"format": {FORMAT}'.encode(),
                                    f'"format": {FORMAT + 1}'.encode())
            dst.writestr(name, data)
    later = body.getvalue()
    (tmp_path / "next.state").write_bytes(ok[:16] + hashlib.sha256(later).digest() + later)
    with pytest.raises(ParameterError, match=f"format {FORMAT + 1}; this version reads"):
        Monitor.restore(tmp_path / "next.state")
    for junk in (b"", b"not a state at all", ok[:40], ok[:-1]):
        (tmp_path / "junk").write_bytes(junk)
        with pytest.raises(ParameterError, match="not a state file|damaged"):
            Monitor.restore(tmp_path / "junk")
