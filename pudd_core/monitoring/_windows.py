"""Time windows: a timestamp column cut by a pandas offset alias into window ids."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from pudd_core._validation import ParameterError
from pudd_core.monitoring._score import plain

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Windows", "timestamps"]


class Windows:
    """Timestamp -> window id, for a pandas offset alias."""

    def __init__(self, window: str) -> None:
        import pandas as pd
        from pandas.tseries.frequencies import to_offset

        try:
            self.offset = to_offset(window)
        except (ValueError, TypeError):
            raise ParameterError("window", f"window {window!r} is not a pandas offset alias; "
                                           "write e.g. 1D, 6h, 30min, W or MS") from None
        self.tick = isinstance(self.offset, pd.offsets.Tick)
        self.origin: int | None = None
        self.freq: Any = None
        self.window = window

    def ids(self, ts: pd.Series) -> NDArray[np.int64]:
        import pandas as pd

        ns = ts.to_numpy(dtype="datetime64[ns]").astype(np.int64)
        if self.tick:
            step = int(pd.Timedelta(self.offset).value)
            if step <= 0:
                raise ParameterError("window", f"window {self.window!r} must be positive")
            if self.origin is None:  # windows start at midnight of the first day (pandas
                self.origin = int(pd.Timestamp(ns[0]).normalize().value)  # 'start_day')
            return np.asarray((ns - self.origin) // step, dtype=np.int64)
        try:
            periods = pd.DatetimeIndex(ts).to_period(self.offset)
        except (ValueError, TypeError, AttributeError):
            raise ParameterError("window", f"window {self.window!r} cannot cut time into "
                                           "periods; use a fixed one (1D, 6h, 30min) or W, "
                                           "MS, QS, YS") from None
        self.freq = periods.freq
        return np.asarray(periods.asi8, dtype=np.int64)

    def bounds(self, wid: int) -> tuple[str, str]:
        import pandas as pd

        if self.tick:
            assert self.origin is not None
            step = int(pd.Timedelta(self.offset).value)
            a = pd.Timestamp(self.origin + wid * step)
            return a.isoformat(), pd.Timestamp(self.origin + (wid + 1) * step).isoformat()
        period = pd.Period(ordinal=wid, freq=self.freq)
        return period.start_time.isoformat(), (period + 1).start_time.isoformat()


def timestamps(col: pd.Series, name: str, offset: int) -> pd.Series:
    import pandas as pd

    if pd.api.types.is_datetime64_any_dtype(col):
        ts = col
    elif pd.api.types.is_numeric_dtype(col):
        raise ParameterError("time_column", f"column {name!r} holds numbers, not timestamps; "
                                            "write dates/times (ISO 8601, e.g. "
                                            "2024-05-01T12:00) or chunk by rows (--chunk-size)")
    else:
        try:
            ts = pd.to_datetime(col, format="ISO8601")
        except (ValueError, TypeError):
            ts = pd.to_datetime(col, errors="coerce", format="mixed")
    if getattr(ts.dt, "tz", None) is not None:
        ts = ts.dt.tz_convert("UTC").dt.tz_localize(None)
    bad = np.flatnonzero(ts.isna().to_numpy())
    if bad.size:
        i = int(bad[0])
        raise ParameterError("time_column", f"row {offset + i}, column {name!r}: "
                                            f"{plain(col.iloc[i])!r} is not a timestamp")
    return ts


