"""The Threshold lab through AppTest: the sweep, the false-alarm study, inline errors."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from harness.apptest import figures, open_page, trace_named

TIMEOUT = 120
ROOT = Path(__file__).resolve().parents[2]
SMALL = {"alphas": "1-3", "seeds": "1", "chunks": "20"}  # 3 quick GNB runs


def _page(query: dict[str, str] | None = None) -> AppTest:
    return open_page("pages/thresholds.py", query or SMALL, timeout=TIMEOUT)


def test_threshold_lab_shows_the_sweep_and_both_false_alarm_charts() -> None:
    at = _page()
    assert at.title[0].value == "Threshold lab"
    charts = figures(at)
    assert set(charts) == {"thresholds_sweep", "thresholds_false_alarms",
                           "thresholds_bonferroni"}
    sweep = charts["thresholds_sweep"]
    assert [t["name"] for t in sweep["data"]] == [
        "Accuracy", "Alarms", "False alarms", "Mean detection delay", "Missed drifts",
        "True drifts"]
    assert trace_named(sweep, "Alarms")["x"] == [0.1, 0.01, 0.001]
    assert sweep["layout"]["xaxis3"]["title"]["text"] == "Threshold α (log scale)"
    rates = charts["thresholds_false_alarms"]
    assert [t["name"] for t in rates["data"]] == [
        "Nominal α (per-test guarantee)", "Per test: p < α", "Per chunk: min p < α (an alarm)",
        "Bonferroni bound: α × cut points"]
    assert "threshold α = 1e-02" in [t["name"] for t in charts["thresholds_bonferroni"]["data"]]


def test_threshold_lab_quotes_the_papers_reason_for_no_correction() -> None:
    text = " ".join(" ".join(md.value for md in _page().markdown).replace(">", " ").split())
    assert ("controls the Type I error rate for each individual window pair test rather than "
            "the overall Type I error across the entire substream. Consequently, we do not "
            "employ multiple comparison adjustments") in text


def test_a_larger_alpha_range_adds_points_and_never_fewer_alarms_at_large_alpha() -> None:
    at = _page()
    before = trace_named(figures(at)["thresholds_sweep"], "Alarms")
    at.slider(key="w_thresholds_exponents").set_range(1, 6).run(timeout=TIMEOUT)
    assert not at.exception
    after = trace_named(figures(at)["thresholds_sweep"], "Alarms")
    assert after["x"] == [0.1, 0.01, 0.001, 1e-4, 1e-5, 1e-6]
    assert after["y"][:3] == before["y"]  # the finished runs are reused
    assert after["y"][0] >= after["y"][-1]  # α = 0.1 alarms at least as often as 1e-6
    rates = trace_named(figures(at)["thresholds_false_alarms"], "Per test: p < α")
    assert len(rates["x"]) == 6
    assert at.query_params["alphas"] == "1-6"


def test_the_alpha_of_the_p_value_chart_changes_its_threshold_and_metrics() -> None:
    at = _page()
    first = {m.label: m.value for m in at.metric}
    at.select_slider(key="w_thresholds_alpha_exp").set_value(1).run(timeout=TIMEOUT)
    charts = figures(at)
    assert "threshold α = 1e-01" in [t["name"] for t in charts["thresholds_bonferroni"]["data"]]
    second = {m.label: m.value for m in at.metric}
    assert "Per test, at α = 1e-01" in second and "Per test, at α = 1e-02" in first
    assert float(second["Per chunk (an alarm)"].rstrip("%")) >= float(
        first["Per chunk (an alarm)"].rstrip("%"))


def test_an_image_stream_with_gnb_is_an_inline_error_under_the_classifier() -> None:
    at = _page()
    at.selectbox(key="w_thresholds_dataset").set_value("cifar10-cd").run(timeout=TIMEOUT)
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 1
    assert errors[0].startswith("**Classifier**: classifier 'gnb' cannot learn the image")
    assert "thresholds_sweep" not in figures(at)
    assert at.slider(key="w_thresholds_exponents").value == (1, 3)  # other settings stay
    at.selectbox(key="w_thresholds_dataset").set_value("sea0").run(timeout=TIMEOUT)
    assert not at.error and "thresholds_sweep" in figures(at)


def test_a_missing_data_file_is_an_inline_error_with_the_ways_to_provide_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PUDD_DATA_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("PUDD_CACHE_DIR", str(tmp_path / "cache"))
    at = _page({**SMALL, "dataset": "elec2"})
    errors = [e.value for e in at.error]
    assert errors == ["**Stream**: the data of Elec2 (NSW electricity) "
                      "(`elec2/electricity.csv.gz`) is not on this server yet."]
    assert at.button(key="thresholds_download").label.startswith("Download Elec2")
    assert "2. set PUDD_DATA_DIR" in at.expander[0].markdown[0].value
    # the study runs on the chosen stream or not at all: elec2 has no drift-free version
    assert "thresholds_false_alarms" not in figures(at)
    assert any("is not a synthetic stream" in i.value for i in at.info)


@pytest.mark.datasets
def test_a_length_past_the_streams_end_uses_the_whole_stream_and_says_so() -> None:
    at = _page({"dataset": "powersupply", "alphas": "3-3", "seeds": "1", "chunks": "50"})
    assert not at.exception and not at.error
    assert any("has 29 chunks; the whole stream is used" in c.value for c in at.main.caption)
    assert "thresholds_sweep" in figures(at)


# --- the committed false-alarm table (issue 10 item 6) ------------------------------------------
def _false_alarm_frame(at: AppTest) -> pd.DataFrame:
    [frame] = [d.value for d in at.dataframe if "Chunk size" in d.value.columns]
    return frame


def test_the_committed_false_alarm_table_is_shown_from_its_csv() -> None:
    committed = pd.read_csv(ROOT / "results" / "false_alarms.csv")
    at = _page()
    assert not at.exception
    frame = _false_alarm_frame(at)
    assert list(frame.columns) == ["Chunk size", "Error rate", "default (floor 5)",
                                   "clamp_min=0", "clamp_min=0, min_expected=5"]
    assert len(frame) == committed.groupby(["chunk_size", "error_rate"]).ngroups
    for row in committed.itertuples():
        [line] = frame[(frame["Chunk size"] == row.chunk_size)
                       & (frame["Error rate"] == f"{100 * row.error_rate:g} %")].itertuples()
        cell = getattr(line, f"_{list(frame.columns).index(row.variant) + 1}")
        assert cell == f"{row.per_test:.5f}" + (" ▲" if row.above_alpha else "")
    caption = " ".join(c.value for c in at.main.caption)
    for variant, rows in committed.groupby("variant"):
        assert f"{variant}: {int(rows['above_alpha'].sum())} of {len(rows)}" in caption
    text = " ".join(md.value for md in at.markdown)
    assert "count floor" in text and "clamp_min=0, min_expected=5" in text


def test_the_false_alarm_table_follows_the_csv_not_fixed_numbers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ui.thresholds

    committed = pd.read_csv(ROOT / "results" / "false_alarms.csv")
    changed = committed.assign(per_test=0.123456, above_alpha=True, alpha=0.01, n_chunks=77)
    csv = tmp_path / "false_alarms.csv"
    changed.to_csv(csv, index=False)
    monkeypatch.setattr(ui.thresholds, "FALSE_ALARMS", csv)
    at = _page()
    frame = _false_alarm_frame(at)
    assert set(frame["default (floor 5)"]) == {"0.12346 ▲"}
    assert "77 chunks per cell, α = 0.01" in " ".join(md.value for md in at.markdown)
    monkeypatch.setattr(ui.thresholds, "FALSE_ALARMS", tmp_path / "missing.csv")
    at = _page()
    assert not at.exception
    assert any("No committed false-alarm table" in i.value for i in at.info)


# --- seeds that change nothing (issue 34 item 7) ------------------------------------------------
def test_a_sweep_that_does_not_depend_on_the_seed_runs_one_seed_per_alpha() -> None:
    """Two chunks of elec2 with Gaussian NB: the rows, the model and PUDD (a reference of
    1,000 values, its whole sample) ignore the seed; the lab's lengths (20 chunks and up)
    always let PUDD sample, so this is the config object, not the page."""
    from ui.thresholds import SweepConfig

    free = SweepConfig("elec2", "gnb", (1, 2), (4, 5, 6), n_chunks=2)
    assert free.seeds_run == (4,) and [label for label, _ in free.runs()] == [
        "α = 1e-1, seed 4", "α = 1e-2, seed 4"]
    assert free.seed_note() == ("elec2 × gnb does not depend on the seed: one run shown per "
                                "α, not a mean of 3 identical ones.")
    assert SweepConfig("elec2", "gnb", (1,), (4,), n_chunks=2).seed_note() is None
    sampled = SweepConfig("elec2", "gnb", (1,), (4, 5), n_chunks=20)
    assert sampled.seeds_run == (4, 5)
    assert SweepConfig("sea0", "gnb", (1,), (4, 5), n_chunks=20).seed_note() is None


def test_elec2_with_gnb_says_the_seeds_differ_only_in_pudds_sample() -> None:
    from pudd_core.streams import get_info

    if not get_info("elec2").available:
        pytest.skip("elec2's file is not here")
    at = _page({"dataset": "elec2", "classifier": "gnb", "alphas": "3-3", "seeds": "2",
                "chunks": "20"})
    assert not at.exception and not at.error
    assert [c.value for c in at.caption if "the same for every seed" in c.value] == [
        "elec2 × gnb: the data and the model are the same for every seed; the seeds differ "
        "only in PUDD's bucketing sample (reference windows over 1,000 values)."]
    assert "1 of 1 runs" not in figures(at)["thresholds_sweep"]["layout"]["title"]["text"]
    assert "2 of 2 runs" in figures(at)["thresholds_sweep"]["layout"]["title"]["text"]


# --- choosing α on the chosen stream (issue 35) -------------------------------------------------
def test_the_false_alarm_study_runs_on_the_chosen_stream_never_on_sea0() -> None:
    at = _page({**SMALL, "dataset": "sea10"})
    assert not at.exception
    title = figures(at)["thresholds_false_alarms"]["layout"]["title"]["text"]
    assert "chunks of sea10 without drift" in title


def _metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_the_alpha_chosen_on_the_stream_is_the_librarys_and_the_command_lines(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from pudd_core.cli import main
    from pudd_core.experiments.export import export_predictions
    from pudd_core.experiments.runner import RunConfig
    from pudd_core.monitoring import calibrate_log

    at = _page()  # sea0 with gnb, 20 chunks: a log of 19 chunks of 1,000 predictions
    at.slider(key="thresholds_calib_chunks").set_value(8)
    at.select_slider(key="thresholds_calib_target").set_value(0.05)
    at.slider(key="thresholds_calib_resamples").set_value(10).run(timeout=TIMEOUT)
    assert not at.exception and not at.error
    shown = _metrics(at)
    log = export_predictions(RunConfig("sea0", "gnb", n_chunks=20, seed=0))
    cal, rest = calibrate_log(log, label="label", proba_prefix="proba_", chunk_size=1000,
                              calibrate_on=8000, false_alarm_rate=0.05, n_resamples=10,
                              baselines=["adwin", "ddm"])
    best = cal.recommended
    assert shown["Chosen α"] == f"{best.alpha:g}"
    assert shown["False alarms per chunk"] == f"{best.false_alarm_rate:.2%}"
    text = " ".join(md.value for md in at.markdown)
    assert (f"On the {rest.n_chunks} chunks after it, PUDD at α = {best.alpha:g} raised "
            f"**{len(rest.alarms)} alarm") in text
    path = tmp_path / "log.parquet"
    log.to_parquet(path, index=False)
    assert main(["monitor", str(path), "--label", "label", "--proba-prefix", "proba_",
                 "--chunk-size", "1000", "--calibrate-on", "8000", "--false-alarm-rate",
                 "0.05", "--resamples", "10", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["alpha"] == best.alpha


def test_an_uploaded_log_is_calibrated_as_the_library_does_and_bad_files_are_named(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    import numpy as np

    import ui.thresholds
    from pudd_core.monitoring import calibrate_log

    rng = np.random.default_rng(5)
    p1 = np.round(rng.uniform(0, 1, 20_000), 2)
    y = (rng.random(20_000) < p1).astype(int)
    data = pd.DataFrame({"label": y, "proba_0": np.round(1 - p1, 2),
                         "proba_1": p1}).to_csv(index=False).encode()
    at = _page()
    at.radio(key="thresholds_calib_source").set_value("A prediction log you upload").run(
        timeout=TIMEOUT)
    assert not at.exception and any("Upload a log" in i.value for i in at.info)
    # AppTest cannot upload files: feed the upload handler the bytes instead
    for bad, said in ((b"just,text\nno,log\n", "no label column"),
                      (b"label,proba_0,proba_1\n", "Prediction log"),
                      (b"\x00\x01\x02binary", "Prediction log")):
        monkeypatch.setattr(ui.thresholds, "uploaded_file", lambda f, b=bad: ("bad.csv", b))
        at.run(timeout=TIMEOUT)
        assert not at.exception
        assert any(said in e.value for e in at.error), [e.value for e in at.error]
    monkeypatch.setattr(ui.thresholds, "uploaded_file", lambda f: ("mine.csv", data))
    at.run(timeout=TIMEOUT)
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("mine.csv" in c.value and "20,000 rows" in c.value for c in at.caption)
    cal, _ = calibrate_log(io.BytesIO(data), label="label", proba_prefix="proba_",
                           chunk_size=1000, calibrate_on=10_000, false_alarm_rate=0.02,
                           n_resamples=50, baselines=["adwin", "ddm"])
    assert _metrics(at)["Chosen α"] == f"{cal.recommended.alpha:g}"
