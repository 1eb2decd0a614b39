"""pudd_core.monitor on prediction logs: every input form, chunking by rows and time, errors."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import pudd_core
from pudd_core import ChunkPUDD, is_correct, monitor, pu_index
from pudd_core._validation import ParameterError
from pudd_core.experiments.baselines import feed_errors, make
from pudd_core.monitoring import VARIANTS, guess_columns, read_log_head

K = 3


def _proba(n: int, rng: np.random.Generator, sharp: float) -> tuple[np.ndarray, np.ndarray]:
    """Labels and Dirichlet probabilities leaning (``sharp``) toward the true class."""
    y = rng.integers(0, K, n)
    alpha = np.ones((n, K))
    alpha[np.arange(n), y] += sharp
    g = rng.gamma(alpha)
    return y, g / g.sum(axis=1, keepdims=True)


def _log(n: int = 6000, seed: int = 0) -> pd.DataFrame:
    """A 3-class log whose model gets worse half-way (a drift at row n // 2)."""
    rng = np.random.default_rng(seed)
    y1, p1 = _proba(n // 2, rng, 12.0)
    y2, p2 = _proba(n - n // 2, rng, 4.0)
    y, p = np.r_[y1, y2], np.r_[p1, p2]
    frame = pd.DataFrame(p, columns=[f"proba_{k}" for k in range(K)])
    frame.insert(0, "label", y)
    frame.insert(0, "ts", pd.Timestamp("2024-03-01") + pd.to_timedelta(np.arange(n) * 5,
                                                                         unit="min"))
    return frame


def _direct(frame: pd.DataFrame, chunk: int) -> list[float]:
    """The oracle: ChunkPUDD fed pu_index / is_correct of consecutive row chunks."""
    proba = frame[[f"proba_{k}" for k in range(K)]].to_numpy()
    y = frame["label"].to_numpy()
    det, out = ChunkPUDD(seed=0, **VARIANTS["calibrated"]), []  # the monitor's default
    for a in range(0, len(frame), chunk):
        det.update(pu_index(proba[a:a + chunk], y[a:a + chunk]),
                   is_correct(proba[a:a + chunk], y[a:a + chunk]))
        tested = det.last_scan.shortcut is None and not all(c.skipped for c in det.last_scan.cuts)
        out.append(det.p_value if tested else np.nan)  # no test: missing, never 1
    return out


def test_monitor_is_exported_and_all_stays_sorted():
    assert "monitor" in pudd_core.__all__ and "MonitorResult" in pudd_core.__all__
    assert pudd_core.__all__ == sorted(pudd_core.__all__)


def test_row_chunks_feed_chunkpudd_exactly_the_pu_index_of_each_chunk():
    frame = _log()
    res = monitor(frame, label="label", proba_prefix="proba_", chunk_size=500)
    np.testing.assert_array_equal(res.p_values, _direct(frame, 500))
    assert res.n_chunks == 12 and res.n_rows == 6000
    assert [(s.first_row, s.last_row) for s in res.spans][:2] == [(0, 499), (500, 999)]
    assert res.alarms and res.alarms[0] == 6  # the first chunk after the drift
    acc = is_correct(frame.filter(like="proba_").to_numpy(), frame["label"].to_numpy())
    assert res.accuracy[3] == pytest.approx(acc[1500:2000].mean())


def test_csv_parquet_dataframe_and_every_batch_size_give_the_same_result(tmp_path):
    frame = _log(3300)
    frame.to_csv(tmp_path / "log.csv", index=False)
    frame.to_parquet(tmp_path / "log.parquet", index=False)
    raw = (tmp_path / "log.csv").read_bytes()
    results = [monitor(src, label="label", proba_prefix="proba_", chunk_size=300,
                       batch_rows=b)
               for src in (frame, tmp_path / "log.csv", str(tmp_path / "log.parquet"),
                           io.BytesIO(raw))
               for b in (7, 1000, 1 << 17)]
    first = results[0]
    for r in results[1:]:
        assert r.p_values == first.p_values and r.spans == first.spans
    assert first.spans[-1].n_rows == 300 and first.n_chunks == 11


def test_the_three_forms_and_text_labels_agree():
    frame = _log(4000, seed=3)
    names = np.array(["cat", "dog", "eel"])
    proba = frame.filter(like="proba_").to_numpy()
    y = frame["label"].to_numpy()
    ref = monitor(frame, label="label", proba_prefix="proba_", chunk_size=400)
    text = frame.rename(columns={f"proba_{k}": f"p:{names[k]}" for k in range(K)}).assign(
        label=names[y])
    by_prefix = monitor(text, label="label", proba_prefix="p:", chunk_size=400)
    listed = monitor(text, label="label", proba_columns=["p:cat", "p:dog", "p:eel"],
                     classes=list(names), chunk_size=400)
    short = pd.DataFrame({"p_true": proba[np.arange(len(y)), y],
                          "correct": is_correct(proba, y).astype(int),
                          "pred": names[proba.argmax(axis=1)], "label": names[y]})
    with_correct = monitor(short, p_true="p_true", correct="correct", chunk_size=400)
    with_pred = monitor(short, p_true="p_true", pred="pred", label="label", chunk_size=400)
    for r in (by_prefix, listed, with_correct, with_pred):
        assert r.p_values == ref.p_values and r.accuracy == ref.accuracy


def test_unlabelled_rows_stay_in_their_chunk_but_the_detector_does_not_see_them():
    frame = _log(2000).astype({"label": "float64"})
    frame.loc[frame.index % 4 == 0, "label"] = np.nan
    res = monitor(frame, label="label", proba_prefix="proba_", chunk_size=500)
    kept = frame.dropna(subset=["label"]).astype({"label": "int64"}).reset_index(drop=True)
    assert [s.n_labelled for s in res.spans] == [375] * 4
    assert [s.n_rows for s in res.spans] == [500] * 4
    np.testing.assert_array_equal(res.p_values, _direct(kept, 375))


def test_time_windows_cut_at_the_window_bounds_and_skip_empty_ones():
    frame = _log(6000)  # one row per 5 minutes from 2024-03-01: 288 rows a day
    gap = frame[(frame.ts < "2024-03-05") | (frame.ts >= "2024-03-06")]
    res = monitor(gap, label="label", proba_prefix="proba_", time_column="ts", window="1D",
                  batch_rows=1000)
    days = gap.ts.dt.floor("D")
    assert [s.n_rows for s in res.spans] == days.value_counts(sort=False).sort_index().tolist()
    assert res.spans[0].start == "2024-03-01T00:00:00" and res.spans[0].end == "2024-03-02T00:00:00"
    assert res.spans[4].start == "2024-03-06T00:00:00"  # the empty day 5 is no chunk
    assert res.spans[4].first_row == 4 * 288  # rows counted in the file as given
    six_hours = monitor(frame, label="label", proba_prefix="proba_", time_column="ts",
                        window="6h")
    assert {s.n_rows for s in six_hours.spans[:-1]} == {72}
    weekly = monitor(frame.assign(ts=frame.ts.dt.strftime("%Y-%m-%dT%H:%M:%S")),
                     label="label", proba_prefix="proba_", time_column="ts", window="W")
    weeks = frame.ts.dt.to_period("W")  # pandas' W bins: Monday to Sunday, whole days
    assert [s.n_rows for s in weekly.spans] == weeks.value_counts().sort_index().tolist()
    assert weekly.spans[0].start == str(weeks.iloc[0].start_time.isoformat())
    assert weekly.spans[0].end == str((weeks.iloc[0] + 1).start_time.isoformat())


def test_normalize_divides_each_row_by_its_sum():
    frame = _log(2000)
    scaled = frame.copy()
    cols = [f"proba_{k}" for k in range(K)]
    scaled[cols] = scaled[cols] * 0.5
    with pytest.raises(ParameterError, match=r"row 0: .* sum to 0.5.*--normalize"):
        monitor(scaled, label="label", proba_prefix="proba_", chunk_size=500)
    a = monitor(scaled, label="label", proba_prefix="proba_", chunk_size=500, normalize=True)
    b = monitor(frame, label="label", proba_prefix="proba_", chunk_size=500)
    assert a.p_values == pytest.approx(b.p_values, nan_ok=True) and a.alarms == b.alarms


@pytest.mark.parametrize(("value", "what"), [(-0.1, "below 0"), (1.5, "above 1"),
                                             (np.nan, "empty")])
def test_a_bad_probability_names_its_row_and_column(value, what):
    frame = _log(2000)
    frame.loc[1234, "proba_2"] = value
    with pytest.raises(ParameterError, match=rf"row 1234, column 'proba_2'.*{what}"):
        monitor(frame, label="label", proba_prefix="proba_", chunk_size=500, batch_rows=100)


def test_a_label_without_a_probability_column_is_named():
    frame = _log(2000)
    frame.loc[777, "label"] = 7
    with pytest.raises(ParameterError, match=r"row 777, column 'label': label 7 has no prob"):
        monitor(frame, label="label", proba_prefix="proba_", chunk_size=500, batch_rows=300)


def test_unsorted_timestamps_are_refused_with_the_row_even_across_batches():
    frame = _log(2000)
    frame.loc[1000, "ts"] = pd.Timestamp("2024-01-01")
    with pytest.raises(ParameterError, match=r"row 1000, column 'ts'.*not sorted"):
        monitor(frame, label="label", proba_prefix="proba_", time_column="ts", window="1D",
                batch_rows=1000)  # row 1000 opens the second batch


def test_a_chunk_without_labels_is_named_with_its_rows():
    frame = _log(2000).astype({"label": "float64"})
    frame.loc[1000:1499, "label"] = np.nan
    with pytest.raises(ParameterError, match=r"chunk 2, rows 1000..1499, has no labelled row"):
        monitor(frame, label="label", proba_prefix="proba_", chunk_size=500)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"label": "nope", "proba_prefix": "proba_"}, "no column 'nope'"),
    ({"label": "label", "proba_prefix": "zz_"}, "no column starting with .zz_."),
    ({"label": "label"}, "exactly one of"),
    ({"label": "label", "proba_prefix": "proba_", "window": "1D"}, "both time_column"),
    ({"label": "label", "proba_prefix": "proba_", "time_column": "ts", "window": "fortnight"},
     "not a pandas offset alias"),
    ({"label": "label", "proba_prefix": "proba_", "time_column": "ts", "window": "0"},
     "must be a positive number"),
    ({"label": "label", "proba_prefix": "proba_", "time_column": "ts", "window": "-2"},
     "must be a positive number"),
    ({"label": "label", "proba_prefix": "proba_", "time_column": "ts", "window": "10"},
     "'ts' is not numeric"),
    ({"label": "label", "proba_prefix": "proba_", "baselines": ["cusum"]}, "unknown baseline"),
    ({"p_true": "proba_0"}, "exactly one of correct"),
    ({"label": "label", "proba_prefix": "proba_", "tolerance": float("nan")},
     "tolerance must be finite"),
    ({"label": "label", "proba_prefix": "proba_", "tolerance": -1e-3}, "tolerance must be >= 0"),
    ({"label": "label", "proba_prefix": "proba_", "normalize": "no"},
     "normalize must be True or False"),
    ({"label": "label", "proba_prefix": "proba_", "seed": -1}, "seed"),
    ({"label": "label", "proba_prefix": "proba_", "baselines": "adwin,cusum"},
     "unknown baseline 'cusum'"),
])
def test_bad_settings_say_what_to_do(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        monitor(_log(1000), **kwargs)


def test_missing_and_unreadable_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="no prediction log"):
        monitor(tmp_path / "none.csv", label="label", proba_prefix="proba_")
    (tmp_path / "bad.csv").write_bytes(b"\xff\xfe\x00garbage\x00\n\x81\x82")
    with pytest.raises(ParameterError, match="bad.csv"):
        monitor(tmp_path / "bad.csv", label="label", proba_prefix="proba_")


def test_baselines_see_each_chunks_errors_and_restart_after_a_hit():
    frame = _log(6000)
    res = monitor(frame, label="label", proba_prefix="proba_", chunk_size=500,
                  baselines=["ddm", "ph"])
    proba, y = frame.filter(like="proba_").to_numpy(), frame["label"].to_numpy()
    errors = (~is_correct(proba, y)).astype(np.int64)
    det, expected = make("ddm"), []
    for a in range(0, 6000, 500):
        hits = feed_errors(det, errors[a:a + 500])
        det = det.clone() if hits else det
        expected.append(hits)
    assert res.baselines["ddm"] == tuple(expected)
    assert set(res.baselines) == {"ddm", "pagehinkley"}
    assert res.baseline_alarms()["ddm"] == tuple(i for i, h in enumerate(expected) if h)


def test_windows_are_recorded_where_asked_and_runs_renumber_from_one():
    frame = _log(6000)
    every = monitor(frame, label="label", proba_prefix="proba_", chunk_size=500,
                    record_windows="all", baselines=["adwin"])
    at_alarms = monitor(frame, label="label", proba_prefix="proba_", chunk_size=500)
    tested = [c.chunk_index for c in every.chunks if c.window is not None]
    assert tested and tested[0] == 1  # the first chunk has no test
    assert [c.chunk_index for c in at_alarms.chunks if c.window is not None] == list(
        at_alarms.alarms)
    pudd, adwin = every.runs()
    assert [c.chunk_index for c in pudd.chunks] == list(range(1, 13))
    assert pudd.alarms == tuple(a + 1 for a in every.alarms)
    assert adwin.config.detector == "adwin" and all(np.isnan(c.p_value) for c in adwin.chunks)
    frame_log = every.to_frame()
    assert frame_log["alarm"].tolist() == [c.alarm for c in every.chunks]
    assert "adwin_alarm" in frame_log


def test_json_is_strict_and_has_the_contract_keys():
    import json

    res = monitor(_log(3000), label="label", proba_prefix="proba_", chunk_size=500)
    out = json.loads(json.dumps(res.to_json(), allow_nan=False))
    assert out["n_chunks"] == 6 and len(out["p_values"]) == len(out["accuracy"]) == 6
    assert out["alarms"] == list(res.alarms)
    assert out["chunks"][1] == {"index": 1, "first_row": 500, "last_row": 999, "n_rows": 500,
                                "n_labelled": 500, "start": None, "end": None}


def test_guesses_name_the_label_probabilities_and_time():
    head = read_log_head(io.BytesIO(_log(50).to_csv(index=False).encode()), 20)
    g = guess_columns(head)
    assert (g["label"], g["proba_prefix"], g["time_column"]) == ("label", "proba_", "ts")
    assert len(g["why"]) == 3
    short = guess_columns(pd.DataFrame({"p_true": [0.3], "correct": [1], "when": [0]}))
    assert (short["p_true"], short["correct"], short["proba_prefix"]) == ("p_true", "correct",
                                                                         None)


def test_a_log_format_and_its_fields_as_keywords_give_the_same_result():
    from pudd_core.monitoring import LogFormat

    frame = _log(3000)
    fmt = LogFormat(label="label", proba_prefix="proba_")
    a = monitor(frame, fmt, chunk_size=500)
    b = monitor(frame, label="label", proba_prefix="proba_", chunk_size=500)
    assert a.p_values == b.p_values and a.format == b.format
    assert a.format == fmt.resolve(list(frame.columns))
    assert a.format.proba_columns == ("proba_0", "proba_1", "proba_2") and a.format.classes == (
        "0", "1", "2")


@pytest.mark.parametrize(("call", "message"), [
    (lambda f: monitor(f, label="label", proba_prefx="proba_"), "no argument 'proba_prefx'"),
    (lambda f: monitor(f, "label"), "must be a LogFormat"),
    (lambda f: monitor(f, pudd_core.monitoring.LogFormat(label="label"), label="label"),
     "not both"),
    (lambda f: monitor(f, label=3, proba_prefix="proba_"), "label must be a column name"),
    (lambda f: monitor(f, label="label", proba_columns="proba_0"), "list of names"),
    (lambda f: monitor(f, label="label", proba_columns=["proba_0", 1]), "got 1"),
])
def test_a_malformed_log_format_is_refused_naming_the_argument(call, message):
    with pytest.raises(ParameterError, match=message):
        call(_log(500))


def test_a_chunk_without_a_test_has_a_missing_p_value_and_the_reason_never_one():
    import json

    res = monitor(_log(6000), label="label", proba_prefix="proba_", chunk_size=500)
    first_after = res.alarms[0] + 1
    for i in (0, first_after):  # the first chunk, and the first after an alarm
        assert np.isnan(res.p_values[i])
        assert res.records[i].no_test == "fewer than two chunks since the last alarm"
    tested = [r for r in res.records if r.no_test is None]
    assert tested and all(0.0 <= r.p_value <= 1.0 for r in tested)
    frame = res.to_frame()
    assert frame.loc[0, "no_test"].startswith("fewer than two")
    assert np.isnan(frame.loc[0, "p_value"])
    out = json.loads(json.dumps(res.to_json(), allow_nan=False))
    assert out["p_values"][0] is None and out["no_test"][0].startswith("fewer than two")
    assert 1.0 not in out["p_values"]


def test_an_integer_year_and_epoch_times_make_time_windows():
    frame = _log(6000)
    year = np.repeat(np.arange(2010, 2022), 500)
    by_year = monitor(frame.assign(year=year), label="label", proba_prefix="proba_",
                      time_column="year", window="1")
    by_rows = monitor(frame, label="label", proba_prefix="proba_", chunk_size=500)
    np.testing.assert_array_equal(by_year.p_values, by_rows.p_values)
    assert (by_year.spans[0].start, by_year.spans[0].end) == ("2010", "2011")
    decades = monitor(frame.assign(year=year), label="label", proba_prefix="proba_",
                      time_column="year", window="5")
    assert [s.n_rows for s in decades.spans] == [500 * 5, 500 * 5, 500 * 2]  # 2010-14 ...
    as_years = monitor(frame.assign(year=year), label="label", proba_prefix="proba_",
                       time_column="year", window="YS", time_unit="year")
    np.testing.assert_array_equal(as_years.p_values, by_rows.p_values)
    assert as_years.spans[1].start == "2011-01-01T00:00:00"
    assert any("integer years" in n for n in as_years.notes)
    # epoch seconds and milliseconds give the timestamps' windows
    by_time = monitor(frame, label="label", proba_prefix="proba_", time_column="ts",
                      window="6h")
    seconds = frame.ts.astype("int64") // 10**9
    for unit, values in (("s", seconds), ("ms", seconds * 1000)):
        res = monitor(frame.assign(ts=values), label="label", proba_prefix="proba_",
                      time_column="ts", window="6h", time_unit=unit)
        assert res.spans == by_time.spans
        # never guessed from their size: without the unit they are refused by name
        with pytest.raises(ParameterError, match=r"holds numbers .*--time-unit"):
            monitor(frame.assign(ts=values), label="label", proba_prefix="proba_",
                    time_column="ts", window="6h")


def test_timestamps_across_a_daylight_saving_change_are_read_as_utc():
    frame = _log(12000)  # every 5 minutes from 2024-03-01 to 2024-04-11
    local = frame.ts.dt.tz_localize("Europe/Paris", ambiguous="NaT", nonexistent="NaT")
    text = local.dropna().map(lambda t: t.isoformat())  # +01:00 then +02:00 (2024-03-31)
    part = frame.loc[text.index].assign(ts=text.to_numpy())
    assert part.ts.str.endswith("+01:00").any() and part.ts.str.endswith("+02:00").any()
    res = monitor(part, label="label", proba_prefix="proba_", time_column="ts", window="1D")
    days = pd.to_datetime(part.ts, utc=True).dt.floor("D")
    assert [s.n_rows for s in res.spans] == days.value_counts().sort_index().tolist()


def test_a_short_last_chunk_is_tested_but_warned():
    with pytest.warns(UserWarning, match=r"last tested chunk \(5, rows 5,000..5,009\) has 10"):
        res = monitor(_log(5010), label="label", proba_prefix="proba_", chunk_size=1000)
    assert res.n_chunks == 6 and any("rest on few rows" in n for n in res.notes)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        monitor(_log(5600), label="label", proba_prefix="proba_", chunk_size=1000)


def test_the_calibrated_count_floor_is_the_default_and_the_authors_one_option_away():
    frame = _log(6000)
    default = monitor(frame, label="label", proba_prefix="proba_", chunk_size=500)
    assert dict(default.detector_options) == {"clamp_min": 0, "min_expected": 5.0,
                                              "max_chunks": 128, "refit": "doubling",
                                              "skip_rule": None}
    authors = monitor(frame, label="label", proba_prefix="proba_", chunk_size=500,
                      variant="authors")
    assert authors.detector_options == ()
    proba, y = frame.filter(like="proba_").to_numpy(), frame["label"].to_numpy()
    det = ChunkPUDD(seed=0)  # the authors' code: ChunkPUDD's own defaults
    for i, a in enumerate(range(0, 6000, 500)):
        det.update(pu_index(proba[a:a + 500], y[a:a + 500]), is_correct(proba[a:a + 500],
                                                                       y[a:a + 500]))
        if authors.records[i].no_test is None:
            assert authors.p_values[i] == det.p_value
    mixed = monitor(frame, label="label", proba_prefix="proba_", chunk_size=500,
                    detector_options={"clamp_min": 2})
    assert dict(mixed.detector_options) == {"clamp_min": 2, "min_expected": 5.0,
                                            "max_chunks": 128, "refit": "doubling",
                                            "skip_rule": None}
    with pytest.raises(ParameterError, match="variant must be 'calibrated' or 'authors'"):
        monitor(frame, label="label", proba_prefix="proba_", variant="paper")


def test_the_default_history_is_bounded_as_chunkpudd_max_chunks_bounds_it():
    frame = _log(6000)
    res = monitor(frame, label="label", proba_prefix="proba_", chunk_size=15)  # 400 chunks
    np.testing.assert_array_equal(res.p_values, _direct(frame, 15))  # max_chunks=128 there
    assert VARIANTS["calibrated"]["max_chunks"] == 128
    assert "max_chunks" not in dict(monitor(frame, label="label", proba_prefix="proba_",
                                            chunk_size=500, variant="authors").detector_options)


@pytest.mark.parametrize(("source", "kwargs", "message"), [
    (None, {}, r"the log must be a path, an open binary file, bytes or a pandas DataFrame, "
               r"got None"),
    (42, {}, r"got 42 \(a int\)"),
    ("LOG", {"detector_options": {"alpha": 0.5}},
     r"alpha is the monitor's own argument, not a detector option: pass alpha="),
    ("LOG", {"detector_options": {"seed": 1}}, r"seed is the monitor's own argument"),
    ("LOG", {"detector_options": "cut_points=all"}, r"detector_options must map ChunkPUDD"),
    ("LOG", {"detector_options": {"cut_point": "all"}}, r"cut_point"),
])
def test_library_misuse_is_a_parameter_error_naming_the_argument(source, kwargs, message):
    # issue 32: monitor(None) raised AttributeError 'tell', detector_options={"alpha": ...}
    # TypeError "multiple values for argument 'alpha'"
    source = _log(600) if source == "LOG" else source
    with pytest.raises(ParameterError, match=message):
        monitor(source, label="label", proba_prefix="proba_", chunk_size=100, **kwargs)


def test_labels_and_column_names_in_either_unicode_normal_form_are_one_class():
    # issue 32: decomposed "café" labels against a composed proba_café column were "no
    # probability column" while the column was listed
    import unicodedata

    nfc, nfd = (unicodedata.normalize(f, "café") for f in ("NFC", "NFD"))
    assert nfc != nfd
    rng = np.random.default_rng(0)
    p = rng.uniform(0.2, 0.9, 1000)
    y = rng.integers(0, 2, 1000)
    composed = pd.DataFrame({"label": np.where(y == 1, nfc, "tea"), f"proba_{nfc}": p,
                             "proba_tea": 1 - p})
    ref = monitor(composed, label="label", proba_prefix="proba_", chunk_size=100)
    for label, column in ((nfd, nfc), (nfc, nfd), (nfd, nfd)):
        log = composed.rename(columns={f"proba_{nfc}": f"proba_{column}"}).assign(
            label=np.where(y == 1, label, "tea"))
        res = monitor(log, label="label", proba_prefix="proba_", chunk_size=100)
        np.testing.assert_array_equal(res.p_values, ref.p_values)
        assert res.accuracy == ref.accuracy
        binary = monitor(log.drop(columns="proba_tea"), label="label",
                         proba_columns=[f"proba_{column}"], positive_label=nfc, chunk_size=100)
        np.testing.assert_allclose(binary.p_values, ref.p_values, rtol=1e-12)
