"""Time windows: a timestamp column cut by a pandas offset alias into window ids."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np
from numpy.typing import NDArray

from pudd_core._validation import ParameterError
from pudd_core.monitoring._arrays import plain

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["TIME_UNITS", "Windows", "timestamps"]

#: What the numbers of a numeric time column count (``time_unit``, ``--time-unit``): epoch
#: seconds, milliseconds, microseconds or nanoseconds, integer years, or plain numbers cut
#: as they are by a numeric window.
TIME_UNITS = ("s", "ms", "us", "ns", "year", "number")
_EPOCH = ("s", "ms", "us", "ns")
#: Numbers at least this large look like epoch time (1e9 s is 2001; ms, us, ns are larger):
#: a numeric window over them needs time_unit to say what they count.
EPOCH_LIKE = 1e9
#: An ISO 8601 time's UTC offset or Z, after its time of day (a date alone has none).
_OFFSET = re.compile(r"[T\s]\d{2}(?::?\d{2}(?::?\d{2}(?:[.,]\d+)?)?)?\s*"
                     r"(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$")
#: How many offending rows a message shows.
SHOWN_ROWS = 3


def _rows(col: pd.Series, positions: NDArray[np.intp], offset: int) -> str:
    """The first offending rows as ``row 3 ('01/03/2024'), row 4 (...)``."""
    shown = ", ".join(f"row {offset + int(i)} ({plain(col.iloc[int(i)])!r})"
                      for i in positions[:SHOWN_ROWS])
    more = len(positions) - SHOWN_ROWS
    return shown + (f" and {more:,} more" if more > 0 else "")


class Windows:
    """Time -> window id: a pandas offset alias over timestamps, or a step over plain numbers.

    ``window`` is an offset alias (``"1D"``, ``"6h"``, ``"2W"``, ``"MS"``), any multiple of
    any alias: the chunks are the non-empty bins of pandas' ``resample(window)`` on the time
    column, with its bins' edges (``start``, ``end``) and its closed side. Or it is a
    positive number (``"1"``, ``"3600"``): then the time column holds numbers and each window
    is ``[k * step, (k + 1) * step)`` in the column's own unit.

    Nothing about the times is guessed. Text must be ISO 8601 (with a UTC offset or ``Z`` on
    every row, or on none) unless ``time_format`` gives its strftime format (``%d/%m/%Y``);
    a numeric column needs ``time_unit`` (:data:`TIME_UNITS`) under an offset alias, and
    under a numeric window when its numbers look like epoch time. Offset-aware times are
    read in UTC.

    Examples
    --------
    >>> import pandas as pd
    >>> w = Windows("10")
    >>> w.ids(w.values(pd.Series([2009, 2010, 2019, 2020]), "year", 0)).tolist()
    [200, 201, 201, 202]
    >>> w.bounds(201)
    ('2010', '2020')
    >>> w = Windows("2W")
    >>> ts = pd.Series(["2024-03-06", "2024-03-12", "2024-03-18", "2024-03-25"])
    >>> keys = w.ids(w.values(ts, "ts", 0))
    >>> keys.tolist() == sorted(keys.tolist()), len(set(keys.tolist()))
    (True, 3)
    >>> w.bounds(keys[0]), w.bounds(keys[1])  # resample("2W"): Mondays to Sundays, 2 weeks
    (('2024-02-26T00:00:00', '2024-03-11T00:00:00'), ('2024-03-11T00:00:00', \
'2024-03-25T00:00:00'))
    """

    def __init__(self, window: str, *, time_format: str | None = None,
                 time_unit: str | None = None) -> None:
        import pandas as pd
        from pandas.tseries.frequencies import to_offset

        self.window = window
        self.step: float | None = None
        self.notes: list[str] = []
        if time_format is not None and (not isinstance(time_format, str)
                                        or not time_format.strip()):
            raise ParameterError("time_format", "time_format (--time-format) must be a "
                                                "strftime format such as %d/%m/%Y %H:%M, "
                                                f"got {time_format!r}")
        if time_unit is not None and time_unit not in TIME_UNITS:
            raise ParameterError("time_unit", f"time_unit (--time-unit) must be one of "
                                              f"{', '.join(TIME_UNITS)}, got {time_unit!r}",
                                 TIME_UNITS)
        if time_format is not None and time_unit is not None:
            raise ParameterError("time_unit", "time_format (--time-format) reads text times, "
                                              "time_unit (--time-unit) numbers: give the one "
                                              "that fits the time column")
        self.time_format, self.unit = time_format, time_unit
        self.aware: bool | None = None  # whether the text times carry UTC offsets
        self.first: int | None = None  # the log's first time (ns): resample's bins start there
        try:
            step = float(window)
        except (TypeError, ValueError):
            step = math.nan
        if not math.isnan(step):
            if not (math.isfinite(step) and step > 0):
                raise ParameterError("window", f"window {window!r} must be a positive number "
                                               "(a step of a numeric time column) or a pandas "
                                               "offset alias (1D, 6h, W, MS)")
            if time_unit in _EPOCH:
                raise ParameterError("window", f"window {window!r} is a number, which cuts a "
                                               "column's numbers as they are; epoch times "
                                               f"(time_unit {time_unit!r}) are cut by an offset "
                                               f"alias: write e.g. {step:g}s, 1h or 1D")
            if time_format is not None:
                raise ParameterError("window", f"window {window!r} is a number, for a numeric "
                                               "time column; text times (time_format) are cut "
                                               "by an offset alias (1D, 6h, W)")
            self.step = step
            self.tick = False
            return
        if time_unit == "number":
            raise ParameterError("window", f"window {window!r} is an offset alias, but "
                                           "time_unit 'number' says the column holds plain "
                                           "numbers: give a number as window (the step)")
        try:
            self.offset = to_offset(window)
        except (ValueError, TypeError):
            raise ParameterError("window", f"window {window!r} is not a pandas offset alias; "
                                           "write e.g. 1D, 6h, 30min, W or MS (or a number, "
                                           "the step of a numeric time column)") from None
        self.tick = isinstance(self.offset, pd.offsets.Tick)
        if self.offset.n <= 0 or (self.tick and int(pd.Timedelta(self.offset).value) <= 0):
            raise ParameterError("window", f"window {window!r} must be positive")
        self.origin: int | None = None
        # resample's bins of W, ME, QE, YE ... are closed on the right and, being whole days,
        # shifted by a day by pandas (a week of W is Monday to Sunday): shown as [start, end)
        self.closed_right = not self.tick and pd.Grouper(freq=self.offset).closed == "right"

    def values(self, col: pd.Series, name: str, offset: int) -> NDArray[Any]:
        """The time column as numbers to cut: int64 nanoseconds, or the numbers themselves."""
        import pandas as pd

        numeric = pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)
        if numeric and self.time_format is not None:
            raise ParameterError("time_format", f"column {name!r} holds numbers, not text: "
                                                "time_format (--time-format) reads text; say "
                                                "what the numbers count with time_unit "
                                                f"(--time-unit {', '.join(TIME_UNITS)})")
        if not numeric and self.unit is not None:
            raise ParameterError("time_unit", f"time_unit (--time-unit) {self.unit!r} says "
                                              f"column {name!r} holds numbers, but it holds "
                                              f"{'times' if _is_times(col) else 'text'} "
                                              f"(row {offset}: {plain(col.iloc[0])!r})")
        if self.step is not None:
            if not numeric:
                raise ParameterError("window", f"window {self.window!r} is a number, for a "
                                               f"numeric time column, but {name!r} is not "
                                               "numeric; use an offset alias (1D, 6h, W)")
            v = _finite(col, name, offset)
            if self.unit == "year":
                _check_years(v, col, name, offset)
            elif self.unit is None:
                big = np.flatnonzero(np.abs(v) >= EPOCH_LIKE)
                if big.size:
                    raise ParameterError(
                        "time_unit", f"column {name!r}, {_rows(col, big, offset)}: numbers "
                        f"like epoch time, and window {self.window!r} would cut them as plain "
                        "numbers (a step of "
                        f"{self.step:g} in whatever unit they have): say what they count with "
                        "time_unit (--time-unit s, ms, us or ns) and give the window as an "
                        "offset alias (e.g. 1h), or time_unit 'number' to cut them as they are")
            return v
        ts = self._timestamps(col, name, offset, numeric)
        return np.asarray(ts.to_numpy(dtype="datetime64[ns]").astype(np.int64))

    def _timestamps(self, col: pd.Series, name: str, offset: int, numeric: bool) -> pd.Series:
        import pandas as pd

        if not numeric:
            return timestamps(col, name, offset, self)
        if self.unit is None:
            shown = f"row {offset}: {plain(col.iloc[0])!r}"
            raise ParameterError(
                "time_unit", f"column {name!r} holds numbers ({shown}): say what they count "
                "with time_unit (--time-unit s, ms, us or ns for epoch time, year for integer "
                "years); they are never guessed from their size")
        v = _finite(col, name, offset)
        if self.unit == "year":
            _check_years(v, col, name, offset)
            if not self.notes:
                self.notes.append(f"time column {name!r} holds integer years")
            return pd.Series(pd.to_datetime(v.astype(np.int64).astype(str), format="%Y"))
        if not self.notes:
            self.notes.append(f"time column {name!r} holds {_UNIT_WORDS[self.unit]} "
                              "(time_unit)")
        try:
            return pd.Series(pd.to_datetime(v, unit=self.unit))
        except (pd.errors.OutOfBoundsDatetime, OverflowError, ValueError):
            per = {"s": 1.0, "ms": 1e3, "us": 1e6, "ns": 1e9}[self.unit]
            big = np.flatnonzero(np.abs(v) / per > 9.2e9)
            raise ParameterError("time_unit", f"column {name!r}, "
                                              f"{_rows(col, big, offset)}: as {self.unit}, "
                                              "outside the times pandas represents (1677 to "
                                              "2262); check time_unit (--time-unit)") from None

    def ids(self, values: NDArray[Any]) -> NDArray[np.int64]:
        """Each value's window id (``values`` from :meth:`values`, sorted)."""
        import pandas as pd

        if self.step is not None:
            return np.asarray(np.floor(values / self.step), dtype=np.int64)
        ns = np.asarray(values, dtype=np.int64)
        if self.first is None:
            self.first = int(ns[0])
        if self.tick:
            # resample's default bins (origin "start_day": midnight of the first day), counted
            # without building the empty bins between rows (a gap of years at 1 s is 3e7 bins)
            step = int(pd.Timedelta(self.offset).value)
            if self.origin is None:
                self.origin = int(pd.Timestamp(self.first).normalize().value)
            keys = np.asarray((ns - self.origin) // step, dtype=np.int64)
            if (int(keys[-1]) + 1) * step > pd.Timestamp.max.value - self.origin:
                self._too_far()
            return keys
        # every other offset: pandas' own bins, from the log's first time (a bin of 2W, 2MS
        # or 2W-MON starts where resample starts it), keyed by their left edge
        index = pd.DatetimeIndex(np.r_[self.first, ns].astype("datetime64[ns]"))
        try:
            counts = pd.Series(1, index=index).resample(self.offset, label="left").sum()
            counts.index[-1] + self.offset  # the last bin's end must be a time too
        except (pd.errors.OutOfBoundsDatetime, OverflowError):
            self._too_far()
        except (ValueError, TypeError) as err:
            raise ParameterError("window", f"window {self.window!r} cannot cut time into bins "
                                           f"({err}); use another offset alias (1D, 6h, W, "
                                           "MS, QS, YS)") from None
        n = counts.to_numpy().copy()
        n[0] -= 1  # the first time, added to anchor the bins
        return np.asarray(np.repeat(counts.index.asi8, n), dtype=np.int64)

    def _too_far(self) -> NoReturn:
        raise ParameterError("window", f"window {self.window!r} reaches past "
                                       f"{_max_time()}, the last time pandas represents; "
                                       "choose a shorter window")

    def show(self, value: Any) -> str:
        """One time value as text (for messages)."""
        import pandas as pd

        return f"{value:g}" if self.step is not None else str(pd.Timestamp(int(value)))

    def bounds(self, wid: int) -> tuple[str, str]:
        """The window ``[start, end)`` as texts (ISO 8601 times, or numbers)."""
        import pandas as pd

        if self.step is not None:
            return f"{wid * self.step:g}", f"{(wid + 1) * self.step:g}"
        if self.tick:
            assert self.origin is not None
            step = int(pd.Timedelta(self.offset).value)
            a = pd.Timestamp(self.origin + wid * step)
            return a.isoformat(), pd.Timestamp(self.origin + (wid + 1) * step).isoformat()
        start, end = pd.Timestamp(wid), pd.Timestamp(wid) + self.offset
        if self.closed_right:  # (left, right] of whole days: [the day after left, ...)
            start, end = start + pd.offsets.Day(), end + pd.offsets.Day()
        return start.isoformat(), end.isoformat()


def _max_time() -> str:
    import pandas as pd

    return str(pd.Timestamp.max.floor("s"))


def _is_times(col: pd.Series) -> bool:
    import pandas as pd

    return bool(pd.api.types.is_datetime64_any_dtype(col))


def _finite(col: pd.Series, name: str, offset: int) -> NDArray[np.float64]:
    v = np.asarray(col.to_numpy(dtype=np.float64, na_value=np.nan), dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(v))
    if bad.size:
        i = int(bad[0])
        raise ParameterError("time_column", f"row {offset + i}, column {name!r}: "
                                            f"{plain(col.iloc[i])!r} is not a time")
    return v


def _check_years(v: NDArray[np.float64], col: pd.Series, name: str, offset: int) -> None:
    bad = np.flatnonzero((v != np.round(v)) | (v < 1000) | (v > 9999))
    if bad.size:
        raise ParameterError("time_unit", f"column {name!r}, {_rows(col, bad, offset)}: not "
                                          "integer years (1000 to 9999), as time_unit 'year' "
                                          "says; check time_unit (--time-unit)")


_UNIT_WORDS = {"year": "years", "s": "epoch seconds", "ms": "epoch milliseconds",
               "us": "epoch microseconds", "ns": "epoch nanoseconds"}


def timestamps(col: pd.Series, name: str, offset: int, w: Windows) -> pd.Series:
    """A column of timestamps (text or a date type) as naive UTC times; bad cells named.

    Text is ISO 8601 unless ``w.time_format`` gives its format; a UTC offset (or ``Z``) on
    some rows and not on others, in this batch or against the earlier ones (``w.aware``),
    is refused: pandas would give the rows without one the offset of the row before.
    """
    import pandas as pd

    if pd.api.types.is_datetime64_any_dtype(col):
        ts = col
    else:
        missing = np.flatnonzero(col.isna().to_numpy())
        if missing.size:
            i = int(missing[0])
            raise ParameterError("time_column", f"row {offset + i}, column {name!r} is empty: "
                                                "every row needs its time")
        text = col.astype(str).str.strip()
        aware = text.str.contains(_OFFSET).to_numpy(dtype=bool)
        first = bool(aware[0]) if w.aware is None else w.aware
        odd = np.flatnonzero(aware != first)
        if odd.size:
            where = ("the earlier rows" if w.aware is not None
                     else f"row {offset} ({plain(col.iloc[0])!r})")
            raise ParameterError(
                "time_column", f"column {name!r}, {_rows(col, odd, offset)}: "
                f"{'with' if not first else 'without'} a UTC offset where {where} "
                f"{'has none' if not first else 'has one'}: a time without an offset beside "
                "times with one is ambiguous (pandas would give it the offset of the row "
                "before); write every time with its offset (or Z), or none")
        w.aware = first
        fmt = w.time_format or "ISO8601"
        ts = pd.to_datetime(text, format=fmt, utc=True, errors="coerce")
        bad = np.flatnonzero(ts.isna().to_numpy())
        if bad.size:
            what = (f"not matching time_format (--time-format) {w.time_format!r}; check it"
                    if w.time_format is not None else
                    "not ISO 8601 times (2024-03-01T10:00:00, an offset or Z optional); "
                    "give their format with time_format (--time-format), e.g. %d/%m/%Y %H:%M "
                    "for 31/03/2024 10:00 or %m/%d/%Y for 03/31/2024: day-first and "
                    "month-first dates are never guessed")
            raise ParameterError("time_format", f"column {name!r}, "
                                                f"{_rows(col, bad, offset)}: {what}")
    if getattr(ts.dt, "tz", None) is not None:
        ts = ts.dt.tz_convert("UTC").dt.tz_localize(None)
    bad = np.flatnonzero(ts.isna().to_numpy())
    if bad.size:
        i = int(bad[0])
        raise ParameterError("time_column", f"row {offset + i}, column {name!r}: "
                                            f"{plain(col.iloc[i])!r} is not a timestamp")
    return ts
