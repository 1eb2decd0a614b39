"""Times read right (issue 32 item 5): every common text form, time zone, epoch unit and
window alias with its multiples, each compared with a reference reading (pandas told the
format or unit, then ``resample``); ambiguous or mixed times refused by name, never guessed."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pudd_core import monitor
from pudd_core._validation import ParameterError

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
ALIASES = ["s", "min", "h", "D", "B", "W", "W-MON", "W-WED", "ME", "MS", "QS", "QE", "YS",
           "YE", "SMS", "BME"]
FORMS = {  # text form -> (strftime of the UTC time shown in its zone, the reference's format)
    "iso": "%Y-%m-%dT%H:%M:%S", "iso space": "%Y-%m-%d %H:%M:%S",
    "iso offset": None, "iso Z": "%Y-%m-%dT%H:%M:%SZ",
    "day-first": "%d/%m/%Y %H:%M:%S", "month-first": "%m/%d/%Y %H:%M:%S"}
ZONES = ["UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata", "Australia/Adelaide"]
UNITS = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}


def _rows(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, n)
    return pd.DataFrame({"label": rng.integers(0, 2, n), "proba_1": p, "proba_0": 1 - p})


def _reference(ts: pd.Series, window: str) -> pd.Series:
    """Rows per bin as pandas resamples the times, the non-empty bins in order, by label."""
    counts = pd.Series(1, index=pd.DatetimeIndex(ts)).resample(window).sum()
    return counts[counts > 0]


def _span_check(res, ts: pd.Series, window: str) -> None:
    """Chunk for chunk, pandas' bins: the same rows, and the window each bin's label names."""
    ref = _reference(ts, window)
    chunks = [*res.spans, *res.pending]
    assert [s.n_rows for s in chunks] == ref.tolist()
    offset = pd.tseries.frequencies.to_offset(window)
    day = pd.Timedelta(0) if isinstance(offset, pd.offsets.Tick) else pd.Timedelta("1D")
    for s, label in zip(chunks, ref.index, strict=True):
        start, end = pd.Timestamp(s.start), pd.Timestamp(s.end)
        if pd.Grouper(freq=window).label == "left":  # [label, label + offset)
            assert (start, end) == (label, label + offset), (s, label, window)
        else:  # labelled by its right edge, whole days: pandas shifts its edges by a day
            assert (start, end) == (label - offset + day, label + day), (s, label, window)
        inside = ts.iloc[s.first_row:s.last_row + 1]
        assert (inside >= start).all() and (inside < end).all(), (s, window)


@st.composite
def _times(draw: st.DrawFn) -> tuple[pd.Series, str]:
    """Sorted UTC times (whole seconds, 2001-2090) and a window: an alias with a multiple."""
    window = f"{draw(st.integers(1, 3))}{draw(st.sampled_from(ALIASES))}"
    offset = pd.tseries.frequencies.to_offset(window)
    t0 = pd.Timestamp("2024-01-01")
    width = (t0 + offset - t0).total_seconds()
    n = draw(st.integers(2, 60))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    start = draw(st.integers(10**9, 3_800_000_000))
    gaps = rng.exponential(width * draw(st.sampled_from([0.05, 0.3, 1.0, 3.0])), n - 1)
    seconds = np.minimum(start + np.r_[0, np.cumsum(np.ceil(gaps))], 6e9).astype(np.int64)
    return pd.Series(pd.to_datetime(seconds, unit="s")), window


@SETTINGS
@given(times=_times(), form=st.sampled_from(list(FORMS)), zone=st.sampled_from(ZONES),
       batch=st.integers(1, 30))
def test_text_times_in_every_form_and_zone_cut_as_pandas_resamples_them(times, form, zone,
                                                                        batch):
    ts, window = times
    local = ts.dt.tz_localize("UTC").dt.tz_convert(zone if form == "iso offset" else "UTC")
    text = (local.map(lambda t: t.isoformat()) if form == "iso offset"
            else local.dt.strftime(FORMS[form]))
    frame = _rows(len(ts), len(ts)).assign(ts=text)
    csv = frame.to_csv(index=False).encode()
    given_format = FORMS[form] if form in ("day-first", "month-first") else None
    kwargs = {"label": "label", "proba_prefix": "proba_", "time_column": "ts",
              "window": window, "batch_rows": batch}
    if given_format is not None:  # never guessed: refused without the format, by name
        with pytest.raises(ParameterError, match=r"column 'ts', row 0 .*--time-format"):
            monitor(io.BytesIO(csv), **kwargs)
    # the reference reading: pandas told the format (the zone's offset in the text)
    ref = pd.to_datetime(text, format="ISO8601" if given_format is None else given_format,
                         utc=True).dt.tz_localize(None)
    assert (ref == ts).all()
    try:
        res = monitor(io.BytesIO(csv), time_format=given_format, **kwargs)
    except ParameterError as err:
        assert "labelled row" in str(err) or "no labelled" in str(err), err
        return
    _span_check(res, ref, window)


@SETTINGS
@given(times=_times(), unit=st.sampled_from(list(UNITS)), batch=st.integers(1, 30))
def test_epoch_numbers_in_every_unit_cut_as_pandas_reads_them_with_the_unit(times, unit,
                                                                            batch):
    ts, window = times
    numbers = ts.astype("int64") // UNITS[unit]
    frame = _rows(len(ts), 1).assign(ts=numbers)
    kwargs = {"label": "label", "proba_prefix": "proba_", "time_column": "ts",
              "window": window, "batch_rows": batch}
    with pytest.raises(ParameterError, match=r"column 'ts' holds numbers.*--time-unit"):
        monitor(frame, **kwargs)
    with pytest.raises(ParameterError, match=r"like epoch time.*--time-unit"):
        monitor(frame, label="label", proba_prefix="proba_", time_column="ts", window="3600")
    ref = pd.Series(pd.to_datetime(numbers, unit=unit))
    res = monitor(frame, time_unit=unit, **kwargs)
    _span_check(res, ref, window)


def test_a_time_without_offset_after_times_with_one_is_refused_not_shifted():
    # issue 32: the naive row took the previous row's +03:00, and a 3-hour gap vanished
    text = ["2024-03-01T10:00:00+03:00", "2024-03-01T11:00:00+03:00", "2024-03-01T12:00:00",
            "2024-03-01T13:00:00"]
    frame = _rows(4, 0).assign(ts=text)
    with pytest.raises(ParameterError, match=r"column 'ts', row 2 \('2024-03-01T12:00:00'\), "
                                             r"row 3 .*: without a UTC offset where row 0"):
        monitor(frame, label="label", proba_prefix="proba_", time_column="ts", window="1h")
    # across batches too: the first batch had offsets, the second has none
    with pytest.raises(ParameterError, match=r"row 2 .*without a UTC offset where the earlier"):
        monitor(frame, label="label", proba_prefix="proba_", time_column="ts", window="1h",
                batch_rows=2)


def test_day_first_dates_are_refused_without_a_format_and_read_right_with_it():
    # 1-10 March as dd/mm/yyyy: read month-first they were 3 January ... 3 October, sorted
    days = pd.date_range("2024-03-01", "2024-03-10", freq="D")
    frame = pd.concat([_rows(100, d) for d in range(10)], ignore_index=True)
    ts = np.repeat(days, 100)
    frame["ts"] = ts.strftime("%d/%m/%Y")
    kwargs = {"label": "label", "proba_prefix": "proba_", "time_column": "ts",
              "window": "1D"}
    with pytest.raises(ParameterError, match=r"'01/03/2024'.*not ISO 8601.*--time-format"):
        monitor(frame, **kwargs)
    res = monitor(frame, time_format="%d/%m/%Y", **kwargs)
    assert [s.start for s in res.spans][:2] == ["2024-03-01T00:00:00", "2024-03-02T00:00:00"]
    assert [s.n_rows for s in res.spans] == [100] * 10
    with pytest.raises(ParameterError, match=r"row 0 \('32/13/2024'\), .* and 997 more: "
                                             r"not matching time_format"):
        monitor(frame.assign(ts=["32/13/2024"] * 1000), time_format="%d/%m/%Y", **kwargs)


def test_epoch_milliseconds_under_a_numeric_window_are_refused_and_read_with_the_unit():
    # issue 32: --window 3600 over epoch ms made one-row chunks, 10.8 % of them alarming
    ms = (pd.Timestamp("2024-03-01").value // 10**6) + np.arange(2000) * 60_000  # a minute
    frame = _rows(2000, 3).assign(ts=ms)
    with pytest.raises(ParameterError, match=r"like epoch time.*--time-unit"):
        monitor(frame, label="label", proba_prefix="proba_", time_column="ts", window="3600")
    with pytest.raises(ParameterError, match=r"epoch times.*offset alias.*3600s"):
        monitor(frame, label="label", proba_prefix="proba_", time_column="ts", window="3600",
                time_unit="ms")
    res = monitor(frame, label="label", proba_prefix="proba_", time_column="ts",
                  window="3600s", time_unit="ms")
    assert [s.n_rows for s in res.spans] == [60] * 33 + [20]


@pytest.mark.parametrize("window", ["2W", "2MS", "2W-MON", "14D", "3ME", "2QS"])
def test_every_multiple_cuts_and_labels_the_same_periods_as_resample(window):
    # issue 32: 2W, 2MS, 2W-MON cut one base period per chunk but labelled each with two
    ts = pd.Series(pd.date_range("2024-01-03 05:00", periods=3000, freq="3h"))
    frame = _rows(3000, 4).assign(ts=ts)
    res = monitor(frame, label="label", proba_prefix="proba_", time_column="ts",
                  window=window, batch_rows=77)
    _span_check(res, ts, window)


@SETTINGS
@given(times=_times(), zone=st.sampled_from(ZONES), data=st.data(), batch=st.integers(1, 30),
       aware_first=st.booleans())
def test_a_utc_offset_on_some_rows_only_is_refused_at_the_first_odd_row(times, zone, data,
                                                                       batch, aware_first):
    ts, window = times
    aware = ts.dt.tz_localize("UTC").dt.tz_convert(zone).map(lambda t: t.isoformat())
    naive = ts.dt.strftime("%Y-%m-%dT%H:%M:%S")
    text = (aware if aware_first else naive).copy()
    odd = data.draw(st.integers(1, len(ts) - 1))
    text.iloc[odd:] = (naive if aware_first else aware).iloc[odd:]
    frame = _rows(len(ts), 2).assign(ts=text)
    with pytest.raises(ParameterError, match=rf"column 'ts', row {odd} \('"):
        monitor(frame, label="label", proba_prefix="proba_", time_column="ts", window=window,
                batch_rows=batch)
