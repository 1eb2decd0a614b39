"""ui.progress.run_tasks: auto start, Run button, Stop keeps finished work, errors reset."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

TIMEOUT = 30


def _script(seconds: float = 1.0, stop_in: str = "", fail_in: str = "",
            auto_seconds: float | None = None, leave_in: str = "") -> None:
    """Three fake tasks; ``stop_in`` presses Stop while that task runs, ``fail_in`` raises.

    ``leave_in``: Streamlit ends the script run while that task runs, as it does when the
    user leaves the page or changes a setting mid-run (once). ``session_state["names"]``
    replaces the tasks' names (another selection).
    """
    import hashlib
    from typing import Any

    import streamlit as st

    from ui.progress import Task, run_tasks

    done = st.session_state.setdefault("done", {})  # the "cache" of the fake tasks
    calls = st.session_state.setdefault("calls", [])

    def compute(name: str) -> Any:
        def run(progress: Any) -> str:
            calls.append(name)
            if name == fail_in:
                raise ValueError(f"{name} cannot run")
            if name == leave_in and not st.session_state.get("left"):
                st.session_state["left"] = True
                st.stop()  # Streamlit's StopException, a BaseException, mid-task
            if name == stop_in:
                st.session_state["job"] = "stop:" + st.session_state["selection"]
            progress(1, 2)
            progress(2, 2)
            done[name] = f"result {name}"
            return done[name]
        return run

    names = st.session_state.get("names", "abc")
    tasks = [Task(n, seconds, lambda n=n: done.get(n), compute(n)) for n in names]
    st.session_state["selection"] = hashlib.sha256("|".join(names).encode()).hexdigest()[:12]
    try:
        out = run_tasks("job", tasks, auto_seconds=auto_seconds,
                        on_result=lambda so_far: st.write(f"so far {list(so_far)}"))
    except ValueError as err:
        st.error(str(err))
    else:
        st.write(f"results {list(out.results)} stopped {out.stopped} computed {out.computed}")


def _texts(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown]


def test_cheap_work_starts_by_itself_and_is_then_served_from_the_cache() -> None:
    at = AppTest.from_function(_script, kwargs={"seconds": 1.0}, default_timeout=TIMEOUT)
    at.run()
    assert not at.exception
    assert _texts(at)[-1] == ("results ['result a', 'result b', 'result c'] stopped False "
                              "computed 3")
    at.run()
    assert _texts(at)[-1].endswith("computed 0")
    assert at.session_state["calls"] == ["a", "b", "c"]


def test_expensive_work_waits_for_the_run_button() -> None:
    at = AppTest.from_function(_script, kwargs={"seconds": 60.0}, default_timeout=TIMEOUT)
    at.run()
    assert [b.label for b in at.button] == ["Run 3 runs"]
    assert "about 3 min" in at.caption[0].value
    at.button(key="job_run").click().run()
    assert _texts(at)[-1].endswith("stopped False computed 3")


def test_stop_keeps_the_finished_tasks_and_does_not_restart_by_itself() -> None:
    at = AppTest.from_function(_script, kwargs={"seconds": 1.0, "stop_in": "b"},
                               default_timeout=TIMEOUT)
    at.run()
    assert not at.exception
    assert _texts(at)[-1] == "results ['result a', None, None] stopped True computed 1"
    assert at.caption[0].value.startswith("Stopped: 1 of 3 runs finished and kept.")
    assert [b.label for b in at.button] == ["Run the 2 missing runs"]
    at.run()  # any other interaction: still stopped, nothing recomputed
    assert at.session_state["calls"] == ["a", "b"]


def test_a_task_error_reaches_the_page_and_resets_the_job() -> None:
    at = AppTest.from_function(_script, kwargs={"seconds": 60.0, "fail_in": "b"},
                               default_timeout=TIMEOUT)
    at.run()
    at.button(key="job_run").click().run()
    assert not at.exception
    assert [e.value for e in at.error] == ["b cannot run"]
    assert at.session_state["job"] == ""


def test_each_finished_task_is_shown_before_the_last_one_is_done() -> None:
    at = AppTest.from_function(_script, kwargs={"seconds": 1.0}, default_timeout=TIMEOUT)
    at.run()
    assert _texts(at) == [
        "so far ['result a', None, None]",
        "so far ['result a', 'result b', None]",
        "results ['result a', 'result b', 'result c'] stopped False computed 3",
    ]


def test_a_page_can_start_longer_work_by_itself() -> None:
    at = AppTest.from_function(_script, kwargs={"seconds": 10.0, "auto_seconds": 30.0},
                               default_timeout=TIMEOUT)
    at.run()  # 3 x 10 s: under the page's 30 s, over the default 20 s
    assert not at.button
    assert _texts(at)[-1].endswith("stopped False computed 3")


def test_a_long_run_left_midway_comes_back_stopped_and_does_not_restart() -> None:
    at = AppTest.from_function(_script, kwargs={"seconds": 60.0, "leave_in": "b"},
                               default_timeout=TIMEOUT)
    at.run()
    at.button(key="job_run").click().run()  # Run, then the user leaves while b computes
    assert not at.exception
    assert at.session_state["calls"] == ["a", "b"]
    at.run()  # the user comes back
    assert not at.exception
    assert at.session_state["calls"] == ["a", "b"]  # nothing started by itself
    assert [b.label for b in at.button] == ["Run the 2 missing runs"]
    assert at.caption[0].value.startswith("Stopped: 1 of 3 runs finished and kept.")
    at.run()  # and stays stopped
    assert at.session_state["calls"] == ["a", "b"]
    at.button(key="job_run").click().run()  # only Run starts it again
    assert at.session_state["calls"] == ["a", "b", "b", "c"]
    assert _texts(at)[-1].endswith("stopped False computed 2")


def test_another_long_selection_chosen_meanwhile_waits_for_run_too() -> None:
    at = AppTest.from_function(_script, kwargs={"seconds": 60.0, "leave_in": "b"},
                               default_timeout=TIMEOUT)
    at.run()
    at.button(key="job_run").click().run()  # left while b computes
    at.session_state["names"] = "xyz"  # another long configuration, chosen meanwhile
    at.run()
    assert not at.exception
    assert at.session_state["calls"] == ["a", "b"]
    assert [b.label for b in at.button] == ["Run 3 runs"]
    at.session_state["names"] = "abc"  # back to the first: still stopped
    at.run()
    assert at.session_state["calls"] == ["a", "b"]
    assert [b.label for b in at.button] == ["Run the 2 missing runs"]


def test_a_run_pressed_for_one_selection_does_not_start_another() -> None:
    at = AppTest.from_function(_script, kwargs={"seconds": 60.0}, default_timeout=TIMEOUT)
    at.run()
    at.session_state["names"] = "xyz"  # changed in the same rerun as the press
    at.button(key="job_run").click().run()
    assert at.session_state["calls"] == []
    assert [b.label for b in at.button] == ["Run 3 runs"]
