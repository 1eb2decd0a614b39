"""The player's spec: a template plus a chunk's update equals the figure built for that chunk.

The browser applies the same merge (ui/player_component/player.js, applyUpdate), so these
checks are what keep the played charts equal to the builders' own.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pudd_core.experiments.runner import RunResult, run_experiment
from pudd_core.plots import cut_scan_figure, window_histogram_figure
from pudd_core.plots.player import apply_update, player_spec, to_json_ready
from pudd_core.plots.stream import SETTING_COLOURS
from pudd_core.views.explorer import ExplorerConfig, explorer_view


@pytest.fixture(scope="module")
def runs() -> list[RunResult]:
    return [run_experiment(c) for c in ExplorerConfig(n_chunks=30).run_configs()]


def _spec(pudd: RunResult, baselines: list[RunResult] | tuple[()] = ()) -> dict[str, Any]:
    return player_spec([[pudd]], [[b] for b in baselines], labels=["PUDD"])


@pytest.fixture(scope="module")
def spec(runs: list[RunResult]) -> dict[str, Any]:
    return _spec(runs[0], runs[1:])


def _plain(fig: Any) -> dict[str, Any]:
    out: dict[str, Any] = to_json_ready(fig.to_plotly_json())
    return out


def _floor(spec: dict[str, Any]) -> float:
    return float(spec["settings"][0]["cuts"]["figure"]["layout"]["yaxis"]["range"][0] + 0.5)


def test_every_chunks_cut_scan_equals_the_builders_figure(
    runs: list[RunResult], spec: dict[str, Any]
) -> None:
    cuts = spec["settings"][0]["cuts"]
    template = cuts["figure"]
    max_cut = max(c for log in runs[0].chunks for c, _ in log.cut_p_values)
    for i, log in enumerate(runs[0].chunks):
        built = _plain(cut_scan_figure(
            [c for c, _ in log.cut_p_values], [p for _, p in log.cut_p_values], alpha=1e-3,
            max_cut=max_cut, floor=_floor(spec),
            title=f"Every cut point's p at chunk {log.chunk_index}"))
        played = apply_update(template, cuts["frames"][i])
        by_name = {t["name"]: t for t in played["data"]}
        for trace in built["data"]:  # the builder leaves out the ring when there is no test
            if trace["name"] == "log10 p per cut":  # in the setting's colour
                assert by_name[trace["name"]]["line"]["color"] == SETTING_COLOURS[0]
                trace["line"]["color"] = SETTING_COLOURS[0]
            assert by_name[trace["name"]] == trace, (log.chunk_index, trace["name"])
        assert played["layout"]["annotations"] == built["layout"].get("annotations", [])
        assert played["layout"]["title"]["text"] == built["layout"]["title"]["text"]


def test_every_tests_windows_equal_the_builders_figure(
    runs: list[RunResult], spec: dict[str, Any]
) -> None:
    hist = spec["settings"][0]["hist"]
    assert hist["frames"]
    for chunk, update in hist["frames"].items():
        view = explorer_view(runs[0], runs[1:], int(chunk))
        assert view.window is not None and view.window_chunk == int(chunk)
        built = _plain(window_histogram_figure(
            view.window, title=f"The two windows of the winning cut (test at chunk {chunk})"))
        played = apply_update(hist["figure"], update)
        assert played["data"] == built["data"], chunk
        assert played["layout"]["shapes"] == built["layout"].get("shapes", []), chunk
        assert played["layout"]["title"]["text"] == built["layout"]["title"]["text"]


def test_growing_charts_hold_the_whole_run_and_say_what_the_browser_cuts(
    runs: list[RunResult], spec: dict[str, Any]
) -> None:
    trace = spec["charts"]["trace"]["figure"]
    growing = {t["name"] for t in trace["data"] if t.get("meta") == "prefix"}
    assert growing == {f"{n} {w}" for n in ("PUDD", "ADWIN", "DDM", "No detector (ref.)",
                                            "Oracle (ref.)")
                       for w in ("error rate", "alarm")}
    pudd = next(t for t in trace["data"] if t["name"] == "PUDD error rate")
    assert pudd["x"] == [c.chunk_index for c in runs[0].chunks]
    alarms = [s["x0"] for s in trace["layout"]["shapes"] if s.get("name") == "alarm"]
    assert alarms == list(runs[0].alarms)


def test_the_metrics_agree_with_the_run_at_every_chunk(
    runs: list[RunResult], spec: dict[str, Any]
) -> None:
    m = spec["settings"][0]["metrics"]
    for i, log in enumerate(runs[0].chunks):
        view = explorer_view(runs[0], runs[1:], log.chunk_index)
        assert m["accuracy"][i] == f"{log.accuracy:.3f}"
        assert m["alarm"][i] == log.alarm
        assert m["alarms_so_far"][i] == len(view.alarms["PUDD"])
        assert (m["p_text"][i] == "no test") == (log.no_test is not None)
        assert spec["settings"][0]["hist"]["at"][i] == view.window_chunk


def test_the_spec_is_strict_json_and_names_its_runs(
    runs: list[RunResult], spec: dict[str, Any]
) -> None:
    text = json.dumps(spec, allow_nan=False)  # NaN would break the browser's JSON.parse
    assert json.loads(text) == spec
    other = _spec(runs[0], runs[1:2])
    assert other["id"] != spec["id"] and other["names"] == ["PUDD", "ADWIN"]


# --- the count floor (issue 10 item 6) ----------------------------------------------------------
FLOOR_WORDS = "The count floor of"


@pytest.mark.parametrize(("options", "floor"), [({}, 5), ({"clamp_min": 3}, 3)])
def test_the_cut_caption_says_when_the_count_floor_decided_a_test(options: dict[str, int],
                                                                  floor: int) -> None:
    from pudd_core.experiments.runner import RunConfig

    run = run_experiment(RunConfig("sine", "gnb", "pudd", n_chunks=30, chunk_size=50,
                                   detector_options=options))
    captions = _spec(run)["settings"][0]["cuts"]["caption"]
    floored = [c for c in run.chunks if c.floored_cells]
    assert floored  # small chunks with few errors: the floor raises cells of some tests
    for log, caption in zip(run.chunks, captions, strict=True):
        n = log.floored_cells
        if not n:
            assert FLOOR_WORDS not in caption
            continue
        cells = f"{n} cell{'s' if n != 1 else ''}"
        assert f"**{FLOOR_WORDS} {floor} raised {cells} of this test's table**" in caption
        assert ("decided this p-value and this alarm" in caption) == log.alarm


def test_without_a_floor_no_caption_mentions_it() -> None:
    from pudd_core.experiments.runner import RunConfig

    run = run_experiment(RunConfig("sine", "gnb", "pudd", n_chunks=30, chunk_size=50,
                                   detector_options={"clamp_min": 0}))
    assert not any(c.floored_cells for c in run.chunks)
    captions = _spec(run)["settings"][0]["cuts"]["caption"]
    assert not any(FLOOR_WORDS in c for c in captions)
