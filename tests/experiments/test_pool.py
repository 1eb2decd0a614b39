"""The explorer's worker pool: runs at once equal runs one by one; when runs go at once."""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pudd_core.experiments import pool
from pudd_core.experiments.pool import kept_stream, run_at_once, run_experiments
from pudd_core.experiments.runner import RunConfig, run_experiment, run_stream
from pudd_core.streams import get_info


@pytest.mark.integration
def test_runs_at_once_on_worker_processes_equal_the_runs_one_by_one():
    cfgs = [RunConfig("sea0", "gnb", d, seed=3, n_chunks=15) for d in ("pudd", "adwin", "ddm")]
    cfgs.append(RunConfig("sine", "gnb", "pudd", seed=3, n_chunks=12))  # the registry's stream
    shared = run_stream(cfgs[0])
    streams = [shared, shared, shared, None]
    at_once = run_experiments(cfgs, streams=streams, n_jobs=2)
    one_by_one = [run_experiment(c, stream=s) for c, s in zip(cfgs, streams, strict=True)]
    assert [r.config for r in at_once] == cfgs  # in the configs' order
    for a, b in zip(at_once, one_by_one, strict=True):
        assert (a.alarms, a.accuracy) == (b.alarms, b.accuracy)
        np.testing.assert_array_equal([c.p_value for c in a.chunks],  # NaN: no test, in both
                                      [c.p_value for c in b.chunks])


@pytest.mark.integration
def test_an_error_in_one_of_the_runs_at_once_is_raised_with_its_message():
    good = RunConfig("sea0", "gnb", "pudd", seed=0, n_chunks=8)
    bad = RunConfig("sea0", "gnb", "pudd", seed=0, n_chunks=1)  # a run needs two chunks
    with pytest.raises(ValueError, match="n_chunks must be None or an integer >= 2"):
        run_experiments([good, bad], n_jobs=2)
    with pytest.raises(ValueError, match="one stream"):
        run_experiments([good, bad], streams=[None])


@pytest.mark.integration
def test_the_workers_exit_when_their_server_is_killed(tmp_path):
    """Issue 25, item 11: a SIGKILLed server left its workers (~480 MB) alive for an hour."""
    import os
    import signal
    import subprocess
    import sys
    import time

    def alive(pid: int) -> bool:  # a zombie (dead, not yet reaped) counts as gone
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except FileNotFoundError:
            return False

    script = ("import os, sys, time\n"
              "from joblib import Parallel, delayed\n"
              "from pudd_core.experiments import pool\n"
              "pool.warm_workers(2)\n"
              "pids = set(Parallel(n_jobs=2, idle_worker_timeout=pool.WORKER_IDLE_S)(\n"
              "    delayed(pool._ready)() for _ in range(8)))\n"
              "print(' '.join(map(str, pids)), flush=True)\n"
              "time.sleep(600)\n")
    server = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                              text=True, cwd=os.getcwd())
    try:
        pids = [int(p) for p in server.stdout.readline().split()]
        assert pids and server.pid not in pids
        assert all(alive(pid) for pid in pids)  # while the server is
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=10)
        deadline = time.monotonic() + 15
        left = set(pids)
        while left and time.monotonic() < deadline:
            left = {pid for pid in left if alive(pid)}
            time.sleep(0.2)
        assert not left, f"workers {sorted(left)} outlived their server"
    finally:
        if server.poll() is None:
            server.kill()


def test_the_workers_are_used_once_warm_and_warmed_again_after_they_idled_out(
    monkeypatch: pytest.MonkeyPatch
) -> None:

    started: list[int] = []
    release = threading.Event()

    def warm() -> None:  # a cold start, held until released
        started.append(1)
        release.wait(10)

    monkeypatch.setattr(pool, "warm_workers", warm)
    monkeypatch.setattr(pool, "WORKER_IDLE_S", 3600)
    workers = pool.Workers()
    workers.warm()
    workers.warm()  # once per server
    assert started == [1] and not workers.ready()  # still starting: one by one
    release.set()
    workers._thread.join(5)  # type: ignore[union-attr]
    assert workers.ready() and started == [1]
    workers._used -= 3500  # an hour without runs at once: the workers have exited
    assert not workers.ready() and started == [1, 1]
    workers._thread.join(5)  # type: ignore[union-attr]
    assert workers.ready()


#: What an environment variable can hold: any character but NUL and lone surrogates
ENV_TEXT = st.characters(exclude_characters="\x00", exclude_categories=("Cs",))


# --- how long idle workers stay: $PUDD_WORKER_IDLE_S -----------------------------------------
def test_idle_workers_stay_the_seconds_the_environment_names(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.delenv(pool.WORKER_IDLE_ENV, raising=False)
    assert pool.worker_idle_s() == pool.WORKER_IDLE_S == 600
    for text, seconds in (("120", 120), (" 3600 ", 3600), ("10", 10), ("86400", 86_400),
                          ("", pool.WORKER_IDLE_S)):
        monkeypatch.setenv(pool.WORKER_IDLE_ENV, text)
        assert pool.worker_idle_s() == seconds
    assert not caplog.records


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=ENV_TEXT, max_size=12))
def test_any_value_of_the_workers_idle_time_gives_seconds_in_range_or_the_default_named(
        text: str) -> None:
    """Whatever $PUDD_WORKER_IDLE_S holds, the server starts: a whole number of seconds in
    range is taken, anything else is a warning naming the variable, and the default."""
    low, high = pool.WORKER_IDLE_RANGE
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(pool.WORKER_IDLE_ENV, text)
        with _warnings_of("pudd_core.experiments.pool") as logged:
            got = pool.worker_idle_s()
    stripped = text.strip()
    taken = stripped.isascii() and stripped.isdigit() and low <= int(stripped) <= high
    assert got == (int(stripped) if taken else pool.WORKER_IDLE_S)
    if taken or not stripped:
        assert not logged
    else:
        assert len(logged) == 1 and pool.WORKER_IDLE_ENV in logged[0], logged


@contextlib.contextmanager
def _warnings_of(name: str) -> Iterator[list[str]]:
    """The warnings logger ``name`` logs in the block (caplog is per test, not per example)."""
    logged: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.WARNING:
                logged.append(record.getMessage())

    handler = Keep()
    logger = logging.getLogger(name)
    logger.addHandler(handler)
    try:
        yield logged
    finally:
        logger.removeHandler(handler)


# --- the worker processes' switch: $PUDD_WORKERS ----------------------------------------------
@settings(max_examples=100, deadline=None)
@given(text=st.one_of(
    st.sampled_from(["0", "1", " 1 ", "", "2", "16", "abc", "off", "false", "-3", "1.5", "٣"]),
    st.text(alphabet=ENV_TEXT, max_size=8)))
def test_any_value_of_the_workers_switch_is_on_off_or_a_warning_naming_it(text: str) -> None:
    """$PUDD_WORKERS is a switch, not a count: the worker processes' number is the cores'.
    ``0`` or ``1`` (spaces around allowed) turns them off; unset, empty or a larger whole
    number leaves them on. Any other text (``off``, ``abc``, ``-3``, ``1.5``) is not silently
    read: it is a warning naming the variable and the values that turn them off, and they
    stay on (the default: the tests' and the benchmarks' ``PUDD_WORKERS=1`` is the only
    off switch in use, and a typo must not quietly make the app slower or faster than
    asked without saying so). One core: off whatever the value."""
    pool._warn_workers.cache_clear()
    stripped = text.strip()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(pool.WORKERS_ENV, text)
        mp.setattr(os, "cpu_count", lambda: 2)
        with _warnings_of("pudd_core.experiments.pool") as logged:
            on = pool.parallel()
            assert pool.parallel() == on  # asked on every page run: warned once
        mp.setattr(os, "cpu_count", lambda: 1)
        assert not pool.parallel()
    assert on == (stripped not in ("0", "1"))
    if stripped and not (stripped.isascii() and stripped.isdigit()):
        assert len(logged) == 1 and pool.WORKERS_ENV in logged[0], logged
        assert "0 or 1 turns the worker processes off" in logged[0]
    else:
        assert not logged, logged


def test_the_workers_are_warmed_again_after_the_idle_time_the_environment_names(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pool.WORKER_IDLE_ENV, "60")
    monkeypatch.setattr(pool, "warm_workers", lambda: None)
    workers = pool.Workers()
    workers.warm()
    workers._thread.join(5)  # type: ignore[union-attr]
    assert workers.ready()
    workers._used -= 50  # within 0.9 x 60 s: still there
    assert workers.ready()
    workers._used -= 55  # past it: they may have exited, so they are warmed again
    assert not workers.ready()


# --- when runs go at once ---------------------------------------------------------------------
class _Ready:
    def warm(self) -> None:
        pass

    def ready(self) -> bool:
        return True


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> list[list[Any]]:
    """Workers on and ready; ``run_experiments`` runs here and records its configs."""
    calls: list[list[Any]] = []

    def here(configs: Any, *, streams: Any) -> list[Any]:
        calls.append(list(configs))
        return [run_experiment(c, stream=s) for c, s in zip(configs, streams, strict=True)]

    monkeypatch.setenv("PUDD_WORKERS", "2")
    monkeypatch.setattr(pool, "workers", _Ready)
    monkeypatch.setattr(pool, "run_experiments", here)
    monkeypatch.setattr(pool.os, "cpu_count", lambda: 2)
    return calls


_CFGS = [RunConfig("sea0", "gnb", d, seed=5, n_chunks=6) for d in ("pudd", "ddm")]


def test_quick_runs_go_at_once_and_equal_the_runs_one_by_one(recorded):
    runs = run_at_once(_CFGS, 1.0, lambda: [None, None])
    assert recorded == [_CFGS]
    assert [r.alarms for r in runs] == [run_experiment(c).alarms for c in _CFGS]


@pytest.mark.parametrize(("configs", "seconds", "workers"), [
    (_CFGS[:1], 1.0, "2"),    # one run: nothing to share
    (_CFGS, 0.1, "2"),        # below the window: handing over costs what it saves
    (_CFGS, 100.0, "2"),      # above: Run, Stop and a progress bar per run instead
    (_CFGS, 1.0, "1"),        # PUDD_WORKERS=1 turns it off
])
def test_runs_go_one_by_one_outside_the_window_and_the_streams_are_not_made(
        recorded, monkeypatch, configs, seconds, workers):
    monkeypatch.setenv("PUDD_WORKERS", workers)
    made: list[int] = []
    assert run_at_once(configs, seconds, lambda: made.append(1) or [None] * len(configs)) is None
    assert recorded == [] and made == []


def test_workers_not_warm_yet_leave_the_runs_one_by_one(recorded, monkeypatch):
    class Cold(_Ready):
        def ready(self) -> bool:
            return False

    monkeypatch.setattr(pool, "workers", Cold)
    assert run_at_once(_CFGS, 1.0, lambda: [None, None]) is None and recorded == []


def test_a_failure_at_once_is_none_and_the_busy_context_was_left(recorded, monkeypatch):
    def broken(configs: Any, *, streams: Any) -> list[Any]:
        raise OSError("no worker could start")

    monkeypatch.setattr(pool, "run_experiments", broken)
    entered: list[str] = []

    class Busy:
        def __enter__(self) -> None:
            entered.append("in")

        def __exit__(self, *exc: object) -> None:
            entered.append("out")

    assert run_at_once(_CFGS, 1.0, lambda: [None, None], busy=Busy()) is None
    assert entered == ["in", "out"]


# --- kept streams -------------------------------------------------------------------------------
def test_a_small_stream_is_kept_and_equals_a_fresh_draw():
    cfg = RunConfig("sea0", "gnb", "pudd", seed=7, n_chunks=5)
    first = kept_stream(cfg, get_info("sea0"))
    assert kept_stream(RunConfig("sea0", "gnb", "ddm", seed=7, n_chunks=5),
                       get_info("sea0")) is first  # another detector: the same stream
    fresh = run_stream(cfg)
    for i in range(first.n_chunks):
        np.testing.assert_array_equal(first.chunk(i)[0], fresh.chunk(i)[0])
        np.testing.assert_array_equal(first.chunk(i)[1], fresh.chunk(i)[1])


def test_a_stream_over_the_limit_is_drawn_again(monkeypatch):
    monkeypatch.setattr(pool, "KEPT_STREAM_SAMPLES", 10)
    cfg = RunConfig("sea0", "gnb", "pudd", seed=8, n_chunks=5)
    assert kept_stream(cfg, get_info("sea0")) is not kept_stream(cfg, get_info("sea0"))


# --- the child for torch's work -----------------------------------------------------------------
def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, dead but not yet reaped, counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class _StopPressed(Exception):
    pass


@pytest.mark.integration
def test_a_run_in_the_child_equals_the_run_here_with_the_same_progress():
    cfg = RunConfig("sea0", "gnb", "pudd", seed=2, n_chunks=10)
    here, there = [], []
    child = pool.Child(idle_s=30)
    try:
        got = child.call(run_experiment, cfg, progress=lambda d, n: there.append((d, n)))
        pid = child.pid
        assert pid is not None and pid != os.getpid() and _alive(pid)
    finally:
        child.stop()
    want = run_experiment(cfg, progress=lambda d, n: here.append((d, n)))
    assert (got.alarms, got.accuracy) == (want.alarms, want.accuracy)
    np.testing.assert_array_equal([c.p_value for c in got.chunks],
                                  [c.p_value for c in want.chunks])
    assert there == here and there[-1] == (9, 9)  # every report, in order
    assert not _alive(pid)


@pytest.mark.integration
def test_an_error_in_the_child_is_raised_here_with_its_parameter():
    from pudd_core._validation import ParameterError

    child = pool.Child(idle_s=30)
    try:
        with pytest.raises(ParameterError, match="n_chunks") as info:
            child.call(run_experiment, RunConfig("sea0", "gnb", "pudd", n_chunks=1))
        assert info.value.param == "n_chunks"
        pid = child.pid
        assert pid is not None  # an error ends the call, not the child
        assert child.call(max, 2, 7) == 7 and child.pid == pid
    finally:
        child.stop()


@pytest.mark.integration
def test_stop_pressed_during_a_call_ends_the_child_and_the_next_call_starts_another():
    def stop(done: int, total: int) -> None:
        if done >= 2:
            raise _StopPressed

    child = pool.Child(idle_s=30)
    try:
        child.call(max, 1, 2)
        first = child.pid
        assert first is not None
        with pytest.raises(_StopPressed):
            child.call(run_experiment, RunConfig("sea0", "gnb", "pudd", n_chunks=40),
                       progress=stop)
        assert child.pid is None and not _alive(first)  # its work went with it
        assert child.call(min, 4, 3) == 3 and child.pid not in (None, first)
    finally:
        child.stop()


@pytest.mark.integration
def test_the_child_exits_when_idle():
    child = pool.Child(idle_s=1.0)
    assert child.call(sum, [1, 2, 3]) == 6
    pid = child.pid
    assert pid is not None
    deadline = time.monotonic() + 20
    # wait on the parent's own view (waitpid): /proc shows a leader whose other threads are
    # still ending as a zombie ("Z") before the process can be reaped, so polling /proc
    # raced with the reaping on a loaded machine
    while child.pid is not None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert child.pid is None and not _alive(pid)
    assert child.call(sum, [4]) == 4  # a new one for the next call


@pytest.mark.integration
def test_a_result_that_cannot_cross_processes_is_an_error_not_a_wait():
    child = pool.Child(idle_s=30)
    try:
        with pytest.raises(TypeError, match="cannot pickle"):
            child.call(threading.Lock)  # a lock cannot go back to the caller
        with pytest.raises(TypeError, match="cannot pickle"):
            child.call(max, threading.Lock())  # nor to the child
        assert child.call(max, 1, 2) == 2  # the child still serves
    finally:
        child.stop()


# What a Streamlit server does before a page's script runs (streamlit's ScriptRunner, "Install
# the fake module as the __main__ module"): sys.modules["__main__"] becomes a module whose
# __file__ is the app's script, with the script's folder on sys.path. A child started then must
# not run the app's script again: in bare mode it writes ~240 "missing ScriptRunContext"
# warnings per start to the server's log (issue 34, item 6).
_AS_THE_SERVER = """
import sys, types
from pathlib import Path
root = Path.cwd()
sys.path.insert(0, str(root))
main = types.ModuleType("__main__")
main.__file__ = str(root / "app.py")
sys.modules["__main__"] = main
from pudd_core.experiments import pool
from tests.experiments._child_probe import loaded
child = pool.Child(idle_s=30)
try:
    print(child.call(loaded, "streamlit", "ui", "torch"))
finally:
    child.stop()
"""


def test_a_child_started_during_a_page_run_never_runs_the_app_or_imports_streamlit():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", _AS_THE_SERVER], cwd=root, capture_output=True,
                          text=True, timeout=300)
    log = done.stdout + done.stderr  # the child writes to the same stderr as its parent
    assert done.returncode == 0, log
    assert "missing ScriptRunContext" not in log
    assert done.stdout.strip().splitlines()[-1] == str(
        {"streamlit": False, "ui": False, "torch": False})
