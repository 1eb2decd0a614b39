"""Logs as they come (issue 22 items 1-4): binary models, the model's decisions, late labels."""

from __future__ import annotations

import io
import json
import warnings

import numpy as np
import pandas as pd
import pytest

from pudd_core import monitor
from pudd_core._validation import ParameterError
from pudd_core.cli import main
from pudd_core.experiments.baselines import feed_errors, make
from pudd_core.monitoring import LogFormat


def _binary(n: int = 6000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Labels 0/1 and P(1) of a binary model that gets worse half-way."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    sharp = np.where(np.arange(n) < n // 2, 0.45, 0.2)
    margin = rng.uniform(0, 1, n) * sharp * 2
    p1 = np.clip(np.where(y == 1, 0.5 + margin - 0.15, 0.5 - margin + 0.15), 0, 1)
    return y, p1


def _two_columns(y: np.ndarray, p1: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame({"label": y, "proba_0": 1 - p1, "proba_1": p1})


@pytest.mark.parametrize(("labels", "positive"), [
    (lambda y: y, "1"),
    (lambda y: y.astype(bool), "True"),
    (lambda y: np.where(y == 1, "true", "false"), "True"),
    (lambda y: np.where(y == 1, 1, -1), "1"),
])
def test_a_single_probability_column_is_p_positive_with_the_positive_label_inferred(
        labels, positive):
    y, p1 = _binary()
    ref = monitor(_two_columns(y, p1), label="label", proba_prefix="proba_", chunk_size=500)
    log = pd.DataFrame({"y": labels(y), "y_pred_proba": p1})
    res = monitor(log, label="y", proba_prefix="y_pred_proba", chunk_size=500)
    assert res.p_values == ref.p_values and res.accuracy == ref.accuracy
    assert ref.alarms and res.alarms == ref.alarms
    assert res.format.positive_label == positive
    assert any("inferred from the labels" in n for n in res.notes)


def test_text_labels_need_the_positive_label_and_then_match_the_two_column_form(tmp_path):
    y, p1 = _binary(3000)
    names = np.where(y == 1, "employed", "not employed")
    log = pd.DataFrame({"label": names, "score": p1})
    with pytest.raises(ParameterError, match="positive_label.*--positive-label") as err:
        monitor(log, label="label", proba_columns=["score"], chunk_size=500)
    assert "'employed'" in str(err.value) or "'not employed'" in str(err.value)
    res = monitor(log, label="label", proba_columns=["score"], positive_label="employed",
                  chunk_size=500)
    two = pd.DataFrame({"label": names, "p_not employed": 1 - p1, "p_employed": p1})
    ref = monitor(two, label="label", proba_prefix="p_", chunk_size=500)
    assert res.p_values == ref.p_values and res.accuracy == ref.accuracy
    # the same from a CSV (labels read as text there) and with proba_<class> alone
    log.rename(columns={"score": "proba_employed"}).to_csv(tmp_path / "log.csv", index=False)
    alone = monitor(tmp_path / "log.csv", label="label", proba_prefix="proba_",
                    chunk_size=500)
    assert alone.p_values == ref.p_values and alone.format.positive_label == "employed"


def test_a_third_class_beside_a_single_probability_column_is_named_with_its_row():
    y, p1 = _binary(2000)
    log = pd.DataFrame({"label": y.astype(object), "p": p1})
    log.loc[1500, "label"] = 2
    with pytest.raises(ParameterError, match=r"row 1500, column 'label': 2 is neither"):
        monitor(log, label="label", proba_columns=["p"], chunk_size=500, batch_rows=700)


def test_a_positive_label_that_never_occurs_is_warned():
    y, p1 = _binary(2000)
    # two negatives and no positive: refused at the second value
    first = int(np.flatnonzero(y != y[0])[0])
    with pytest.raises(ParameterError, match=rf"row {first}, column 'label': {y[first]} is "
                                             rf"neither the positive class '7' nor the "
                                             rf"negative one {y[0]}"):
        monitor(pd.DataFrame({"label": y, "p": p1}), label="label", proba_columns=["p"],
                positive_label="7", chunk_size=500)
    ones = pd.DataFrame({"label": np.zeros(1000, int), "p": p1[:1000]})
    with pytest.warns(UserWarning, match="never occurs"):
        res = monitor(ones, label="label", proba_columns=["p"], positive_label="1",
                      chunk_size=500)
    assert any("never occurs" in n for n in res.notes)


def test_the_models_decisions_replace_the_arg_max_for_errors_and_baselines():
    y, p1 = _binary(6000)
    decision = (p1 > 0.35).astype(int)  # the model's own threshold is 0.35
    log = _two_columns(y, p1).assign(pred=decision)
    res = monitor(log, label="label", proba_prefix="proba_", pred="pred", chunk_size=500,
                  baselines=["ddm"])
    ok = decision == y
    assert res.accuracy == tuple(ok[a:a + 500].mean() for a in range(0, 6000, 500))
    argmax = monitor(log, label="label", proba_prefix="proba_", chunk_size=500)
    assert res.accuracy != argmax.accuracy
    det, expected = make("ddm"), []
    for a in range(0, 6000, 500):
        hits = feed_errors(det, (~ok[a:a + 500]).astype(np.int64))
        det = det.clone() if hits else det
        expected.append(hits)
    assert res.baselines["ddm"] == tuple(expected)
    assert any("model's decisions in column 'pred'" in n for n in res.notes)
    assert any("arg-max" in n for n in argmax.notes)
    # the single-column form with the same decisions gives the same result
    single = monitor(log.drop(columns="proba_0"), label="label", proba_columns=["proba_1"],
                     pred="pred", chunk_size=500)
    assert single.p_values == res.p_values and single.accuracy == res.accuracy
    # the share that disagrees is counted exactly: decisions against P(1) > 0.5
    assert res.n_checked == 6000 and res.n_disagree == int(np.sum(decision != (p1 > 0.5)))


def test_decisions_that_contradict_the_probabilities_are_warned_with_the_share():
    y, p1 = _binary(4000)
    log = pd.DataFrame({"label": y, "y_pred_proba": p1, "y_pred": (p1 > 0.5).astype(int)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # read right: no warning
        monitor(log, label="label", proba_columns=["y_pred_proba"], pred="y_pred",
                chunk_size=500)
    with pytest.warns(UserWarning, match=r"disagree on \d+\.\d% of the 4,000 labelled rows"):
        res = monitor(log, label="label", p_true="y_pred_proba", pred="y_pred",
                      chunk_size=500)  # misread: P(1) is not p(true class)
    wrong = log.y_pred != log.label
    expected = int(np.sum(wrong & (p1 > 0.5)))  # a wrong decision whose true class had p > .5
    assert res.n_disagree == expected and res.n_checked == 4000
    assert any("disagree" in n for n in res.notes)


def test_an_unlabelled_tail_is_pending_and_the_rest_equals_the_labelled_log():
    y, p1 = _binary(5200)
    log = _two_columns(y, p1).astype({"label": "float64"})
    log.loc[4300:, "label"] = np.nan  # the labels of the last 900 rows have not arrived
    res = monitor(log, label="label", proba_prefix="proba_", chunk_size=500)
    head = monitor(log.iloc[:4000].astype({"label": "int64"}), label="label",
                   proba_prefix="proba_", chunk_size=500)
    assert res.p_values == head.p_values and res.n_chunks == 8
    # chunk 8 (rows 4000..4499) has labels up to row 4299 only: it waits with the tail
    assert [(s.index, s.first_row, s.last_row, s.n_labelled) for s in res.pending] == [
        (8, 4000, 4499, 300), (9, 4500, 4999, 0), (10, 5000, 5199, 0)]
    assert res.n_pending_rows == 1200 and res.n_rows == 5200
    out = json.loads(json.dumps(res.to_json(), allow_nan=False))
    assert out["pending"]["n_rows"] == 1200 and len(out["pending"]["chunks"]) == 3
    frame = res.to_frame()
    assert frame["status"].tolist() == ["tested"] * 8 + ["pending"] * 3
    assert frame.loc[frame.status == "pending", "p_value"].isna().all()
    assert any("pending: the last 1,200 rows" in n for n in res.notes)


def test_a_log_with_no_label_yet_says_so():
    y, p1 = _binary(1000)
    log = _two_columns(y, p1).astype({"label": "float64"}).assign(label=np.nan)
    with pytest.raises(ParameterError, match=r"no row .* has a label yet \(1000 rows pending\)"):
        monitor(log, label="label", proba_prefix="proba_", chunk_size=500)


def test_binary_csv_with_the_cli_names_the_inferred_class_and_the_pending_tail(tmp_path,
                                                                               capsys):
    y, p1 = _binary(3000)
    log = pd.DataFrame({"y_true": y.astype(float), "y_pred_proba": p1,
                        "y_pred": (p1 > 0.5).astype(int)})
    log.loc[2800:, "y_true"] = np.nan
    path = tmp_path / "binary.csv"
    log.to_csv(path, index=False)
    argv = ["monitor", str(path), "--label", "y_true", "--proba-prefix", "y_pred_proba",
            "--pred", "y_pred", "--chunk-size", "500"]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["positive_label"] == "1" and out["decisions"] == "y_pred"
    assert out["pending"]["n_rows"] == 500 and out["n_chunks"] == 5
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "P(y_true = '1')" in text and "pending: the last 500 rows" in text
    assert main(["monitor", str(path), "--label", "y_true", "--proba-columns", "y_pred_proba",
                 "--positive-label", "2"]) == 2
    assert "neither the positive class '2'" in capsys.readouterr().err


@pytest.mark.parametrize(("fmt", "message"), [
    (LogFormat(label="label", proba_columns=("proba_0", "proba_1"), positive_label="1"),
     "goes with a single probability column"),
    (LogFormat(label="label", proba_columns=("proba_1",), classes=("1",), positive_label="0"),
     r"is P\('1'\), but positive_label is '0'"),
    (LogFormat(p_true="proba_1", correct="label", positive_label="1"), "not p_true"),
    (LogFormat(label="label", proba_prefix="proba_", pred="label", correct="label"),
     "not both"),
    (LogFormat(label="label", proba_prefix="proba_", pred="nope"), "no column 'nope'"),
])
def test_bad_binary_and_decision_settings_say_what_to_do(fmt, message):
    y, p1 = _binary(500)
    with pytest.raises(ParameterError, match=message):
        monitor(_two_columns(y, p1), fmt, chunk_size=100)


def test_non_numeric_probabilities_and_empty_decisions_are_named_with_row_and_column():
    y, p1 = _binary(1000)
    csv = _two_columns(y, p1).to_csv(index=False).replace("\n", "\n", 1)
    lines = csv.splitlines()
    lines[701] = lines[701].rsplit(",", 1)[0] + ",abc"  # row 700
    with pytest.raises(ParameterError, match=r"row 700, column 'proba_1': 'abc' is not a number"):
        monitor(io.BytesIO("\n".join(lines).encode()), label="label", proba_prefix="proba_",
                chunk_size=100, batch_rows=300)
    log = _two_columns(y, p1).assign(pred=(p1 > 0.5).astype(float))
    log.loc[321, "pred"] = np.nan
    with pytest.raises(ParameterError, match=r"row 321, column 'pred' is empty"):
        monitor(log, label="label", proba_prefix="proba_", pred="pred", chunk_size=100)


def test_the_report_names_the_pending_tail_and_the_notes():
    from pudd_core.plots.monitor import monitor_report_html

    y, p1 = _binary(3000)
    log = pd.DataFrame({"label": y.astype(float), "p": p1})
    log.loc[2600:, "label"] = np.nan
    page = monitor_report_html(monitor(log, label="label", proba_columns=["p"],
                                       chunk_size=500))
    assert "400 rows pending" not in page and "500 rows pending" in page  # chunk 5 waits
    assert "chunks 5–5, rows 2,500–2,999" in page
    assert "P(label = &#x27;1&#x27;)" in page


@pytest.mark.parametrize("word", ["NA", "null", "None", "n/a", "NaN"])
def test_class_values_that_pandas_would_call_missing_are_classes(tmp_path, word):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 3000)
    p1 = np.clip(np.where(y == 1, rng.uniform(0.3, 1, 3000), rng.uniform(0, 0.7, 3000)), 0, 1)
    names = np.where(y == 1, "EU", word)
    frame = pd.DataFrame({"label": names, f"proba_{word}": 1 - p1, "proba_EU": p1})
    frame.to_csv(tmp_path / "log.csv", index=False)
    res = monitor(tmp_path / "log.csv", label="label", proba_prefix="proba_", chunk_size=500)
    ref = monitor(frame.replace({word: "AS"}).rename(columns={f"proba_{word}": "proba_AS"}),
                  label="label", proba_prefix="proba_", chunk_size=500)
    assert [s.n_labelled for s in res.spans] == [500] * 6  # every row labelled
    np.testing.assert_array_equal(res.p_values, ref.p_values)
    assert res.accuracy == ref.accuracy


def test_duplicate_columns_are_refused_as_the_stream_reader_refuses_them(tmp_path):
    y, p1 = _binary(600)
    csv = "label,p,p\n" + "\n".join(f"{a},{b},{b}" for a, b in zip(y, p1, strict=True))
    (tmp_path / "dup.csv").write_text(csv)
    with pytest.raises(ParameterError, match="dup.csv has duplicate column names 'p'"):
        monitor(tmp_path / "dup.csv", label="label", proba_columns=["p"], chunk_size=100)
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_arrays([pa.array(y), pa.array(p1), pa.array(1 - p1)],
                                 names=["label", "p", "p"])
    pq.write_table(table, tmp_path / "dup.parquet")
    with pytest.raises(ParameterError, match="dup.parquet has duplicate column names 'p'"):
        monitor(tmp_path / "dup.parquet", label="label", proba_prefix="p", normalize=True)
    frame = pd.DataFrame([[0, 0.5, 0.5]], columns=["label", "p", "p"])
    with pytest.raises(ParameterError, match="duplicate column names 'p'"):
        monitor(frame, label="label", proba_prefix="p")


def test_integer_labels_equal_float_labels_and_an_unknown_one_is_named_with_its_row():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 3000)
    g = rng.gamma(np.where(np.eye(3, dtype=bool)[y], 9.0, 1.0))
    frame = pd.DataFrame(g / g.sum(axis=1, keepdims=True), columns=["proba_0", "proba_1",
                                                                   "proba_2"])
    as_int = monitor(frame.assign(label=y), label="label", proba_prefix="proba_", chunk_size=300)
    as_float = monitor(frame.assign(label=y.astype(float)), label="label",
                       proba_prefix="proba_", chunk_size=300)
    np.testing.assert_array_equal(as_int.p_values, as_float.p_values)
    assert as_int.accuracy == as_float.accuracy
    for bad in (3, -1):
        y2 = y.copy()
        y2[1234] = bad
        with pytest.raises(ParameterError, match=f"row 1234, column 'label': label {bad} has no"):
            monitor(frame.assign(label=y2), label="label", proba_prefix="proba_",
                    chunk_size=300)


# --- a binary model's score of its predicted class (issue 32 item 6) -------------------------
def _hugging_face(y: np.ndarray, p1: np.ndarray) -> pd.DataFrame:
    """What a text-classification pipeline logs: the predicted label and its score only."""
    names = np.array(["NEGATIVE", "POSITIVE"])
    pred = (p1 > 0.5).astype(int)
    return pd.DataFrame({"y_true": names[y], "label": names[pred],
                         "score": np.where(pred == 1, p1, 1 - p1)})


def test_a_top_class_score_read_as_p_positive_is_refused_saying_what_pudd_needs(tmp_path,
                                                                                capsys):
    # it ran to rc 0 on a wrong reading with a warning only
    y, p1 = _binary()
    log = _hugging_face(y, p1)
    for batch_rows in (131_072, 50):  # refused with the first 200 decided rows, or at the end
        with pytest.raises(ParameterError, match=r"column 'score' is never below 0\.5 .*the "
                                                 r"probability of the true class.*"
                                                 r"--binary-top-score score --pred label"):
            monitor(log.head(150 if batch_rows == 50 else len(log)), label="y_true",
                    proba_columns=["score"], pred="label", positive_label="POSITIVE",
                    chunk_size=50, batch_rows=batch_rows)
    path = tmp_path / "hf.csv"
    log.to_csv(path, index=False)
    assert main(["monitor", str(path), "--label", "y_true", "--proba-columns", "score",
                 "--pred", "label", "--positive-label", "POSITIVE"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: column 'score' is never below 0.5") and \
        len(err.strip().splitlines()) == 1
    # without the decisions nothing proves it: a warning names the form that reads it right
    with pytest.warns(UserWarning, match="never below 0.5: if it is the score of the "
                                         "predicted class"):
        monitor(log, label="y_true", proba_columns=["score"], positive_label="POSITIVE",
                chunk_size=500)


def test_a_binary_top_score_reads_as_the_two_probability_columns_chunk_for_chunk(tmp_path,
                                                                                 capsys):
    y, p1 = _binary()
    names = np.array(["NEGATIVE", "POSITIVE"])
    both = pd.DataFrame({"y": names[y], "proba_NEGATIVE": 1 - p1, "proba_POSITIVE": p1})
    ref = monitor(both, label="y", proba_prefix="proba_", chunk_size=500, baselines=["ddm"])
    top = monitor(_hugging_face(y, p1), label="y_true", pred="label",
                  binary_top_score="score", chunk_size=500, baselines=["ddm"], batch_rows=777)
    np.testing.assert_allclose(top.p_values, ref.p_values, rtol=1e-12)
    assert top.alarms == ref.alarms and top.alarms and top.accuracy == ref.accuracy
    assert top.baselines == ref.baselines
    path = tmp_path / "hf.csv"
    _hugging_face(y, p1).to_csv(path, index=False)
    assert main(["monitor", str(path), "--label", "y_true", "--pred", "label",
                 "--binary-top-score", "score", "--chunk-size", "500", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["alarms"] == list(ref.alarms)


@pytest.mark.parametrize(("change", "kwargs", "message"), [
    (lambda f: f.assign(label=f.label.where(f.index != 40, "NEUTRAL")), {},
     r"row 40, column 'label': 'NEUTRAL' is a third class after '(NEGATIVE|POSITIVE)', "
     r"'(NEGATIVE|POSITIVE)'"),
    (lambda f: f.assign(score=f.score.where(f.index != 7, 0.3)), {},
     r"row 7, column 'score': 0.3 is below 0.5"),
    (lambda f: f.assign(score=f.score.where(f.index != 9, 1.2)), {},
     r"row 9, column 'score': the probability is 1.2, above 1"),
    (lambda f: f, {"pred": None}, r"give the predicted label \(pred, --pred\)"),
    (lambda f: f, {"positive_label": "POSITIVE"}, r"binary_top_score needs none"),
    (lambda f: f, {"binary_top_score": "nope"}, r"no column 'nope' \(given as binary_top"),
])
def test_a_bad_binary_top_score_log_is_refused_by_name(change, kwargs, message):
    y, p1 = _binary(200)
    log = change(_hugging_face(y, p1))
    args = {"label": "y_true", "pred": "label", "binary_top_score": "score", **kwargs}
    with pytest.raises(ParameterError, match=message):
        monitor(log, chunk_size=50, **{k: v for k, v in args.items() if v is not None})
