"""The Threshold lab through AppTest: the sweep, the false-alarm study, inline errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.app._apptest import figures, open_page, trace_named

TIMEOUT = 120
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
    assert "thresholds_false_alarms" in figures(at)  # the study is a synthetic stream


@pytest.mark.datasets
def test_a_length_past_the_streams_end_uses_the_whole_stream_and_says_so() -> None:
    at = _page({"dataset": "powersupply", "alphas": "3-3", "seeds": "1", "chunks": "50"})
    assert not at.exception and not at.error
    assert any("has 29 chunks; the whole stream is used" in c.value for c in at.main.caption)
    assert "thresholds_sweep" in figures(at)
