"""Long work on a page: Run and Stop buttons, a progress bar with a time estimate, stopping.

A page lists its work as :class:`Task` objects (a lookup of the finished result and the
computation); :func:`run_tasks` draws the buttons, runs what is missing with a progress bar,
and returns whatever is finished. Work estimated under :data:`AUTO_SECONDS` starts by itself.

Stopping: the Stop button's callback marks the job stopped in ``session_state``. Streamlit
also ends the old script run at its next element update, so either the progress callback
sees the flag and raises :class:`Stopped`, or Streamlit's own stop exception ends the run;
finished tasks are cached (or stored) and stay, the stopped selection does not restart by
itself, and a message says what was kept.

Only a press of Run starts long work. The job key holds ``"run:<selection>"`` from the press
until a script run takes it up, then ``"running:<selection>"`` while that run computes. A
script run that ends without finishing (the user left the page, or changed a setting, and
Streamlit ended the run) leaves ``"running:…"`` behind; the next run of the page reads it as
stopped: finished work kept, the Run button offered, nothing restarted (issue 10). A press
of Run for one selection never starts another.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

Progress = Callable[[int, int], None]

#: Work estimated to take at most this many seconds starts without pressing Run.
AUTO_SECONDS = 20.0
_REDRAW_S = 0.1  # the bar moves at most this often
_IDLE, _RUN, _RUNNING, _STOP = "", "run:", "running:", "stop:"


class Stopped(Exception):
    """The user pressed Stop (raised by a progress callback, caught by :func:`run_tasks`)."""


@dataclass(frozen=True)
class Task:
    """One unit of long work: a lookup of its finished result and the computation."""

    label: str
    seconds: float  # estimate: weights the progress bar and the time left
    peek: Callable[[], Any]  # the finished result, or None
    compute: Callable[[Progress], Any]  # the result, reporting progress(done, total)
    unit: str = "chunk"  # what progress(done, total) counts


@dataclass(frozen=True)
class Outcome:
    """What :func:`run_tasks` ends with: a result per task (None: not computed)."""

    results: tuple[Any, ...]
    stopped: bool
    computed: int = 0  # tasks computed by this call (0: everything came from caches)

    @property
    def complete(self) -> bool:
        """Every task has its result."""
        return all(r is not None for r in self.results)


def duration(seconds: float) -> str:
    """``"45 s"``, ``"3 min"``, ``"1 h 20 min"``: a rough, readable time."""
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds // 3600:.0f} h {seconds % 3600 / 60:.0f} min"


def _selection(tasks: Sequence[Task]) -> str:
    return hashlib.sha256("|".join(t.label for t in tasks).encode()).hexdigest()[:12]


def _start(key: str, selection: str) -> None:
    st.session_state[key] = _RUN + selection


def _stop(key: str, selection: str) -> None:
    st.session_state[key] = _STOP + selection


def count(n: int, what: str) -> str:
    """``n`` and the plural noun ``what``, singular for one.

    >>> count(1, "runs"), count(3, "runs"), count(1, "alarms so far")
    ('1 run', '3 runs', '1 alarm so far')
    """
    if n != 1:
        return f"{n} {what}"
    first, _, rest = what.partition(" ")
    return f"1 {first[:-1] if first.endswith('s') else first}{' ' + rest if rest else ''}"


def run_tasks(key: str, tasks: Sequence[Task], *, what: str = "runs",
              auto: bool = True, auto_seconds: float | None = None,
              on_result: Callable[[Sequence[Any]], None] | None = None) -> Outcome:
    """Draw Run/Stop for ``tasks``, compute the missing ones with progress, return results.

    ``key`` is the page's job key in ``session_state`` (declared in ``ui/state.py``). With
    ``auto``, work estimated under ``auto_seconds`` (default :data:`AUTO_SECONDS`) starts
    without a click. ``on_result(results)`` is called after each task computed here, with
    every result so far (None: not yet), so a page can draw the first runs while the others
    compute. Errors raised by a task (``ValueError``, ``OSError``) propagate, with the job
    reset, so the page can show them next to the control that caused them.
    """
    results = [t.peek() for t in tasks]
    missing = [i for i, r in enumerate(results) if r is None]
    selection = _selection(tasks)
    job = str(st.session_state.get(key, _IDLE))
    if job.startswith(_RUNNING):  # the run that computed it ended unfinished: stopped
        job = st.session_state[key] = _STOP + job.removeprefix(_RUNNING)
    elif job.startswith(_RUN) and job != _RUN + selection:  # Run for another selection
        job = st.session_state[key] = _IDLE
    stopped_here = job == _STOP + selection
    if not missing:
        if job in (_RUN + selection, _STOP + selection):  # all done: nothing left to offer
            st.session_state[key] = _IDLE
        return Outcome(tuple(results), stopped=False)
    seconds = sum(tasks[i].seconds for i in missing)
    slot = st.container()
    limit = AUTO_SECONDS if auto_seconds is None else auto_seconds
    pressed = job == _RUN + selection
    if not (pressed or (auto and seconds <= limit and not stopped_here)):
        _offer(slot, key, tasks, missing, seconds, what, stopped=stopped_here)
        return Outcome(tuple(results), stopped=stopped_here)
    if pressed:  # taken up: if this run ends unfinished, the next one finds it stopped
        st.session_state[key] = _RUNNING + selection

    buttons = slot.empty()
    buttons.button(f"Stop the {what}", key=f"{key}_stop", on_click=_stop,
                   args=(key, selection), icon=":material/stop_circle:",
                   help="Finished work is kept; the running one is dropped.")
    bar = slot.progress(0.0, text=f"Starting {count(len(missing), what)} "
                                  f"(about {duration(seconds)}) …")
    start, before, n = time.monotonic(), 0.0, 0
    shown = [0.0]  # when the bar last moved
    try:
        for n, i in enumerate(missing, 1):
            task = tasks[i]
            weight = max(task.seconds, 1e-3)

            def report(done: int, total: int, *, task: Task = task, n: int = n,
                       weight: float = weight, before: float = before) -> None:
                if str(st.session_state.get(key, _IDLE)).startswith(_STOP):
                    raise Stopped
                now = time.monotonic()
                if now - shown[0] < _REDRAW_S and done < total:
                    return  # a few redraws a second: fast runs report every chunk
                shown[0] = now
                frac = min((before + weight * done / max(total, 1)) / max(seconds, 1e-3), 1.0)
                elapsed = now - start
                left = elapsed / frac * (1.0 - frac) if frac > 0.02 else seconds - elapsed
                step = f", {task.unit} {done} of {total}" if total > 1 else ""
                bar.progress(frac, text=f"{what.capitalize()} {n} of {len(missing)}: "
                                        f"{task.label}{step} · {duration(elapsed)} elapsed, "
                                        f"about {duration(max(left, 0.0))} left")

            results[i] = task.compute(report)
            before += weight
            if on_result is not None and n < len(missing):
                on_result(tuple(results))
    except Stopped:
        st.session_state[key] = _STOP + selection
        bar.empty()
        buttons.empty()
        still = [i for i in missing if results[i] is None]
        _offer(slot, key, tasks, still, sum(tasks[i].seconds for i in still), what,
               stopped=True)
        return Outcome(tuple(results), stopped=True, computed=n - 1)
    except Exception:
        # a task's error (bad data, bad choice): the page shows it; Streamlit's own
        # stop/rerun exceptions are BaseExceptions and leave "running:" for the next run
        if str(st.session_state.get(key, _IDLE)).startswith(_RUNNING):
            st.session_state[key] = _IDLE
        raise
    finally:
        bar.empty()
    buttons.empty()
    st.session_state[key] = _IDLE
    return Outcome(tuple(results), stopped=False, computed=len(missing))


def _offer(slot: Any, key: str, tasks: Sequence[Task], missing: Sequence[int], seconds: float,
           what: str, *, stopped: bool) -> None:
    """The Run button and what pressing it would cost."""
    done = len(tasks) - len(missing)
    left, right = slot.columns([1, 3], vertical_alignment="center")
    noun = count(len(missing), what).split(" ", 1)[1]
    left.button(f"Run the {len(missing)} missing {noun}" if done else f"Run {len(missing)} {noun}",
                key=f"{key}_run", type="primary", on_click=_start,
                args=(key, _selection(tasks)),
                icon=":material/play_arrow:")
    note = f"Stopped: {done} of {len(tasks)} {what} finished and kept. " if stopped else ""
    right.caption(f"{note}{count(len(missing), what)} to compute, about {duration(seconds)} on "
                  "2 CPU cores (estimated from BENCHMARKS.md).")
