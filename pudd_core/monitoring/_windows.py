"""Time windows: a timestamp column cut by a pandas offset alias into window ids."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from pudd_core._validation import ParameterError
from pudd_core.monitoring._score import plain

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Windows", "timestamps"]


class Windows:
    """Time -> window id: a pandas offset alias over timestamps, or a step over plain numbers.

    ``window`` is an offset alias (``"1D"``, ``"6h"``, ``"W"``, ``"MS"``) or a positive number
    (``"1"``, ``"3600"``): then the time column holds numbers (an integer year, epoch
    seconds) and each window is ``[k * step, (k + 1) * step)``. With an alias, a numeric
    column is read as years if it holds integers 1000-9999, else as epoch time (seconds,
    milliseconds, microseconds or nanoseconds, by the magnitude of its first value); a note
    says which.

    Examples
    --------
    >>> import pandas as pd
    >>> w = Windows("10")
    >>> w.ids(w.values(pd.Series([2009, 2010, 2019, 2020]), "year", 0)).tolist()
    [200, 201, 201, 202]
    >>> w.bounds(201)
    ('2010', '2020')
    """

    def __init__(self, window: str) -> None:
        import pandas as pd
        from pandas.tseries.frequencies import to_offset

        self.window = window
        self.step: float | None = None
        self.notes: list[str] = []
        self.unit: str | None = None
        try:
            step = float(window)
        except (TypeError, ValueError):
            step = math.nan
        if not math.isnan(step):
            if not (math.isfinite(step) and step > 0):
                raise ParameterError("window", f"window {window!r} must be a positive number "
                                               "(a step of a numeric time column) or a pandas "
                                               "offset alias (1D, 6h, W, MS)")
            self.step = step
            self.tick = False
            return
        try:
            self.offset = to_offset(window)
        except (ValueError, TypeError):
            raise ParameterError("window", f"window {window!r} is not a pandas offset alias; "
                                           "write e.g. 1D, 6h, 30min, W or MS (or a number, "
                                           "the step of a numeric time column)") from None
        self.tick = isinstance(self.offset, pd.offsets.Tick)
        if self.tick and int(pd.Timedelta(self.offset).value) <= 0:
            raise ParameterError("window", f"window {window!r} must be positive")
        self.origin: int | None = None
        self.freq: Any = None

    def values(self, col: pd.Series, name: str, offset: int) -> NDArray[Any]:
        """The time column as numbers to cut: int64 nanoseconds, or the numbers themselves."""
        import pandas as pd

        if self.step is not None:
            if not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
                raise ParameterError("window", f"window {self.window!r} is a number, for a "
                                               f"numeric time column, but {name!r} is not "
                                               "numeric; use an offset alias (1D, 6h, W)")
            v = col.to_numpy(dtype=np.float64, na_value=np.nan)
            bad = np.flatnonzero(~np.isfinite(v))
            if bad.size:
                i = int(bad[0])
                raise ParameterError("time_column", f"row {offset + i}, column {name!r}: "
                                                    f"{plain(col.iloc[i])!r} is not a time")
            return np.asarray(v)
        ts = self._timestamps(col, name, offset)
        return np.asarray(ts.to_numpy(dtype="datetime64[ns]").astype(np.int64))

    def _timestamps(self, col: pd.Series, name: str, offset: int) -> pd.Series:
        import pandas as pd

        if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
            if self.unit is None:
                self.unit = _numeric_unit(col)
                self.notes.append(f"time column {name!r} holds numbers: read as "
                                  f"{_UNIT_WORDS[self.unit]} (a number as window, e.g. "
                                  "--window 1, cuts the numbers themselves)")
            v = col.to_numpy(dtype=np.float64, na_value=np.nan)
            if self.unit == "year":
                ok = np.isfinite(v) & (v == np.round(v)) & (v >= 1000) & (v <= 9999)
                years = np.where(ok, v, 1970).astype(np.int64)
                ts = pd.Series(pd.to_datetime(years.astype(str), format="%Y"))
                return ts.where(ok)
            return pd.Series(pd.to_datetime(v, unit=self.unit))
        return timestamps(col, name, offset)

    def ids(self, values: NDArray[Any]) -> NDArray[np.int64]:
        """Each value's window id (``values`` from :meth:`values`)."""
        import pandas as pd

        if self.step is not None:
            return np.asarray(np.floor(values / self.step), dtype=np.int64)
        ns = values
        if self.tick:
            step = int(pd.Timedelta(self.offset).value)
            if self.origin is None:  # windows start at midnight of the first day (pandas
                self.origin = int(pd.Timestamp(ns[0]).normalize().value)  # 'start_day')
            return np.asarray((ns - self.origin) // step, dtype=np.int64)
        try:
            periods = pd.DatetimeIndex(ns.astype("datetime64[ns]")).to_period(self.offset)
        except (ValueError, TypeError, AttributeError):
            raise ParameterError("window", f"window {self.window!r} cannot cut time into "
                                           "periods; use a fixed one (1D, 6h, 30min) or W, "
                                           "MS, QS, YS") from None
        self.freq = periods.freq
        return np.asarray(periods.asi8, dtype=np.int64)

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
        period = pd.Period(ordinal=wid, freq=self.freq)
        return period.start_time.isoformat(), (period + 1).start_time.isoformat()


_UNIT_WORDS = {"year": "years", "s": "epoch seconds", "ms": "epoch milliseconds",
               "us": "epoch microseconds", "ns": "epoch nanoseconds"}


def _numeric_unit(col: pd.Series) -> str:
    """Years (integers 1000-9999) or the epoch unit that puts the first value after 1973."""
    v = col.dropna().to_numpy(dtype=np.float64)
    if v.size and np.all((v == np.round(v)) & (v >= 1000) & (v <= 9999)):
        return "year"
    first = abs(float(v[0])) if v.size else 0.0
    return "s" if first < 1e11 else "ms" if first < 1e14 else "us" if first < 1e17 else "ns"


def timestamps(col: pd.Series, name: str, offset: int) -> pd.Series:
    """A column of timestamps (text or a date type) as naive UTC times; bad cells named."""
    import pandas as pd

    if pd.api.types.is_datetime64_any_dtype(col):
        ts = col
    else:
        try:  # utc=True: a log across a daylight-saving change has two UTC offsets
            ts = pd.to_datetime(col, format="ISO8601", utc=True)
        except (ValueError, TypeError):
            ts = pd.to_datetime(col, errors="coerce", format="mixed", utc=True)
    if getattr(ts.dt, "tz", None) is not None:
        ts = ts.dt.tz_convert("UTC").dt.tz_localize(None)
    bad = np.flatnonzero(ts.isna().to_numpy())
    if bad.size:
        i = int(bad[0])
        raise ParameterError("time_column", f"row {offset + i}, column {name!r}: "
                                            f"{plain(col.iloc[i])!r} is not a timestamp")
    return ts
