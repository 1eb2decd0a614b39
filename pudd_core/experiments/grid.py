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

import numpy as np
import pandas as pd

from pudd_core import _options
from pudd_core._validation import ParameterError
from pudd_core.experiments.detectors import DETECTORS, takes_alpha
from pudd_core.experiments.runner import RunConfig, run_experiment

__all__ = [
    "EXECUTORS", "MAX_SEEDS", "ResultStore", "StoreWarning", "StoreWriteError", "expand_grid",
    "load_grid_file", "parse_seeds", "run_grid", "safe_run", "save_fallback",
]

EXECUTORS = ("serial", "joblib", "ray", "dask")
_CONFIG_FIELDS = tuple(f.name for f in fields(RunConfig))


#: Most seeds one spec may name: a typo such as "0-100000000" is refused, not allocated.
MAX_SEEDS = 100_000


def _seed_error(spec: Any, why: str) -> ParameterError:
    return ParameterError(
        "seeds", f"cannot read seeds {spec!r}: {why}; write a range '0-9', a list '0,3,7' "
                 "or a count")


def _check_seed_count(spec: Any, n: int) -> None:
    if n > MAX_SEEDS:
        raise ParameterError(
            "seeds", f"seeds {spec!r} name {n} seeds, more than the {MAX_SEEDS} allowed; "
                     "split the work into smaller ranges")


def parse_seeds(spec: int | str | Sequence[int]) -> list[int]:
    """Seeds from ``"0-9"``, ``"0,3,7"``, a count ``10`` (seeds 0..9) or a list of integers.

    Seeds are integers >= 0, at most :data:`MAX_SEEDS` of them; anything else (``1.5``,
    ``"a"``, an empty list, ``True``) raises :class:`~pudd_core._validation.ParameterError`.

    Examples
    --------
    >>> parse_seeds("0-3"), parse_seeds("1,5"), parse_seeds(3)
    ([0, 1, 2, 3], [1, 5], [0, 1, 2])
    >>> parse_seeds([1.5])
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: cannot read seeds [1.5]: 1.5 is not an integer; ...
    """
    if isinstance(spec, bool | np.bool_):
        raise _seed_error(spec, "a boolean is not a seed")
    if isinstance(spec, int | np.integer):
        if spec < 1:
            raise ParameterError("seeds", f"a seed count must be at least 1, got {spec} "
                                 "(seed 0 alone: write the range '0-0')")
        _check_seed_count(spec, int(spec))
        return list(range(int(spec)))
    if isinstance(spec, str):
        out: list[int] = []
        for part in spec.split(","):
            part = part.strip()
            lo_text, dash, hi_text = part.partition("-")
            try:
                lo = int(lo_text)
                hi = int(hi_text) if dash else lo
            except ValueError:
                raise _seed_error(spec, f"{part!r} is not a seed or a range") from None
            if hi < lo:
                raise _seed_error(spec, f"the range {part!r} runs backwards")
            _check_seed_count(spec, len(out) + hi - lo + 1)
            out.extend(range(lo, hi + 1))
        if any(s < 0 for s in out):
            raise ParameterError("seeds", f"seeds must be non-negative, got {spec!r}")
        return out
    if not isinstance(spec, Sequence) or isinstance(spec, bytes):
        raise _seed_error(spec, f"a {type(spec).__name__} is not a seed list")
    if len(spec) == 0:
        raise _seed_error(spec, "the list is empty: give at least one seed")
    _check_seed_count(spec, len(spec))
    seeds: list[int] = []
    for s in spec:
        if isinstance(s, bool | np.bool_) or not isinstance(s, int | np.integer):
            what = f"{s!r} is not an integer"
            raise _seed_error(spec, what)
        if s < 0:
            raise ParameterError("seeds", f"seeds must be non-negative, got {s!r}")
        seeds.append(int(s))
    return seeds


def expand_grid(spec: Mapping[str, Any]) -> list[RunConfig]:
    """The product of every list-valued field of a grid spec, as validated run configs.

    Keys are :class:`~pudd_core.experiments.runner.RunConfig` fields (a list means "each of"), plus
    ``seeds`` (see :func:`parse_seeds`). ``alpha`` only varies PUDD and EK runs: the baselines
    ignore it, so they are not repeated per alpha.

    Examples
    --------
    >>> cfgs = expand_grid({"dataset": "sea0", "detector": ["pudd", "ddm"],
    ...                     "alpha": [0.1, 0.001], "seeds": "0-1", "n_chunks": 20})
    >>> len(cfgs), sorted({(c.detector, c.alpha) for c in cfgs})
    (6, [('ddm', 0.001), ('pudd', 0.001), ('pudd', 0.1)])
    """
    if not isinstance(spec, Mapping):
        raise ParameterError(
            "grid", f"a grid is a table of RunConfig fields and 'seeds', got {spec!r}")
    spec = dict(spec)
    unknown = set(spec) - set(_CONFIG_FIELDS) - {"seeds"}
    if unknown:
        raise ParameterError(
            "grid",
            f"unknown grid keys {sorted(unknown)}; use RunConfig fields "
            f"({', '.join(_CONFIG_FIELDS)}) and 'seeds'",
            (*_CONFIG_FIELDS, "seeds"),
        )
    if "seed" in spec and "seeds" in spec:
        raise ParameterError("grid", "give 'seeds' or 'seed', not both")
    if "seeds" in spec:
        spec["seed"] = parse_seeds(spec.pop("seeds"))
    for key, value in spec.items():
        if isinstance(value, list) and not value:
            raise ParameterError(key, f"grid key {key!r} is an empty list: give at least one "
                                      "value (or leave the key out for the default)")
    axes = {k: v if isinstance(v, list) else [v] for k, v in spec.items()}
    default_alpha = RunConfig().alpha
    seen: set[RunConfig] = set()
    out: list[RunConfig] = []
    for combo in itertools.product(*axes.values()):
        kwargs = dict(zip(axes, combo, strict=True))
        detector = kwargs.get("detector", RunConfig.detector)
        if not (isinstance(detector, str) and detector in DETECTORS and takes_alpha(detector)):
            kwargs["alpha"] = default_alpha
        cfg = RunConfig(**kwargs)
        if cfg not in seen:
            cfg.validate()
            seen.add(cfg)
            out.append(cfg)
    return out


#: The [run] table of a grid file: setting -> what it must be.
RUN_SETTINGS: Mapping[str, str] = {
    "store": "a folder path (text)",
    "executor": f"one of {', '.join(EXECUTORS)}",
    "n_jobs": "a positive number of worker processes, or -1 for every core",
    "address": "a cluster address (text)",
}


def check_n_jobs(n_jobs: Any) -> int | None:
    """``n_jobs``: None (every core), a positive count of worker processes, or -1 (every core).

    joblib reads other negative counts as "all cores but |n| - 1": -1000 on a small machine
    leaves fewer than one worker, which aborted the process; 0 means nothing. Both are refused.

    Examples
    --------
    >>> check_n_jobs(2), check_n_jobs(-1), check_n_jobs(None)
    (2, -1, None)
    >>> check_n_jobs(-1000)
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: n_jobs must be a positive number of worker ... got -1000
    """
    if n_jobs is None:
        return None
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or not (n_jobs >= 1
                                                                         or n_jobs == -1):
        raise ParameterError("n_jobs", "n_jobs must be a positive number of worker processes "
                                       f"or -1 (every core), got {n_jobs!r}")
    return n_jobs


def _check_executor_package(executor: str) -> None:
    """Ray or Dask must be installed before any work starts (not when the first run is sent)."""
    import importlib.util

    package = {"ray": "ray", "dask": "distributed"}.get(executor)
    if package is None:
        return
    try:
        found = importlib.util.find_spec(package) is not None
    except ValueError:  # in sys.modules as None: an import that failed
        found = False
    if not found:
        how = ('pip install "ray[default]"; start a local cluster with `ray start --head` and '
               "pass its address (or 'auto')" if executor == "ray"
               else 'pip install "dask[distributed]"')
        name = "Ray" if executor == "ray" else "Dask"
        raise ParameterError("executor", f'executor "{executor}" needs {name}: {how}')


def load_grid_file(path: str | os.PathLike[str]) -> tuple[list[RunConfig], dict[str, Any]]:
    r"""Read a grid TOML file: its ``[grid]`` runs, validated, and its ``[run]`` settings.

    Unknown tables or keys (a misspelt ``stroe``), wrongly typed settings, empty lists and
    invalid run fields raise :class:`~pudd_core._validation.ParameterError` before any work.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "g.toml"
    >>> _ = f.write_text("[grid]\nseeds = '0-1'\nn_chunks = 12\n[run]\nstroe = 'x'\n")
    >>> load_grid_file(f)
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: unknown key 'stroe' in the [run] table of ...g.toml; ...
    """
    import tomllib

    file = Path(path)
    if file.is_dir():
        raise ParameterError("config", f"{file} is a folder; pass the grid's TOML file")
    if not file.exists():
        raise ParameterError("config", f"no grid file {file}; check the path")
    try:
        spec = tomllib.loads(file.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ParameterError("config", f"{file} is not a text (TOML) file") from None
    except tomllib.TOMLDecodeError as exc:
        raise ParameterError("config", f"{file} is not valid TOML: {exc}") from None
    unknown = sorted(set(spec) - {"grid", "run"})
    if unknown:
        raise ParameterError(
            "config", f"unknown table(s) {', '.join(f'[{t}]' for t in unknown)} in {file}; "
                      "a grid file has a [grid] table and an optional [run] table",
            ("grid", "run"))
    grid = spec.get("grid")
    if not isinstance(grid, dict):
        raise ParameterError(
            "grid", f"{file} needs a [grid] table of RunConfig fields and 'seeds'"
                    + ("" if grid is None else f", not grid = {grid!r}"))
    settings = spec.get("run", {})
    if not isinstance(settings, dict):
        raise ParameterError("run", f"[run] in {file} must be a table, not run = {settings!r}")
    for key, value in settings.items():
        if key not in RUN_SETTINGS:
            raise ParameterError(
                key, f"unknown key {key!r} in the [run] table of {file}; valid keys: "
                     f"{', '.join(RUN_SETTINGS)}", tuple(RUN_SETTINGS))
        ok = {"store": isinstance(value, str) and value != "",
              "executor": value in EXECUTORS,
              "n_jobs": isinstance(value, int) and not isinstance(value, bool)
              and (value >= 1 or value == -1),
              "address": isinstance(value, str)}[key]
        if not ok:
            raise ParameterError(key, f"[run] {key} in {file} must be {RUN_SETTINGS[key]}, got "
                                      f"{value!r}")
    return expand_grid(grid), dict(settings)


def safe_run(config: RunConfig, data_dir: str | None = None) -> dict[str, Any]:
    """Run one configuration; a crash becomes a row with its traceback, not an exception.

    Examples
    --------
    >>> row = safe_run(RunConfig(n_chunks=12, stream_options={"bogus": 1}))  # fails at load
    >>> row["status"], row["error"].splitlines()[-1]
    ('error', "TypeError: load_stream('sea0') got unexpected option(s) bogus; accepted: ...")
    """
    try:
        row = run_experiment(config, data_dir=data_dir).summary()
        row.update(status="ok", error="")
    except Exception:  # recorded in the store; the grid goes on
        row = {f: getattr(config, f) for f in _CONFIG_FIELDS}
        for k in ("detector_options", "classifier_options", "stream_options"):
            row[k] = _options.options_json(row[k])
        row.update(key=config.key(), status="error", error=traceback.format_exc())
    return row


class StoreWarning(UserWarning):
    """A part file of a results store could not be read and was set aside.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("part-0001.parquet: not Parquet; set aside", StoreWarning)
    >>> caught[0].category is StoreWarning and issubclass(StoreWarning, UserWarning)
    True
    """


class StoreWriteError(OSError):
    """Rows could not be written to the store; ``fallback`` is where they were kept instead.

    Examples
    --------
    >>> err = StoreWriteError("the disk is full", Path("/tmp/pudd-results-x.jsonl"))
    >>> isinstance(err, OSError), str(err), err.fallback.name
    (True, 'the disk is full', 'pudd-results-x.jsonl')
    """

    def __init__(self, message: str, fallback: Path | None) -> None:
        super().__init__(message)
        self.fallback = fallback


def save_fallback(rows: Sequence[Mapping[str, Any]], stem: str = "pudd-results") -> Path | None:
    """Write ``rows`` as JSON lines to a new file; return its path (``None``: nowhere took them).

    The file goes to the temporary folder, else the current folder, else the home folder.

    Examples
    --------
    >>> path = save_fallback([{"key": "a1", "accuracy": 0.9}], stem="pudd-doctest")
    >>> path.name.startswith("pudd-doctest-"), path.read_text().splitlines()
    (True, ['{"key": "a1", "accuracy": 0.9}'])
    >>> path.unlink()
    """
    import json
    import tempfile

    name = f"{stem}-{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}.jsonl"
    for folder in (tempfile.gettempdir(), os.getcwd(), str(Path.home())):
        target = Path(folder) / name
        try:
            with open(target, "w", encoding="utf-8") as fh:
                for row in rows:
                    fh.write(json.dumps(dict(row), default=str) + "\n")
            return target
        except OSError:
            target.unlink(missing_ok=True)
    return None


class ResultStore:
    """Run summaries in Parquet part files under one folder, keyed by config hash.

    Rows are buffered and written in batches (``flush_every`` rows or ``flush_seconds``),
    each batch to a new part file via a temporary name and an atomic rename, so a crash
    loses at most the current batch and never corrupts the store. A part file that cannot
    be read (garbage, empty, half-written by another tool) is moved to ``corrupt/`` with a
    :class:`StoreWarning` naming it; its runs are then missing and a grid recomputes them.

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
        self.set_aside: list[Path] = []  # unreadable part files moved out of the way

    def check_writable(self) -> None:
        """Fail unless new part files can be written here; call it before any work.

        Raises :class:`~pudd_core._validation.ParameterError` with ``param="store"``;
        creates the folder if needed.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> f = pathlib.Path(tempfile.mkdtemp()) / "file"; _ = f.write_text("x")
        >>> ResultStore(f).check_writable()
        Traceback (most recent call last):
        ...
        pudd_core._validation.ParameterError: results store ... is a file, not a folder; ...
        """
        if self.path.exists() and not self.path.is_dir():
            raise ParameterError(
                "store", f"results store {self.path} is a file, not a folder; choose a folder "
                         "(--store)")
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            probe = self.path / f".probe-{uuid.uuid4().hex[:8]}.tmp"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            raise ParameterError(
                "store", f"results store {self.path} cannot be written ({reason}); choose a "
                         "writable folder (--store)") from None

    def _parts(self) -> list[Path]:
        return sorted(self.path.glob("part-*.parquet")) if self.path.is_dir() else []

    def _read_part(self, part: Path) -> pd.DataFrame | None:
        import warnings

        try:
            frame = pd.read_parquet(part)
            if "key" not in frame.columns:
                raise ValueError("it has no 'key' column")
            return frame
        except Exception as exc:  # any unreadable file: set it aside, keep the store usable
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            where = self.path / "corrupt" / part.name
            try:
                where.parent.mkdir(exist_ok=True)
                part.replace(where)
                moved = f"moved to {where}"
            except OSError:
                moved = "left in place (the store is read-only)"
            self.set_aside.append(part)
            warnings.warn(
                f"results store part {part} cannot be read ({reason}); {moved}; its runs "
                "will be recomputed", StoreWarning, stacklevel=3)
            return None

    def load(self) -> pd.DataFrame:
        """Every stored row (buffered rows included), newest result per key."""
        frames = [f for f in (self._read_part(p) for p in self._parts()) if f is not None]
        if self._buffer:
            frames.append(pd.DataFrame(self._buffer))
        if not frames:
            return pd.DataFrame(columns=["key", "status"])
        # a column that is all missing in one part (``error`` where every run was ok) takes
        # its dtype from the parts that hold values, as pandas will require
        columns = list(dict.fromkeys(c for f in frames for c in f.columns))
        df = pd.concat([f.dropna(axis=1, how="all") for f in frames], ignore_index=True)
        df = df.reindex(columns=columns)
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
        """Write buffered rows to a new part file.

        Raises :class:`StoreWriteError` if that fails (full disk, permissions): the rows are
        then kept in a fallback file (:func:`save_fallback`) whose path the error names.
        """
        self._last_flush = time.monotonic()
        if not self._buffer:
            return
        frame = pd.DataFrame(self._buffer)
        for col in frame.columns:  # lists (alarms) and mixed objects as text for Parquet
            if frame[col].dtype == object:
                frame[col] = frame[col].map(lambda v: v if v is None else str(v))
        # names sort in write order, so the newest row of a key wins in load()
        name = f"part-{time.time_ns():020d}-{uuid.uuid4().hex[:8]}.parquet"
        tmp = self.path / f".{name}.tmp"
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            frame.to_parquet(tmp, index=False)
            tmp.replace(self.path / name)
        except OSError as exc:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass
            rows, self._buffer = self._buffer, []
            fallback = save_fallback(rows)
            kept = (f"the {len(rows)} computed row(s) were saved to {fallback}" if fallback
                    else f"the {len(rows)} computed row(s) could not be saved anywhere")
            raise StoreWriteError(
                f"could not write to the results store {self.path} "
                f"({exc.strerror or type(exc).__name__}); {kept}", fallback) from exc
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
    check_n_jobs(n_jobs)
    _check_executor_package(executor)
    cfgs = list(dict.fromkeys(configs))
    for cfg in cfgs:
        cfg.validate(data_dir)
    st = store if isinstance(store, ResultStore) else ResultStore(store)
    done = st.keys(status="ok")
    todo = [c for c in cfgs if c.key() not in done]
    if todo:
        st.check_writable()  # a bad destination fails now, not after the runs
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
