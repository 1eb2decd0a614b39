"""The monitor's HTML report a team reads: title, state in words, time axis, periods, classes.

Every number the report states is checked against an independent computation on the log with
pandas and scipy (the report computes it streaming, in batches, from the result's chunks).
"""

from __future__ import annotations

import html
import json
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import chi2_contingency, fisher_exact

from pudd_core import monitor
from pudd_core._validation import ParameterError
from pudd_core.cli import main
from pudd_core.monitoring import report_view
from pudd_core.plots.monitor import monitor_report_html

N, CHANGE = 6000, 3000


def _log(changed_class: int | None = 2, seed: int = 0) -> pd.DataFrame:
    """3 classes, a row a minute; from row CHANGE the model is unsure of ``changed_class``."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, N)
    p_true = rng.uniform(0.6, 1.0, N)
    if changed_class is not None:
        hit = (np.arange(N) >= CHANGE) & (y == changed_class)
        p_true[hit] = rng.uniform(0.2, 0.9, hit.sum())
    split = rng.uniform(0, 1, N)
    other1, other2 = (y + 1) % 3, (y + 2) % 3
    proba = np.zeros((N, 3))
    proba[np.arange(N), y] = p_true
    proba[np.arange(N), other1] = (1 - p_true) * split
    proba[np.arange(N), other2] = (1 - p_true) * (1 - split)
    ts = pd.date_range("2024-03-01", periods=N, freq="min")
    return pd.DataFrame({"ts": ts.strftime("%Y-%m-%dT%H:%M:%S"), "label": y,
                         **{f"proba_{k}": proba[:, k] for k in range(3)}})


@pytest.fixture(scope="module")
def log_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "model_a_predictions.csv"
    _log().to_csv(path, index=False)
    return path


def _plotly_data(page: str) -> dict[str, dict]:
    """Figure id -> its data and layout, read from each Plotly.newPlot call of the page."""
    decoder = json.JSONDecoder()
    out = {}
    for m in re.finditer(r'Plotly\.newPlot\(\s*"fig-([\w]+)",\s*', page):
        data, end = decoder.raw_decode(page, m.end())
        layout, _ = decoder.raw_decode(page, page.index("{", end))
        out[m.group(1)] = {"data": data, "layout": layout}
    return out


def _values(v):
    """A plotly array as a list (plain, or its typed-array form)."""
    if isinstance(v, dict) and "bdata" in v:
        import base64

        return np.frombuffer(base64.b64decode(v["bdata"]), v["dtype"]).tolist()
    return list(v)


def _independent(log: pd.DataFrame, rows: tuple[int, int]) -> pd.DataFrame:
    """Per true class over ``rows`` (both included), with pandas: rows, mean PU, errors."""
    part = log.iloc[rows[0]:rows[1] + 1]
    proba = part[[f"proba_{k}" for k in range(3)]].to_numpy()
    pu = 1 - proba[np.arange(len(part)), part["label"].to_numpy()]
    wrong = proba.argmax(axis=1) != part["label"].to_numpy()
    frame = pd.DataFrame({"label": part["label"].astype(str), "pu": pu, "wrong": wrong,
                          "bin": pd.cut(pu, np.linspace(0, 1, 11), right=False,
                                        include_lowest=True).codes})
    frame.loc[frame["pu"] >= 1.0, "bin"] = 9  # the last bin is closed: [0.9, 1.0]
    return frame


def test_row_chunks_state_times_periods_and_classes_match_the_log(log_csv):
    log = pd.read_csv(log_csv)
    res = monitor(log_csv, label="label", proba_prefix="proba_", chunk_size=500)
    view = report_view(res, log_csv, time_column="ts")
    assert res.alarms  # the change is found
    # the state: from the last alarm's winning cut, the error rise tested on the log itself
    last = res.alarms[-1]
    since = last - res.records[last].cut_point + 1
    assert view.since == since and view.recent == (since, res.n_chunks - 1)
    assert view.reference == (0, since - 1)
    ref_rows = (res.spans[0].first_row, res.spans[since - 1].last_row)
    rec_rows = (res.spans[since].first_row, res.spans[-1].last_row)
    ref, rec = _independent(log, ref_rows), _independent(log, rec_rows)
    assert view.reference_error == pytest.approx(ref["wrong"].mean())
    assert view.recent_error == pytest.approx(rec["wrong"].mean())
    p = fisher_exact([[rec["wrong"].sum(), (~rec["wrong"]).sum()],
                      [ref["wrong"].sum(), (~ref["wrong"]).sum()]], alternative="greater").pvalue
    assert view.error_p_value == pytest.approx(p, rel=1e-9)
    assert view.state == "degraded" and p < res.alpha
    first = log["ts"][ref_rows[1] + 1]  # the first row of the recent period
    assert view.sentence.startswith(f"Degraded since chunk {since} (from {first}), row ")
    assert (f"rose from {100 * ref['wrong'].mean():.1f}% in the reference (chunks 0–{since - 1}) "
            f"to {100 * rec['wrong'].mean():.1f}% since") in view.sentence
    # the time axis of row chunks: each chunk's first and last row's time, from the column
    assert view.time_kind == "rows"
    assert view.times == tuple((pd.Timestamp(log["ts"][s.first_row]).isoformat(),
                                pd.Timestamp(log["ts"][s.last_row]).isoformat())
                               for s in res.spans)
    # the per-class view: pandas over the same rows, the test by scipy on pd.cut's bins
    by = {c.label: c for c in view.classes}
    assert sorted(by) == ["0", "1", "2"]
    for k in ("0", "1", "2"):
        a, b = ref[ref["label"] == k], rec[rec["label"] == k]
        c = by[k]
        assert (c.reference_rows, c.recent_rows) == (len(a), len(b))
        assert c.reference_share == pytest.approx(len(a) / len(ref))
        assert c.recent_share == pytest.approx(len(b) / len(rec))
        assert c.reference_pu == pytest.approx(a["pu"].mean())
        assert c.recent_pu == pytest.approx(b["pu"].mean())
        assert c.reference_error == pytest.approx(a["wrong"].mean())
        assert c.recent_error == pytest.approx(b["wrong"].mean())
        table = np.array([np.bincount(a["bin"], minlength=10), np.bincount(b["bin"], minlength=10)])
        table = table[:, table.sum(axis=0) > 0]
        assert c.p_value == pytest.approx(chi2_contingency(table, correction=False).pvalue,
                                          rel=1e-6, abs=1e-300)
    # only the class whose confidence was changed moved; the contributions add up
    assert [c.label for c in view.classes if c.moved] == ["2"]
    assert view.class_alpha == pytest.approx(res.alpha / 3)
    assert sum(c.contribution for c in view.classes) == pytest.approx(
        rec["pu"].mean() - ref["pu"].mean())


def test_the_page_says_what_the_view_says(log_csv):
    res = monitor(log_csv, label="label", proba_prefix="proba_", chunk_size=500,
                  baselines=["adwin", "ddm"])
    view = report_view(res, log_csv, time_column="ts")
    page = monitor_report_html(res, view)
    # the log's file name is the title and the heading
    assert "<title>model_a_predictions.csv: PUDD report</title>" in page
    assert "<h1>model_a_predictions.csv</h1>" in page
    assert "<h1>upload.csv</h1>" in monitor_report_html(res, view, name="upload.csv")
    state = re.search(r'<p class="state" data-state="(\w+)">(.*?)</p>', page)
    assert state and state[1] == view.state == "degraded"
    assert html.unescape(state[2]) == view.sentence
    two = next(c for c in view.classes if c.label == "2")
    assert (f"Classes whose PU-index moved: <strong>2 (up, {two.reference_pu:.4f} → "
            f"{two.recent_pu:.4f})</strong> of 3") in page
    for c in view.classes:
        row = re.search(rf'<tr data-class="{c.label}">(.*?)</tr>', page)
        assert row and f"<td>{c.reference_rows:,}</td><td>{c.recent_rows:,}</td>" in row[1]
        assert f"<td>{c.reference_pu:.4f}</td><td>{c.recent_pu:.4f}</td>" in row[1]
    figures = _plotly_data(page)
    trace = figures["trace"]
    names = [t["name"] for t in trace["data"]]
    # one legend entry for the model's error rate, whatever the baselines
    assert [n for n in names if "error rate" in n] == ["Model error rate"]
    assert {"PUDD alarm", "ADWIN alarm", "DDM alarm"} <= set(names)
    error = next(t for t in trace["data"] if t["name"] == "Model error rate")
    assert _values(error["y"]) == pytest.approx([100 * (1 - a) for a in res.accuracy])
    # on a time axis: each chunk at its first row's time
    assert error["x"] == [a for a, _ in view.times]
    assert trace["layout"]["xaxis"]["type"] == "date"
    # the reference period marked, from its first chunk's start to its last chunk's end
    for fig in ("trace", "minp"):
        bands = {s["name"]: s for s in figures[fig]["layout"]["shapes"] if s["type"] == "rect"}
        assert (bands["reference"]["x0"], bands["reference"]["x1"]) == (
            view.times[view.reference[0]][0], view.times[view.reference[1]][1])
        assert (bands["recent"]["x0"], bands["recent"]["x1"]) == (
            view.times[view.recent[0]][0], view.times[view.recent[1]][1])
    assert "reference period (before the change)" in names
    bars = figures["classes"]["data"]
    assert [b["name"] for b in bars] == ["reference period", "recent period"]
    assert bars[1]["x"] == ["0", "1", "2 *"]


def test_time_chunks_through_the_command_line(log_csv, tmp_path, capsys):
    report = tmp_path / "r.html"
    assert main(["monitor", str(log_csv), "--label", "label", "--proba-prefix", "proba_",
                 "--time-column", "ts", "--window", "10min", "--baselines", "ddm", "--json",
                 "--report", str(report)]) == 0
    out = json.loads(capsys.readouterr().out)
    page = report.read_text()
    figures = _plotly_data(page)
    error = next(t for t in figures["trace"]["data"] if t["name"] == "Model error rate")
    starts = [c["start"] for c in out["chunks"]]
    assert starts[:2] == ["2024-03-01T00:00:00", "2024-03-01T00:10:00"]
    assert error["x"] == starts  # each window at its start
    assert figures["trace"]["layout"]["xaxis"]["type"] == "date"
    bands = {s["name"]: s for s in figures["minp"]["layout"]["shapes"] if s["type"] == "rect"}
    last = out["alarms"][-1]
    since = last - out["cut_points"][last] + 1
    assert bands["recent"]["x0"] == out["chunks"][since]["start"]
    assert bands["reference"]["x1"] == out["chunks"][since - 1]["end"]
    assert f"Degraded since chunk {since} (from {out['chunks'][since]['start']})" in page
    assert "<h1>model_a_predictions.csv</h1>" in page
    assert [t["name"] for t in figures["trace"]["data"]].count("Model error rate") == 1


def test_row_chunks_with_a_time_column_through_the_command_line(log_csv, tmp_path, capsys):
    report = tmp_path / "r.html"
    assert main(["monitor", str(log_csv), "--label", "label", "--proba-prefix", "proba_",
                 "--chunk-size", "500", "--time-column", "ts", "--report", str(report)]) == 0
    log = pd.read_csv(log_csv)
    error = next(t for t in _plotly_data(report.read_text())["trace"]["data"]
                 if t["name"] == "Model error rate")
    assert error["x"] == [pd.Timestamp(t).isoformat() for t in log["ts"][::500]]
    # without --report, a time column with row chunks is refused as before
    assert main(["monitor", str(log_csv), "--label", "label", "--proba-prefix", "proba_",
                 "--chunk-size", "500", "--time-column", "ts"]) == 2
    assert "both time_column" in capsys.readouterr().err


def test_a_healthy_log_says_healthy_and_compares_its_halves(tmp_path):
    log = _log(changed_class=None)
    res = monitor(log, label="label", proba_prefix="proba_", chunk_size=500)
    assert res.alarms == ()
    view = report_view(res, log)
    assert view.state == "healthy" and view.since is None
    assert view.reference == (0, 5) and view.recent == (6, 11)
    wrong = (log[[f"proba_{k}" for k in range(3)]].to_numpy().argmax(axis=1)
             != log["label"].to_numpy()).mean()
    assert view.sentence == (f"Healthy: PUDD raised no alarm in the 12 tested chunks (rows "
                             f"0–5,999); the error rate was {100 * wrong:.1f}% over them.")
    assert view.time_kind is None and view.times is None
    page = monitor_report_html(res, view)
    assert 'data-state="healthy"' in page
    assert "Reference period (first half; no alarm): chunks 0–5, rows 0–2,999" in page
    trace = _plotly_data(page)["trace"]
    bands = {s["name"]: s for s in trace["layout"]["shapes"] if s["type"] == "rect"}
    assert (bands["reference"]["x0"], bands["reference"]["x1"]) == (-0.5, 5.5)
    assert trace["layout"]["xaxis"]["title"]["text"] == "chunk (0-based)"


def test_the_reference_starts_after_the_previous_alarm():
    rng = np.random.default_rng(1)
    p = np.r_[rng.uniform(0.7, 1.0, 3000), rng.uniform(0.3, 1.0, 3000),
              rng.uniform(0.05, 0.6, 3000)]
    log = pd.DataFrame({"y": 1, "p0": 1 - p, "p1": p})
    res = monitor(log, label="y", proba_columns=["p0", "p1"], chunk_size=500)
    assert len(res.alarms) >= 2
    view = report_view(res, log)
    last = res.alarms[-1]
    assert view.reference[0] == res.alarms[-2] + 1
    assert view.since == last - res.records[last].cut_point + 1
    assert f"{len(res.alarms)} alarms in all" in view.sentence


def test_alarms_in_a_row_and_a_change_at_the_first_chunk():
    """A chunk whose accuracy is below 1 % alarms without a test, so alarms can follow each
    other: the reference then reaches back to the log's start, or is none at chunk 0."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 300)
    right = np.where(y == 1, 0.9, 0.1)
    p1 = np.where(np.arange(300) < 120, right, 1 - right)  # chunks 2-4 all wrong
    log = pd.DataFrame({"y": y, "p0": 1 - p1, "p1": p1})
    res = monitor(log, label="y", proba_columns=["p0", "p1"], chunk_size=60)
    assert res.alarms == (2, 3, 4)
    view = report_view(res, log)
    assert view.since == 4 and view.reference == (0, 3) and view.recent == (4, 4)
    assert view.reference_error == pytest.approx(120 / 240)  # chunks 2 and 3 all wrong
    assert "PUDD alarmed at chunk 4 (chunk accuracy below 0.01)" in view.sentence
    first = log.assign(p1=np.where(np.arange(300) < 60, 1 - right, right))
    first["p0"] = 1 - first["p1"]
    res = monitor(first, label="y", proba_columns=["p0", "p1"], chunk_size=60)
    assert res.alarms == (0,)
    view = report_view(res, first)
    assert view.reference is None and view.since == 0 and view.recent == (0, 4)
    assert view.sentence.endswith("no chunk before the change to compare it with.")
    page = monitor_report_html(res, view)
    assert "none: the change began at the log's first chunk" in page
    bands = [s["name"] for s in _plotly_data(page)["trace"]["layout"]["shapes"]
             if s["type"] == "rect"]
    assert bands == ["recent"]
    assert [c.reference_rows for c in view.classes] == [0, 0]


def test_without_the_log_or_a_label_there_is_no_class_view_and_it_says_why(log_csv):
    res = monitor(log_csv, label="label", proba_prefix="proba_", chunk_size=500)
    page = monitor_report_html(res)  # no view given: computed from the result alone
    assert "No per-class view: the log was not given to the report" in page
    assert 'data-figure="classes"' not in page
    log = pd.read_csv(log_csv)
    proba = log[[f"proba_{k}" for k in range(3)]].to_numpy()
    short = pd.DataFrame({"p_true": proba[np.arange(N), log["label"]],
                          "correct": (proba.argmax(axis=1) == log["label"]).astype(int)})
    res = monitor(short, p_true="p_true", correct="correct", chunk_size=500)
    view = report_view(res, short)
    assert view.classes == () and "no label column" in (view.class_note or "")


def test_bad_report_input_is_refused_by_name(log_csv, tmp_path, capsys):
    res = monitor(log_csv, label="label", proba_prefix="proba_", chunk_size=500)
    with pytest.raises(ParameterError, match=r"the log has no column 'when' \(time_column\); "
                                             r"its columns are 'ts', 'label'"):
        report_view(res, log_csv, time_column="when")
    with pytest.raises(ParameterError, match="time_column needs the log"):
        report_view(res, time_column="ts")
    timed = monitor(log_csv, label="label", proba_prefix="proba_", time_column="ts",
                    window="1h")
    with pytest.raises(ParameterError, match="the chunks are time windows already"):
        report_view(timed, log_csv, time_column="ts")
    with pytest.raises(ParameterError, match="the log must be a path"):
        report_view(res, 42)
    # the command line: a report in a missing folder, a time column the log lacks
    assert main(["monitor", str(log_csv), "--label", "label", "--proba-prefix", "proba_",
                 "--report", str(tmp_path / "no" / "r.html")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "the folder of --report" in captured.err
    assert "does not exist" in captured.err
    assert main(["monitor", str(log_csv), "--label", "label", "--proba-prefix", "proba_",
                 "--chunk-size", "500", "--time-column", "when", "--report",
                 str(tmp_path / "r.html")]) == 2
    assert "the log has no column 'when'" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


def test_the_readme_quotes_the_example_logs_report_as_computed():
    from pathlib import Path

    readme = Path("README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### The report a team reads"):]
    log = "datasets/examples/sea0_gnb_predictions.parquet"
    res = monitor(log, label="label", proba_prefix="proba_", chunk_size=300,
                  baselines=["adwin", "ddm"])
    view = report_view(res, log, time_column="ts")
    quoted = re.search(r"```text\n(.*?)\n```", section, re.S)
    assert quoted and quoted[1] == view.sentence
    c0, c1 = view.classes
    assert (f"class 0's mean PU-index rose from {c0.reference_pu:.4f} to {c0.recent_pu:.4f} (its "
            f"error rate\nfrom {100 * c0.reference_error:.1f} % to "
            f"{100 * c0.recent_error:.1f} %), class 1's fell from {c1.reference_pu:.4f} to "
            f"{c1.recent_pu:.4f} ({100 * c1.reference_error:.1f} % to "
            f"{100 * c1.recent_error:.1f} %)") in section
    assert c0.moved and c1.moved and "both classes moved" in section
    assert (f"{len(res.alarms)} PUDD alarms in {res.n_chunks} chunks" in section)
    assert (f"the error rate up from {100 * view.reference_error:.1f} % to\n  "
            f"{100 * view.recent_error:.1f} % in the last "
            f"{res.spans[-1].last_row - res.spans[view.since].first_row + 1:,} rows") in section


@pytest.mark.filterwarnings("ignore:the last tested chunk")
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(k=st.integers(2, 4), n=st.integers(300, 1500), chunk=st.integers(60, 300),
       text=st.booleans(), seed=st.integers(0, 2**16), shift=st.floats(0.0, 0.5))
def test_the_class_view_is_pandas_on_the_periods_rows(k, n, chunk, text, seed, shift):
    """Any log (K classes, text or number labels, a few unlabelled rows): the per-class view
    is pandas' group-by over the labelled rows of the two periods, and its sums hold."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    p_true = rng.uniform(0.5, 1.0, n) - np.where(np.arange(n) > n // 2, shift, 0.0)
    rest = rng.dirichlet(np.ones(k - 1), n) * (1 - p_true)[:, None]
    proba = np.zeros((n, k))
    for i in range(k):
        others = [j for j in range(k) if j != i]
        proba[y == i, i] = p_true[y == i]
        proba[np.ix_(y == i, others)] = rest[y == i]
    names = np.array([f"c{i}" for i in range(k)]) if text else np.arange(k)
    log = pd.DataFrame({"label": pd.Series(names[y], dtype=object),
                        **{f"proba_{names[i]}": proba[:, i] for i in range(k)}})
    hole = rng.choice(n - 1, size=n // 50, replace=False)  # never the last row
    log.loc[hole[log["label"].iloc[hole + 1].notna().to_numpy()], "label"] = None
    res = monitor(log, label="label", proba_prefix="proba_", chunk_size=chunk)
    if res.n_chunks < 2:
        return
    view = report_view(res, log)
    parts = {}
    for key, (a, b) in (("ref", view.reference), ("rec", view.recent)):
        rows = log.iloc[res.spans[a].first_row:res.spans[b].last_row + 1]
        rows = rows[rows["label"].notna()]
        assert len(rows) == sum(s.n_labelled for s in res.spans[a:b + 1])
        cls = rows["label"].astype(str)
        col = rows[[f"proba_{c}" for c in names]].to_numpy()
        idx = pd.Index([str(c) for c in names]).get_indexer(cls)
        pu = 1 - col[np.arange(len(rows)), idx]
        parts[key] = pd.DataFrame({"label": cls.to_numpy(), "pu": pu})
    by = {c.label: c for c in view.classes}
    for key, period in (("ref", "reference"), ("rec", "recent")):
        g = parts[key].groupby("label")["pu"]
        for label, count in g.size().items():
            assert getattr(by[label], f"{period}_rows") == count
            assert getattr(by[label], f"{period}_pu") == pytest.approx(g.mean()[label])
            assert getattr(by[label], f"{period}_share") == pytest.approx(
                count / len(parts[key]))
    if view.reference != view.recent:
        assert sum(c.contribution for c in view.classes) == pytest.approx(
            parts["rec"]["pu"].mean() - parts["ref"]["pu"].mean(), abs=1e-12)
    tested = [c for c in view.classes if not np.isnan(c.p_value)]
    assert all(c.moved == (c.p_value < res.alpha / len(tested)) for c in tested)
