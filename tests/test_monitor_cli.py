"""python -m pudd_core monitor / export-predictions: the JSON contract, the report, errors."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from pudd_core import monitor
from pudd_core.cli import main


@pytest.fixture(scope="module")
def log_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("logs") / "sea0.csv"
    code = main(["export-predictions", "--dataset", "sea0", "--classifier", "gnb",
                 "--n-chunks", "30", "--chunk-size", "500", "--out", str(path)])
    assert code == 0
    return path


def test_json_holds_n_chunks_alarms_p_values_and_accuracy(log_path, capsys):
    code = main(["monitor", str(log_path), "--label", "label", "--proba-prefix", "proba_",
                 "--chunk-size", "500", "--baselines", "adwin,ddm", "--json"])
    out = json.loads(capsys.readouterr().out)
    lib = monitor(log_path, label="label", proba_prefix="proba_", chunk_size=500,
                  baselines=["adwin", "ddm"])
    assert code == 0 and out["n_chunks"] == 29
    assert out["alarms"] == list(lib.alarms) and out["alarms"]
    assert out["p_values"] == [None if np.isnan(p) else p for p in lib.p_values]
    assert len(out["accuracy"]) == 29
    assert set(out["baselines"]) == {"adwin", "ddm"}
    assert out["chunks"][2]["first_row"] == 1000


def test_explicit_columns_time_windows_and_options(log_path, capsys):
    code = main(["monitor", str(log_path), "--label", "label", "--proba-columns",
                 "proba_0,proba_1", "--time-column", "ts", "--window", "8h", "--alpha", "1e-4",
                 "--detector-option", "cut_points=all", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["alpha"] == 1e-4
    assert [c["n_rows"] for c in out["chunks"][:-1]] == [480] * (len(out["chunks"]) - 1)
    assert out["chunks"][0]["start"] == "2024-01-01T00:00:00"


def test_the_text_summary_names_each_alarm(log_path, capsys):
    assert main(["monitor", str(log_path), "--label", "label", "--proba-prefix", "proba_",
                 "--chunk-size", "500"]) == 0
    text = capsys.readouterr().out
    assert re.search(r"alarm at chunk \d+: rows \d+\.\.\d+", text)


def _plotly_data(page: str) -> dict[str, list[dict]]:
    """Figure id -> its traces, read from each Plotly.newPlot call of the page."""
    decoder = json.JSONDecoder()
    out = {}
    for m in re.finditer(r'Plotly\.newPlot\(\s*"fig-([\w]+)",\s*', page):
        data, _ = decoder.raw_decode(page, m.end())
        out[m.group(1)] = data
    return out


def test_the_report_is_one_offline_file_with_the_figures_data(log_path, tmp_path, capsys):
    report = tmp_path / "out.html"
    assert main(["monitor", str(log_path), "--label", "label", "--proba-prefix", "proba_",
                 "--chunk-size", "500", "--report", str(report), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    page = report.read_text()
    # plotly.js inline (its own source, as the plotly package ships it); no script is fetched
    from pudd_core.plots.bundle import FULL_JS

    assert FULL_JS.read_text(encoding="utf-8")[-2000:] in page
    assert re.search(r"<script[^>]*\bsrc=", page) is None
    figures = _plotly_data(page)
    alarms = out["alarms"]
    assert {"trace", "minp", *(f"cuts_{a}" for a in alarms),
            *(f"windows_{a}" for a in alarms)} <= set(figures)
    error = next(t for t in figures["trace"] if t["name"] == "Model error rate")
    y = error["y"] if isinstance(error["y"], list) else None
    if y is None:  # plotly's typed array
        import base64

        y = np.frombuffer(base64.b64decode(error["y"]["bdata"]), error["y"]["dtype"]).tolist()
    assert y == pytest.approx([100 * (1 - a) for a in out["accuracy"]])
    for a in alarms:
        assert f"<td>{a}</td>" in page  # every alarm in the table
    hist = figures[f"windows_{alarms[0]}"]
    assert any(t.get("type") == "bar" for t in hist)


@pytest.mark.parametrize(("argv", "message"), [
    (["--proba-prefix", "proba_"], "name the label column"),
    (["--label", "label", "--proba-prefix", "nope_"], "starting with 'nope_'"),
    (["--label", "label", "--proba-prefix", "proba_", "--window", "1D"], "both time_column"),
    (["--label", "label", "--proba-prefix", "proba_", "--chunk-size", "0"], "chunk_size must"),
    (["--label", "label", "--proba-prefix", "proba_", "--baselines", "cusum"], "cusum"),
    (["--label", "label", "--proba-prefix", "proba_", "--detector-option", "nope=1"], "nope"),
    (["--label", "label", "--proba-prefix", "proba_", "--detector-option", "refit=sometimes"],
     "refit expects 'every' or 'doubling'"),
    (["--label", "label", "--proba-prefix", "proba_", "--detector-option", "refit=doubling",
      "--detector-option", "cache_buckets=false"], "it needs cache_buckets=True"),
    (["--label", "label", "--proba-prefix", "proba_", "--pred", "nope"], "no column 'nope'"),
    (["--label", "label", "--proba-prefix", "proba_", "--positive-label", "1"],
     "goes with a single probability column"),
    (["--label", "label", "--proba-columns", "proba_1", "--positive-label", "7"],
     "neither the positive class '7'"),
    (["--label", "label", "--proba-columns", "proba_1", "--positive-label", ""],
     "neither the positive class ''"),
    (["--label", "label", "--proba-prefix", "proba_", "--time-column", "ts", "--window", "0"],
     "must be a positive number"),
    (["--label", "label", "--proba-prefix", "proba_", "--time-column", "ts", "--window", "7"],
     "'ts' is not numeric"),
    # a numeric column that is no time is not read as epoch seconds ("not sorted (1970 ...")
    (["--label", "label", "--proba-prefix", "proba_", "--time-column", "label", "--window",
      "1D"], "column 'label' holds numbers (row 0: 1): say what they count with time_unit "
             "(--time-unit"),
    (["--label", "label", "--proba-prefix", "proba_", "--time-column", "ts", "--window",
      "1D", "--time-unit", "s"], "time_unit (--time-unit) 's' says column 'ts' holds numbers"),
    (["--label", "label", "--proba-prefix", "proba_", "--time-column", "ts", "--window",
      "1D", "--time-format", "%d/%m/%Y"], "not matching time_format (--time-format) '%d/%m/%Y'"),
    (["--label", "label", "--proba-prefix", "proba_", "--time-format", "%d/%m/%Y"],
     "give time_column and window too"),
    (["--label", "label", "--proba-prefix", "proba_", "--time-column", "ts", "--window",
      "100000D"], "window '100000D' reaches past 2262-04-11"),
])
def test_bad_arguments_give_one_line_and_exit_two(log_path, capsys, argv, message):
    assert main(["monitor", str(log_path), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and message in err and len(err.splitlines()) == 1


def test_a_bad_row_is_named_and_debug_adds_the_traceback(tmp_path, capsys):
    frame = pd.DataFrame({"label": [0, 1, 0], "proba_0": [0.9, 0.2, 1.3],
                          "proba_1": [0.1, 0.8, -0.3]})
    path = tmp_path / "bad.csv"
    frame.to_csv(path, index=False)
    argv = ["monitor", str(path), "--label", "label", "--proba-prefix", "proba_"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "row 2, column 'proba_0'" in err and "Traceback" not in err
    assert main([*argv, "--debug"]) == 2
    assert "Traceback" in capsys.readouterr().err
    assert main(["monitor", str(tmp_path / "none.csv"), "--label", "y", "--proba-prefix",
                 "p"]) == 2
    assert "no prediction log" in capsys.readouterr().err


def test_export_refuses_a_bad_destination_before_any_work(tmp_path, capsys):
    assert main(["export-predictions", "--out", str(tmp_path / "no" / "x.csv")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_the_variant_is_calibrated_by_default_and_the_authors_one_option_away(log_path, tmp_path,
                                                                              capsys):
    report = tmp_path / "r.html"
    assert main(["monitor", str(log_path), "--label", "label", "--proba-prefix", "proba_",
                 "--chunk-size", "500", "--report", str(report)]) == 0
    assert "clamp_min=0, max_chunks=128, min_expected=5.0, refit=doubling" in \
        capsys.readouterr().out
    page = report.read_text()
    assert ("the calibrated count floor (clamp_min=0, max_chunks=128, min_expected=5.0, "
            "refit=doubling, skip_rule=None)") in page
    assert "The p-value axes stop at 1e-" in page
    assert main(["monitor", str(log_path), "--label", "label", "--proba-prefix", "proba_",
                 "--chunk-size", "500", "--variant", "authors", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    lib = monitor(log_path, label="label", proba_prefix="proba_", chunk_size=500,
                  variant="authors")
    assert out["p_values"] == [None if np.isnan(p) else p for p in lib.p_values]
    with pytest.raises(SystemExit) as exit_:
        main(["monitor", str(log_path), "--label", "label", "--proba-prefix", "proba_",
              "--variant", "paper"])
    assert exit_.value.code == 2 and "invalid choice: 'paper'" in capsys.readouterr().err


def test_a_report_that_cannot_be_written_keeps_the_result_and_names_the_file(
        log_path, tmp_path, capsys, monkeypatch):
    import builtins
    import errno

    report = tmp_path / "r.html"
    real_open = builtins.open

    def full_disk(file, mode="r", *args, **kwargs):
        if str(file) == str(report) and "w" in mode:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", full_disk)
    code = main(["monitor", str(log_path), "--label", "label", "--proba-prefix", "proba_",
                 "--chunk-size", "500", "--report", str(report), "--json"])
    captured = capsys.readouterr()
    assert code == 2
    out = json.loads(captured.out)  # the JSON came first, whole
    assert out["n_chunks"] == 29 and out["alarms"]
    match = re.search(r"could not write the report to (\S+) \(No space left on device\); it "
                      r"was written to (\S+) instead", captured.err)
    assert match and match[1] == str(report)
    spare = match[2]
    assert "<!DOCTYPE html>" in real_open(spare, encoding="utf-8").read()
    import os

    os.unlink(spare)


def test_a_report_in_a_missing_folder_is_refused_before_any_work(log_path, tmp_path, capsys):
    assert main(["monitor", str(log_path), "--label", "label", "--proba-prefix", "proba_",
                 "--report", str(tmp_path / "no" / "r.html"), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "does not exist" in captured.err
