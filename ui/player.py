"""The Stream explorer's player: a chunk cursor over finished runs, stepped in an ``st.fragment``.

The runs are immutable (cached); stepping only moves ``state.EXPLORER_CURSOR``. "Next chunk",
"Reset" and the slider change it in callbacks, which rerun the fragment alone. "Play" sets a
flag that registers the fragment with ``run_every``: each automatic rerun advances the cursor
until the end (STYLE.md section 7: no loops, no sleeps). Playing keeps time like a video
player: each rerun shows the chunk the chosen speed has reached, at least the next one, so a
browser too slow to draw every chunk at 10 chunks/s skips some instead of falling behind.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

import streamlit as st

from pudd_core import plots
from pudd_core.explorer import ExplorerConfig, ExplorerView, explorer_view
from pudd_core.runner import RunResult
from ui import controls, state

#: Seconds per chunk while playing -> label.
SPEEDS = {1.0: "1 chunk/s", 0.5: "2 chunks/s", 0.3: "3 chunks/s", 0.1: "10 chunks/s"}
_SLIDER = f"w_{state.EXPLORER_CURSOR}"  # state.widget_key's name
_CLOCK = "explorer_play_clock"  # (started at, chunk then, seconds per chunk) while playing


def frame(cursor: int, last: int, clock: tuple[float, int, float], now: float) -> int:
    """The chunk to show at time ``now`` of a play started by ``clock``.

    The chunk the speed has reached, but always at least the next one and at most ``last``.

    >>> frame(5, 99, (100.0, 1, 0.1), now=100.05)   # early: still one step
    6
    >>> frame(5, 99, (100.0, 1, 0.1), now=101.0)    # 1 s at 10 chunks/s: chunk 11
    11
    >>> frame(95, 99, (100.0, 1, 0.1), now=130.0)
    99
    """
    started, first, seconds_per_chunk = clock
    due = first + int((now - started) / seconds_per_chunk + 1e-9)
    return min(max(cursor + 1, due), last)


def _move(to: int) -> None:
    """Set the cursor and the slider showing it (callbacks and before the slider is drawn)."""
    st.session_state[state.EXPLORER_CURSOR] = to
    if not state.get(state.EXPLORER_PLAYING):
        st.session_state[_SLIDER] = to


def _next(last: int) -> None:
    _move(min(int(state.get(state.EXPLORER_CURSOR)) + 1, last))


def _play(last: int) -> None:
    if int(state.get(state.EXPLORER_CURSOR)) >= last:
        _move(1)  # play from the start again
    st.session_state[state.EXPLORER_PLAYING] = True
    st.session_state.pop(_CLOCK, None)  # the clock starts at the first frame


def _tick(last: int) -> None:
    """Advance a playing cursor to the frame the clock has reached."""
    speed = float(state.get(state.EXPLORER_SPEED))
    cursor = int(state.get(state.EXPLORER_CURSOR))
    clock = st.session_state.get(_CLOCK)
    if clock is None or clock[2] != speed:  # started, or the speed changed: restart the clock
        clock = st.session_state[_CLOCK] = (time.monotonic(), cursor, speed)
    _move(frame(cursor, last, clock, time.monotonic()))


def _pause() -> None:
    st.session_state[state.EXPLORER_PLAYING] = False


def clamp(last: int) -> None:
    """Keep the cursor on a tested chunk of the current runs (``1 .. last``)."""
    cursor = int(state.get(state.EXPLORER_CURSOR))
    if not 1 <= cursor <= last:
        _move(min(max(cursor, 1), last))


def player(config: ExplorerConfig, runs: Sequence[RunResult]) -> None:
    """The controls and the four views, redrawn in place as the cursor moves."""
    interval = float(state.get(state.EXPLORER_SPEED)) if state.get(state.EXPLORER_PLAYING) \
        else None
    clamp(len(runs[0].chunks))
    st.fragment(run_every=interval)(_player)(config, tuple(runs), interval)


def _player(config: ExplorerConfig, runs: tuple[RunResult, ...], interval: float | None) -> None:
    start = time.perf_counter()
    last = len(runs[0].chunks)
    playing = bool(state.get(state.EXPLORER_PLAYING))
    if (float(state.get(state.EXPLORER_SPEED)) if playing else None) != interval:
        st.rerun(scope="app")  # Play, Pause or the speed changed: re-register run_every
    if playing:
        _tick(last)
    if playing and int(state.get(state.EXPLORER_CURSOR)) >= last:
        _pause()
        st.rerun(scope="app")  # the end: stop the automatic reruns
    _controls(last, playing)
    view = explorer_view(runs[0], runs[1:], int(state.get(state.EXPLORER_CURSOR)))
    _views(config, view)
    state.write_query("explorer")  # the link follows the cursor
    log_time("step", start)


def _controls(last: int, playing: bool) -> None:
    cols = st.columns([1.2, 1.6, 1.2, 1.4, 3.2], vertical_alignment="bottom")
    cols[0].button("Reset", icon=":material/first_page:", on_click=_move, args=(1,),
                   key="explorer_reset", width="stretch")
    cols[1].button("Next chunk", icon=":material/skip_next:", on_click=_next, args=(last,),
                   key="explorer_next", width="stretch", type="primary",
                   disabled=playing or int(state.get(state.EXPLORER_CURSOR)) >= last)
    if playing:
        cols[2].button("Pause", icon=":material/pause:", on_click=_pause, key="explorer_pause",
                       width="stretch")
    else:
        cols[2].button("Play", icon=":material/play_arrow:", on_click=_play, args=(last,),
                       key="explorer_play", width="stretch")
    cols[3].selectbox("Speed", list(SPEEDS), format_func=SPEEDS.__getitem__,
                      key=state.widget_key(state.EXPLORER_SPEED), on_change=state.commit,
                      args=(state.EXPLORER_SPEED,))
    cursor = int(state.get(state.EXPLORER_CURSOR))
    if playing:
        # no slider while playing: each automatic rerun would send back the value the
        # browser still shows, one chunk behind, and its on_change would undo the step
        st.session_state.pop(_SLIDER, None)
        cols[4].progress(cursor / last, text=f"Playing: chunk {cursor} of {last}")
    else:
        cols[4].slider("Jump to chunk", 1, max(last, 2), key=state.widget_key(
            state.EXPLORER_CURSOR), on_change=state.commit, args=(state.EXPLORER_CURSOR,),
            disabled=last < 2)


def _views(config: ExplorerConfig, v: ExplorerView) -> None:
    chunk = v.chunk
    x_range = (0.5, v.last + 0.5)
    # the p axis: down to the run's smallest p, but no further than 2α's exponent + 6
    floor = float(min(max(v.min_log10_p, -(2 * config.alpha_exponent + 6)),
                      -(config.alpha_exponent + 2)) // 1)
    metrics = st.columns(4)
    metrics[0].metric("Chunk", f"{v.cursor} / {v.last}")
    metrics[1].metric("Accuracy (PUDD's model)", f"{chunk.accuracy:.3f}")
    metrics[2].metric("PUDD's smallest p",
                      plots.p_text(chunk.p_value) if chunk.cut_p_values else "no test",
                      "alarm" if chunk.alarm else "no alarm", delta_arrow="off",
                      delta_color="orange" if chunk.alarm else "gray")  # always a delta: no jumps
    metrics[3].metric("PUDD alarms so far", len(v.alarms["PUDD"]))

    controls.plot(plots.detector_error_figure(
        v.chunk_index, v.error_rate, alarms=v.alarms, true_drifts=v.true_drifts,
        x_range=x_range, y_max=v.max_error,
        title="Error rate of each detector's model (hover: accuracy)"), "explorer_trace")
    st.caption(_trace_caption(v))
    left, right = st.columns(2)
    with left:
        controls.plot(plots.min_pvalue_figure(
            v.chunk_index, v.p_values, alpha=config.alpha, alarms=v.alarms["PUDD"],
            true_drifts=v.true_drifts, x_range=x_range, floor=floor,
            title="PUDD's smallest p, chunk by chunk"), "explorer_min_p")
        st.caption(f"The smallest p over each chunk's cut points: PUDD alarms when it falls "
                   f"below α (dash-dot). Below p = 1e{floor:g}, points sit on the floor as ▼ "
                   "(hover for p).")
    with right:
        cuts, p_values = [c for c, _ in chunk.cut_p_values], [p for _, p in chunk.cut_p_values]
        controls.plot(plots.cut_scan_figure(
            cuts, p_values, alpha=config.alpha, max_cut=v.max_cut, floor=floor,
            title=f"Every cut point's p at chunk {v.cursor}"), "explorer_cuts")
        st.caption(_cut_caption(v))

    if v.window is None:
        st.info("No χ² test has run yet: PUDD needs two chunks of history, and cuts are "
                "skipped while the recent window is the more accurate one.",
                icon=":material/hourglass_empty:")
    else:
        controls.plot(plots.window_histogram_figure(
            v.window, title=f"The two windows of the winning cut (test at chunk "
                            f"{v.window_chunk})"), "explorer_histogram")
        st.caption(_window_caption(v))
    if v.window is not None:
        st.markdown(f"**Contingency table of the test at chunk {v.window_chunk}** "
                    "(observed counts after the floor of 5 per cell; expected "
                    "E = row total × column total / N)")
        labels = [*(f"bucket u ≈ {c:.2f}" for c in v.window.bucket_centres), "misclassified"]
        st.caption("Columns: PUDD's buckets of correct predictions by centre, then every "
                   "misclassified prediction in one column.")
        # a static table: st.dataframe's interactive grid costs the browser about 90 ms per
        # redraw, a quarter of each frame while playing
        table = plots.contingency_table_frame(v.window.table, v.window.expected,
                                              column_labels=labels,
                                              row_labels=("Reference", "Recent"))
        expected = [name for name in table.index if name.endswith("expected")]
        st.table(table.style.format("{:,.0f}").format("{:,.1f}", subset=(expected, slice(None))))


def _trace_caption(v: ExplorerView) -> str:
    counts = ", ".join(f"{name} {len(a)}" for name, a in v.alarms.items())
    drifts = (f"Grey bands: true drifts (chunks {', '.join(map(str, v.true_drifts))}); "
              if v.true_drifts else "True drifts: none known for this stream. ")
    text = (f"{drifts}dotted lines: PUDD's alarms; triangles: each detector's alarms in its "
            f"own lane (so far: {counts}). ")
    if v.chunk.alarm:
        text += (f"**PUDD alarms at chunk {v.cursor}**: its model is retrained on the recent "
                 "window before the next chunk, and its history starts again.")
    elif v.chunk.adapted:
        text += "PUDD's model was just retrained after the alarm; its history starts again."
    return text


def _window_caption(v: ExplorerView) -> str:
    k = len(v.window.bucket_centres) if v.window is not None else 0
    stale = "" if v.window_chunk == v.cursor else (
        f" No test ran at chunk {v.cursor}; this is the latest one.")
    return (f"Bars: share of each window by PU-index (misclassified hatched); green dotted "
            f"lines: the {k} buckets PUDD fitted on the reference window's correct "
            f"predictions. Right: the {k} + 1 columns the χ² test compares.{stale}")


def _cut_caption(v: ExplorerView) -> str:
    chunk = v.chunk
    if not chunk.cut_p_values:
        return ("No test at this chunk: PUDD's history holds a single chunk (the first tested "
                "chunk, or the first after an alarm).")
    return (f"Cut i: the last i chunks (recent window) against the earlier ones. p = 1: a cut "
            f"the skip rule spared (the recent window was more accurate) or no change. Ringed, "
            f"the winning cut {chunk.cut_point}: {plots.p_text(chunk.p_value)}"
            f"{' < α: alarm' if chunk.alarm else ''}.")


def log_time(what: str, start: float) -> None:
    """Append ``what`` took since ``start`` (``perf_counter``) to ``$PUDD_TIMING_LOG``.

    One tab-separated line: wall clock, what (``step``: a player run; ``runs``: computing
    the runs), the cursor and milliseconds. The browser benchmark reads it.
    """
    path = os.environ.get("PUDD_TIMING_LOG")
    if path:
        ms = 1e3 * (time.perf_counter() - start)
        with open(path, "a", encoding="utf-8") as out:
            out.write(f"{time.time():.3f}\t{what}\t{state.get(state.EXPLORER_CURSOR)}\t{ms:.1f}\n")
