"""The app's worker processes: runs at once for the explorer, and a child for torch's work.

The app's pages compute a run in the server's own process; when a page needs several quick
runs, :func:`run_at_once` hands them to joblib's worker processes, which stay for
:func:`worker_idle_s` seconds for the next call. Warming them up (a cold worker imports
scikit-learn and river, 2-4 s) happens on a background thread (:class:`Workers`, one per
process); until they answer, the page computes its runs one by one. :func:`kept_stream`
keeps the last few registry streams for the next setting or seed. Work that imports torch
(the networks, their device, the pretrained backbone) goes to a :class:`Child` process that
exits when idle, so the server never holds torch's half gigabyte.

Nothing here imports Streamlit: the page makes one call, ``run_at_once``, and shows what it
returns.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import threading
import time
import warnings
from collections.abc import Callable, Generator, Iterable, Sequence
from concurrent.futures import Future
from typing import Any, TypeVar

from pudd_core.experiments.runner import RunConfig, RunResult, run_experiment, run_stream
from pudd_core.streams import Stream, StreamInfo

__all__ = [
    "AT_ONCE_SECONDS", "CHILD_IDLE_S", "KEPT_STREAM_SAMPLES", "WORKER_IDLE_ENV", "WORKER_IDLE_S",
    "WORKERS_ENV", "Child", "Workers", "in_workers", "kept_stream", "parallel", "run_at_once",
    "run_experiments", "torch_child", "warm_workers", "worker_idle_s", "workers",
]

_log = logging.getLogger(__name__)

T = TypeVar("T")


#: Idle worker processes of :func:`run_experiments` stay this long by default (joblib's default
#: is 300 s): starting one again imports scikit-learn and river, 2-4 s, more than the parallel
#: runs save; staying longer keeps their memory (about 230 MB each) after the last visitor.
#: ``$PUDD_WORKER_IDLE_S`` sets it (:func:`worker_idle_s`).
WORKER_IDLE_S = 600
WORKER_IDLE_ENV = "PUDD_WORKER_IDLE_S"
#: The seconds ``$PUDD_WORKER_IDLE_S`` may name.
WORKER_IDLE_RANGE = (10, 86_400)


def worker_idle_s(value: str | None = None) -> int:
    """Seconds an idle worker process stays: ``$PUDD_WORKER_IDLE_S``, else the default.

    ``value`` stands in for the variable's text where given. The default is
    :data:`WORKER_IDLE_S`. A value that is not a whole number of seconds in
    :data:`WORKER_IDLE_RANGE` is logged as a warning naming the variable, and the default is
    used: the app opens as it would without it.

    Examples
    --------
    >>> worker_idle_s("120"), worker_idle_s(" 3600 "), worker_idle_s("") == WORKER_IDLE_S
    (120, 3600, True)
    >>> worker_idle_s("ten minutes") == worker_idle_s("5") == WORKER_IDLE_S
    True
    """
    text = (os.environ.get(WORKER_IDLE_ENV, "") if value is None else value).strip()
    if not text:
        return WORKER_IDLE_S
    low, high = WORKER_IDLE_RANGE
    number = int(text) if text.isascii() and text.isdigit() else -1
    if not low <= number <= high:
        _log.warning("%s=%r is not a whole number of seconds from %d to %d: idle worker "
                     "processes stay %d s", WORKER_IDLE_ENV, text[:40], low, high, WORKER_IDLE_S)
        return WORKER_IDLE_S
    return number


def _cores() -> int:
    """The CPUs this process may use (its affinity, where the OS tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def _n_jobs(n_jobs: int | None, n_runs: int) -> int:
    cores = _cores()
    wanted = cores if n_jobs is None else (n_jobs if n_jobs > 0 else cores + 1 + n_jobs)
    return max(1, min(wanted, n_runs))


def run_experiments(
    configs: Iterable[RunConfig],
    *,
    streams: Sequence[Stream | None] | None = None,
    n_jobs: int | None = None,
    data_dir: str | None = None,
) -> list[RunResult]:
    """Several runs at once, on joblib's worker processes; their results in order.

    Each is :func:`run_experiment` of its config, on one worker per core (or ``n_jobs``; -1:
    every core, as joblib counts).

    ``streams[i]`` is passed as ``run_experiment(configs[i], stream=...)`` (None: the
    registry's); runs of one stream share it. One run, or one job, runs in this process.
    The results are the same as one by one (each run seeds itself from its config); an error
    in any run is raised here after the others finish. The workers stay for
    :func:`worker_idle_s` seconds for the next call (:func:`warm_workers` starts them early).

    Examples
    --------
    >>> cfgs = [RunConfig("sea0", "gnb", d, seed=1, n_chunks=12) for d in ("pudd", "ddm")]
    >>> stream = run_stream(cfgs[0])
    >>> both = run_experiments(cfgs, streams=[stream, stream], n_jobs=2)
    >>> [r.alarms for r in both] == [run_experiment(c, stream=stream).alarms for c in cfgs]
    True
    """
    configs = list(configs)
    given = list(streams) if streams is not None else [None] * len(configs)
    if len(given) != len(configs):
        raise ValueError(f"give one stream (or None) per config: {len(configs)} configs, "
                         f"{len(given)} streams")
    jobs = _n_jobs(n_jobs, len(configs))
    if jobs == 1:
        return [run_experiment(c, stream=s, data_dir=data_dir)
                for c, s in zip(configs, given, strict=True)]
    from joblib import Parallel, delayed

    runs = Parallel(n_jobs=jobs, idle_worker_timeout=worker_idle_s())(
        delayed(_run_in_worker)(c, s, data_dir)
        for c, s in zip(configs, given, strict=True))
    return list(runs)


def in_workers(fn: Callable[..., T], tasks: Iterable[tuple[Any, ...]],
               n_jobs: int) -> Generator[tuple[int, T], None, None]:
    """``fn(*task)`` for each of ``tasks`` on ``n_jobs`` worker processes, as each finishes.

    Yields ``(index of the task, its result)`` in the order they finish; ``tasks`` is read
    lazily, a few ahead of the workers. The workers are :func:`run_experiments`' (joblib's,
    kept :func:`worker_idle_s` seconds for the next call). A consumer that stops early
    (``close()``, or an exception in its loop) cancels the tasks not yet begun; an error in
    a task is raised here. ``n_jobs=1`` runs them here, one by one.

    Examples
    --------
    >>> sorted(in_workers(pow, [(2, 3), (3, 2)], n_jobs=1))
    [(0, 8), (1, 9)]
    """
    if n_jobs == 1:
        for i, task in enumerate(tasks):
            yield i, fn(*task)
        return
    from joblib import Parallel, delayed

    results = Parallel(n_jobs=n_jobs, idle_worker_timeout=worker_idle_s(),
                       return_as="generator_unordered")(
        delayed(_indexed)(fn, i, task) for i, task in enumerate(tasks))
    try:
        for item in results:  # noqa: UP028 - a close() must come here, not to joblib's
            yield item
    finally:
        with warnings.catch_warnings():  # a stop is what the caller asked for
            warnings.filterwarnings("ignore", r".* tasks which were still being processed")
            results.close()  # joblib aborts what is left


def _indexed(fn: Callable[..., T], i: int, task: tuple[Any, ...]) -> tuple[int, T]:
    _watch_parent()
    return i, fn(*task)


_PARENT_POLL_S = 1.0
_watched_parent: int | None = None  # set once per worker process by _watch_parent


def _watch_parent() -> None:
    """Exit this worker when the process that started it dies, even by SIGKILL.

    The workers wait :data:`WORKER_IDLE_S` for more runs; a server killed without its
    clean-up would leave them (hundreds of MB each) alive that long. An orphan is adopted by
    another process, so its parent id changes: the check costs a system call a second.
    """
    global _watched_parent
    if _watched_parent is not None:
        return
    _watched_parent = parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_POLL_S)
        os.kill(os.getpid(), signal.SIGKILL)  # nothing to save: results have nowhere to go

    import signal
    import threading

    threading.Thread(target=watch, name="pudd-parent-watch", daemon=True).start()


def _run_in_worker(config: RunConfig, stream: Stream | None,
                   data_dir: str | None) -> RunResult:
    _watch_parent()
    return run_experiment(config, stream=stream, data_dir=data_dir)


def _ready() -> int:
    _watch_parent()
    return os.getpid()


def warm_workers(n_jobs: int | None = None) -> int:
    """Start :func:`run_experiments`' worker processes now; returns how many answered.

    Each imports this module, so that the first parallel runs do not wait for that.
    """
    jobs = _n_jobs(n_jobs, _cores())
    if jobs == 1:
        return 1
    from joblib import Parallel, delayed

    pids = Parallel(n_jobs=jobs, idle_worker_timeout=worker_idle_s())(
        delayed(_ready)() for _ in range(2 * jobs))
    return len(set(pids))


#: Missing runs estimated at this many seconds in all (one after another) are computed on
#: every core at once before the one-by-one loop, which then finds them cached. Below, handing
#: them to the worker processes costs about what it saves; above, the user gets Run, Stop and
#: a progress bar per run instead. ``PUDD_WORKERS=1`` turns it off (the tests' AppTests).
AT_ONCE_SECONDS = (0.8, 8.0)


WORKERS_ENV = "PUDD_WORKERS"


def parallel() -> bool:
    """Whether runs go to worker processes: two cores or more, and not turned off.

    ``$PUDD_WORKERS`` is a switch: ``0`` or ``1`` turns the worker processes off, unset,
    empty or a larger whole number leaves them on (their number is the cores'). Anything
    else (``off``, ``-3``) is logged once as a warning naming the variable, and they stay on.
    """
    wanted = os.environ.get(WORKERS_ENV, "").strip()
    if wanted in ("0", "1"):
        return False
    if wanted and not (wanted.isascii() and wanted.isdigit()):
        _warn_workers(wanted[:40])
    return (os.cpu_count() or 1) > 1


@functools.lru_cache(maxsize=8)
def _warn_workers(text: str) -> None:
    """Warn once per value (:func:`parallel` is asked on every page run)."""
    _log.warning("%s=%r is not a whole number: 0 or 1 turns the worker processes off; they "
                 "stay on", WORKERS_ENV, text)


class Workers:
    """The server's worker processes: warmed in the background, then marked used.

    Started when the explorer is first opened: a cold start imports scikit-learn and river in
    each (2-4 s); until they answer, the page computes its runs one by one (a cold start would
    make the first runs at once slower than that). Workers idle for :func:`worker_idle_s` exit,
    so after such a pause they are warmed again the same way.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._used = 0.0

    def _start(self) -> None:
        self._thread = threading.Thread(target=warm_workers, name="pudd-warm-workers",
                                        daemon=True)
        self._thread.start()
        self._used = time.monotonic()

    def warm(self) -> None:
        """Start them, the first time the explorer is opened."""
        with self._lock:
            if self._thread is None:
                self._start()

    def ready(self) -> bool:
        """Whether they answer now, for runs about to be handed to them; if not, warm them."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return False
            if self._thread is None or time.monotonic() - self._used > 0.9 * worker_idle_s():
                self._start()
                return False
            self._used = time.monotonic()
            return True


@functools.cache
def workers() -> Workers:
    """The :class:`Workers` of this process, made on the first call.

    Examples
    --------
    >>> workers() is workers()  # one per server; made, not started
    True
    """
    return Workers()


def run_at_once(configs: Sequence[RunConfig], seconds: float,
                streams: Callable[[], Sequence[Stream | None]],
                busy: contextlib.AbstractContextManager[Any] | None = None,
                ) -> list[RunResult] | None:
    """The runs of ``configs`` on the worker processes, when several quick ones are missing.

    ``seconds`` is their estimated time one after another; ``streams()`` gives each run's
    stream (called only when the runs are handed over), and ``busy`` is entered while they
    run (a spinner). Returns None, running nothing, when the runs should go one by one: no
    worker processes (:func:`parallel`), fewer than two runs, an estimate outside
    :data:`AT_ONCE_SECONDS`, workers not warm yet (this call warms them), or a failure (the
    one-by-one loop then runs them again and shows the error).
    """
    if not parallel():
        return None
    workers().warm()
    if len(configs) < 2 or not AT_ONCE_SECONDS[0] <= seconds <= AT_ONCE_SECONDS[1]:
        return None
    if not workers().ready():  # until they answer: one by one
        return None
    try:
        with busy if busy is not None else contextlib.nullcontext():
            return run_experiments(configs, streams=streams())
    except Exception:  # noqa: BLE001 - the one-by-one loop runs them again and shows the error
        _log.info("parallel runs failed; computing them one by one", exc_info=True)
        return None


#: A :class:`Child` left idle this long exits, and with it torch, its networks and images.
CHILD_IDLE_S = 120.0


class _Relay:
    """Stands in the child for a progress callback of the parent, by its keyword."""

    def __init__(self, name: str) -> None:
        self.name = name


def _child_main(tasks: Any, replies: Any, idle_s: float) -> None:
    """The child's loop: call what comes, relay progress, reply; return when idle."""
    import pickle
    import queue

    _watch_parent()
    while True:
        try:
            fn, args, kwargs = pickle.loads(tasks.get(timeout=idle_s))
        except queue.Empty:
            return

        def relay(name: str) -> Callable[[int, int], None]:
            return lambda done, total: replies.put(("progress", name, done, total))

        kwargs = {k: relay(v.name) if isinstance(v, _Relay) else v for k, v in kwargs.items()}
        # pickled here, not by the queue's feeder thread, which would drop a failure silently
        # and leave the parent waiting
        try:
            replies.put(("done", pickle.dumps(fn(*args, **kwargs))))
        except Exception as exc:  # noqa: BLE001 - the parent raises it
            try:
                error = pickle.dumps(exc)
                pickle.loads(error)
            except Exception:  # noqa: BLE001 - an error that does not cross processes
                error = pickle.dumps(RuntimeError(f"{type(exc).__name__}: {exc}"))
            replies.put(("error", error))


class Child:
    """One spawned process for work that imports torch; it exits after ``idle_s`` idle.

    :meth:`call` runs a function there and returns its result (or raises its error);
    callable keyword arguments (progress callbacks) are called here as the child reports. An
    exception raised by such a callback (a Stop button) ends the child with its work, as does
    any interruption of the caller. One call at a time; the next one after an idle exit
    starts a new child (a fresh interpreter, then the imports of the function's module; never
    the caller's ``__main__``, which is the app's script in a Streamlit server).

    Examples
    --------
    >>> import operator
    >>> Child(idle_s=5).call(operator.add, 2, 3)
    5
    """

    def __init__(self, idle_s: float = CHILD_IDLE_S) -> None:
        self.idle_s = idle_s
        self._lock = threading.Lock()
        self._proc: Any = None
        self._queues: tuple[Any, Any] | None = None
        self._last = 0.0
        self._warm_lock = threading.Lock()
        self._warming: Future[Any] | None = None

    @property
    def pid(self) -> int | None:
        """The child's process id while it lives, else None."""
        proc = self._proc
        return proc.pid if proc is not None and proc.is_alive() else None

    def _ensure(self) -> tuple[Any, Any, Any]:
        # a child about to exit idle might miss the task: a fresh one instead
        if self._queues is None or self._proc is None or not self._proc.is_alive() or (
                self._stale()):
            self.stop()
            # A fresh interpreter (never fork a threaded server) that does not run the parent's
            # __main__ again: multiprocessing's "spawn" does, and in a Streamlit server
            # __main__ is the page run's module of app.py, so every child ran the whole app in
            # bare mode (imports of streamlit and the pages, ~240 "missing ScriptRunContext"
            # warnings in the server's log). loky's processes skip it (init_main_module=False).
            from joblib.externals.loky.backend.context import get_context

            ctx = get_context("loky")
            self._queues = (ctx.Queue(), ctx.Queue())
            self._proc = ctx.Process(target=_child_main, args=(*self._queues, self.idle_s),
                                     name="pudd-torch-child", daemon=True)
            self._proc.start()
        return self._proc, *self._queues

    def warm(self, fn: Callable[..., Any], /, *args: Any) -> Future[Any] | None:
        """Start the child now, from a background thread, with ``fn(*args)`` as its first call.

        For a page that will need the child: its start and imports (torch's, ``fn``'s) then
        overlap the page's own work, and the page's first :meth:`call` waits only for what is
        left of them. Nothing is started while a call runs, a warm-up is under way, or the
        child is alive and not about to exit idle; then None. Otherwise the warm-up's result
        (or error) as a future.

        Examples
        --------
        >>> import operator
        >>> child = Child(idle_s=5)
        >>> child.warm(operator.add, 2, 3).result(), child.warm(operator.add, 2, 3)
        (5, None)
        """
        with self._warm_lock:
            if self._warming is not None and not self._warming.done():
                return None
            if self._lock.locked() or (self.pid is not None and not self._stale()):
                return None
            future: Future[Any] = Future()
            self._warming = future

        def work() -> None:
            try:
                future.set_result(self.call(fn, *args))
            except BaseException as exc:  # noqa: BLE001 - the future carries it
                future.set_exception(exc)

        threading.Thread(target=work, name="pudd-child-warm", daemon=True).start()
        return future

    def _stale(self) -> bool:
        """Idle long enough that a new call would start a fresh child."""
        return time.monotonic() - self._last > 0.8 * self.idle_s

    def stop(self) -> None:
        """End the child now (its work is dropped)."""
        proc, self._proc, self._queues = self._proc, None, None
        if proc is not None and proc.is_alive():
            import signal

            hard = getattr(signal, "SIGKILL", None)  # loky's processes have no kill()
            if hard is None:
                proc.terminate()  # Windows: TerminateProcess, immediate already
            else:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(proc.pid, hard)
            proc.join(timeout=10)

    def call(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` in the child (``fn`` importable by name: spawn pickles it)."""
        import pickle
        import queue

        with self._lock:
            proc, tasks, replies = self._ensure()
            callbacks = {k: v for k, v in kwargs.items() if callable(v)}
            tasks.put(pickle.dumps((fn, args, {k: _Relay(k) if k in callbacks else v
                                               for k, v in kwargs.items()})))
            answered = False
            try:
                while True:
                    try:
                        message = replies.get(timeout=1.0)
                    except queue.Empty:
                        if not proc.is_alive():
                            answered = True  # nothing left to end
                            self._proc = None
                            raise OSError(f"the worker process for {fn.__name__} ended "
                                          f"(exit code {proc.exitcode}); see the server's log"
                                          ) from None
                        continue
                    if message[0] == "progress":
                        callbacks[message[1]](message[2], message[3])
                        continue
                    answered = True
                    if message[0] == "error":
                        raise pickle.loads(message[1])
                    return pickle.loads(message[1])
            finally:
                self._last = time.monotonic()
                if not answered:  # stopped or interrupted: its work goes with it
                    self.stop()


@functools.cache
def torch_child() -> Child:
    """The :class:`Child` of this process for torch's work, made on the first call.

    Examples
    --------
    >>> torch_child() is torch_child(), torch_child().idle_s == CHILD_IDLE_S
    (True, True)
    """
    return Child()


KEPT_STREAM_SAMPLES = 500_000  # longer streams are drawn again rather than kept


def kept_stream(config: RunConfig, info: StreamInfo | None) -> Stream:
    """``config``'s registry stream, kept (the last four) when it has at most 500,000 samples.

    Adding a PUDD setting runs one more model on the same stream: drawing a synthetic stream
    again would cost about as much as the run itself. ``info`` (the stream's registry entry,
    if any) gives the size a config leaves unset. Runs only read a stream's chunks, so the
    same object serves them all.

    Examples
    --------
    >>> from pudd_core.streams import get_info
    >>> pudd = RunConfig("sea0", "gnb", "pudd", seed=7, n_chunks=5)
    >>> ddm = RunConfig("sea0", "gnb", "ddm", seed=7, n_chunks=5)
    >>> kept_stream(pudd, get_info("sea0")) is kept_stream(ddm, get_info("sea0"))
    True
    """
    size = ((config.n_chunks or (info.n_chunks if info else 0) or 10**9)
            * (config.chunk_size or (info.chunk_size if info else 0) or 10**9))
    if size > KEPT_STREAM_SAMPLES:
        return run_stream(config)
    return _registry_stream(RunConfig(config.dataset, seed=config.seed,
                                      chunk_size=config.chunk_size, n_chunks=config.n_chunks,
                                      stream_options=config.stream_options))


@functools.lru_cache(maxsize=4)
def _registry_stream(config: RunConfig) -> Stream:
    """The stream of ``config`` (only its stream fields set)."""
    return run_stream(config)
