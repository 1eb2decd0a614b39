"""The monitor page with real logs, and the explorer's downloads, in a real browser.

Two logs built here from seeded generators whose drift is known: a binary model's log as
scikit-learn writes it (one column P(positive), labels 0/1, the model's own decisions at a
threshold of 0.4) and a three-class log whose newest rows have no label yet. The page must say
what it inferred and which decisions it scores, report the pending rows as pending, show the
alarms where the drift is, and never show an exception. The fixtures (one Chromium, one app
server) are tests/app/conftest.py's. The explorer's downloads (issue 25): every file its buttons
and charts save is opened and checked against the library's own runs.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from harness.browser import EXPLORER, FOUR, PLAYER, assert_no_exception, settle, wait_for_player
from tests.app.test_browser import (
    ARTIFACTS,
    FOUR_LABELS,
    _agree,
    _download,
    _four_link,
    _wait_quiet,
)
from ui.monitor import FORMS

pytestmark = pytest.mark.browser

MONITOR = "Your model's predictions"
SCREENS = {"1280": {"width": 1280, "height": 800}, "1024": {"width": 1024, "height": 768}}
CHUNK = 1000  # the page's rows per chunk for an upload


def binary_log(seed: int = 0, n: int = 12_000, drift: int = 6_000) -> pd.DataFrame:
    """A binary model's log: its score P(y = 1), its decisions at 0.4; positives drift at ``drift``.

    Before the drift a positive's score is Beta(5, 2) and a negative's Beta(2, 5); from row
    ``drift`` on, a positive's score is Beta(2, 3): the model misses many of them.
    """
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    score = np.where(y == 1, rng.beta(5, 2, n), rng.beta(2, 5, n))
    late = (np.arange(n) >= drift) & (y == 1)
    score[late] = rng.beta(2, 3, int(late.sum()))
    score = score.round(4)
    return pd.DataFrame({"y_true": y, "y_pred_proba": score, "y_pred": (score > 0.4).astype(int)})


def pending_log(seed: int = 1, n: int = 12_500, drift: int = 5_000,
                labelled: int = 11_000) -> pd.DataFrame:
    """A three-class log whose rows from ``labelled`` on have no label yet.

    The model is sure and right before row ``drift`` and unsure after it (its logits' margin
    drops from 6 to 0.9).
    """
    rng = np.random.default_rng(seed)
    classes = np.array(["cat", "dog", "bird"])
    k = rng.integers(0, 3, n)
    logits = rng.normal(0, 1, (n, 3))
    logits[np.arange(n), k] += np.where(np.arange(n) < drift, 6.0, 0.9)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    frame = pd.DataFrame({"label": classes[k]})
    for j, c in enumerate(classes):
        frame[f"proba_{c}"] = p[:, j]
    frame.loc[labelled:, "label"] = ""
    return frame


def _chunk_accuracy(right: pd.Series) -> float:
    """The mean over chunks of each chunk's accuracy (the summary table's ``accuracy``)."""
    return float(right.groupby(np.arange(len(right)) // CHUNK).mean().mean())


_LAYOUT = """() => [document.querySelector('[data-testid="stMain"]')?.scrollHeight ?? 0,
    ...[...document.querySelectorAll('.pudd-player')].map(f => f.getBoundingClientRect().height)]"""


def _still(page: Any) -> int:
    """Wait until the page and its player keep their heights (plotly and the player redraw
    after a resize); return the main container's height."""
    last, stable = None, 0
    for _ in range(80):
        page.wait_for_timeout(250)
        now = page.evaluate(_LAYOUT)
        stable = stable + 1 if now == last else 0
        last = now
        if stable >= 4:
            break
    return int(last[0]) if last else 0


def _charts_keep_their_height(page: Any) -> None:
    """Each chart of the player takes its figure's height on the page, so none overlaps the
    caption and table under it (after a window was made narrower the cut chart's box was 0 px
    tall and its figure hid the table of every cut's test)."""
    boxes = page.evaluate("""() => [...document.querySelectorAll('.chart.js-plotly-plot')]
        .filter(g => g.offsetParent !== null)
        .map(g => [g.id, g.getBoundingClientRect().height, g._fullLayout.height])""")
    assert boxes and all(abs(box - fig) < 1 for _, box, fig in boxes), boxes


def _shot(page: Any, name: str) -> None:
    """The whole page at each screen width (the main container scrolls: grow the viewport)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for label, size in SCREENS.items():
        page.set_viewport_size(size)
        height = _still(page)
        page.set_viewport_size({"width": size["width"],
                                "height": min(max(height, size["height"]), 8000)})
        _still(page)
        page.screenshot(path=str(ARTIFACTS / f"{name}-{label}.png"), full_page=True)
        _charts_keep_their_height(page)
    page.set_viewport_size(SCREENS["1280"])


def _upload(page: Any, frame: pd.DataFrame, path: Path, labels: bool = False) -> None:
    """Upload ``frame`` as the log (the first uploader) or as its labels (the second)."""
    frame.to_csv(path, index=False)
    uploader = page.locator('[data-testid="stFileUploader"]')
    uploader = (uploader.filter(has_text="Labels in a second file") if labels
                else uploader.first)
    uploader.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    _wait_quiet(page)
    assert_no_exception(page)


def _summary_table(page: Any) -> pd.DataFrame:
    """The expander's table "Alarms and error rate of every detector", as the page shows it."""
    page.get_by_text("Alarms and error rate of every detector").click()
    _wait_quiet(page)
    table = page.locator('[data-testid="stExpander"]').filter(
        has_text="Alarms and error rate").locator("table")
    table.wait_for()
    rows = table.evaluate("t => [...t.rows].map(r => [...r.cells].map(c => c.innerText))")
    return pd.DataFrame([r[1:] for r in rows[1:]], index=[r[0] for r in rows[1:]],
                        columns=rows[0][1:])


def test_the_monitor_player_steps_plays_and_pauses_in_the_page(page: Any, app_url: str) -> None:
    """The Monitor page's player is the explorer's, in the page (issue 34 item 10)."""
    from harness.browser import press

    page.goto(f"{app_url}/monitor?chunk=3")
    settle(page, MONITOR)
    frame = wait_for_player(page, 49)  # the example log
    assert _agree(frame)["cursor"] == 3
    press(page, "#next")
    assert _agree(frame)["cursor"] == 4
    page.locator(PLAYER).locator("#speed").select_option("10")
    press(page, "#play")
    frame.wait_for_function("() => __player.cursor >= 8")
    press(page, "#play")  # Pause
    stopped = _agree(frame)
    assert not stopped["playing"] and stopped["cursor"] >= 8
    page.wait_for_function(f"() => location.search.includes('chunk={stopped['cursor']}')")
    assert_no_exception(page)


def test_monitor_page_reads_a_binary_log_and_a_pending_tail(page: Any, app_url: str,
                                                            tmp_path: Path) -> None:
    page.set_viewport_size(SCREENS["1280"])
    page.goto(f"{app_url}/monitor")
    settle(page, MONITOR)
    wait_for_player(page, 49)  # the example log
    assert_no_exception(page)
    page.get_by_text("Upload a file").click()
    _wait_quiet(page)
    assert_no_exception(page)
    main = page.locator('[data-testid="stMain"]')

    # 1. a binary model: one column P(positive), labels 0/1, its own decisions
    log = binary_log()
    _upload(page, log, tmp_path / "binary_model.csv")
    # the guess: one probability column, the label and the decisions by their usual names
    assert page.get_by_role("radio", name=FORMS[1]).is_checked()
    frame = wait_for_player(page, 12)  # 12,000 rows in 1,000-row chunks, all labelled
    assert_no_exception(page)
    text = main.inner_text()
    assert "read as P(y_true = '1')" in text and "'1' inferred from the labels" in text
    assert "the model's decisions in column 'y_pred'" in text
    assert "disagree on 12." in text  # its threshold is 0.4, not 0.5: said, with the share
    # the drift starts at row 6,000 = chunk 6: PUDD alarms there, not before
    assert main.get_by_text("12,000 rows in 12 tested chunks; PUDD at α = 0.001: 1 alarm at "
                            "chunk 6.").count() == 1
    assert main.locator('[data-testid="stDataFrame"]').count() >= 1  # the alarm table
    alarms_so_far = "() => document.getElementById('m-alarms').textContent"
    page.locator(PLAYER).locator("#jump").fill("6")  # the player's 6 is the log's 5
    assert _agree(frame)["cursor"] == 6 and frame.evaluate(alarms_so_far) == "0"
    page.locator(PLAYER).locator("#jump").fill("7")
    assert _agree(frame)["cursor"] == 7 and frame.evaluate(alarms_so_far) == "1"
    assert_no_exception(page)
    # the accuracy is the model's decisions', not P > 0.5's (hand-computed from the log)
    table = _summary_table(page)
    by_decision = _chunk_accuracy(log["y_pred"] == log["y_true"])
    by_half = _chunk_accuracy((log["y_pred_proba"] > 0.5).astype(int) == log["y_true"])
    assert round(by_decision, 4) != round(by_half, 4)
    assert float(table.loc["PUDD", "accuracy"]) == pytest.approx(by_decision, abs=5e-5)
    assert list(table.columns) == ["alarms", "accuracy"]  # no drift is known: no delays
    assert main.get_by_text("accuracy is the share of right predictions by the model's "
                            "decisions (column y_pred)").count() == 1
    assert_no_exception(page)
    _shot(page, "monitor-binary")

    # 2. labels arrive late: the newest 1,500 rows have none
    log = pending_log()
    _upload(page, log, tmp_path / "late_labels.csv")
    frame = wait_for_player(page, 11)  # 11 tested chunks; the pending ones are not played
    assert_no_exception(page)
    text = main.inner_text()
    assert ("12,500 rows: 11,000 in 11 tested chunks, 1,500 rows pending (no label yet: chunks "
            "11–12, not tested); PUDD at α = 0.001: 1 alarm at chunk 5.") in text
    assert "pending: the last 1,500 rows (2 chunk(s) from row 11,000)" in text
    page.locator(PLAYER).locator("#jump").fill("5")
    assert _agree(frame)["cursor"] == 5 and frame.evaluate(alarms_so_far) == "0"
    page.locator(PLAYER).locator("#jump").fill("6")
    assert _agree(frame)["cursor"] == 6 and frame.evaluate(alarms_so_far) == "1"
    assert_no_exception(page)
    # the per-chunk CSV lists the pending chunks as pending, with their rows
    csv = pd.read_csv(_download(page, page.get_by_role(
        "button", name="Download the per-chunk log (CSV)")))
    assert_no_exception(page)
    pending = csv[csv["status"] == "pending"]
    assert pending["chunk"].tolist() == [11, 12] and pending["n_rows"].tolist() == [1000, 500]
    assert csv.loc[csv["status"] == "tested", "chunk"].tolist() == list(range(11))
    assert csv.loc[csv["alarm"].astype(str) == "True", "chunk"].tolist() == [5]
    report = _download(page, page.get_by_role("button", name="Download the HTML report"))
    assert "1,500" in report.read_text() and "pending" in report.read_text()
    # titled with the upload's name; the log read again for the classes (labelled rows only)
    assert "<h1>late_labels.csv</h1>" in report.read_text()
    assert 'data-state="healthy"' not in report.read_text()  # PUDD alarmed at chunk 5
    assert "since chunk" in report.read_text()
    assert all(f'<tr data-class="{c}">' in report.read_text() for c in ("bird", "cat", "dog"))
    assert_no_exception(page)
    _shot(page, "monitor-pending")


def test_monitor_page_joins_labels_from_a_second_file_by_id(page: Any, app_url: str,
                                                             tmp_path: Path) -> None:
    """The binary model's log as a serving stack writes it (predictions with a request id,
    labels elsewhere, shuffled, the newest 1,500 not come yet): the page gives the library's
    labels= result; two labels for one id are refused under the labels' uploader."""
    from pudd_core import monitor

    log = binary_log().assign(request=lambda f: [f"req-{i}" for i in range(len(f))])
    predictions = log.drop(columns="y_true")
    labels = log[["request", "y_true"]].head(10_500).sample(frac=1, random_state=3)
    page.set_viewport_size(SCREENS["1280"])
    page.goto(f"{app_url}/monitor")
    settle(page, MONITOR)
    wait_for_player(page, 49)
    page.get_by_text("Upload a file").click()
    _wait_quiet(page)
    _upload(page, predictions, tmp_path / "predictions.csv")
    page.get_by_text("Labels in a second file").wait_for()  # offered once a log is read
    _upload(page, labels, tmp_path / "labels.csv", labels=True)
    expected = monitor(tmp_path / "predictions.csv", label="y_true",
                       proba_columns=["y_pred_proba"], pred="y_pred", chunk_size=CHUNK,
                       labels=tmp_path / "labels.csv", id_column="request")
    assert expected.alarms == (6,) and expected.n_chunks == 10  # 10,000 labelled rows tested
    wait_for_player(page, expected.n_chunks)
    assert_no_exception(page)
    text = page.locator('[data-testid="stMain"]').inner_text()
    assert (f"12,000 rows: 10,000 in {expected.n_chunks} tested chunks, 2,000 rows pending "
            "(no label yet: chunks 10–11, not tested); PUDD at α = 0.001: 1 alarm at chunk "
            "6.") in text
    _shot(page, "monitor-labels")

    # choosing α reads the same join (issue 35): the library's α on the first 5 chunks
    from pudd_core.monitoring import calibrate_log

    page.get_by_text("Choose α from a stable stretch of this log").click()
    metric = page.locator('[data-testid="stMetric"]').filter(has_text="Chosen α")
    metric.wait_for(timeout=120_000)
    assert_no_exception(page)
    cal, _ = calibrate_log(tmp_path / "predictions.csv", label="y_true",
                           proba_columns=["y_pred_proba"], pred="y_pred", chunk_size=CHUNK,
                           labels=tmp_path / "labels.csv", id_column="request",
                           calibrate_on=5 * CHUNK, false_alarm_rate=0.02, n_resamples=50,
                           baselines=["adwin", "ddm"])
    assert f"{cal.recommended.alpha:g}" in metric.inner_text()
    metric.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "monitor-labels-calibrated.png"), full_page=True)

    twice = pd.concat([labels, pd.DataFrame({"request": ["req-7"],
                                             "y_true": [1 - log.loc[7, "y_true"]]})])
    _upload(page, twice, tmp_path / "labels_twice.csv", labels=True)
    error = page.locator('[data-testid="stAlert"]').filter(has_text="cannot be joined")
    error.wait_for()
    assert "the id 'req-7' has two different labels" in error.inner_text()
    assert page.locator(PLAYER).count() == 0  # nothing run on a wrong join
    assert_no_exception(page)
    page.screenshot(path=str(ARTIFACTS / "monitor-labels-refused.png"), full_page=True)


def _saved(page: Any, click: Any) -> tuple[str, Path]:
    """The name the browser would save a download under, and the file."""
    with page.expect_download() as info:
        click()
    return info.value.suggested_filename, Path(info.value.path())


def test_explorer_downloads_hold_every_setting_and_seed_and_name_them(
    page: Any, app_url: str
) -> None:
    from pudd_core.experiments.runner import run_experiment
    from pudd_core.views.explorer import ExplorerConfig, PUDDSetting, comparison_log_frame

    page.set_viewport_size(SCREENS["1280"])
    page.goto(_four_link(app_url))
    settle(page, EXPLORER)
    frame = wait_for_player(page, 19)
    assert_no_exception(page)
    cfg = ExplorerConfig(settings=tuple(PUDDSetting.parse(t) for t in FOUR.split(";")),
                         baselines=("adwin", "ddm", "eddm"), n_chunks=20, seeds=3)
    stem = cfg.file_stem()
    assert all(part in stem for part in ("PUDD-3", "PUDD-5-all-cuts", "PUDD-3-EK",
                                         "PUDD-1-floor-0", "seed0-2"))
    names = {}
    for button, suffix in (("Run log (CSV)", "_log.csv"), ("Every cut's χ² test", "_cuts.csv"),
                           ("Windows: tables", "_windows.csv"), ("Everything (JSON)", ".json")):
        name, path = _saved(page, page.get_by_role("button", name=button).click)
        assert_no_exception(page)
        assert name == stem + suffix
        names[suffix] = path
    # the run log: every setting and seed, each the library's own run, with the baselines'
    got = pd.read_csv(names["_log.csv"])
    assert got.groupby(["setting", "seed"], sort=False).size().to_dict() == {
        (label, seed): 19 for label in FOUR_LABELS for seed in (0, 1, 2)}
    mine = comparison_log_frame(cfg.comparison([run_experiment(c) for c in cfg.run_configs()]))
    pd.testing.assert_frame_equal(got, pd.read_csv(io.StringIO(mine.to_csv(index=False))))
    for csv in ("_cuts.csv", "_windows.csv"):
        frame_ = pd.read_csv(names[csv])
        assert set(frame_["setting"]) == set(FOUR_LABELS) and set(frame_["seed"]) == {0, 1, 2}
    # a setting's chart is saved under the setting's and the seed's name, at the cursor
    frame.locator("#detail").select_option(label="PUDD-5 (all cuts)")
    page.locator(PLAYER).locator("#jump").fill("4")
    assert_no_exception(page)
    chart = frame.locator("#c-cuts")
    chart.hover()
    name, path = _saved(page, chart.locator(
        '.modebar-btn[data-title="Download plot as a PNG"]').click)
    assert name == "pudd_cuts_PUDD-5-all-cuts_seed0_chunk4.png"
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert_no_exception(page)
