"""The Stream explorer through AppTest: charts, stepping, playing, links and inline errors.

Each test opens a 30-chunk SEA run (``n_chunks=30`` in the link) so a run costs well under a
second; the runs are cached across tests in this process.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import ui.explorer
from tests.app._apptest import figures, open_page, trace_named
from ui import cache

TIMEOUT = 60
PAGE = "pages/explorer.py"
SMALL = {"n_chunks": "30"}


def _open(query: dict[str, str] | None = None) -> AppTest:
    """A fresh session opening a link to the explorer (query parameters set before any run)."""
    return open_page(PAGE, {**SMALL, **(query or {})}, timeout=TIMEOUT, via_home=False)


def _chunk(at: AppTest) -> str:
    return next(m.value for m in at.metric if m.label == "Chunk")


def _click(at: AppTest, key: str) -> None:
    at.button(key=key).click().run(timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]


# --- rendering ----------------------------------------------------------------------------------
def test_the_explorer_opens_with_the_default_run_and_its_charts() -> None:
    at = _open()
    assert at.title[0].value == "Stream explorer"
    assert _chunk(at) == "1 / 29"
    charts = figures(at)
    assert {"explorer_trace", "explorer_min_p", "explorer_cuts"} <= set(charts)
    names = [t.get("name") for t in charts["explorer_trace"]["data"]]
    assert names[:3] == ["DDM error rate", "ADWIN error rate", "PUDD error rate"]
    assert {"True drift", "PUDD alarm", "ADWIN alarm", "DDM alarm"} <= set(names)
    assert len(trace_named(charts["explorer_trace"], "PUDD error rate")["x"]) == 1
    assert charts["explorer_trace"]["layout"]["xaxis"]["range"] == [0.5, 29.5]
    assert [t.get("name") for t in charts["explorer_min_p"]["data"]] == [
        "PUDD min p", "threshold α = 1e-03"]
    assert at.select_slider(key="w_explorer_alpha_exp").value == 3
    assert list(at.multiselect(key="w_explorer_baselines").value) == ["adwin", "ddm"]
    assert not at.error


def test_the_default_link_is_written_back_to_the_address_bar() -> None:
    at = _open()
    assert {k: at.query_params[k] for k in ("dataset", "classifier", "regime", "alpha",
                                            "baselines", "chunk_size", "chunk", "seed")} == {
        "dataset": "sea0", "classifier": "gnb", "regime": "incremental", "alpha": "3",
        "baselines": "adwin,ddm", "chunk_size": "1000", "chunk": "1", "seed": "0"}


# --- stepping -----------------------------------------------------------------------------------
def test_next_chunk_advances_the_counter_and_adds_a_point_to_every_series() -> None:
    at = _open()
    _click(at, "explorer_next")
    _click(at, "explorer_next")
    assert _chunk(at) == "3 / 29"
    charts = figures(at)
    assert len(trace_named(charts["explorer_trace"], "DDM error rate")["x"]) == 3
    assert len(trace_named(charts["explorer_min_p"], "PUDD min p")["x"]) == 3
    assert at.slider(key="w_explorer_chunk").value == 3
    assert at.query_params["chunk"] == "3"


def test_the_slider_jumps_and_reset_goes_back_to_the_first_chunk() -> None:
    at = _open()
    at.slider(key="w_explorer_chunk").set_value(20).run(timeout=TIMEOUT)
    assert _chunk(at) == "20 / 29"
    charts = figures(at)
    assert "explorer_histogram" in charts  # a test has run by now
    cuts = charts["explorer_cuts"]["data"][0]
    assert cuts["x"][0] == 1 and len(cuts["x"]) >= 3
    table = at.table[0].value  # observed and expected rows of both windows
    assert table.shape[0] == 4 and table.columns[-1] == "misclassified"
    _click(at, "explorer_reset")
    assert _chunk(at) == "1 / 29" and at.slider(key="w_explorer_chunk").value == 1


def test_an_alarm_chunk_says_so_and_the_next_chunk_has_no_test() -> None:
    at = _open({"chunk": "20"})  # seed 0: PUDD-3 alarms at chunk 20 of this stream
    deltas = {m.label: m.proto.delta for m in at.metric}
    assert deltas["PUDD's smallest p"] == "alarm"
    assert next(m.value for m in at.metric if m.label == "PUDD alarms so far") == "1"
    assert trace_named(figures(at)["explorer_trace"], "PUDD alarm")["x"] == [20]
    _click(at, "explorer_next")
    assert next(m.value for m in at.metric if m.label == "PUDD's smallest p") == "no test"
    assert {m.label: m.proto.delta for m in at.metric}["PUDD's smallest p"] == "no alarm"
    assert figures(at)["explorer_cuts"]["layout"]["annotations"][0]["text"] == (
        "no test at this chunk")
    assert "test at chunk 20" in figures(at)["explorer_histogram"]["layout"]["title"]["text"]


def _cursor(at: AppTest) -> int:
    return int(_chunk(at).split(" / ")[0])


def test_play_advances_each_rerun_and_shows_progress_instead_of_the_slider() -> None:
    at = _open()
    _click(at, "explorer_play")  # AppTest has no timer: each run is one tick
    first = _cursor(at)  # at least one chunk on; more if the run took longer than 1 s
    assert first >= 2
    assert at.session_state["explorer_playing"] is True
    assert at.button(key="explorer_pause") and not at.slider
    at.run(timeout=TIMEOUT)
    second = _cursor(at)
    assert second > first
    _click(at, "explorer_pause")
    assert at.session_state["explorer_playing"] is False
    assert _cursor(at) == second and at.slider(key="w_explorer_chunk").value == second


def test_playing_keeps_time_by_skipping_chunks_the_browser_had_no_time_to_draw() -> None:
    from ui.player import frame

    clock = (50.0, 1, 0.1)  # started at t = 50 s on chunk 1, at 10 chunks/s
    assert frame(1, 99, clock, now=50.01) == 2  # every rerun shows a new chunk
    assert frame(2, 99, clock, now=50.35) == 4  # 0.35 s in: chunk 1 + 3
    assert frame(4, 99, clock, now=50.36) == 5  # drawing faster than the clock: one by one
    assert frame(30, 99, clock, now=80.0) == 99  # never past the end
    slow = (0.0, 10, 1.0)  # 1 chunk/s from chunk 10
    assert [frame(c, 99, slow, now=t) for c, t in ((10, 1.0), (11, 2.0), (12, 3.5))] == [
        11, 12, 13]


def test_play_stops_by_itself_at_the_last_chunk() -> None:
    at = _open({"chunk": "28"})
    _click(at, "explorer_play")
    assert _chunk(at) == "29 / 29"
    assert at.session_state["explorer_playing"] is False
    assert at.button(key="explorer_play")


# --- settings -----------------------------------------------------------------------------------
def _alarms(at: AppTest) -> list[int]:
    return trace_named(figures(at)["explorer_trace"], "PUDD alarm")["x"]


def test_a_looser_threshold_gives_pudd_more_alarms_and_the_baselines_keep_theirs() -> None:
    at = _open({"chunk": "29"})
    strict, ddm = _alarms(at), trace_named(figures(at)["explorer_trace"], "DDM alarm")["x"]
    at.select_slider(key="w_explorer_alpha_exp").set_value(1).run(timeout=TIMEOUT)
    loose = _alarms(at)
    assert strict and loose != strict and min(loose) < min(strict)  # α = 0.1 alarms earlier
    assert trace_named(figures(at)["explorer_trace"], "DDM alarm")["x"] == ddm
    assert figures(at)["explorer_min_p"]["layout"]["shapes"][-1]["y0"] == -1.0
    assert at.query_params["alpha"] == "1"


def test_a_link_reopens_the_same_run_with_every_setting() -> None:
    link = {"dataset": "sea10", "classifier": "gnb", "regime": "train-once", "alpha": "5",
            "baselines": "eddm,kswin", "chunk_size": "500", "n_chunks": "20", "chunk": "7",
            "seed": "3"}
    at = _open(link)
    assert at.selectbox(key="w_explorer_dataset").value == "sea10"
    assert at.selectbox(key="w_explorer_classifier").value == "gnb"
    assert at.radio(key="w_explorer_regime").value == "train-once"
    assert at.select_slider(key="w_explorer_alpha_exp").value == 5
    assert list(at.multiselect(key="w_explorer_baselines").value) == ["eddm", "kswin"]
    assert at.number_input(key="w_explorer_chunk_size").value == 500
    assert at.number_input(key="w_explorer_n_chunks").value == 20
    assert at.number_input(key="w_app_seed").value == 3
    assert _chunk(at) == "7 / 19"
    names = [t.get("name") for t in figures(at)["explorer_trace"]["data"]]
    assert "EDDM error rate" in names and "KSWIN error rate" in names
    assert {k: at.query_params[k] for k in link} == link


def test_a_bad_link_value_is_ignored_with_a_warning() -> None:
    at = _open({"baselines": "adwin,magic", "alpha": "42"})
    assert list(at.multiselect(key="w_explorer_baselines").value) == ["adwin", "ddm"]
    assert at.select_slider(key="w_explorer_alpha_exp").value == 3
    warnings = " ".join(w.value for w in at.sidebar.warning)
    assert "baselines=adwin,magic" in warnings and "alpha=42" in warnings


def test_removing_every_baseline_leaves_pudd_alone() -> None:
    at = _open()
    at.multiselect(key="w_explorer_baselines").set_value([]).run(timeout=TIMEOUT)
    names = [t.get("name") for t in figures(at)["explorer_trace"]["data"]]
    assert [n for n in names if n.endswith("error rate")] == ["PUDD error rate"]
    assert at.query_params["baselines"] == ""


# --- inline errors ------------------------------------------------------------------------------
@pytest.fixture
def no_real_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PUDD_DATA_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("PUDD_CACHE_DIR", str(tmp_path / "cache"))
    cache.streams.clear()  # availability is cached for 30 s
    yield
    cache.streams.clear()


def test_a_missing_dataset_is_an_inline_error_and_the_settings_stay(no_real_data: None) -> None:
    at = _open({"dataset": "elec2", "alpha": "5"})
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and errors[0].startswith("**Dataset**: Elec2 (NSW electricity) "
                                                     "cannot be loaded here")
    assert "PUDD_DATA_DIR" in errors[0]
    assert not at.get("plotly_chart")
    assert at.select_slider(key="w_explorer_alpha_exp").value == 5


def test_images_offer_only_the_cnns_and_say_why(no_real_data: None) -> None:
    at = _open({"dataset": "cifar10-cd", "classifier": "gnb"})
    assert at.selectbox(key="w_explorer_classifier").options == [
        "CNN pretrained on CIFAR-10's test images", "Small CNN from scratch",
        "ResNet-18 without BatchNorm"]
    assert at.selectbox(key="w_explorer_classifier").value == "pretrained-cnn"
    assert "`gnb` cannot learn CIFAR-10-CD" in at.warning[0].value
    assert any("cannot be loaded here" in e.value for e in at.error)


def test_the_smallest_run_has_one_tested_chunk_and_one_chunk_is_refused() -> None:
    at = _open({"n_chunks": "2"})
    assert _chunk(at) == "1 / 1"  # chunk 0 trains, chunk 1 is tested
    at = _open({"n_chunks": "1"})
    assert "n_chunks=1" in at.sidebar.warning[0].value
    assert at.number_input(key="w_explorer_n_chunks").value is None  # the whole stream


def test_choosing_your_own_file_asks_for_it_and_keeps_the_other_settings() -> None:
    at = _open({"alpha": "5"})
    at.selectbox(key="w_explorer_dataset").set_value("upload").run(timeout=TIMEOUT)
    assert not at.exception and not at.error
    assert "Upload a CSV file" in at.info[0].value
    assert at.select_slider(key="w_explorer_alpha_exp").value == 5
    assert at.query_params["dataset"] == "upload"


def test_an_invalid_csv_upload_is_an_inline_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # AppTest cannot upload files: feed the upload handler the bytes instead
    monkeypatch.setattr(ui.explorer, "read_upload", lambda file: b"just one column\n1\n2\n")
    at = _open({"dataset": "upload"})
    assert [e.value for e in at.error] == [
        "**CSV file**: the file has 1 column; a stream needs at least one feature column and "
        "a label column, separated by commas\n\nUpload a comma-separated file with a header "
        "row, feature columns and a label column."]
    assert not at.get("plotly_chart")


def test_an_upload_with_too_few_rows_names_the_chunk_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ui.explorer, "read_upload", lambda file: b"a,b\n1,0\n2,1\n")
    at = _open({"dataset": "upload"})
    assert at.selectbox(key="w_explorer_label").value == "b"
    assert len(at.error) == 1 and at.error[0].value.startswith(
        "**Chunk size**: uploaded file has 2 rows, fewer than one chunk of 1000")


def test_a_valid_upload_runs_like_a_registry_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = "".join(f"{i % 7},{(i * 3) % 5},{int(i % 7 + (i * 3) % 5 > 5)}\n" for i in range(400))
    monkeypatch.setattr(ui.explorer, "read_upload", lambda file: f"x,z,y\n{rows}".encode())
    at = _open({"dataset": "upload", "chunk_size": "50"})
    assert not at.error
    assert _chunk(at) == "1 / 7"
    assert at.selectbox(key="w_explorer_label").value == "y"
    assert "dataset" in at.query_params and at.query_params["dataset"] == "upload"


def test_long_runs_wait_for_run_and_then_show_the_charts(monkeypatch: pytest.MonkeyPatch) -> None:
    import ui.progress

    monkeypatch.setattr(ui.progress, "AUTO_SECONDS", 0.0)  # every run counts as long
    at = _open({"seed": "11"})  # a selection no other test has computed
    assert "explorer_trace" not in figures(at)
    [run] = [b for b in at.button if b.label.startswith("Run")]
    assert run.label == "Run 3 runs"
    assert any("3 runs to compute" in c.value for c in at.main.caption)
    run.click().run(timeout=TIMEOUT)
    assert not at.exception
    assert _chunk(at) == "1 / 29"
    assert "explorer_trace" in figures(at)
    assert not [b for b in at.button if b.label.startswith("Run")]


def test_an_upload_is_still_there_after_visiting_another_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = "".join(f"{i % 7},{(i * 3) % 5},{int(i % 7 + (i * 3) % 5 > 5)}\n" for i in range(400))
    monkeypatch.setattr(ui.explorer, "read_upload", lambda file: f"x,z,y\n{rows}".encode())
    at = _open({"dataset": "upload", "chunk_size": "50"})
    assert _chunk(at) == "1 / 7"
    at.switch_page("pages/theorem2.py").run(timeout=TIMEOUT)
    # back on the explorer, Streamlit's uploader is new and empty
    monkeypatch.setattr(ui.explorer, "read_upload", lambda file: None)
    at.switch_page(PAGE).run(timeout=TIMEOUT)
    assert not at.exception and not at.error
    assert _chunk(at) == "1 / 7"
    assert any("uploaded earlier in this session" in c.value for c in at.main.caption)
