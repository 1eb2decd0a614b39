"""The "Your model's predictions" page through AppTest: the example log, mappings, bad files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from harness.apptest import open_page, player
from pudd_core import monitor
from ui.monitor import EXAMPLE

TIMEOUT = 60
PAGE = "pages/monitor.py"


def _open() -> AppTest:
    return open_page(PAGE, timeout=TIMEOUT, via_home=False)


@pytest.fixture(autouse=True)
def _allowed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Server paths on for the test's own folder only (the operator's setting)."""
    monkeypatch.setenv("PUDD_SERVER_DIRS", str(tmp_path))


def _use_path(at: AppTest, path: Path) -> AppTest:
    at.radio(key="w_monitor_source").set_value("A path on the server").run(timeout=TIMEOUT)
    at.text_input(key="w_monitor_path").set_value(str(path)).run(timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_page_opens_on_the_example_log_with_its_alarms_in_the_player() -> None:
    at = _open()
    assert at.title[0].value == "Your model's predictions"
    expected = monitor(EXAMPLE, label="label", proba_prefix="proba_", chunk_size=300)
    spec = player(at)["spec"]
    assert spec["last"] == expected.n_chunks == 49
    alarm_chunks = [i for i, a in enumerate(spec["settings"][0]["metrics"]["alarm"]) if a]
    assert alarm_chunks == list(expected.alarms)  # player chunk k + 1 = log chunk k
    assert at.selectbox(key="w_monitor_label").value == "label"
    assert at.text_input(key="w_monitor_proba_prefix").value == "proba_"
    assert not at.error
    assert any("2 alarms" in m.value for m in at.markdown)
    # how the columns were guessed: the names as code, not as escaped backticks
    why = [m.value for m in at.markdown if "a usual name for the true label" in m.value]
    assert why and "column `label`" in why[0] and "\\`" not in why[0]


def test_time_windows_on_the_example() -> None:
    at = _open()
    at.radio(key="w_monitor_chunking").set_value("Time windows").run(timeout=TIMEOUT)
    assert at.selectbox(key="w_monitor_time_column").value == "ts"  # guessed
    expected = monitor(EXAMPLE, label="label", proba_prefix="proba_", time_column="ts",
                       window="6h")
    assert player(at)["spec"]["last"] == expected.n_chunks
    assert not at.exception and not at.error


def test_a_bad_probability_is_shown_with_its_row_and_column(tmp_path: Path) -> None:
    frame = pd.read_parquet(EXAMPLE).head(3000)
    frame.loc[1234, "proba_1"] = 1.7
    path = tmp_path / "bad.csv"
    frame.to_csv(path, index=False)
    at = _use_path(_open(), path)
    [error] = at.error
    assert "row 1234, column 'proba_1'" in error.value.replace("\\", "")
    assert "above 1" in error.value


def test_unsorted_timestamps_and_a_non_log_path_are_refused(tmp_path: Path) -> None:
    frame = pd.read_parquet(EXAMPLE).head(3000)
    frame.loc[2000, "ts"] = pd.Timestamp("2023-01-01")
    path = tmp_path / "unsorted.parquet"
    frame.to_parquet(path)
    at = _use_path(_open(), path)
    at.radio(key="w_monitor_chunking").set_value("Time windows").run(timeout=TIMEOUT)
    assert not at.exception
    assert "not sorted" in at.error[0].value and "row 2000" in at.error[0].value
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    at.text_input(key="w_monitor_path").set_value(str(text)).run(timeout=TIMEOUT)
    shown = at.error[0].value.replace("\\", "")
    assert "is not a .csv, .jsonl, .ndjson or .parquet file" in shown
    assert "in the allowed folders" in shown


def test_a_file_that_is_not_a_log_names_the_problem(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text("a,b\n1,2\n3,4\n")
    at = _use_path(_open(), path)
    # no column has a label's name: the page asks (no column is taken as the label silently)
    assert at.selectbox(key="w_monitor_label").value is None and not at.error
    assert any("choose it above" in i.value for i in at.info)
    at.selectbox(key="w_monitor_label").set_value("a").run(timeout=TIMEOUT)
    assert at.error and "proba_" in at.error[0].value.replace("\\", "")
    assert not np.any([e for e in at.exception])


def test_a_binary_log_with_a_pending_tail_is_read_as_it_comes(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    n = 3000
    y = rng.integers(0, 2, n).astype(float)
    p1 = np.clip(np.where(y == 1, rng.uniform(0.3, 1, n), rng.uniform(0, 0.7, n)), 0, 1)
    y[2750:] = np.nan  # the newest labels have not arrived
    path = tmp_path / "binary.csv"
    pd.DataFrame({"y_true": y, "y_pred_proba": p1, "y_pred": (p1 > 0.4).astype(int)}).to_csv(
        path, index=False)
    at = _use_path(_open(), path)
    assert at.radio(key="w_monitor_form").value == "proba_columns"
    assert at.selectbox(key="w_monitor_proba_columns").value == "y_pred_proba"
    assert at.selectbox(key="w_monitor_pred").value == "y_pred"
    # another log than the example: its own chunk size, shown and used (not the example's 300)
    assert at.number_input(key="w_monitor_chunk_size").value == 1000
    assert player(at)["spec"]["last"] == 2  # rows 2000..2999 wait for labels: pending
    at.number_input(key="w_monitor_chunk_size").set_value(500).run(timeout=TIMEOUT)
    assert not at.exception and not at.error
    expected = monitor(path, label="y_true", proba_columns=["y_pred_proba"], pred="y_pred",
                       chunk_size=500)
    text = " ".join(m.value for m in at.markdown)
    assert "500 rows pending" in text and f"{expected.n_chunks} tested chunks" in text
    assert "P(y_true = '1')" in text.replace("\\", "")
    assert "decisions in column 'y_pred'" in text.replace("\\", "")
    assert player(at)["spec"]["last"] == expected.n_chunks == 5


def test_the_alarm_table_gives_each_alarms_chunk_in_the_player_too() -> None:
    at = _open()
    [table] = [d for d in at.dataframe if "p_value" in d.value.columns]
    frame = table.value
    assert (frame["player_chunk"] == frame["chunk"] + 1).all()
    spec = player(at)["spec"]
    alarms = [i for i, a in enumerate(spec["settings"][0]["metrics"]["alarm"]) if a]
    assert list(frame["chunk"]) == alarms  # the metrics list is indexed by the log's chunk
    assert list(frame["player_chunk"]) == [a + 1 for a in alarms]


@pytest.mark.parametrize("away", ["Upload a file", "Time windows"])
def test_the_chunk_size_survives_a_run_that_did_not_show_it(away: str) -> None:
    """Coming back to the same log after a run that drew no chunk controls shows its chunk
    size (the example's 300), not the widget's minimum (a browser run once showed 50)."""
    at = _open()
    assert at.number_input(key="w_monitor_chunk_size").value == 300
    key, back = (("w_monitor_source", "The example log") if away == "Upload a file"
                 else ("w_monitor_chunking", "Rows"))
    at.radio(key=key).set_value(away).run(timeout=TIMEOUT)
    at.radio(key=key).set_value(back).run(timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    assert at.number_input(key="w_monitor_chunk_size").value == 300
    assert player(at)["spec"]["last"] == 49


def test_a_run_too_long_to_play_draws_its_whole_charts_with_ui_chart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import ui.monitor
    from harness.apptest import charts, figures
    from pudd_core.plots.bundle import chart_js

    monkeypatch.setattr(ui.monitor, "PLAYER_MAX_CHUNKS", 10)  # the example's 49 are too many
    at = _open()
    assert any("too many to play" in i.value for i in at.info)
    got = figures(at)
    for name in ("trace", "minp"):
        spec = got[f"monitor_{name}"]
        assert spec["data"] and spec["layout"]["template"]  # the figure's own look
    drawn_here = {el.proto.id.split("-", 2)[2] for el in charts(at)}
    if chart_js() is not None:  # else st.plotly_chart drew them
        assert {"monitor_trace", "monitor_minp"} <= drawn_here


def test_the_time_format_and_unit_controls_read_what_the_library_reads(tmp_path: Path) -> None:
    """Day-first text and epoch milliseconds: refused by name until the format or the unit is
    chosen, then the library's chunks; a format or unit that does not fit is an error."""
    frame = pd.read_parquet(EXAMPLE).head(3000)
    day_first = tmp_path / "dayfirst.csv"
    frame.assign(ts=frame.ts.dt.strftime("%d/%m/%Y %H:%M")).to_csv(day_first, index=False)
    at = _use_path(_open(), day_first)
    at.radio(key="w_monitor_chunking").set_value("Time windows").run(timeout=TIMEOUT)
    shown = at.error[0].value.replace("\\", "")
    assert "column 'ts', row 0 ('01/01/2024 00:00')" in shown and "--time-format" in shown
    at.text_input(key="w_monitor_time_format").set_value("%d/%m/%Y %H:%M").run(timeout=TIMEOUT)
    assert not at.exception and not at.error
    expected = monitor(day_first, label="label", proba_prefix="proba_", time_column="ts",
                       window="6h", time_format="%d/%m/%Y %H:%M")
    assert player(at)["spec"]["last"] == expected.n_chunks
    at.text_input(key="w_monitor_time_format").set_value("%m-%d").run(timeout=TIMEOUT)
    assert "not matching time_format" in at.error[0].value.replace("\\", "")
    at.text_input(key="w_monitor_time_format").set_value("").run(timeout=TIMEOUT)
    at.selectbox(key="w_monitor_time_unit").set_value("s").run(timeout=TIMEOUT)
    assert "holds text" in at.error[0].value.replace("\\", "")

    epoch = tmp_path / "epoch.csv"
    frame.assign(ts=frame.ts.astype("int64") // 10**6).to_csv(epoch, index=False)
    at = _use_path(_open(), epoch)
    at.radio(key="w_monitor_chunking").set_value("Time windows").run(timeout=TIMEOUT)
    assert "--time-unit" in at.error[0].value.replace("\\", "")
    at.selectbox(key="w_monitor_time_unit").set_value("ms").run(timeout=TIMEOUT)
    assert not at.exception and not at.error
    assert player(at)["spec"]["last"] == expected.n_chunks


def test_a_hugging_face_log_is_refused_as_p_positive_and_read_as_a_binary_top_score(
        tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    n = 3000
    y = rng.integers(0, 2, n)
    p1 = np.clip(np.where(y == 1, rng.beta(5, 2, n), rng.beta(2, 5, n)), 0, 1)
    names = np.array(["NEGATIVE", "POSITIVE"])
    pred = (p1 > 0.5).astype(int)
    path = tmp_path / "hf.csv"
    pd.DataFrame({"y_true": names[y], "label": names[pred],
                  "score": np.where(pred == 1, p1, 1 - p1)}).to_csv(path, index=False)
    at = _use_path(_open(), path)
    # the guesses: the true label, one score column P(positive), decisions in `label`
    at.radio(key="w_monitor_form").set_value("proba_columns").run(timeout=TIMEOUT)
    at.selectbox(key="w_monitor_label").set_value("y_true").run(timeout=TIMEOUT)
    at.selectbox(key="w_monitor_proba_columns").set_value("score").run(timeout=TIMEOUT)
    at.text_input(key="w_monitor_positive_label").set_value("POSITIVE").run(timeout=TIMEOUT)
    at.selectbox(key="w_monitor_pred").set_value("label").run(timeout=TIMEOUT)
    shown = at.error[0].value.replace("\\", "")
    assert "never below 0.5" in shown and "probability of the true class" in shown
    at.radio(key="w_monitor_form").set_value("binary_top_score").run(timeout=TIMEOUT)
    at.selectbox(key="w_monitor_label").set_value("y_true").run(timeout=TIMEOUT)
    at.selectbox(key="w_monitor_pred").set_value("label").run(timeout=TIMEOUT)
    at.selectbox(key="w_monitor_binary_top_score").set_value("score").run(timeout=TIMEOUT)
    assert not at.exception and not at.error
    expected = monitor(path, label="y_true", pred="label", binary_top_score="score",
                       chunk_size=1000)
    assert player(at)["spec"]["last"] == expected.n_chunks == 3


def test_a_compressed_json_lines_log_of_arrays_is_guessed_and_read(tmp_path: Path) -> None:
    """Issue 32 items 7-8 on the page: a .jsonl.gz whose probabilities are one array per row
    gives the chunks of the plain CSV columns; a .csv.gz path is read (it was refused)."""
    import gzip
    import json

    rng = np.random.default_rng(2)
    n = 3000
    y = rng.integers(0, 3, n)
    p = np.full((n, 3), 0.1)
    p[np.arange(n), y] = 0.8  # confident and right, then (the second half) anything
    p[n // 2:] = rng.dirichlet(np.ones(3), n - n // 2)
    path = tmp_path / "preds.jsonl.gz"
    path.write_bytes(gzip.compress("".join(
        json.dumps({"label": int(c), "proba": [float(v) for v in r]}) + "\n"
        for c, r in zip(y, p, strict=True)).encode()))
    columns = pd.DataFrame({"label": y, **{f"proba_{k}": p[:, k] for k in range(3)}})
    expected = monitor(columns, label="label", proba_prefix="proba_", chunk_size=1000)
    at = _use_path(_open(), path)
    assert at.radio(key="w_monitor_form").value == "proba_array"
    assert at.selectbox(key="w_monitor_proba_array").value == "proba"
    assert not at.exception and not at.error
    assert player(at)["spec"]["last"] == expected.n_chunks == 3
    text = " ".join(m.value for m in at.markdown).replace("\\", "")
    assert f"{expected.n_chunks} tested chunks" in text
    plain = tmp_path / "columns.csv.gz"
    plain.write_bytes(gzip.compress(columns.to_csv(index=False).encode()))
    at = _use_path(at, plain)
    assert at.radio(key="w_monitor_form").value == "proba_prefix"
    assert not at.exception and not at.error
    assert player(at)["spec"]["last"] == expected.n_chunks


def test_the_code_is_built_when_its_expander_opens() -> None:
    at = _open()
    [box] = [e for e in at.expander if e.label == "Show the code"]
    assert not box.code  # nothing of it sent while it is closed (issue 34 item 10)
    at.session_state["monitor_code_open"] = True  # a click on it
    at.run(timeout=TIMEOUT)
    [box] = [e for e in at.expander if e.label == "Show the code"]
    [code] = box.code
    compile(code.value, "shown", "exec")
    assert "monitor(" in code.value and "label='label'" in code.value
    assert "chunk_size=300" in code.value


def test_the_column_controls_are_the_tables_entries_for_the_chosen_form() -> None:
    """Each form shows the controls of the LOG_FIELDS entries shown with it, labelled by them."""
    from pudd_core.monitoring import LOG_FIELDS, log_forms

    at = _open()
    for form in log_forms():
        at.radio(key="w_monitor_form").set_value(form.name).run(timeout=TIMEOUT)
        assert not at.exception
        labels = {w.label for kind in ("selectbox", "text_input") for w in getattr(at, kind)}
        for f in LOG_FIELDS:
            if f.group == "time":
                continue
            drawn = any(label.startswith(f.widget) for label in labels)
            assert drawn == (f.name == form.name or form.name in f.shown), (form.name, f.name)


def test_an_entry_added_to_the_table_is_a_control_on_the_page(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A new entry of LOG_FIELDS (and the session key ui/state.py derives for each entry at
    import, declared here by hand) is drawn with its form, and changes nothing left empty."""
    import ui.monitor
    from pudd_core.monitoring import LOG_FIELDS, LogField
    from ui import state

    new = LogField("weight", "each row's weight (a test entry)", kind="text",
                   shown=("proba_prefix",), side=2, widget="Weight column (a test entry)")
    monkeypatch.setattr(ui.monitor, "LOG_FIELDS", (*LOG_FIELDS, new))
    monkeypatch.setitem(state.MONITOR_FIELDS, "weight", "monitor_weight")
    monkeypatch.setitem(state.DEFAULTS, "monitor_weight", None)
    at = _open()
    control = at.text_input(key="w_monitor_weight")
    assert control.label == new.widget and control.help.startswith("Each row's weight")
    assert not at.exception and not at.error
    expected = monitor(EXAMPLE, label="label", proba_prefix="proba_", chunk_size=300)
    alarms = [i for i, a in enumerate(player(at)["spec"]["settings"][0]["metrics"]["alarm"])
              if a]
    assert alarms == list(expected.alarms)


def test_the_cli_the_page_and_the_library_read_one_log_alike(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Day-first times read with a time format, 6-hour windows: the library (a LogFormat or
    keywords), the incremental monitor fed uneven pieces, the command line's --json and the
    page (its player and the code it shows) give the same chunks, p-values and alarms."""
    import json

    from pudd_core.cli import main
    from pudd_core.monitoring import LogFormat, Monitor

    frame = pd.read_parquet(EXAMPLE).head(6000)
    path = tmp_path / "dayfirst.csv"
    frame.assign(ts=frame.ts.dt.strftime("%d/%m/%Y %H:%M")).to_csv(path, index=False)
    when = "%d/%m/%Y %H:%M"
    fmt = LogFormat(label="label", proba_prefix="proba_", time_column="ts", time_format=when)
    results = {
        "format": monitor(path, fmt, window="6h"),
        "keywords": monitor(path, label="label", proba_prefix="proba_", time_column="ts",
                            window="6h", time_format=when),
    }
    m = Monitor(fmt, window="6h")
    rows = pd.read_csv(path, float_precision="round_trip")
    for part in np.array_split(rows, [7, 1000, 1001, 4321]):
        m.feed(part)
    m.finish()
    results["incremental"] = m.result()
    assert main(["monitor", str(path), "--label", "label", "--proba-prefix", "proba_",
                 "--time-column", "ts", "--time-format", when, "--window", "6h",
                 "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)

    at = _use_path(_open(), path)
    at.radio(key="w_monitor_chunking").set_value("Time windows").run(timeout=TIMEOUT)
    at.text_input(key="w_monitor_time_format").set_value(when).run(timeout=TIMEOUT)
    assert not at.exception and not at.error
    at.session_state["monitor_code_open"] = True  # a click on "Show the code"
    at.run(timeout=TIMEOUT)
    shown = {}
    exec(at.code[0].value, shown)  # the page's "Show the code"
    results["page's code"] = shown["result"]
    spec = player(at)["spec"]
    page_alarms = [i for i, a in enumerate(spec["settings"][0]["metrics"]["alarm"]) if a]

    reference = results["format"]
    assert reference.n_chunks > 10 and reference.alarms  # a drift to find, in many chunks
    for name, result in results.items():
        assert result.n_chunks == reference.n_chunks, name
        assert result.alarms == reference.alarms, name
        np.testing.assert_array_equal(result.p_values, reference.p_values, err_msg=name)
    assert cli["n_chunks"] == reference.n_chunks and cli["alarms"] == list(reference.alarms)
    assert cli["p_values"] == [None if np.isnan(p) else p for p in reference.p_values]
    assert page_alarms == list(reference.alarms) and spec["last"] == reference.n_chunks
    assert "LogFormat(label='label', proba_prefix='proba_', time_column='ts', " \
           "time_format='%d/%m/%Y %H:%M')" in at.code[0].value


def test_alpha_chosen_on_the_logs_first_chunks_is_the_librarys() -> None:
    # issue 35: the example's SEA concept first changes at row 2,700 (chunk 9 of 300 rows)
    from pudd_core.monitoring import calibrate_log

    at = _open()
    at.checkbox(key="monitor_calibrate").check().run(timeout=TIMEOUT)
    at.slider(key="monitor_calib_chunks").set_value(9)
    at.select_slider(key="monitor_calib_target").set_value(0.05)
    at.slider(key="monitor_calib_resamples").set_value(10).run(timeout=TIMEOUT)
    assert not at.exception and not at.error, [e.value for e in at.error]
    cal, rest = calibrate_log(EXAMPLE, label="label", proba_prefix="proba_", chunk_size=300,
                              calibrate_on=2700, false_alarm_rate=0.05, n_resamples=10,
                              baselines=["adwin", "ddm"])
    shown = {m.label: m.value for m in at.metric}
    best = cal.recommended
    assert shown["Chosen α"] == f"{best.alpha:g}"
    assert shown["False alarms per chunk"] == f"{best.false_alarm_rate:.2%}"
    assert any(f"95 % interval {best.ci[0]:.2%} to {best.ci[1]:.2%}" in c.value
               for c in at.caption)
    text = " ".join(m.value for m in at.markdown)
    assert f"On the {rest.n_chunks} chunks after it" in text
    assert (f"The stretch's {rest.reference_chunks} chunks are the monitor's reference"
            in text and rest.reference_chunks == 9)
    first = f"(chunks {rest.alarms[0] + 9}" if rest.alarms else ""
    assert first in text  # counted from the stream's first chunk
    assert rest.alarms and rest.n_chunks == 40  # the SEA drifts after the stretch are seen


def _split_log(tmp_path: Path) -> tuple[Path, pd.DataFrame, pd.DataFrame]:
    """The example log as a serving stack writes it: predictions with an id, and the labels
    elsewhere, shuffled, the last 250 not come yet and one of an id not in the log."""
    frame = pd.read_parquet(EXAMPLE).drop(columns="ts")
    frame.insert(0, "request", [f"r{i:05d}" for i in range(len(frame))])
    preds = frame.drop(columns="label")
    labels = frame[["request", "label"]].head(len(frame) - 250).sample(frac=1, random_state=0)
    labels = pd.concat([labels, pd.DataFrame({"request": ["ghost"], "label": [1]})])
    path = tmp_path / "predictions.csv"
    preds.to_csv(path, index=False)
    return path, preds, labels


def _upload_labels(monkeypatch: pytest.MonkeyPatch, name: str, data: bytes) -> None:
    # AppTest cannot upload files: feed the labels uploader's reader the bytes instead
    import ui.monitor

    monkeypatch.setattr(ui.monitor, "read_upload", lambda file: (name, data))


def test_labels_in_a_second_file_are_joined_as_the_library_and_a_pandas_merge_do(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page with a labels upload and an id column gives the library's labels= result,
    which is the monitor's on the log merged with its labels by pandas (chunk for chunk)."""
    path, preds, labels = _split_log(tmp_path)
    labels.to_csv(tmp_path / "labels.csv", index=False)
    monkeypatch.chdir(tmp_path)  # the page's code names the upload by its file name
    _upload_labels(monkeypatch, "labels.csv", (tmp_path / "labels.csv").read_bytes())
    at = _use_path(_open(), path)
    at.number_input(key="w_monitor_chunk_size").set_value(300).run(timeout=TIMEOUT)
    assert at.selectbox(key="w_monitor_id").value == "request"  # the shared column
    assert at.selectbox(key="w_monitor_label").value == "label"  # guessed from the labels
    assert not at.exception and not at.error
    at.session_state["monitor_code_open"] = True
    at.run(timeout=TIMEOUT)
    code = at.code[0].value
    assert "labels='labels.csv', id_column='request'" in code
    shown: dict[str, object] = {}
    exec(code, shown)
    page = shown["result"]
    spec = player(at)["spec"]
    page_alarms = [i for i, a in enumerate(spec["settings"][0]["metrics"]["alarm"]) if a]

    library = monitor(path, label="label", proba_prefix="proba_", chunk_size=300,
                      labels=tmp_path / "labels.csv", id_column="request")
    merged = preds.merge(labels, on="request", how="left")  # ghost dropped, tail unlabelled
    reference = monitor(merged, label="label", proba_prefix="proba_", chunk_size=300)
    assert reference.n_chunks > 10 and reference.alarms and reference.pending
    for name, result in (("page", page), ("library", library)):
        assert result.n_chunks == reference.n_chunks, name
        assert result.alarms == reference.alarms, name
        np.testing.assert_array_equal(result.p_values, reference.p_values, err_msg=name)
    assert page_alarms == list(reference.alarms) and spec["last"] == reference.n_chunks
    assert any("ghost" in m.value for m in at.markdown)  # the unknown id is reported


@pytest.mark.parametrize("case", ["no shared column", "two labels for one id",
                                  "log with a label column"])
def test_a_bad_labels_upload_shows_the_librarys_message_under_the_uploader(
        case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pudd_core._validation import ParameterError

    path, preds, labels = _split_log(tmp_path)
    if case == "no shared column":
        labels = labels.rename(columns={"request": "rid"})
    elif case == "two labels for one id":
        labels = pd.concat([labels, pd.DataFrame({"request": ["r00007"], "label": [
            1 - int(labels.set_index("request").loc["r00007", "label"])]})])
    else:
        pd.read_parquet(EXAMPLE).drop(columns="ts").assign(
            request=preds["request"]).to_csv(path, index=False)
    labels.to_csv(tmp_path / "labels.csv", index=False)
    monkeypatch.chdir(tmp_path)  # the library reads the file by the name the page gives
    _upload_labels(monkeypatch, "labels.csv", (tmp_path / "labels.csv").read_bytes())
    at = _use_path(_open(), path)
    assert not at.exception
    [error] = at.error
    assert error.value.startswith("**The labels cannot be joined**")
    assert not at.get("component_instance")  # no player: nothing was run on a wrong join
    if case == "no shared column":
        assert "share no column" in error.value
        return
    with pytest.raises(ParameterError) as err:
        monitor(path, label="label", proba_prefix="proba_", labels="labels.csv",
                id_column="request")
    from ui.messages import reason_markdown

    assert reason_markdown(str(err.value)) in error.value


def _calibrate_with_labels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                           labels: pd.DataFrame, path: Path) -> AppTest:
    """The page on ``path`` with ``labels`` uploaded, α chosen on its first 9 chunks."""
    labels.to_csv(tmp_path / "labels.csv", index=False)
    monkeypatch.chdir(tmp_path)  # the page's code names the upload by its file name
    _upload_labels(monkeypatch, "labels.csv", (tmp_path / "labels.csv").read_bytes())
    at = _use_path(_open(), path)
    at.number_input(key="w_monitor_chunk_size").set_value(300).run(timeout=TIMEOUT)
    assert not at.error, [e.value for e in at.error]  # the monitor itself runs
    at.checkbox(key="monitor_calibrate").check().run(timeout=TIMEOUT)
    at.slider(key="monitor_calib_chunks").set_value(9)
    at.select_slider(key="monitor_calib_target").set_value(0.05)
    at.slider(key="monitor_calib_resamples").set_value(10).run(timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_alpha_chosen_with_labels_in_a_second_file_is_the_librarys_and_the_clis(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 35: the Monitor page's "choose α" on a log whose labels come in a second file
    (shuffled, the last 250 not come, one of an unknown id) chooses the α of the library's
    calibrate_log(labels=, id_column=) and of ``monitor --labels --id --calibrate-on``, which
    is the α chosen on the log merged with its labels by pandas."""
    import json

    from pudd_core.cli import main
    from pudd_core.monitoring import calibrate_log

    path, preds, labels = _split_log(tmp_path)
    at = _calibrate_with_labels(tmp_path, monkeypatch, labels, path)
    assert not at.error, [e.value for e in at.error]
    shown = {m.label: m.value for m in at.metric}
    at.session_state["monitor_calib_code_open"] = True  # a click on "Show the code"
    at.run(timeout=TIMEOUT)
    code = next(c.value for c in at.code if "calibrate_log(" in c.value)
    assert "labels='labels.csv', id_column='request'" in code
    page: dict[str, object] = {}
    exec(code, page)  # the page's code: the library call it makes

    kw = {"label": "label", "proba_prefix": "proba_", "chunk_size": 300,
          "calibrate_on": 2700, "false_alarm_rate": 0.05, "n_resamples": 10,
          "baselines": ["adwin", "ddm"]}
    library = calibrate_log(path, labels=tmp_path / "labels.csv", id_column="request", **kw)
    merged = calibrate_log(preds.merge(labels, on="request", how="left"), **kw)
    assert main(["monitor", str(path), "--label", "label", "--proba-prefix", "proba_",
                 "--labels", str(tmp_path / "labels.csv"), "--id", "request",
                 "--chunk-size", "300", "--calibrate-on", "2700", "--false-alarm-rate", "0.05",
                 "--resamples", "10", "--baselines", "adwin,ddm", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)

    cal, rest = merged
    best = cal.recommended
    assert rest.pending and rest.alarms  # the unlabelled tail and the SEA drifts after it
    for name, (c, r) in (("page's code", (page["cal"], page["rest"])), ("library", library)):
        assert c.to_json() == cal.to_json(), name
        assert r.alarms == rest.alarms and r.n_chunks == rest.n_chunks, name
        np.testing.assert_array_equal(r.p_values, rest.p_values, err_msg=name)
    assert cli["calibration"] == json.loads(json.dumps(cal.to_json(), default=float))
    assert cli["alpha"] == best.alpha and cli["alarms"] == list(rest.alarms)
    assert shown["Chosen α"] == f"{best.alpha:g}"
    assert shown["False alarms per chunk"] == f"{best.false_alarm_rate:.2%}"
    text = " ".join(m.value for m in at.markdown)
    assert f"On the {rest.n_chunks} chunks after it" in text
    assert not any("does not join labels" in i.value for i in at.info)


@pytest.mark.parametrize("case", ["the stretch's labels not come", "an id missing in the log"])
def test_choosing_alpha_with_bad_labels_says_the_librarys_reason(
        case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stretch whose labels have not come, or labels of ids the log does not hold: the
    library's message under "Choose α" (the monitor itself runs: its rows are pending)."""
    from pudd_core._validation import ParameterError
    from pudd_core.monitoring import calibrate_log
    from ui.messages import reason_markdown

    path, preds, labels = _split_log(tmp_path)
    # in the stretch (rows 0..2,699), only every tenth row's label is usable: 270 in all,
    # fewer than two chunks of 300 (each chunk keeps some, so the monitor itself runs)
    row = labels["request"].str[1:].astype(int, errors="ignore")
    few = labels["request"].str.startswith("r") & (labels["request"] < "r02700") & \
        (pd.to_numeric(row, errors="coerce") % 10 != 0)
    if case == "the stretch's labels not come":
        labels = labels[~few]
    else:  # written under other ids than the log's
        labels = labels.assign(request=labels["request"].where(~few, "x" + labels["request"]))
    at = _calibrate_with_labels(tmp_path, monkeypatch, labels, path)
    with pytest.raises(ParameterError) as err:
        calibrate_log(path, label="label", proba_prefix="proba_", chunk_size=300,
                      calibrate_on=2700, false_alarm_rate=0.05, n_resamples=10,
                      labels=tmp_path / "labels.csv", id_column="request")
    assert err.value.param == "calibrate_on" and "labelled rows" in str(err.value)
    [error] = [e for e in at.error if e.value.startswith("**Choose α**")]
    assert reason_markdown(str(err.value)) in error.value
    assert "fewer than two chunks" in error.value
    assert not any(m.label == "Chosen α" for m in at.metric)
