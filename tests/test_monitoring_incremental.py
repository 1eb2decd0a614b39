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
from tests._logs import same_result as _same
from tests._logs import three_class_log


def _log(n: int = 4000, seed: int = 0) -> pd.DataFrame:
    """A 3-class log, worse from the middle on, one row every 5 minutes."""
    frame = three_class_log(n, seed)
    frame["label"] = frame["label"].astype(float)
    frame.insert(0, "ts", pd.Timestamp("2024-03-01") + pd.to_timedelta(np.arange(n) * 5,
                                                                         unit="min"))
    return frame


FMT = LogFormat(label="label", proba_prefix="proba_")


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


def test_rewind_goes_back_to_the_open_chunk_when_its_labels_are_missing():
    # issue 32 item 4: rows 1500- unlabelled, chunk 1 (rows 1000-1999) still open: rewind()
    # returned 2000, so rows 1500-1999 stayed unlabelled for good
    frame = _log()
    late = frame.copy()
    late.loc[1500:, "label"] = np.nan
    m = Monitor(FMT, chunk_size=1000)
    m.feed(late.iloc[:2000])
    assert [s.index for s in m.result("DataFrame").pending] == [1]
    assert m.resume_row == 1000 and m.rewind() == 1000 and m.next_row == 1000
    m.feed(frame.iloc[1000:])
    m.finish()
    _same(m.result("DataFrame"), monitor(frame, FMT, chunk_size=1000))
    # a fully labelled open chunk is kept: nothing to read again
    m = Monitor(FMT, chunk_size=1000)
    m.feed(frame.iloc[:1500])
    assert m.rewind() == 1500


@st.composite
def _late_label_streams(draw: st.DrawFn) -> tuple[list[int], list[int]]:
    """Steps (rows known after each) and, per step, how many of the newest rows lack labels;
    labels arrive in order (the labelled part only grows), the last step may keep a tail."""
    n = 1200
    ends = sorted(set(draw(st.lists(st.integers(1, n - 1), max_size=10)))) + [n]
    frontier, lags = 0, []
    for end in ends:
        lag = draw(st.integers(0, end))
        frontier = max(frontier, end - lag)  # labels never disappear once given
        lags.append(end - frontier)
    return ends, lags


@settings(max_examples=30, deadline=None)
@given(stream=_late_label_streams(), how=st.sampled_from(
    [{"chunk_size": 100}, {"chunk_size": 250}, {"chunk_size": 37}, {"window": "3h"},
     {"window": "1D"}]))
def test_streamed_with_late_labels_and_rewound_it_equals_the_batch_monitor(stream, how):
    """Any steps, any label lags: rewind then feed at each step, the result is the batch
    monitor's on the final log (the reference reading), chunk for chunk."""
    ends, lags = stream
    frame = _log(1200, seed=len(ends))
    fmt = LogFormat(label="label", proba_prefix="proba_",
                    time_column="ts" if "window" in how else None)
    m = Monitor(fmt, baselines=["ddm"], **how)
    for end, lag in zip(ends, lags, strict=True):
        known = frame.iloc[:end].copy()
        known.loc[end - lag:, "label"] = np.nan  # the newest rows wait for their labels
        start = m.rewind()
        m.feed(known.iloc[start:])
    final = known
    m.finish()
    try:
        batch = monitor(final, fmt, baselines=["ddm"], **how)
    except ParameterError as err:  # no labelled row at all: the stream says the same
        with pytest.raises(ParameterError, match=str(err)[:30]):
            m.result("DataFrame")
        return
    _same(m.result("DataFrame"), batch)


def test_feeding_misshapen_batches_is_refused_by_name():
    # issue 32: a batch without a probability column raised KeyError 'proba_2', Series of
    # unequal length numpy's broadcast errors, a dict without n was as long as its keys
    frame = _log(600)
    m = Monitor(FMT, chunk_size=100)
    m.feed(frame.iloc[:300])
    with pytest.raises(ParameterError, match=r"the rows from row 300 have no column 'proba_2'"):
        m.feed(frame.iloc[300:].drop(columns="proba_2"))
    columns = {c: frame[c].iloc[300:] for c in ("label", "proba_0", "proba_1", "proba_2")}
    with pytest.raises(ParameterError, match=r"different lengths \('label': 300, 'proba_0': "
                                             r"10, 'proba_1': 300"):
        m.feed({**columns, "proba_0": columns["proba_0"].iloc[:10]})
    with pytest.raises(ParameterError, match=r"different lengths .*; n=299"):
        m.feed(columns, 299)
    with pytest.raises(ParameterError, match=r"feed\(\) takes a DataFrame or a mapping"):
        m.feed([1, 2, 3])
    assert m.next_row == 300  # nothing was taken from the refused batches
    # a mapping of arrays without n: as long as its columns (it was as long as its keys)
    m.feed({c: v.to_numpy() for c, v in columns.items()})
    m.finish()
    _same(m.result("DataFrame"), monitor(frame, FMT, chunk_size=100))


def test_what_the_time_reading_and_the_top_score_learnt_survives_a_save_and_restore(tmp_path):
    """The times' UTC offsets (on every row so far), the bins' origin (the log's first day)
    and a top score's two classes are part of the saved state."""
    frame = _log()
    text = frame.assign(ts=frame.ts.dt.tz_localize("Asia/Kolkata").map(lambda t: t.isoformat()))
    names = np.array(["cat", "dog", "cat"], dtype=object)
    text["y"] = names[frame.label.astype(int)]
    text["pred"] = names[frame[["proba_0", "proba_1", "proba_2"]].to_numpy().argmax(axis=1)]
    text["score"] = frame[["proba_0", "proba_1", "proba_2"]].max(axis=1).clip(0.5)
    fmt = LogFormat(label="y", pred="pred", binary_top_score="score", time_column="ts")
    batch = monitor(text, fmt, window="2D")
    m = Monitor(fmt, window="2D")
    m.feed(text.iloc[:1700])
    m.save(tmp_path / "s.state")
    again = Monitor.restore(tmp_path / "s.state")
    assert again.windows.aware is True and sorted(again.scorer.top_classes) == ["cat", "dog"]
    naive = text.iloc[1700:1701].assign(ts="2024-03-07T00:00:00")
    with pytest.raises(ParameterError, match="row 1700 .*without a UTC offset where the earlier"):
        again.feed(naive)
    again = Monitor.restore(tmp_path / "s.state")
    again.feed(text.iloc[1700:])
    again.finish()
    _same(again.result("DataFrame"), batch)


@pytest.mark.parametrize("window", ["2W", "2MS", "3D"])
def test_calendar_bins_fed_in_batches_across_a_restore_equal_the_batch_monitor(tmp_path,
                                                                               window):
    frame = _log(30000)  # 104 days, one row every 5 minutes
    fmt = LogFormat(label="label", proba_prefix="proba_", time_column="ts")
    batch = monitor(frame, fmt, window=window)
    m = Monitor(fmt, window=window)
    m.feed(frame.iloc[:11111])
    m.save(tmp_path / "s.state")
    again = Monitor.restore(tmp_path / "s.state")
    _feed(again, frame.iloc[11111:], [5000, 9000])
    again.finish()
    _same(again.result("DataFrame"), batch)
