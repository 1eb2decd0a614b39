"""The Stream explorer through AppTest: charts, stepping, playing, links and inline errors.

Each test opens a 30-chunk SEA run (``n_chunks=30`` in the link) so a run costs well under a
second; the runs are cached across tests in this process.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

import ui.explorer
from harness.apptest import open_page, player, shown, trace_named
from ui import cache

TIMEOUT = 60
PAGE = "pages/explorer.py"
SMALL = {"n_chunks": "30"}
ALPHA = "w_explorer_s0_0_alpha"  # the first PUDD setting's threshold (ui/pudd_settings.py)


def _open(query: dict[str, str] | None = None) -> AppTest:
    """A fresh session opening a link to the explorer (query parameters set before any run)."""
    return open_page(PAGE, {**SMALL, **(query or {})}, timeout=TIMEOUT, via_home=False)


def _chunk(at: AppTest) -> str:
    """The chunk the player opens at, as its counter shows it."""
    args = player(at)
    return f"{args['start']} / {args['spec']['last']}"


def _charts(at: AppTest) -> dict[str, dict[str, Any]]:
    """The player's whole-run figures (the browser cuts them at its cursor)."""
    charts = player(at)["spec"]["charts"]
    return {"explorer_trace": charts["trace"]["figure"],
            "explorer_min_p": charts["minp"]["figure"]}


# --- rendering ----------------------------------------------------------------------------------
def test_the_explorer_opens_with_the_default_run_and_its_charts() -> None:
    at = _open()
    assert at.title[0].value == "Stream explorer"
    assert _chunk(at) == "1 / 29"
    charts = _charts(at)
    names = [t.get("name") for t in charts["explorer_trace"]["data"]]
    assert names[:5] == ["Oracle (ref.) error rate", "No detector (ref.) error rate",
                         "DDM error rate", "ADWIN error rate", "PUDD-3 error rate"]
    assert {"True drift", "PUDD-3 alarm", "ADWIN alarm", "DDM alarm",
            "Oracle (ref.) alarm"} <= set(names)
    pudd = trace_named(charts["explorer_trace"], "PUDD-3 error rate")
    assert pudd["x"] == list(range(1, 30)) and pudd["meta"] == "prefix"  # cut by the browser
    assert charts["explorer_trace"]["layout"]["xaxis"]["range"] == [0.5, 29.5]
    assert [t.get("name") for t in charts["explorer_min_p"]["data"]] == [
        "PUDD-3 min p", "threshold α = 1e-03"]
    assert at.select_slider(key=ALPHA).value == 3
    assert list(at.multiselect(key="w_explorer_baselines").value) == [
        "adwin", "ddm", "none", "oracle"]
    assert not at.error


def test_the_default_link_is_written_back_to_the_address_bar() -> None:
    at = _open()
    assert {k: at.query_params[k] for k in ("dataset", "classifier", "regime", "pudd",
                                            "baselines", "chunk_size", "chunk", "seed")} == {
        "dataset": "sea0", "classifier": "gnb", "regime": "incremental", "pudd": "3",
        "baselines": "adwin,ddm,none,oracle", "chunk_size": "1000", "chunk": "1", "seed": "0"}


# --- where the player is ------------------------------------------------------------------------
def test_the_chunk_the_browser_left_in_the_address_is_where_the_next_run_opens() -> None:
    at = _open()
    spec_id = player(at)["spec"]["id"]
    at.query_params["chunk"] = "12"  # the player writes ?chunk= when it stops
    at.select_slider(key=ALPHA).set_value(4).run(timeout=TIMEOUT)
    assert _chunk(at) == "12 / 29" and at.query_params["chunk"] == "12"
    assert player(at)["spec"]["id"] != spec_id  # a new threshold: new runs for the player


def test_a_cursor_past_the_end_opens_at_the_last_chunk() -> None:
    at = _open({"chunk": "500"})
    assert _chunk(at) == "29 / 29" and at.query_params["chunk"] == "29"


def test_every_chunk_has_its_cut_scan_and_every_test_its_windows_and_table() -> None:
    spec = player(_open())["spec"]
    cuts = spec["settings"][0]["cuts"]["frames"]
    assert len(cuts) == 29
    scan = cuts[19]["traces"]["log10 p per cut"]
    assert scan["x"][0] == 1 and len(scan["x"]) >= 3
    hist = spec["settings"][0]["hist"]
    tested = [i + 1 for i, at in enumerate(hist["at"]) if at == i + 1]
    tables = spec["settings"][0]["tables"]
    assert tested and set(map(str, tested)) == set(hist["frames"]) == set(tables)
    table = tables[str(tested[-1])]
    assert [r[0] for r in table["rows"]] == ["Reference observed", "Reference expected",
                                             "Recent observed", "Recent expected"]
    assert table["columns"][-1] == "misclassified"


def test_an_alarm_chunk_says_so_and_the_next_chunk_has_no_test() -> None:
    spec = player(_open({"chunk": "20"}))["spec"]  # seed 0: PUDD-3 alarms at chunk 20
    m = spec["settings"][0]["metrics"]
    assert m["alarm"][19] is True and m["alarms_so_far"][19] == 1 and m["alarms_so_far"][18] == 0
    assert m["p_text"][20] == "no test" and m["alarm"][20] is False
    assert spec["settings"][0]["cuts"]["frames"][20]["layout"]["annotations"][0]["text"] == (
        "no test at this chunk")
    assert spec["settings"][0]["hist"]["at"][20] == 20  # the latest test is shown, and said so
    assert "No test ran at chunk 21" in spec["settings"][0]["hist"]["caption"][20]
    assert "**PUDD alarms at chunk 20**" in spec["charts"]["trace"]["caption"][19]


# --- settings -----------------------------------------------------------------------------------
def _alarms(at: AppTest) -> list[int]:
    lead = player(at)["spec"]["names"][0]  # the first setting: PUDD-x
    return trace_named(_charts(at)["explorer_trace"], f"{lead} alarm")["x"]


def test_a_looser_threshold_gives_pudd_more_alarms_and_the_baselines_keep_theirs() -> None:
    at = _open({"chunk": "29"})
    strict, ddm = _alarms(at), trace_named(_charts(at)["explorer_trace"], "DDM alarm")["x"]
    at.select_slider(key=ALPHA).set_value(1).run(timeout=TIMEOUT)
    loose = _alarms(at)
    assert strict and loose != strict and min(loose) < min(strict)  # α = 0.1 alarms earlier
    assert trace_named(_charts(at)["explorer_trace"], "DDM alarm")["x"] == ddm
    assert _charts(at)["explorer_min_p"]["layout"]["shapes"][-1]["y0"] == -1.0
    assert at.query_params["pudd"] == "1"


def test_a_link_reopens_the_same_run_with_every_setting() -> None:
    link = {"dataset": "sea10", "classifier": "gnb", "regime": "train-once", "pudd": "5",
            "baselines": "eddm,kswin", "chunk_size": "500", "n_chunks": "20", "chunk": "7",
            "seed": "3"}
    at = _open(link)
    assert at.selectbox(key="w_explorer_dataset").value == "sea10"
    assert at.selectbox(key="w_explorer_classifier").value == "gnb"
    assert at.radio(key="w_explorer_regime").value == "train-once"
    assert at.select_slider(key=ALPHA).value == 5
    assert list(at.multiselect(key="w_explorer_baselines").value) == ["eddm", "kswin"]
    assert at.number_input(key="w_explorer_chunk_size").value == 500
    assert at.number_input(key="w_explorer_n_chunks").value == 20
    assert at.number_input(key="w_app_seed").value == 3
    assert _chunk(at) == "7 / 19"
    names = [t.get("name") for t in _charts(at)["explorer_trace"]["data"]]
    assert "EDDM error rate" in names and "KSWIN error rate" in names
    assert {k: at.query_params[k] for k in link} == link


def test_a_bad_link_value_is_ignored_with_a_warning() -> None:
    at = _open({"baselines": "adwin,magic", "alpha": "42"})
    assert list(at.multiselect(key="w_explorer_baselines").value) == [
        "adwin", "ddm", "none", "oracle"]  # the default
    assert at.select_slider(key=ALPHA).value == 3
    warnings = " ".join(w.value for w in at.sidebar.warning)
    assert "baselines=adwin,magic" in warnings and "alpha=42" in warnings


def test_removing_every_baseline_leaves_pudd_alone() -> None:
    at = _open()
    at.multiselect(key="w_explorer_baselines").set_value([]).run(timeout=TIMEOUT)
    names = [t.get("name") for t in _charts(at)["explorer_trace"]["data"]]
    assert [n for n in names if n.endswith("error rate")] == ["PUDD-3 error rate"]
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
    assert errors == ["**Dataset**: the data of Elec2 (NSW electricity) "
                      "(`elec2/electricity.csv.gz`) is not on this server yet."]
    assert at.button(key="explorer_download").label.startswith("Download Elec2")
    assert any("/elec2/electricity.csv.gz" in c.value for c in at.main.caption)
    assert "load_stream(..., download=True)" in at.expander[0].markdown[0].value  # for Python
    assert not at.get("component_instance")
    assert at.select_slider(key=ALPHA).value == 5


def test_a_download_without_internet_says_where_to_put_the_file(
    no_real_data: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import urllib.error

    import pudd_core.streams

    def offline(*args: Any, **kwargs: Any) -> None:
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(pudd_core.streams, "load_stream", offline)
    at = _open({"dataset": "powersupply"})
    at.button(key="explorer_download").click().run(timeout=TIMEOUT)
    assert not at.exception
    message = shown(at.error[-1].value)
    assert message.startswith("The download did not work: <urlopen error [Errno -3]")
    assert "copy the file to `" in message and "powersupply.arff.gz" in message
    assert at.selectbox(key="w_explorer_dataset").value == "powersupply"  # nothing lost


def test_images_offer_only_the_cnns_and_say_why(no_real_data: None) -> None:
    at = _open({"dataset": "cifar10-cd", "classifier": "gnb"})
    assert at.selectbox(key="w_explorer_classifier").options == [
        "CNN pretrained on CIFAR-10's test images", "Small CNN from scratch",
        "ResNet-18 without BatchNorm"]
    assert at.selectbox(key="w_explorer_classifier").value == "pretrained-cnn"
    assert "`gnb` cannot learn CIFAR-10-CD" in at.warning[0].value
    assert any("is not on this server yet" in e.value for e in at.error)


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
    assert any("Upload a CSV file" in i.value for i in at.info)
    assert at.select_slider(key=ALPHA).value == 5
    assert at.query_params["dataset"] == "upload"


def test_an_invalid_csv_upload_is_an_inline_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # AppTest cannot upload files: feed the upload handler the bytes instead
    monkeypatch.setattr(ui.explorer, "read_upload", lambda file: b"just one column\n1\n2\n")
    at = _open({"dataset": "upload"})
    assert [e.value for e in at.error] == [
        "**CSV file**: the file has 1 column; a stream needs at least one feature column and "
        "a label column, separated by commas\n\nUpload a comma-separated file with a header "
        "row, feature columns and a label column."]
    assert not at.get("component_instance")


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
    assert not at.get("component_instance")
    [run] = [b for b in at.button if b.label.startswith("Run")]
    assert run.label == "Run 5 runs"  # PUDD, ADWIN, DDM and the two references
    assert any("5 runs to compute" in c.value for c in at.main.caption)
    # below, beside the Seeds and Chunks fields: where Run is, linked (issue 34 item 8)
    [note] = [i.value for i in at.info if "press **Run**" in i.value]
    assert "(#stream-explorer)" in note
    run.click().run(timeout=TIMEOUT)
    assert not [i for i in at.info if "press **Run**" in i.value]
    assert not at.exception
    assert _chunk(at) == "1 / 29"
    assert "explorer_trace" in _charts(at)  # the player is there
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


def test_a_header_only_upload_names_the_file_not_the_chunk_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ui.explorer, "read_upload", lambda file: b"a,b,c\n")
    at = _open({"dataset": "upload"})
    assert [e.value for e in at.error][0].startswith(
        "**CSV file**: the file has a header row but no data rows")


def test_the_label_column_guess_is_said_next_to_it(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = "".join(f"{i % 7},{(i * 3) % 5},{int(i % 7 + (i * 3) % 5 > 5)}\n" for i in range(400))
    monkeypatch.setattr(ui.explorer, "read_upload", lambda file: f"x,z,y\n{rows}".encode())
    at = _open({"dataset": "upload", "chunk_size": "50"})
    assert any("The last column is the label" in c.value for c in at.main.caption)
    at.selectbox(key="w_explorer_label").set_value("x").run(timeout=TIMEOUT)
    assert not any("The last column is the label" in c.value for c in at.main.caption)


def test_a_long_run_left_midway_is_stopped_not_restarted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 10: open ?n_chunks=5000, press Run, leave mid-run, come back: no restart."""
    import streamlit as st

    calls: list[str] = []

    def leave_midway(config: Any, **_: Any) -> Any:
        calls.append(config.detector)
        st.stop()  # what Streamlit does to a script run when its page is left mid-run

    monkeypatch.setattr(ui.explorer, "run_experiment", leave_midway)
    # the 5-million-sample stream is drawn before the run starts (8 s of CPU, a minute on a
    # loaded machine); the run that would read it never starts
    from pudd_core.experiments import pool

    monkeypatch.setattr(pool, "run_stream", lambda config: None)
    at = _open({"n_chunks": "5000", "seed": "12"})  # a selection no other test computes
    [run] = [b for b in at.button if b.label.startswith("Run")]
    run.click().run(timeout=TIMEOUT)
    assert calls == ["pudd"]
    at.switch_page("pages/home.py").run(timeout=TIMEOUT)  # the user leaves
    at.switch_page(PAGE).run(timeout=TIMEOUT)  # and comes back
    assert not at.exception
    assert calls == ["pudd"]  # nothing started by itself
    assert [b.label for b in at.button if b.label.startswith("Run")] == ["Run 5 runs"]
    assert any(c.value.startswith("Stopped: 0 of 5 runs") for c in at.main.caption)
    at.number_input(key="w_explorer_n_chunks").set_value(4000).run(timeout=TIMEOUT)
    assert calls == ["pudd"]  # another long configuration does not start either
    assert [b.label for b in at.button if b.label.startswith("Run")] == ["Run 5 runs"]


def _no_markdown_link(text: str) -> bool:
    """No unescaped ``](`` or ``<http`` in ``text``: Markdown would make a link of it."""
    import re

    bare = re.sub(r"\\.", "", text)  # escaped characters are text
    return "](" not in bare and "<http" not in bare and "[" not in bare


def test_an_uploads_file_and_column_names_are_shown_as_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    evil = "[click](https://evil.example/)"
    rows = "".join(f"{i % 7},1\n" for i in range(400))  # the label column: a single class
    monkeypatch.setattr(ui.explorer, "read_upload", lambda file: f"x,{evil}\n{rows}".encode())
    at = _open({"dataset": "upload", "chunk_size": "50"})
    [error] = [e.value for e in at.error]
    assert "has a single class" in error and _no_markdown_link(error)
    at.switch_page("pages/theorem2.py").run(timeout=TIMEOUT)
    name, data = at.session_state[ui.explorer._KEPT_UPLOAD]
    at.session_state[ui.explorer._KEPT_UPLOAD] = (f"{evil} ![i](https://evil.example/p.png)",
                                                  data)
    monkeypatch.setattr(ui.explorer, "read_upload", lambda file: None)
    at.switch_page(PAGE).run(timeout=TIMEOUT)
    [kept] = [c.value for c in at.main.caption if "uploaded earlier" in c.value]
    assert "evil.example" in kept and _no_markdown_link(kept) and "![" not in kept


def test_another_label_column_of_the_same_upload_gives_the_player_new_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = "".join(f"{i % 7},{(i * 3) % 5},{int(i % 7 + (i * 3) % 5 > 5)},{i % 2}\n"
                   for i in range(400))
    monkeypatch.setattr(ui.explorer, "read_upload", lambda file: f"x,z,y,w\n{rows}".encode())
    at = _open({"dataset": "upload", "chunk_size": "50"})
    first = player(at)["spec"]
    at.selectbox(key="w_explorer_label").set_value("y").run(timeout=TIMEOUT)
    second = player(at)["spec"]
    assert not at.exception and second["id"] != first["id"]  # same configs, other results
    accuracy = [s["settings"][0]["metrics"]["accuracy"] for s in (first, second)]
    assert accuracy[0] != accuracy[1]


# --- several quick runs at once ----------------------------------------------------------------
@pytest.fixture
def at_once(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Any]]:
    """The page's runs-at-once path, with the workers' call replaced by one that records it.

    The AppTests turn the worker processes off (``PUDD_WORKERS=1``, tests/conftest.py); here
    they are on, ready at once, and ``run_experiments`` runs in this process.
    """
    from pudd_core.experiments import pool, runner

    calls: dict[str, list[Any]] = {"at_once": [], "one_by_one": []}

    def fake_at_once(configs: Any, *, streams: Any) -> list[Any]:
        calls["at_once"].append(list(configs))
        return [runner.run_experiment(c, stream=s) for c, s in zip(configs, streams, strict=True)]

    def one_by_one(config: Any, **kwargs: Any) -> Any:
        calls["one_by_one"].append(config)
        return runner.run_experiment(config, **kwargs)

    class Warm:
        def warm(self) -> None:
            pass

        def ready(self) -> bool:
            return True

    monkeypatch.setenv("PUDD_WORKERS", "2")
    monkeypatch.setattr(pool, "workers", Warm)
    monkeypatch.setattr(pool, "AT_ONCE_SECONDS", (0.0, 60.0))
    monkeypatch.setattr(pool, "run_experiments", fake_at_once)
    monkeypatch.setattr(ui.explorer, "run_experiment", one_by_one)
    return calls


def test_runs_computed_at_once_are_shown_and_not_computed_again(
    at_once: dict[str, list[Any]]
) -> None:
    at = _open({"seed": "23"})  # a selection no other test has computed
    assert not at.exception and not at.error
    # PUDD-3, ADWIN, DDM and the two references in one call
    assert [len(c) for c in at_once["at_once"]] == [5]
    assert at_once["one_by_one"] == []  # the loop found them all cached
    assert _chunk(at) == "1 / 29"
    # the same runs one by one, in a fresh process's way: the page's numbers are theirs
    from pudd_core.experiments.runner import run_experiment

    [cfg] = [c for c in at_once["at_once"][0] if c.detector == "pudd"]
    shown_pudd = trace_named(_charts(at)["explorer_trace"], "PUDD-3 error rate")["y"]
    alone = run_experiment(cfg)
    assert shown_pudd == pytest.approx([100 * c.error_rate for c in alone.chunks])


def test_a_failure_at_once_falls_back_to_one_by_one(
    at_once: dict[str, list[Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(configs: Any, *, streams: Any) -> list[Any]:
        raise OSError("no worker could start")

    from pudd_core.experiments import pool

    monkeypatch.setattr(pool, "run_experiments", broken)
    at = _open({"seed": "24"})
    assert not at.exception and not at.error
    assert len(at_once["one_by_one"]) == 5
    assert _chunk(at) == "1 / 29"


def test_the_code_is_built_when_its_expander_opens() -> None:
    """Issue 34 item 10: built with the page, the collapsed code loaded Streamlit's 1.6 MB
    highlighter into every visit of the explorer."""
    at = _open({"seed": "4"})
    [box] = [e for e in at.expander if e.label == "Show the code"]
    assert not box.code  # nothing of it sent while it is closed
    at.session_state["explorer_code_open"] = True  # a click on it
    at.run(timeout=TIMEOUT)
    assert not at.exception
    [box] = [e for e in at.expander if e.label == "Show the code"]
    [code] = box.code
    compile(code.value, "shown", "exec")  # Python as shown
    calls = [line for line in code.value.splitlines() if "RunConfig(" in line]
    assert calls and all("seed=4" in c and "n_chunks=30" in c for c in calls), calls
