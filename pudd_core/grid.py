"""Grids of runs: expand a grid spec, run it on any executor, keep results in a Parquet store.

The store is keyed by each configuration's hash, so an interrupted grid resumes where it
stopped and a run is never computed twice. Executors: ``"serial"``, ``"joblib"`` (local
processes, the default) and, when an address is given, ``"ray"`` or ``"dask"`` (optional
extras: ``pip install "ray[default]"`` or ``pip install "dask[distributed]"``).
"""

from __future__ import annotations

import itertools
import os
import time
import traceback
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

import pandas as pd

from pudd_core.runner import RunConfig, run_experiment

__all__ = ["EXECUTORS", "ResultStore", "expand_grid", "parse_seeds", "run_grid", "safe_run"]

EXECUTORS = ("serial", "joblib", "ray", "dask")
_CONFIG_FIELDS = tuple(f.name for f in fields(RunConfig))
_ALPHA_DETECTORS = ("pudd", "ek")


def parse_seeds(spec: int | str | Sequence[int]) -> list[int]:
    """Seeds from ``"0-9"``, ``"0,3,7"``, a count ``10`` (seeds 0..9) or a list.

    Examples
    --------
    >>> parse_seeds("0-3"), parse_seeds("1,5"), parse_seeds(3)
    ([0, 1, 2, 3], [1, 5], [0, 1, 2])
    """
    if isinstance(spec, bool):
        raise ValueError(f"seeds must be a range like '0-9', a list or a count, got {spec!r}")
    if isinstance(spec, int):
        if spec < 1:
            raise ValueError(f"a seed count must be at least 1, got {spec}")
        return list(range(spec))
    if isinstance(spec, str):
        out: list[int] = []
        try:
            for part in spec.split(","):
                part = part.strip()
                if "-" in part:
                    lo, hi = (int(v) for v in part.split("-", 1))
                    if hi < lo:
                        raise ValueError
                    out.extend(range(lo, hi + 1))
                else:
                    out.append(int(part))
        except ValueError:
            raise ValueError(
                f"cannot read seeds {spec!r}: write a range '0-9', a list '0,3,7' or a count"
            ) from None
        if any(s < 0 for s in out):
            raise ValueError(f"seeds must be non-negative, got {spec!r}")
        return out
    return [int(s) for s in spec]


def expand_grid(spec: Mapping[str, Any]) -> list[RunConfig]:
    """The product of every list-valued field of a grid spec, as validated run configs.

    Keys are :class:`~pudd_core.runner.RunConfig` fields (a list means "each of"), plus
    ``seeds`` (see :func:`parse_seeds`). ``alpha`` only varies PUDD and EK runs: the baselines
    ignore it, so they are not repeated per alpha.

    Examples
    --------
    >>> cfgs = expand_grid({"dataset": "sea0", "detector": ["pudd", "ddm"],
    ...                     "alpha": [0.1, 0.001], "seeds": "0-1", "n_chunks": 20})
    >>> len(cfgs), sorted({(c.detector, c.alpha) for c in cfgs})
    (6, [('ddm', 0.001), ('pudd', 0.001), ('pudd', 0.1)])
    """
    spec = dict(spec)
    unknown = set(spec) - set(_CONFIG_FIELDS) - {"seeds"}
    if unknown:
        raise ValueError(
            f"unknown grid keys {sorted(unknown)}; use RunConfig fields "
            f"({', '.join(_CONFIG_FIELDS)}) and 'seeds'"
        )
    if "seeds" in spec:
        spec["seed"] = parse_seeds(spec.pop("seeds"))
    axes = {k: v if isinstance(v, list) else [v] for k, v in spec.items()}
    default_alpha = RunConfig().alpha
    seen: set[RunConfig] = set()
    out: list[RunConfig] = []
    for combo in itertools.product(*axes.values()):
        kwargs = dict(zip(axes, combo, strict=True))
        if kwargs.get("detector", "pudd") not in _ALPHA_DETECTORS:
            kwargs["alpha"] = default_alpha
        cfg = RunConfig(**kwargs)
        if cfg not in seen:
            cfg.validate()
            seen.add(cfg)
            out.append(cfg)
    return out


def safe_run(config: RunConfig, data_dir: str | None = None) -> dict[str, Any]:
    """Run one configuration; a crash becomes a row with its traceback, not an exception.

    Examples
    --------
    >>> row = safe_run(RunConfig(n_chunks=1))  # valid, but fails once the stream is loaded
    >>> row["status"], row["error"].splitlines()[-1]
    ('error', 'ValueError: a run needs at least two chunks: chunk 0 trains, the rest are tested')
    """
    try:
        row = run_experiment(config, data_dir=data_dir).summary()
        row.update(status="ok", error="")
    except Exception:  # recorded in the store; the grid goes on
        row = {f: getattr(config, f) for f in _CONFIG_FIELDS}
        for k in ("detector_options", "classifier_options", "stream_options"):
            row[k] = str(dict(row[k]))
        row.update(key=config.key(), status="error", error=traceback.format_exc())
    return row


class ResultStore:
    """Run summaries in Parquet part files under one folder, keyed by config hash.

    Rows are buffered and written in batches (``flush_every`` rows or ``flush_seconds``),
    each batch to a new part file via a temporary name and an atomic rename, so a crash
    loses at most the current batch and never corrupts the store.

    Examples
    --------
    >>> import tempfile
    >>> store = ResultStore(tempfile.mkdtemp())
    >>> store.put({"key": "abc", "accuracy": 0.9, "status": "ok"}); store.flush()
    >>> store.keys(), len(store.load())
    ({'abc'}, 1)
    """

    def __init__(self, path: str | os.PathLike[str], *, flush_every: int = 25,
                 flush_seconds: float = 10.0) -> None:
        self.path = Path(path)
        self.flush_every = flush_every
        self.flush_seconds = flush_seconds
        self._buffer: list[dict[str, Any]] = []
        self._last_flush = time.monotonic()

    def _parts(self) -> list[Path]:
        return sorted(self.path.glob("part-*.parquet")) if self.path.is_dir() else []

    def load(self) -> pd.DataFrame:
        """Every stored row (buffered rows included), newest result per key."""
        frames = [pd.read_parquet(p) for p in self._parts()]
        if self._buffer:
            frames.append(pd.DataFrame(self._buffer))
        if not frames:
            return pd.DataFrame(columns=["key", "status"])
        df = pd.concat(frames, ignore_index=True)
        return df.drop_duplicates("key", keep="last").reset_index(drop=True)

    def keys(self, *, status: str | None = "ok") -> set[str]:
        """Keys of stored runs (``status=None``: whatever their status)."""
        df = self.load()
        if status is not None and "status" in df:
            df = df[df["status"] == status]
        return set(df["key"].astype(str))

    def put(self, row: Mapping[str, Any]) -> None:
        """Buffer one row; flush when the batch is full or old enough."""
        self._buffer.append(dict(row))
        if (len(self._buffer) >= self.flush_every
                or time.monotonic() - self._last_flush >= self.flush_seconds):
            self.flush()

    def flush(self) -> None:
        """Write buffered rows to a new part file."""
        self._last_flush = time.monotonic()
        if not self._buffer:
            return
        self.path.mkdir(parents=True, exist_ok=True)
        frame = pd.DataFrame(self._buffer)
        for col in frame.columns:  # lists (alarms) and mixed objects as text for Parquet
            if frame[col].dtype == object:
                frame[col] = frame[col].map(lambda v: v if v is None else str(v))
        # names sort in write order, so the newest row of a key wins in load()
        name = f"part-{time.time_ns():020d}-{uuid.uuid4().hex[:8]}.parquet"
        tmp = self.path / f".{name}.tmp"
        frame.to_parquet(tmp, index=False)
        tmp.replace(self.path / name)
        self._buffer = []


def _executor_results(
    todo: Sequence[RunConfig], executor: str, n_jobs: int | None, address: str | None,
    data_dir: str | None,
) -> Iterator[dict[str, Any]]:
    if executor == "serial":
        for cfg in todo:
            yield safe_run(cfg, data_dir)
    elif executor == "joblib":
        from joblib import Parallel, delayed

        jobs = Parallel(n_jobs=n_jobs or -1, return_as="generator_unordered")
        yield from jobs(delayed(safe_run)(cfg, data_dir) for cfg in todo)
    elif executor == "ray":
        try:
            import ray
        except ImportError:
            raise ValueError(
                'executor "ray" needs Ray: pip install "ray[default]"; start a local cluster '
                "with `ray start --head` and pass its address (or 'auto')"
            ) from None
        ray.init(address=address or "auto", ignore_reinit_error=True)
        remote = ray.remote(safe_run)
        pending = [remote.remote(cfg, data_dir) for cfg in todo]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    elif executor == "dask":
        try:
            from distributed import Client, as_completed
        except ImportError:
            raise ValueError(
                'executor "dask" needs Dask: pip install "dask[distributed]"; start a local '
                "cluster with `dask scheduler` + `dask worker tcp://127.0.0.1:8786`"
            ) from None
        # distributed ships partial annotations; its constructors are untyped.
        with Client(address) if address else Client(processes=True) as client:  # type: ignore[no-untyped-call,unused-ignore]
            futures = client.map(safe_run, list(todo), data_dir=data_dir, pure=False)
            for fut in as_completed(futures):  # type: ignore[no-untyped-call,unused-ignore]
                yield fut.result()
    else:
        raise ValueError(f"executor must be one of {', '.join(EXECUTORS)}, got {executor!r}")


def run_grid(
    configs: Iterable[RunConfig],
    *,
    store: ResultStore | str | os.PathLike[str],
    executor: str = "joblib",
    n_jobs: int | None = None,
    address: str | None = None,
    progress: bool | Callable[[int, int], None] = True,
    data_dir: str | None = None,
) -> pd.DataFrame:
    """Run every configuration not yet in the store; return the stored rows of all of them.

    Every configuration is validated before any work starts. Runs already stored with
    status "ok" are skipped (resume); failed runs are retried. A run that raises is stored
    with ``status="error"`` and its traceback, and the grid goes on. Results do not depend on
    the executor: each run is a pure function of its configuration.

    Parameters
    ----------
    configs
        The runs.
    store
        A :class:`ResultStore` or its folder.
    executor
        ``"serial"``, ``"joblib"`` (all cores), ``"ray"`` or ``"dask"``.
    n_jobs
        Worker processes for joblib (default: all cores).
    address
        Cluster address for Ray (``"auto"``, ``"ray://host:10001"``) or Dask
        (``"tcp://host:8786"``); Dask without an address starts a local cluster.
    progress
        ``True`` for a tqdm bar on stderr, or a callback ``progress(done, total)``.
    data_dir
        Data folder passed to every run.

    Examples
    --------
    >>> import tempfile
    >>> cfgs = expand_grid({"detector": ["pudd", "ddm"], "seeds": "0-1", "n_chunks": 12})
    >>> df = run_grid(cfgs, store=tempfile.mkdtemp(), executor="serial", progress=False)
    >>> len(df), sorted(df["status"].unique())
    (4, ['ok'])
    """
    if executor not in EXECUTORS:
        raise ValueError(f"executor must be one of {', '.join(EXECUTORS)}, got {executor!r}")
    cfgs = list(dict.fromkeys(configs))
    for cfg in cfgs:
        cfg.validate(data_dir)
    st = store if isinstance(store, ResultStore) else ResultStore(store)
    done = st.keys(status="ok")
    todo = [c for c in cfgs if c.key() not in done]
    bar = None
    if progress is True and todo:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(todo), unit="run", desc="grid")
    try:
        for i, row in enumerate(_executor_results(todo, executor, n_jobs, address, data_dir), 1):
            st.put(row)
            if bar is not None:
                bar.update(1)
            elif callable(progress):
                progress(i, len(todo))
    finally:
        st.flush()
        if bar is not None:
            bar.close()
    keys = {c.key() for c in cfgs}
    df = st.load()
    return df[df["key"].isin(keys)].reset_index(drop=True)
