"""Alarm timelines on the real streams, beside what is known of their calendars.

The real streams have no known drift chunks, so a table can only count their alarms. What
*is* known of them is their calendar: Elec2 is half-hourly from 7 May 1996 (its ``day``
column, Monday = 1, agrees with that date on every row: :func:`stream_events` checks it), the
Victorian columns are constant until the Victorian market data begin, and New South Wales
changed to and from daylight-saving time on dates the time-zone database holds; the airline
substitute covers 1-3 January 2007 (its data card), sorted by day then departure time;
powersupply's card gives no dates (hourly readings: a day is 24 rows).
:func:`stream_events` lists, per chunk, those events; :func:`timeline_configs` the runs whose
alarms are set beside them; :func:`near_events` counts the alarms within a chunk of an event
against what alarms at random chunks would give. ``scripts/alarm_timelines.py`` writes
``results/timelines*.csv``.
"""

from __future__ import annotations

import datetime as dt
import gzip
import zoneinfo
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from pudd_core import _validation
from pudd_core.experiments.runner import RunConfig
from pudd_core.paper import CLASSIC_DETECTORS, PUDD_DETECTORS
from pudd_core.streams import load_stream

__all__ = ["ELEC2_START", "REAL_STREAMS", "near_events", "near_p", "same_every_seed",
           "stream_events", "timeline_configs", "timeline_spread", "timeline_summary"]

#: The real streams of the paper's tables.
REAL_STREAMS = ("elec2", "powersupply", "airline")
#: Elec2's first day (Harries 1999; a Tuesday: the ``day`` column's 2 with Monday = 1).
ELEC2_START = dt.date(1996, 5, 7)
#: The airline substitute's first day (its data card: 1-3 January 2007).
AIRLINE_START = dt.date(2007, 1, 1)
_HALF_HOURS = 48


def _file(dataset: str, data_dir: str | None) -> Path:
    return Path(str(load_stream(dataset, seed=0, data_dir=data_dir, n_chunks=1).truth["file"]))


def _dst_changes(first: dt.date, days: int, zone: str = "Australia/Sydney") -> list[int]:
    """Day offsets from ``first`` on which the zone's daylight-saving time changed.

    The UTC offset at noon differs from the day before: a change that night.
    """
    tz = zoneinfo.ZoneInfo(zone)
    offsets = [dt.datetime.combine(first + dt.timedelta(days=i), dt.time(12), tzinfo=tz)
               .utcoffset() for i in range(days)]
    return [i for i in range(1, days) if offsets[i] != offsets[i - 1]]


def _elec2_events(path: Path, chunk_size: int, n_chunks: int) -> pd.DataFrame:
    frame = pd.read_csv(path)
    rows = chunk_size * n_chunks
    day = np.arange(len(frame)) // _HALF_HOURS
    weekday = np.array([(ELEC2_START + dt.timedelta(days=int(d))).isoweekday() for d in day])
    agree = float(np.mean(weekday == frame["day"].to_numpy()))
    if agree < 1.0:
        raise ValueError(f"elec2: the day column agrees with a calendar from {ELEC2_START} on "
                         f"{agree:.1%} of the rows, not all: not the file this module reads")
    events = []
    constant = (frame[["vicprice", "vicdemand", "transfer"]] == frame[
        ["vicprice", "vicdemand", "transfer"]].iloc[0]).all(axis=1).to_numpy()
    start = int(np.argmax(~constant))
    if 0 < start < rows:
        events.append((start, "Victorian data begin (vicprice, vicdemand, transfer constant "
                              "before)"))
    for offset in _dst_changes(ELEC2_START, int(day[rows - 1]) + 1):
        date = ELEC2_START + dt.timedelta(days=offset)
        on = dt.datetime.combine(date, dt.time(12), tzinfo=zoneinfo.ZoneInfo(
            "Australia/Sydney")).dst() != dt.timedelta(0)
        events.append((offset * _HALF_HOURS,
                       f"NSW daylight saving {'begins' if on else 'ends'} ({date.isoformat()})"))
    return _chunked(events, chunk_size, n_chunks, lambda r: ELEC2_START + dt.timedelta(
        days=int(r // _HALF_HOURS)))


def _airline_events(path: Path, chunk_size: int, n_chunks: int) -> pd.DataFrame:
    from pudd_core.streams.airline import read_arff

    with gzip.open(path, "rt", encoding="utf-8") as f:
        frame = read_arff(f.read())
    days = frame["DayofMonth"].astype(int).to_numpy()[:chunk_size * n_chunks]
    events = [(int(r), f"{AIRLINE_START.year}-01-{days[r]:02d} begins (flights sorted by day, "
                       "then departure time)")
              for r in np.flatnonzero(np.diff(days) != 0) + 1]
    return _chunked(events, chunk_size, n_chunks,
                    lambda r: AIRLINE_START + dt.timedelta(days=int(days[r]) - 1))


def _powersupply_events(path: Path, chunk_size: int, n_chunks: int) -> pd.DataFrame:
    return _chunked([], chunk_size, n_chunks, lambda r: None, unit_days=24)


def _chunked(events: Sequence[tuple[int, str]], chunk_size: int, n_chunks: int,
             date_of: object, unit_days: int | None = None) -> pd.DataFrame:
    """One row per chunk: its first and last row's date (or day from the start) and events."""
    out = []
    for c in range(n_chunks):
        lo, hi = c * chunk_size, (c + 1) * chunk_size - 1
        if unit_days:
            first, last = f"day {lo // unit_days}", f"day {hi // unit_days}"
        else:
            first, last = str(date_of(lo)), str(date_of(hi))  # type: ignore[operator]
        out.append({"chunk": c, "first": first, "last": last,
                    "events": "; ".join(text for row, text in events if lo <= row <= hi)})
    return pd.DataFrame(out)


def stream_events(dataset: str, *, chunk_size: int = 1000, n_chunks: int | None = None,
                  data_dir: str | None = None) -> pd.DataFrame:
    """Per chunk of a real stream: its first and last date and the known events within it.

    Columns ``chunk``, ``first``, ``last`` (dates; powersupply: days from its start, its card
    gives no dates) and ``events`` (text, empty where none).

    >>> import os
    >>> ev = stream_events("elec2", data_dir=os.environ.get("PUDD_DATA_DIR"))  # doctest: +SKIP
    >>> ev.loc[ev.events != "", ["chunk", "events"]].values.tolist()[0]  # doctest: +SKIP
    [3, 'NSW daylight saving begins (1996-10-27)']
    """
    readers = {"elec2": _elec2_events, "airline": _airline_events,
               "powersupply": _powersupply_events}
    if dataset not in readers:
        raise _validation.ParameterError(
            "dataset", f"no calendar for {dataset!r}: choose one of {', '.join(readers)}",
            tuple(readers))
    stream = load_stream(dataset, seed=0, data_dir=data_dir, chunk_size=chunk_size,
                         n_chunks=n_chunks)
    return readers[dataset](_file(dataset, data_dir), chunk_size, stream.n_chunks)


def timeline_configs(datasets: Sequence[str] = REAL_STREAMS, *,
                     classifiers: Sequence[str] = ("gnb",),
                     seeds: Sequence[int] = (0,)) -> list[RunConfig]:
    """The runs set beside the calendars: PUDD-1/3/5 and the seven classic detectors, -I.

    Per stream, classifier and seed (in that order), the ten detectors.

    >>> cfgs = timeline_configs(["elec2"])
    >>> len(cfgs), cfgs[0].alpha, cfgs[3].detector, {c.regime for c in cfgs}
    (10, 0.1, 'adwin', {'incremental'})
    >>> [(c.classifier, c.seed) for c in timeline_configs(["elec2"], classifiers=["gnb", "vfdt"],
    ...                                                   seeds=[0, 1])][::10]
    [('gnb', 0), ('gnb', 1), ('vfdt', 0), ('vfdt', 1)]
    """
    out = []
    for dataset in datasets:
        for classifier in classifiers:
            for seed in seeds:
                out += [RunConfig(dataset, classifier, "pudd", alpha=float(f"1e-{d[5:]}"),
                                  seed=seed) for d in PUDD_DETECTORS]
                out += [RunConfig(dataset, classifier, d, seed=seed) for d in CLASSIC_DETECTORS]
    return out


def same_every_seed(config: RunConfig) -> bool:
    """Whether ``config``'s run is the same at every seed (no part of it draws from the seed).

    On the real streams the data are never drawn and GNB and VFDT ignore the seed, so only
    PUDD (its bucketing sample) and KSWIN (its window sample) differ between seeds
    (:func:`~pudd_core.experiments.seeding.seed_dependence`).

    >>> same_every_seed(RunConfig("elec2", "gnb", "adwin")), same_every_seed(
    ...     RunConfig("elec2", "gnb", "kswin")), same_every_seed(RunConfig("elec2", "gnb", "pudd"))
    (True, False, False)
    """
    from pudd_core.experiments.seeding import seed_dependence

    return not seed_dependence(config).depends


def near_events(alarms: Sequence[int], event_chunks: Sequence[int], n_chunks: int,
                within: int = 1) -> tuple[int, float]:
    """Alarms at most ``within`` chunks after an event's chunk, and what chance would give.

    An alarm at chunk ``t`` can answer an event in chunks ``t - within .. t``. The chance
    level is the expected count if the same number of alarms fell on tested chunks (1 to
    ``n_chunks - 1``) uniformly at random: alarms times the share of tested chunks near an
    event.

    >>> near_events([3, 4, 20], [3], 30)  # 3 and 4 follow the event in 3; 2 of 29 near
    (2, 0.21)
    """
    near = _near_chunks(event_chunks, n_chunks, within)
    hits = sum(a in near for a in alarms)
    return hits, round(len(alarms) * len(near) / (n_chunks - 1), 2)


def _near_chunks(event_chunks: Sequence[int], n_chunks: int, within: int) -> set[int]:
    return {t for e in event_chunks for t in range(e, e + within + 1) if 1 <= t < n_chunks}


def near_p(alarms: int, near: int, n_near: int, n_tested: int) -> float:
    """P(at least ``near`` of ``alarms`` on the ``n_near`` near chunks) if they fell at random.

    A run alarms at most once a chunk, so ``alarms`` distinct tested chunks drawn at random
    from ``n_tested`` hold a hypergeometric number of the ``n_near``; this is its upper tail
    (1 when ``near`` is 0).

    >>> round(near_p(2, 2, 2, 29), 4)  # both alarms on the 2 near chunks: 1 / C(29, 2)
    0.0025
    >>> near_p(3, 0, 2, 29)
    1.0
    """
    from scipy import stats

    return float(stats.hypergeom.sf(near - 1, n_tested, n_near, alarms)) if near else 1.0


def timeline_summary(runs: pd.DataFrame, events: pd.DataFrame, within: int = 1) -> pd.DataFrame:
    """Per run: its alarms, those near a known event, chance's count and the tail p.

    ``runs``: ``dataset``, ``detector``, ``n_chunks``, ``alarms`` (a list or its JSON text),
    and ``classifier`` and ``seed`` where present (kept); ``events``: :func:`stream_events`'
    rows with a ``dataset`` column. Streams without events get ``events`` 0 and no count
    (NaN). ``p`` is :func:`near_p`; ``chance_share`` the share of tested chunks near an event.

    >>> runs = pd.DataFrame({"dataset": "s", "detector": ["a", "b"], "n_chunks": 30,
    ...                      "alarms": ["[3, 4, 20]", "[]"]})
    >>> events = pd.DataFrame({"dataset": "s", "chunk": [3], "events": ["x"]})
    >>> timeline_summary(runs, events)[["detector", "alarms", "near", "chance"]].values.tolist()
    [['a', 3, 2, 0.21], ['b', 0, 0, 0.0]]
    """
    import json

    out = []
    for run in runs.to_dict("records"):
        alarms = run["alarms"]
        alarms = json.loads(alarms) if isinstance(alarms, str) else list(alarms)
        chunks = events[(events["dataset"] == run["dataset"]) & (events["events"].fillna("")
                                                                != "")]["chunk"].tolist()
        n_chunks = int(run["n_chunks"])
        near, chance = (near_events(alarms, chunks, n_chunks, within)
                        if chunks else (np.nan, np.nan))
        n_near = len(_near_chunks(chunks, n_chunks, within))
        p = near_p(len(alarms), int(near), n_near, n_chunks - 1) if chunks else np.nan
        out.append({"dataset": run["dataset"],
                    **{k: run[k] for k in ("classifier", "seed") if k in run},
                    "detector": run["detector"], "alarms": len(alarms), "events": len(chunks),
                    "near": near, "chance": chance, "p": p,
                    "chance_share": n_near / (n_chunks - 1) if chunks else np.nan})
    return pd.DataFrame(out)


def timeline_spread(summary: pd.DataFrame) -> pd.DataFrame:
    """Per stream, classifier and detector: the spread over seeds of :func:`timeline_summary`.

    ``seeds``; the alarms' and the near counts' lowest, median and highest; ``chance``'s
    median; ``share`` (near alarms over all alarms, pooled over seeds) beside
    ``chance_share`` (the share of tested chunks near an event: what random alarms would
    give); ``above`` (seeds whose near count beats chance) and ``significant`` (seeds whose
    ``p`` is under 0.05). Streams without events are left out.

    >>> s = pd.DataFrame({"dataset": "s", "classifier": "gnb", "seed": [0, 1, 2],
    ...                   "detector": "a", "alarms": [2, 4, 3], "events": 1,
    ...                   "near": [1, 1, 0], "chance": [0.2, 0.4, 0.3], "p": [0.19, 0.35, 1.0],
    ...                   "chance_share": 0.1})
    >>> r = timeline_spread(s).iloc[0]
    >>> int(r["seeds"]), [float(r[f"near_{k}"]) for k in ("min", "median", "max")]
    (3, [0.0, 1.0, 1.0])
    >>> float(r["share"]), float(r["chance_share"]), int(r["above"]), int(r["significant"])
    (0.2222, 0.1, 2, 0)
    """
    part = summary[summary["events"] > 0]
    out = []
    for (dataset, classifier, detector), g in part.groupby(
            ["dataset", "classifier", "detector"], sort=False):
        row = {"dataset": dataset, "classifier": classifier, "detector": detector,
               "seeds": int(g["seed"].nunique())}
        for col in ("alarms", "near"):
            row.update({f"{col}_min": float(g[col].min()),
                        f"{col}_median": float(g[col].median()),
                        f"{col}_max": float(g[col].max())})
        total = float(g["alarms"].sum())
        row.update({"chance": float(g["chance"].median()),
                    "share": round(float(g["near"].sum()) / total, 4) if total else np.nan,
                    "chance_share": float(g["chance_share"].iloc[0]),
                    "above": int((g["near"] > g["chance"]).sum()),
                    "significant": int((g["p"] < 0.05).sum())})
        out.append(row)
    return pd.DataFrame(out)
