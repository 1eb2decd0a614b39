"""Every page through Streamlit's AppTest: no exception, the charts, live widgets, inline errors."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from harness.apptest import figures, open_page
from ui.pages import PAGES

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 60


def _app(page: str | None = None) -> AppTest:
    return open_page(page, timeout=TIMEOUT)


def _trace_names(spec: dict[str, Any]) -> list[str]:
    return [t.get("name") for t in spec["data"]]


def _metrics(at: AppTest) -> dict[str, str]:
    """Metric label -> value; a label shown twice (two tabs) keeps its first occurrence."""
    out: dict[str, str] = {}
    for m in at.metric:
        out.setdefault(m.label, m.value)
    return out


def _deltas(at: AppTest) -> dict[str, str]:
    return {m.label: m.proto.delta for m in at.metric}


def _vertical_lines(spec: dict[str, Any], colour: str) -> list[float]:
    return [s["x0"] for s in spec["layout"].get("shapes", [])
            if s.get("type") == "line" and s["x0"] == s["x1"]
            and s.get("line", {}).get("color") == colour]


# --- Home -------------------------------------------------------------------------------------
def test_home_shows_the_live_run_with_one_line_per_alarm() -> None:
    at = _app()
    assert at.title[0].value == "PUDD Lab"
    spec = figures(at)["home_run_chart"]
    names = _trace_names(spec)
    assert names[:3] == ["Error rate", "True drift", "PUDD alarm"]
    assert "PUDD log10 p" in names
    alarm_trace = spec["data"][names.index("PUDD alarm")]
    assert len(alarm_trace["x"]) >= 1
    assert _vertical_lines(spec, "#0072B2") == alarm_trace["x"]
    assert spec["layout"]["yaxis"]["title"]["text"] == "Error rate (%)"


def test_sidebar_seed_reruns_the_home_stream_and_survives_navigation() -> None:
    at = _app()
    at.number_input(key="w_app_seed").set_value(1).run(timeout=TIMEOUT)
    assert not at.exception
    assert any(c.value.startswith("Seed 1.") for c in at.main.caption)
    assert at.query_params["seed"] == "1"
    at.switch_page("pages/theorem2.py").run(timeout=TIMEOUT)
    assert at.number_input(key="w_app_seed").value == 1


def test_home_links_every_other_page() -> None:
    at = _app()
    labels = [el.proto.label for el in at.get("page_link")]
    assert labels[3:] == [p.title for p in PAGES[1:]]


def test_home_opens_with_what_the_lab_is_for_and_three_ways_in() -> None:
    """Before the live run and the theory: the lab's purpose, its readers, and three links
    (the course's first lesson, the explorer, the monitor)."""
    at = _app()
    blocks = [el for el in at.main if el.type in ("markdown", "page_link", "subheader")]
    first = blocks[0].value
    assert "concept drift" in first and "teachers and students" in first
    assert "researchers" in first and "engineers" in first
    links = [el.proto for el in at.get("page_link")][:3]
    assert [link.label for link in links] == [
        "**Take the course**", "**Explore a stream**", "**Check your own model**"]
    assert [link.page.rsplit("/", 1)[-1] for link in links] == [
        "course-drift", "explorer", "monitor"]
    n_lessons = sum(p.section == "Course" for p in PAGES)
    assert at.caption[0].value.startswith(f"{n_lessons} short lessons")
    headings = [h.value for h in at.subheader]
    assert headings.index("Live: PUDD-3 watching a SEA stream") < headings.index("The idea")


# --- Theorem 2 --------------------------------------------------------------------------------
def test_theorem2_defaults_equal_errors_but_only_pudd_rejects() -> None:
    at = _app("pages/theorem2.py")
    m, d = _metrics(at), _deltas(at)
    assert m["Window 1 error rate"] == m["Window 2 error rate"] == "0.500"
    assert m["Window 1 error std"] == m["Window 2 error std"] == "0.500"
    assert d["PUDD's χ² test, p"] == "drift"
    assert d["Error-rate test: 2 × 2 χ², p"] == "no drift"
    assert m["Error-rate test: 2 × 2 χ², p"] == "1"
    assert d["DDM alarms in window 2"] == "no drift"
    charts = figures(at)
    assert _trace_names(charts["theorem2_histogram"]) == [
        "Window 1: correct", "Window 1: misclassified", "Window 2: correct",
        "Window 2: misclassified", "PUDD bucket edges"]
    assert charts["theorem2_verdicts"]["data"][0]["y"] == ["PUDD", "Error-rate test"]
    assert len(at.table) == 1 and at.table[0].value.shape == (4, 6)  # every column in view
    # the summary under the sliders says what the metrics of steps 2 and 4 say
    [short] = [i.value for i in at.info if i.value.startswith("**In short**")]
    assert f"error rates {m['Window 1 error rate']} and {m['Window 2 error rate']}" in short
    assert f"PUDD: p = {m['PUDD' + chr(39) + 's χ² test, p']}, drift;" in short
    assert "the error-rate test: p = 1, no drift; DDM: 0 alarms in window 2" in short


def test_theorem2_error_rate_slider_changes_both_windows_metrics() -> None:
    at = _app("pages/theorem2.py")
    at.slider(key="w_theorem2_error_rate").set_value(0.3).run(timeout=TIMEOUT)
    m = _metrics(at)
    assert m["Window 1 error rate"] == m["Window 2 error rate"] == "0.300"
    assert m["Window 1 error std"] == "0.458"
    assert at.query_params["error_rate"] == "0.3"


def test_theorem2_with_every_prediction_wrong_shows_no_test_not_strong_evidence() -> None:
    at = _app("pages/theorem2.py")
    at.slider(key="w_theorem2_error_rate").set_value(1.0).run(timeout=TIMEOUT)
    assert not at.exception
    m, d = _metrics(at), _deltas(at)
    assert m["PUDD's χ² test, p"] == "no test"
    assert d["PUDD's χ² test, p"] == "drift by the authors' rule"
    from pudd_core.plots.player import to_json_ready  # decodes plotly's base64 arrays

    verdicts = to_json_ready(figures(at)["theorem2_verdicts"]["data"][0])
    assert verdicts["text"][0] == "no test ran" and verdicts["x"][0] == 0.0  # no maxed bar


def test_theorem2_identical_ranges_silence_pudd() -> None:
    at = _app("pages/theorem2.py")
    at.slider(key="w_theorem2_correct2").set_value((0.0, 0.1))
    at.slider(key="w_theorem2_wrong2").set_value((0.9, 1.0)).run(timeout=TIMEOUT)
    assert not at.exception
    assert _deltas(at)["PUDD's χ² test, p"] == "no drift"


def test_theorem2_alpha_selector_flips_the_verdict() -> None:
    at = _app("pages/theorem2.py")
    at.slider(key="w_theorem2_n").set_value(100).run(timeout=TIMEOUT)  # p ~ 1e-5
    at.select_slider(key="w_theorem2_alpha_exp").set_value(1).run(timeout=TIMEOUT)
    assert _deltas(at)["PUDD's χ² test, p"] == "drift"
    at.select_slider(key="w_theorem2_alpha_exp").set_value(10).run(timeout=TIMEOUT)
    assert _deltas(at)["PUDD's χ² test, p"] == "no drift"


def test_theorem2_invalid_range_shows_inline_error_and_keeps_other_settings() -> None:
    at = _app("pages/theorem2.py")
    at.slider(key="w_theorem2_error_rate").set_value(0.3).run(timeout=TIMEOUT)
    at.slider(key="w_theorem2_correct1").set_value((0.3, 0.5)).run(timeout=TIMEOUT)
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 1
    assert "Window 1, PU range of correct predictions" in errors[0]
    assert "must stay below 0.5" in errors[0]
    assert "PUDD's χ² test, p" not in _metrics(at)
    assert at.slider(key="w_theorem2_error_rate").value == 0.3
    assert at.slider(key="w_theorem2_wrong2").value == (0.8, 0.9)
    at.slider(key="w_theorem2_correct1").set_value((0.3, 0.4)).run(timeout=TIMEOUT)
    assert not at.error
    assert _metrics(at)["Window 1 error rate"] == "0.300"


def test_theorem2_reads_the_link_and_warns_about_bad_values() -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.run(timeout=TIMEOUT)
    at.query_params.update({"n": "500", "alpha": "3", "wrong2": "oops"})
    at.switch_page("pages/theorem2.py").run(timeout=TIMEOUT)
    assert at.slider(key="w_theorem2_n").value == 500
    assert at.select_slider(key="w_theorem2_alpha_exp").value == 3
    assert at.slider(key="w_theorem2_wrong2").value == (0.8, 0.9)
    assert any("wrong2=oops" in w.value for w in at.sidebar.warning)


# --- Theorem 1 tab ----------------------------------------------------------------------------
def test_theorem1_scaled_histograms_are_identical_with_equal_error_rates() -> None:
    at = _app("pages/theorem2.py")
    labels = [m.label for m in at.metric]
    assert "Histograms identical?" in labels
    m = {mm.label: mm.value for mm in at.metric[labels.index("Histograms identical?"):]}
    assert m["Histograms identical?"] == "yes"
    assert m["Window 1 error rate"] == m["Window 2 error rate"]
    assert len(figures(at)["theorem1_histogram"]["data"]) == 4


@pytest.mark.parametrize(("perturbation", "rates_equal"),
                         [("between_error_bins", True), ("correct_to_error", False)])
def test_theorem1_perturbations_keep_or_change_the_error_rate(
    perturbation: str, rates_equal: bool
) -> None:
    at = _app("pages/theorem2.py")
    at.radio(key="w_theorem1_perturbation").set_value(perturbation).run(timeout=TIMEOUT)
    labels = [m.label for m in at.metric]
    m = {mm.label: mm.value for mm in at.metric[labels.index("Histograms identical?"):]}
    assert m["Histograms identical?"] == "no"
    assert (m["Window 1 error rate"] == m["Window 2 error rate"]) is rates_equal


def test_theorem1_too_many_moved_instances_is_an_inline_error() -> None:
    at = _app("pages/theorem2.py")
    at.slider(key="w_theorem1_n").set_value(100)
    at.slider(key="w_theorem1_error_rate").set_value(0.95)
    at.select_slider(key="w_theorem1_factor").set_value(1)
    at.radio(key="w_theorem1_perturbation").set_value("correct_to_error").run(timeout=TIMEOUT)
    at.slider(key="w_theorem1_amount").set_value(50).run(timeout=TIMEOUT)
    assert not at.exception
    assert [e.value for e in at.error] == [
        "**Instances moved**: amount must be at most 5 (the correct predictions of window 2), "
        "got 50. Move fewer instances, or make window 1 larger or its scale factor bigger."]


# --- Fig. 1 -----------------------------------------------------------------------------------
def test_fig1_shows_equal_accuracies_of_0958() -> None:
    at = _app("pages/fig1.py")
    m = _metrics(at)
    assert m["Accuracy, test set 1"] == m["Accuracy, test set 2"] == "0.958"
    assert m["Errors (set 1 / set 2)"] == "42 / 42"
    charts = figures(at)
    assert set(charts) == {"fig1_scatter", "fig1_histogram", "fig1_histogram_errors",
                           "fig1_notebook_histogram", "fig1_pvalue_curve"}
    zoom = charts["fig1_histogram_errors"]["layout"]
    assert zoom["xaxis"]["range"] == [0.5, 1] and zoom["yaxis"]["range"][1] < 5  # errors fill it
    assert any("does not show PUDD detecting *earlier*" in m.value for m in at.markdown)
    scatter = _trace_names(charts["fig1_scatter"])
    assert scatter.count("GNB boundary p(y=1) = 0.5") == 2
    assert "old concept x0 + x1 = 9" in scatter and "new concept x0 + x1 = 8.2" in scatter
    assert _trace_names(charts["fig1_pvalue_curve"]) == [
        "PUDD", "Error-rate test", "threshold α = 1e-05"]


def test_fig1_says_p_is_not_significant_at_n_1000() -> None:
    at = _app("pages/fig1.py")
    text = " ".join(md.value for md in at.markdown)
    assert "p = 0.952" in text and "not significant" in text


def test_fig1_largest_size_control_changes_the_curve() -> None:
    at = _app("pages/fig1.py")
    at.select_slider(key="w_fig1_max_n").set_value(3000).run(timeout=TIMEOUT)
    curve = figures(at)["fig1_pvalue_curve"]["data"][0]
    assert curve["x"] == [1000, 2000, 3000]
    assert at.table[0].value["test-set size n"].tolist() == [1000, 2000, 3000]


def test_an_unexpected_error_is_explained_inline_and_the_page_keeps_what_it_drew(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import pudd_core.streams

    def broken(name: str) -> Any:
        raise RuntimeError("the registry is broken")

    monkeypatch.delenv("PUDD_STRICT")
    monkeypatch.setattr(pudd_core.streams, "get_info", broken)
    at = open_page("pages/cifar10-cd.py", {"chunks": "10"}, timeout=TIMEOUT)
    assert not at.exception
    [error] = [e.value for e in at.error]
    assert error.startswith("**This page could not finish**: RuntimeError: the registry is broken")
    assert "Your settings and finished results are kept" in error
    assert {"cifar_matrix", "cifar_timeline"} <= set(figures(at))  # drawn before the error
    assert at.query_params["chunks"] == "10"  # the link still carries the settings


def test_in_tests_an_unexpected_error_stays_an_exception(monkeypatch: pytest.MonkeyPatch) -> None:
    import pudd_core.streams

    def broken(name: str) -> Any:
        raise RuntimeError("the registry is broken")

    monkeypatch.setattr(pudd_core.streams, "get_info", broken)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.run()
    at.switch_page("pages/cifar10-cd.py").run()
    assert len(at.exception) == 1  # (its message is redacted: showErrorDetails = "none")
    assert not [e for e in at.error if "could not finish" in e.value]


# --- Markdown injection through links (issue 10 item 13) ----------------------------------------
EVIL = "`x` [click](https://evil.example/) ![i](https://evil.example/p.png)"  # issue 10's
BREAKOUT = "x` [click](https://evil.example/) ![i](https://evil.example/p.png) `y"  # closes `…`


def _outside_code_spans(markdown: str) -> str:
    """``markdown`` with its code spans removed (CommonMark: a run of n backticks closes at
    the next run of exactly n); an unclosed run stays as text."""
    out, i = [], 0
    while i < len(markdown):
        if markdown[i] != "`":
            out.append(markdown[i])
            i += 1
            continue
        n = len(markdown[i:]) - len(markdown[i:].lstrip("`"))
        j = i + n
        while j < len(markdown):
            if markdown[j] == "`":
                m = len(markdown[j:]) - len(markdown[j:].lstrip("`"))
                if m == n:
                    break
                j += m
            else:
                j += 1
        if j >= len(markdown):  # no closing run: literal backticks
            out.append(markdown[i:i + n])
            i += n
        else:
            i = j + n
    return "".join(out)


@pytest.mark.parametrize(("page", "param", "evil"), [("pages/theorem2.py", "wrong2", EVIL),
                                                     ("pages/explorer.py", "dataset", EVIL),
                                                     (None, "seed", EVIL),
                                                     (None, "seed", BREAKOUT)])
def test_a_links_value_is_shown_as_text_never_as_a_link_or_image(page: str | None, param: str,
                                                                 evil: str) -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    if page is not None:  # a visitor on Home, then a link to the page
        at.run(timeout=TIMEOUT)
        at.switch_page(page)
    at.query_params[param] = evil
    at.run(timeout=TIMEOUT)
    assert not at.exception
    [warning] = [w.value for w in at.sidebar.warning if "Ignored the link" in w.value]
    assert evil in warning  # the value itself, verbatim, inside a code span
    text = _outside_code_spans(warning)
    assert "evil.example" not in text and "](" not in text and "![" not in text


def test_the_escaping_helper_keeps_user_text_out_of_markdown_syntax() -> None:
    from ui.messages import code, escape

    # what is left once escaped characters are dropped: what Markdown may read as syntax
    unescaped = re.sub(r"\\.", "", escape(EVIL + BREAKOUT))
    assert "[" not in unescaped and "]" not in unescaped and "`" not in unescaped
    assert _outside_code_spans(code(EVIL)).strip() == ""
    assert _outside_code_spans(code(BREAKOUT)).strip() == ""
    assert _outside_code_spans(f"a {code('``` ` ``')} b") == "a  b"


def test_theorem2_step5_computes_both_powers_for_a_pure_error_rate_change() -> None:
    from pudd_core.theorems import error_shift_power

    at = _app("pages/theorem2.py")
    at.slider(key="w_theorem2_error_rate").set_value(0.2).run(timeout=TIMEOUT)
    at.slider(key="w_theorem2_error_shift").set_value(0.04).run(timeout=TIMEOUT)
    assert not at.exception
    shown = _metrics(at)
    [k] = [int(label.split("2 × ")[1].split(" ")[0]) - 1 for label in shown
           if label.startswith("Power of PUDD's")]
    expected = error_shift_power(1000, 1000, 0.2, 0.24, k=k, alpha=1e-5)
    assert shown["Power of the 2 × 2 error-rate test"] == f"{expected.power_error_test:.2f}"
    assert shown[f"Power of PUDD's 2 × {k + 1} table"] == f"{expected.power_pu_test:.2f}"
    assert expected.power_pu_test < expected.power_error_test  # K > 1 buckets here
    # Theorem 1's tab, error rates made to differ: the PU histogram shows the change, and the
    # page no longer says the PU test sees every change an error-rate test sees
    at.radio(key="w_theorem1_perturbation").set_value("correct_to_error").run(timeout=TIMEOUT)
    [warning] = [w.value for w in at.warning if "contrapositive" in w.value]
    assert "not as powerful" in warning and "sees every change" not in warning


@pytest.mark.parametrize("value", [None, "", " ", "0", "false", " No ", "OFF", "1", "true",
                                   "yes", "2"])
def test_the_strict_switch_raises_unless_unset_or_off_and_off_shows_the_error_inline(
        value: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """``$PUDD_STRICT`` is the test harness's switch (tests/conftest.py sets it to ``1``): on,
    an unexpected error goes through as an exception so a test fails on it; unset, empty or
    an off value (``0``, ``false``, ``no``, ``off``, any case, spaces aside) the visitor gets
    the inline explanation, so a ``PUDD_STRICT=0`` copied into production stays off."""
    import ui.pages

    shown: list[Exception] = []
    monkeypatch.setattr(ui.pages, "unexpected", shown.append)
    monkeypatch.setattr(ui.pages, "log_time", lambda *a: None)
    if value is None:
        monkeypatch.delenv(ui.pages.STRICT_ENV, raising=False)
    else:
        monkeypatch.setenv(ui.pages.STRICT_ENV, value)
    failure = RuntimeError("the registry is broken")
    if value is not None and value.strip().lower() not in ("", "0", "false", "no", "off"):
        with pytest.raises(RuntimeError, match="the registry is broken"), ui.pages.routing("x"):
            raise failure
        assert shown == []
    else:
        with ui.pages.routing("x"):
            raise failure
        assert shown == [failure]


def test_the_timing_log_records_each_script_run_and_a_bad_path_never_costs_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """``$PUDD_TIMING_LOG`` (the benchmarks' measuring aid): one ``script`` line per run; a
    path that cannot be written is a logged warning, and the page shows as without it."""
    import time

    from ui.pages import TIMING_ENV, log_time

    log = tmp_path / "timing.tsv"
    monkeypatch.setenv(TIMING_ENV, str(log))
    log_time("script", "fig1", time.perf_counter() - 0.25)
    [line] = log.read_text().splitlines()
    _, what, detail, ms = line.split("\t")
    assert (what, detail) == ("script", "fig1") and 250.0 <= float(ms) < 60_000

    missing = tmp_path / "no such folder" / "timing.tsv"
    monkeypatch.setenv(TIMING_ENV, str(missing))
    with caplog.at_level("WARNING", logger="pudd_lab"):
        log_time("script", "fig1", time.perf_counter())
        at = open_page(None, timeout=120)  # app.py logs each run's time on the way out
    assert not missing.exists()
    warned = [r for r in caplog.records
              if TIMING_ENV in r.getMessage() and "cannot be written" in r.getMessage()]
    assert len(warned) >= 2  # the call above, and the page's run
    assert not at.exception and not at.error
    assert any("PUDD" in h.value for h in at.title)  # Home, as without the log
