"""Labels in a second file, joined by a prediction id (issue 32 item 9).

The reference reading is pandas: the predictions merged with the labels (``how="left"`` on
the id, each id's label once), then the monitor run on that one pre-joined log. The joined
monitor must give its result chunk for chunk, whatever the files' shapes, the labels' order,
the missing and repeated labels, and the order in which labels and predictions come."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pudd_core import monitor
from pudd_core._validation import ParameterError
from pudd_core.monitoring import LabelJoin, LogFormat, Monitor
from tests._logs import same_result as _same
from tests._logs import three_class_log

FMT = LogFormat(label="label", proba_prefix="proba_")


def _log(n: int = 3000, seed: int = 0) -> pd.DataFrame:
    """A 3-class log (worse from the middle on) with ids and a time every 5 minutes."""
    frame = three_class_log(n, seed)
    frame.insert(0, "ts", (pd.Timestamp("2024-03-01") + pd.to_timedelta(
        np.arange(n) * 5, unit="min")).strftime("%Y-%m-%dT%H:%M:%S"))
    frame.insert(0, "rid", np.random.default_rng(seed).permutation(n) * 3 + 100)
    return frame


def _split(frame: pd.DataFrame, keep: float = 0.85, seed: int = 0
           ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Predictions without labels, and a shuffled labels table without some of them."""
    rng = np.random.default_rng(seed)
    labels = frame[["rid", "label"]]
    labels = labels[rng.random(len(labels)) < keep].sample(frac=1.0, random_state=seed)
    return frame.drop(columns="label"), labels.reset_index(drop=True)


def _reference(preds: pd.DataFrame, labels: pd.DataFrame, fmt: LogFormat = FMT,
               **how) -> object:
    """pandas' join, then the monitor on the one log."""
    once = labels.drop_duplicates("rid", keep="last")
    joined = preds.merge(once, on="rid", how="left", validate="many_to_one")
    return monitor(joined, fmt, **how)


def _write(frame: pd.DataFrame, path, kind: str) -> str:
    if kind == "csv":
        frame.to_csv(path, index=False)
    elif kind == "csv.gz":
        frame.to_csv(path, index=False, compression="gzip")
    elif kind == "jsonl":
        frame.to_json(path, orient="records", lines=True)
    else:
        frame.to_parquet(path, index=False)
    return str(path)


@pytest.mark.parametrize(("pred_kind", "label_kind"), [
    ("csv", "csv"), ("parquet", "jsonl"), ("jsonl", "parquet"), ("csv", "csv.gz")])
@pytest.mark.parametrize("how", [{"chunk_size": 250}, {"window": "6h"}])
def test_files_joined_by_id_give_the_pre_joined_log_result_chunk_for_chunk(
        tmp_path, pred_kind, label_kind, how):
    frame = _log()
    preds, labels = _split(frame)
    fmt = LogFormat(label="label", proba_prefix="proba_",
                    time_column="ts" if "window" in how else None)
    want = _reference(preds, labels, fmt, **how)
    assert want.alarms and want.n_chunks > 5  # a log where the test finds something
    p = _write(preds, tmp_path / f"p.{pred_kind}", pred_kind)
    q = _write(labels, tmp_path / f"l.{label_kind}", label_kind)
    got = monitor(p, fmt, labels=q, id_column="rid", batch_rows=700, **how)
    _same(got, want)
    n_labelled = sum(s.n_labelled for s in (*got.spans, *got.pending))
    assert n_labelled == len(labels)
    assert any(f"{n_labelled:,} of 3,000 predictions have a label, {3000 - n_labelled:,} not"
               in note for note in got.notes), got.notes


@st.composite
def _splits(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """A log split into predictions and labels: any labels missing, repeated (the same label
    again), in any order, ids as numbers or text on either side, labels for ids not in it."""
    n = draw(st.integers(300, 1500))
    frame = _log(n, seed=draw(st.integers(0, 5)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    keep = draw(st.sampled_from([0.0, 0.3, 0.9, 1.0]))
    tail = draw(st.integers(0, n))  # the newest rows' labels not there yet
    has = (rng.random(n) < keep) & (np.arange(n) < n - tail)
    labels = frame.loc[has, ["rid", "label"]]
    repeats = labels.sample(n=min(len(labels), draw(st.integers(0, 20))), random_state=1)
    unknown = pd.DataFrame({"rid": np.arange(draw(st.integers(0, 5))) * 3 + 101,
                            "label": 1})  # ids no prediction has (rids are 100 + 3k)
    labels = pd.concat([labels, repeats, unknown]).sample(frac=1.0, random_state=2)
    preds = frame.drop(columns="label")
    if draw(st.booleans()):
        labels = labels.assign(rid=labels["rid"].astype(str))
    if draw(st.booleans()):
        preds = preds.assign(rid=preds["rid"].astype(float))  # 117.0 is the id 117
    how = draw(st.sampled_from([{"chunk_size": 100}, {"chunk_size": 333}, {"window": "3h"}]))
    return preds, labels.reset_index(drop=True), how


def _reference_or_error(preds, labels, fmt, **how):
    ref_labels = labels.assign(rid=labels["rid"].astype(str))
    ref_preds = preds.assign(rid=preds["rid"].astype(np.int64).astype(str))
    try:
        return _reference(ref_preds, ref_labels, fmt, **how), None
    except ParameterError as err:  # no labelled row: the joined monitor says the same
        return None, str(err)


@settings(max_examples=30, deadline=None)
@given(split=_splits(), batch=st.integers(50, 2000))
def test_any_split_of_a_log_into_predictions_and_labels_is_read_as_pandas_joins_it(
        split, batch):
    preds, labels, how = split
    fmt = LogFormat(label="label", proba_prefix="proba_",
                    time_column="ts" if "window" in how else None)
    want, err = _reference_or_error(preds, labels, fmt, **how)
    if err is not None:
        with pytest.raises(ParameterError, match="has a label yet|no labelled row"):
            monitor(preds, fmt, labels=labels, id_column="rid", batch_rows=batch, **how)
        return
    got = monitor(preds, fmt, labels=labels, id_column="rid", batch_rows=batch, **how)
    _same(got, want)
    unknown = set(labels["rid"].astype(str)) - set(preds["rid"].astype(np.int64).astype(str))
    if unknown:
        assert any(f"{len(unknown):,} label(s) of DataFrame went to no prediction" in note
                   for note in got.notes), got.notes


@st.composite
def _arrivals(draw: st.DrawFn) -> tuple[int, list[tuple[int, int]]]:
    """Steps of (predictions known, labels known): both grow; labels lag by any number of
    rows and, within what has come, arrive shuffled."""
    n = 1200
    steps, pred, lab = [], 0, 0
    for _ in range(draw(st.integers(1, 8))):
        pred = draw(st.integers(pred, n))
        lab = draw(st.integers(lab, pred))
        steps.append((pred, lab))
    steps.append((n, draw(st.integers(lab, n))))
    return n, steps


@settings(max_examples=30, deadline=None)
@given(arrivals=_arrivals(), how=st.sampled_from([{"chunk_size": 100}, {"chunk_size": 37},
                                                   {"window": "3h"}]),
       seed=st.integers(0, 100))
def test_labels_arriving_late_and_shuffled_give_the_pre_joined_log_result(arrivals, how, seed):
    """Predictions and labels fed in any steps, the labels later than their rows (each before
    its chunk is tested: in row order, shuffled within each arrival): the result is pandas'
    join of what has come, chunk for chunk."""
    n, steps = arrivals
    frame = _log(n, seed=seed % 3)
    fmt = LogFormat(label="label", proba_prefix="proba_",
                    time_column="ts" if "window" in how else None)
    j = LabelJoin(Monitor(fmt, baselines=["ddm"], **how), "rid")
    rng = np.random.default_rng(seed)
    pred_at = lab_at = 0
    for pred, lab in steps:
        if rng.random() < 0.5:  # labels first or predictions first: the same
            j.add_labels(frame.iloc[rng.permutation(np.arange(lab_at, lab))][["rid", "label"]])
            j.feed(frame.iloc[pred_at:pred].drop(columns="label"))
        else:
            j.feed(frame.iloc[pred_at:pred].drop(columns="label"))
            j.add_labels(frame.iloc[rng.permutation(np.arange(lab_at, lab))][["rid", "label"]])
        pred_at, lab_at = pred, lab
    j.finish()
    labels = frame.iloc[:lab_at][["rid", "label"]]
    try:
        want = _reference(frame.drop(columns="label"), labels, fmt, baselines=["ddm"], **how)
    except ParameterError as err:
        with pytest.raises(ParameterError, match=str(err)[:30]):
            j.result("DataFrame")
        return
    _same(j.result("DataFrame"), want)
    if lab_at == n:
        assert not j._rows  # every chunk tested: no row kept for a label


def test_a_label_after_its_chunk_was_tested_is_counted_not_used():
    frame = _log(1200)
    preds = frame.drop(columns="label")
    j = LabelJoin(Monitor(FMT, chunk_size=100), "rid")
    late = frame.index[50]  # row 50's label comes after chunk 0 was tested
    early = frame.drop(index=late).iloc[:600]
    j.add_labels(early[["rid", "label"]])
    j.feed(preds)
    assert j.monitor.resume_row == 600  # chunks 0..5 tested, row 50 unlabelled in chunk 0
    j.add_labels(frame.loc[[late], ["rid", "label"]])
    j.finish()
    res = j.result()
    assert res.spans[0].n_labelled == 99 and j.n_unmatched == 1
    assert any(f"1 label(s) of the labels went to no prediction (ids '{frame.rid[late]}')"
               in note for note in res.notes), res.notes


def test_ids_are_compared_as_text_as_written(tmp_path):
    """A Parquet log's integer ids against a CSV's text ids: '17' is 17, '017' is not."""
    frame = _log(1000)
    preds = frame.drop(columns="label")
    preds.to_parquet(tmp_path / "p.parquet", index=False)
    text = frame[["rid", "label"]].assign(rid=frame["rid"].astype(str))
    text.loc[:4, "rid"] = "0" + text.loc[:4, "rid"]  # five ids written with a leading zero
    text.to_csv(tmp_path / "l.csv", index=False)
    got = monitor(tmp_path / "p.parquet", FMT, labels=tmp_path / "l.csv", id_column="rid",
                  chunk_size=100)
    assert sum(s.n_labelled for s in got.spans) == 995
    assert any("5 label(s) of" in note and f"'0{frame.rid[0]}'" in note for note in got.notes)
    _same(got, _reference(preds, frame[["rid", "label"]].iloc[5:], chunk_size=100))


def test_repeated_labels_are_read_once_and_counted(tmp_path):
    frame = _log(1000)
    preds, labels = _split(frame, keep=1.0)
    twice = pd.concat([labels, labels.iloc[:40].assign(label=labels.label[:40].astype(float))])
    got = monitor(preds, FMT, labels=twice, id_column="rid", chunk_size=100)
    _same(got, _reference(preds, labels, chunk_size=100))
    assert any("40 repeated label(s)" in note for note in got.notes), got.notes


# --- bad input: refused by name, with what to do --------------------------------------------
def _refused(preds, labels, match, **kw) -> str:
    with pytest.raises(ParameterError, match=match) as info:
        monitor(preds, FMT, labels=labels, id_column=kw.pop("id_column", "rid"),
                chunk_size=100, **kw)
    return str(info.value)


def test_two_labels_for_one_id_are_refused_naming_the_id_and_the_fix():
    frame = _log(600)
    preds, labels = _split(frame, keep=1.0)
    other = labels.iloc[[7]].assign(label=(labels.label.iloc[7] + 1) % 3)
    msg = _refused(preds, pd.concat([labels, other]), "two different labels")
    assert f"id '{labels.rid.iloc[7]}'" in msg and "drop_duplicates('rid', keep='last')" in msg
    # also when the second comes in a later batch of the labels
    j = LabelJoin(Monitor(FMT, chunk_size=100), "rid")
    j.add_labels(labels)
    with pytest.raises(ParameterError, match=f"id '{labels.rid.iloc[7]}' has two different"):
        j.add_labels(other)


def test_one_label_for_two_predictions_is_refused_naming_both_rows():
    frame = _log(600)
    preds, labels = _split(frame, keep=1.0)
    preds.loc[450, "rid"] = preds.loc[20, "rid"]  # ids restarted: row 450 reuses row 20's
    msg = _refused(preds, labels, "rows 20 and 450 have the same id", batch_rows=64)
    assert "Give each prediction its own id" in msg
    # two predictions with one id and no label for it change nothing: not looked for
    no_label = labels[labels.rid != preds.loc[20, "rid"]]
    monitor(preds, FMT, labels=no_label, id_column="rid", chunk_size=100)


@pytest.mark.parametrize(("bad", "match"), [
    (None, r"row 3: the id column 'rid' is empty"),
    ("", r"row 3: the id column 'rid' is empty"),
    (1.5, r"row 3: the id column 'rid' holds 1.5, not a whole number"),
    (True, r"row 3: the id column 'rid' holds a boolean"),
    ([1], r"row 3: the id column 'rid' holds list"),
])
def test_a_bad_id_is_refused_naming_its_row(bad, match):
    frame = _log(600)
    preds, labels = _split(frame, keep=1.0)
    preds = preds.assign(rid=preds["rid"].astype(object))
    preds.at[3, "rid"] = bad
    _refused(preds, labels, match)
    labels = labels.assign(rid=labels["rid"].astype(object))
    labels.at[3, "rid"] = bad
    _refused(frame.drop(columns="label"), labels, "the labels|DataFrame, row 3")


def test_misnamed_columns_are_refused_saying_which_file_lacks_what(tmp_path):
    frame = _log(600)
    preds, labels = _split(frame, keep=1.0)
    _refused(preds, labels.rename(columns={"label": "y"}), "has no column 'label', the label "
                                                          r"column \(--label\)")
    _refused(preds, labels.rename(columns={"rid": "id"}), "has no column 'rid', the id column")
    _refused(preds.rename(columns={"rid": "id"}), labels, "DataFrame has no column 'rid'")
    _refused(frame, labels, "has a label column 'label' of its own")
    with pytest.raises(ParameterError, match="give id_column"):
        monitor(preds, FMT, labels=labels, chunk_size=100)
    with pytest.raises(ParameterError, match="give that file as labels"):
        monitor(preds, FMT, id_column="rid", chunk_size=100)
    with pytest.raises(ParameterError, match="the id column and the label column are both"):
        monitor(preds, FMT, labels=labels, id_column="label", chunk_size=100)
    with pytest.raises(FileNotFoundError, match="no labels file at"):
        monitor(preds, FMT, labels=tmp_path / "none.csv", id_column="rid", chunk_size=100)
    (tmp_path / "bin.csv").write_bytes(b"\x00\x01\x02rid,label\n")
    with pytest.raises(ParameterError, match="bin.csv"):
        monitor(preds, FMT, labels=tmp_path / "bin.csv", id_column="rid", chunk_size=100)
    with pytest.raises(ParameterError, match="labels must be|the labels must be a path"):
        monitor(preds, FMT, labels=42, id_column="rid", chunk_size=100)


# --- monitor --follow --labels: both files grow -----------------------------------------------
def _follow_lines(f, lines: list[dict]) -> None:
    import json

    while True:
        while f.outbox:
            lines.append(json.loads(f.outbox[0]))
            f.written()
        if not f.read():
            return


def _batch_lines(preds: pd.DataFrame, labels: pd.DataFrame, **how) -> list[dict]:
    """The pre-joined log's tested chunks as a follower's lines, but the log's last chunk
    (still open while following: rows of it may still come)."""
    import json

    from pudd_core.monitoring import chunk_json

    try:
        res = _reference(preds, labels, **how)
    except ParameterError as err:  # nothing tested: no line
        assert "has a label yet" in str(err)
        return []
    last = res.n_chunks + len(res.pending) - 1
    return [json.loads(json.dumps(chunk_json(s, r, {k: v[s.index] for k, v in
                                                    res.baselines.items()})))
            for s, r in zip(res.spans, res.records, strict=True) if s.index < last]


@pytest.mark.integration
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_followed_with_labels_appended_later_it_gives_the_pre_joined_chunks(
        tmp_path_factory, data):
    """Predictions appended in pieces cut anywhere (partial lines), labels appended to their
    own file in several appends (each a run of rows, shuffled, after their predictions or
    before), the follower killed and started again from its state once: its lines are the
    batch monitor's chunks on pandas' join of the final files."""
    from pudd_core.monitoring import Follower

    folder = tmp_path_factory.mktemp("labels")
    frame = _log(2000, seed=data.draw(st.integers(0, 3)))
    preds, labels_all = frame.drop(columns="label"), frame[["rid", "label"]]
    text = preds.to_csv(index=False).encode()
    cuts = sorted(set(data.draw(st.lists(st.integers(1, len(text) - 1), max_size=6))))
    ends = sorted(set(data.draw(st.lists(st.integers(1, 2000), min_size=1, max_size=6))))
    label_kind = data.draw(st.sampled_from(["csv", "jsonl"]))
    steps = max(len(cuts) + 1, len(ends))
    restart = data.draw(st.integers(0, steps))
    rng = np.random.default_rng(len(cuts))
    path, lpath, state = folder / "p.csv", folder / f"l.{label_kind}", folder / "state"
    path.write_bytes(b"")
    lpath.write_bytes(b"rid,label\n" if label_kind == "csv" else b"")
    how = {"chunk_size": 150}

    def start():
        return Follower(path, lambda: LabelJoin(Monitor(FMT, **how), "rid"), how, state,
                        labels=lpath)

    f, lines = start(), []
    p_at, l_at = 0, 0
    p_ends = [*cuts, len(text)]
    for i in range(steps):
        if i < len(p_ends):
            with open(path, "ab") as fh:
                fh.write(text[p_at:p_ends[i]])
            p_at = p_ends[i]
        if i < len(ends):
            group = labels_all.iloc[rng.permutation(np.arange(l_at, ends[i]))]
            with open(lpath, "ab") as fh:
                fh.write(group.to_csv(index=False, header=False).encode() if label_kind == "csv"
                         else group.to_json(orient="records", lines=True).encode())
            l_at = ends[i]
        _follow_lines(f, lines)
        if i == restart:
            f.close()
            f = start()
    _follow_lines(f, lines)
    f.close()
    assert lines == _batch_lines(preds, labels_all.iloc[:l_at], **how)


def test_followed_labels_of_unknown_ids_are_counted_and_a_rewritten_log_points_to_labels(
        tmp_path):
    from pudd_core.monitoring import Follower

    frame = _log(900)
    preds = frame.drop(columns="label")
    path, lpath = tmp_path / "p.csv", tmp_path / "l.csv"
    preds.to_csv(path, index=False)
    frame[["rid", "label"]].iloc[:600].assign(rid=lambda d: d.rid.astype(str)).pipe(
        lambda d: pd.concat([d, pd.DataFrame({"rid": ["x-1", "x-2"], "label": [0, 1]})])
    ).to_csv(lpath, index=False)
    f = Follower(path, lambda: LabelJoin(Monitor(FMT, chunk_size=100), "rid",
                                         labels=str(lpath)), {}, labels=lpath)
    lines: list[dict] = []
    _follow_lines(f, lines)
    assert [x["chunk"] for x in lines] == list(range(6))
    assert f.monitor.summary() == (f"labels from {lpath}: 602 read, 2 joined to no prediction "
                                   "yet (ids 'x-1', 'x-2'), 300 prediction row(s) kept for "
                                   "labels to come")
    f.close()
    # labels filled into the log in place: the follower says so and points to --labels
    frame["label"] = frame["label"].astype(float)
    frame.loc[600:, "label"] = np.nan
    frame.to_csv(path, index=False)  # a log with its newest labels empty ...
    f = Follower(path, lambda: Monitor(FMT, chunk_size=100), {})
    _follow_lines(f, [])
    frame.loc[600:, "label"] = 1.0
    frame.to_csv(path, index=False)  # ... rewritten in place with its labels filled in
    with pytest.raises(ParameterError, match=r"rewritten in place.*--follow --labels LABELS "
                                             r"--id ID"):
        _follow_lines(f, [])
    f.close()


def test_follow_with_labels_is_refused_for_bad_labels_files(tmp_path):
    from pudd_core.monitoring import Follower

    frame = _log(300)
    path = tmp_path / "p.csv"
    frame.drop(columns="label").to_csv(path, index=False)

    def make():
        return LabelJoin(Monitor(FMT, chunk_size=100), "rid", labels="l.csv")

    with pytest.raises(FileNotFoundError, match="no labels file at"):
        Follower(path, make, {}, labels=tmp_path / "none.csv")
    (tmp_path / "l.csv").write_text("id,label\n1,0\n")
    with pytest.raises(ParameterError, match="has no column 'rid', the id column"):
        Follower(path, make, {}, labels=tmp_path / "l.csv")  # before any work
    (tmp_path / "l.csv").write_text("rid,label\n")
    f = Follower(path, make, {}, labels=tmp_path / "l.csv")
    _follow_lines(f, [])
    with open(tmp_path / "l.csv", "a") as fh:
        fh.write(f"{frame.rid[3]},0\n{frame.rid[3]},1\n")
    with pytest.raises(ParameterError, match=f"the id '{frame.rid[3]}' has two different"):
        _follow_lines(f, [])
    f.close()


def test_the_command_line_joins_the_labels_file_as_pandas_does(tmp_path, capsys):
    import json

    from pudd_core.cli import main

    frame = _log(2000)
    preds, labels = _split(frame)
    preds.to_parquet(tmp_path / "p.parquet", index=False)
    labels.to_json(tmp_path / "l.jsonl", orient="records", lines=True)
    preds.merge(labels, on="rid", how="left").to_csv(tmp_path / "joined.csv", index=False)
    args = ["--label", "label", "--proba-prefix", "proba_", "--chunk-size", "200", "--json"]
    assert main(["monitor", str(tmp_path / "p.parquet"), "--labels", str(tmp_path / "l.jsonl"),
                 "--id", "rid", *args]) == 0
    got = json.loads(capsys.readouterr().out)
    assert main(["monitor", str(tmp_path / "joined.csv"), *args]) == 0
    want = json.loads(capsys.readouterr().out)
    assert got["alarms"] and got["n_chunks"] == want["n_chunks"]
    for k in ("alarms", "p_values", "accuracy", "chunks"):
        assert got[k] == want[k], k


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.tuples(
    st.sampled_from(["3", "4", "17", "017", " 5 ", "", "x", "1.5", "nan", "250", "-2"]),
    st.sampled_from(["0", "1", "2", ""])), max_size=30))
def test_any_labels_file_is_joined_as_pandas_reads_it_or_refused_by_name(rows, tmp_path_factory):
    """A labels CSV of any ids and labels is read as pandas reads it (ids as text, stripped;
    an empty label is no label) and joined as pandas merges it, or, with an empty id or two
    labels for one id, refused naming the file."""
    folder = tmp_path_factory.mktemp("fuzz")
    path = folder / "labels.csv"
    path.write_text("rid,label\n" + "".join(f"{i},{y}\n" for i, y in rows))
    preds = three_class_log(600, 0).drop(columns="label").assign(rid=np.arange(600))
    ref = pd.read_csv(path, dtype={"rid": str}, keep_default_na=False, na_values=[""])
    ref = ref[ref["label"].notna()].assign(rid=lambda d: d["rid"].str.strip())
    bad = ref["rid"].isna().any() or ref["rid"].eq("").any() or \
        (ref.groupby("rid")["label"].nunique() > 1).any()
    want, want_err = None, None
    if not bad:
        try:
            want = _reference(preds.assign(rid=preds["rid"].astype(str)), ref, chunk_size=100)
        except ParameterError as err:
            want_err = str(err).replace("DataFrame", "")
    try:
        got = monitor(preds, FMT, labels=path, id_column="rid", chunk_size=100)
    except ParameterError as err:
        msg = str(err)
        assert (bad and str(path) in msg) or msg.replace("DataFrame", "") == want_err, msg
        return
    assert not bad and want is not None
    _same(got, want)


@pytest.mark.integration
def test_followed_folders_of_parquet_parts_with_text_labels_give_the_pre_joined_chunks(
        tmp_path):
    """Predictions and labels each a folder of Parquet parts, text labels (read as
    categories), a restart from the state between parts: the batch chunks of the join."""
    from pudd_core.monitoring import Follower

    frame = _log(1500)
    frame["label"] = frame["label"].map({0: "cat", 1: "dog", 2: "owl"})
    fmt = LogFormat(label="label", proba_columns=("proba_0", "proba_1", "proba_2"),
                    classes=("cat", "dog", "owl"))
    preds, labels = frame.drop(columns="label"), frame[["rid", "label"]]
    (tmp_path / "p").mkdir()
    (tmp_path / "l").mkdir()
    state = tmp_path / "state"

    def start():
        return Follower(tmp_path / "p", lambda: LabelJoin(Monitor(fmt, chunk_size=100), "rid"),
                        {}, state, labels=tmp_path / "l")

    f, lines = start(), []
    for i, (a, b) in enumerate([(0, 500), (500, 1000), (1000, 1500)]):
        preds.iloc[a:b].to_parquet(tmp_path / "p" / f"part-{i}.parquet", index=False)
        _follow_lines(f, lines)
        labels.iloc[a:b].sample(frac=1.0, random_state=i).to_parquet(
            tmp_path / "l" / f"part-{i}.parquet", index=False)
        _follow_lines(f, lines)
        f.close()
        f = start()
    f.close()
    res = _reference(preds, labels, fmt, chunk_size=100)
    assert [x["chunk"] for x in lines] == list(range(res.n_chunks - 1))
    assert [x["p_value"] for x in lines] == [None if np.isnan(p) else p
                                            for p in res.p_values[:-1]]


@pytest.mark.parametrize("how", [{"chunk_size": 250}, {"time_column": "ts", "window": "6h"}])
def test_the_report_of_a_log_with_labels_in_a_second_file_is_the_pre_joined_logs(tmp_path, how):
    """The report reads the log again for its per-class view: joined again by id, the same
    view as the pre-joined log's (found by running --report with --labels: a KeyError)."""
    from pudd_core.monitoring import report_view

    frame = _log(3000)
    preds, labels = _split(frame)
    preds.to_parquet(tmp_path / "p.parquet", index=False)
    labels.to_csv(tmp_path / "l.csv", index=False)
    preds.merge(labels, on="rid", how="left").to_parquet(tmp_path / "j.parquet", index=False)
    fmt = LogFormat(label="label", proba_prefix="proba_", time_column=how.get("time_column"))
    kw = {k: v for k, v in how.items() if k != "time_column"}
    got = monitor(tmp_path / "p.parquet", fmt, labels=tmp_path / "l.csv", id_column="rid", **kw)
    want = monitor(tmp_path / "j.parquet", fmt, **kw)
    times = {} if "window" in how else {"time_column": "ts"}
    a = report_view(got, tmp_path / "p.parquet", labels=tmp_path / "l.csv", id_column="rid",
                    **times)
    b = report_view(want, tmp_path / "j.parquet", **times)
    assert a.classes and a == b


def test_alpha_calibrated_on_a_log_with_labels_in_a_second_file_is_the_pre_joined_logs(
        tmp_path):
    """monitor --calibrate-on with --labels: the calibration's stretch and the monitored rest
    read with the labels joined, the same α and chunks as the pre-joined log's."""
    from pudd_core.monitoring import calibrate_log

    frame = _log(3000)
    preds, labels = _split(frame)
    labels = pd.concat([labels, pd.DataFrame({"rid": [7, 8], "label": [0, 1]})])  # unknown
    preds.to_parquet(tmp_path / "p.parquet", index=False)
    labels.to_csv(tmp_path / "l.csv", index=False)
    kw = {"calibrate_on": 1000, "false_alarm_rate": 0.2, "chunk_size": 100,
          "n_resamples": 5}
    cal, got = calibrate_log(tmp_path / "p.parquet", FMT, labels=tmp_path / "l.csv",
                             id_column="rid", **kw)
    cal_ref, want = calibrate_log(preds.merge(labels, on="rid", how="left"), FMT, **kw)
    assert cal.recommended.alpha == cal_ref.recommended.alpha
    _same(got, want)
    assert any("2 label(s) of" in note and "'7', '8'" in note for note in got.notes), got.notes
