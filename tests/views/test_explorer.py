"""pudd_core.views.explorer: configs of an exploration, the view at a cursor, the merged log."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from pudd_core._validation import ParameterError
from pudd_core.experiments.runner import RunConfig, run_experiment
from pudd_core.streams import DatasetUnavailableError, get_info
from pudd_core.views.explorer import (
    ExplorerConfig,
    PUDDSetting,
    comparison_log_frame,
    compatible_classifiers,
    explorer_view,
    run_log_frame,
    summary_frame,
)
from pudd_core.views.explorer_upload import csv_columns, error_field, upload_name, user_stream

SMALL = ExplorerConfig(n_chunks=30, baselines=("adwin", "ddm"))


@pytest.fixture(scope="module")
def runs():
    return [run_experiment(c) for c in SMALL.run_configs()]


def _csv(n_rows: int = 600, *, flip_at: int = 300) -> bytes:
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 10, size=(n_rows, 2))
    y = (x.sum(axis=1) > np.where(np.arange(n_rows) < flip_at, 9.0, 11.0)).astype(int)
    body = "".join(f"{a:.3f},{b:.3f},{'yes' if c else 'no'}\n" for (a, b), c in zip(x, y,
                                                                                   strict=True))
    return ("x0,x1,label\n" + body).encode()


# --- configs ------------------------------------------------------------------------------------
def test_run_configs_are_pudd_with_windows_then_each_baseline_on_the_same_stream():
    pudd, adwin, ddm = SMALL.run_configs()
    assert (pudd.detector, pudd.alpha, pudd.record_windows) == ("pudd", 1e-3, True)
    assert [adwin.detector, ddm.detector] == ["adwin", "ddm"]
    for cfg in (adwin, ddm):
        assert not cfg.record_windows
        assert dataclasses.replace(cfg, detector="pudd", alpha=1e-3, record_windows=True) == pudd


def test_changing_pudds_threshold_leaves_the_baseline_runs_alone():
    other = dataclasses.replace(SMALL, settings=(PUDDSetting(7),))
    assert other.run_configs()[0].alpha == pytest.approx(1e-7)
    assert other.run_configs()[1:] == SMALL.run_configs()[1:]


def test_baselines_are_kept_in_the_papers_order_and_unknown_ones_rejected():
    assert ExplorerConfig(baselines=("kswin", "adwin")).baselines == ("adwin", "kswin")
    with pytest.raises(ValueError, match="unknown baseline.*magic"):
        ExplorerConfig(baselines=("magic",))


def test_the_shown_code_reproduces_the_runs(runs):
    namespace: dict = {}
    exec(SMALL.as_python(), namespace)  # our own generated code
    assert namespace["pudd"].alarms == runs[0].alarms
    assert namespace["ddm"].alarms == runs[2].alarms


def test_image_streams_offer_only_the_cnns():
    assert compatible_classifiers(get_info("cifar10-cd")) == (
        "pretrained-cnn", "small-cnn", "resnet18")
    assert "gnb" in compatible_classifiers(get_info("elec2"))


# --- the view at a cursor -----------------------------------------------------------------------
def test_view_cuts_every_series_at_the_cursor(runs):
    v = explorer_view(runs[0], runs[1:], 12)
    assert v.cursor == 12 and v.last == 29 and v.chunk_index == tuple(range(1, 13))
    assert list(v.error_rate) == ["PUDD", "ADWIN", "DDM"]
    assert all(len(e) == 12 for e in v.error_rate.values())
    assert v.p_values == tuple(c.p_value for c in runs[0].chunks[:12])
    assert all(a <= 12 for a in v.alarms["DDM"]) and v.chunk == runs[0].chunks[11]


def test_view_ranges_span_the_whole_run_so_axes_stay_put(runs):
    early, late = explorer_view(runs[0], runs[1:], 2), explorer_view(runs[0], runs[1:], 29)
    assert (early.max_error, early.min_log10_p, early.max_cut) == (
        late.max_error, late.min_log10_p, late.max_cut)
    assert late.min_log10_p == pytest.approx(math.log10(min(c.p_value for c in runs[0].chunks)))


def test_view_clamps_the_cursor_to_the_tested_chunks(runs):
    assert explorer_view(runs[0], runs[1:], 0).cursor == 1
    assert explorer_view(runs[0], runs[1:], 500).cursor == 29


def test_view_keeps_the_latest_test_with_buckets_in_pu_order(runs):
    alarm = runs[0].alarms[0]
    v = explorer_view(runs[0], runs[1:], alarm + 1)  # no test right after an alarm
    assert v.window_chunk == alarm and v.chunk.adapted
    raw = runs[0].chunks[alarm - 1].window
    assert list(v.window.bucket_centres) == sorted(raw.bucket_centres)
    assert sorted(v.window.table[0][:-1]) == sorted(raw.table[0][:-1])
    assert v.window.table[1][-1] == raw.table[1][-1]  # misclassified column stays last
    order = np.argsort(raw.bucket_centres)
    assert list(v.window.expected[1][:-1]) == [raw.expected[1][j] for j in order]


def test_view_has_no_window_before_the_first_test(runs):
    assert explorer_view(runs[0], runs[1:], 1).window is None


# --- the merged log -----------------------------------------------------------------------------
def test_run_log_has_pudds_columns_and_each_baselines_alarms_and_errors(runs):
    frame = run_log_frame(runs[0], runs[1:])
    assert len(frame) == 29
    assert {"chunk_index", "accuracy", "p_value", "cut_p_values", "alarm", "true_drift"} <= set(
        frame)
    assert "predict_ms" not in frame
    assert frame.loc[frame["alarm"], "chunk_index"].tolist() == list(runs[0].alarms)
    assert frame.loc[frame["alarm_ddm"], "chunk_index"].tolist() == list(runs[2].alarms)
    assert frame["error_rate_adwin"].tolist() == [c.error_rate for c in runs[1].chunks]
    assert frame.loc[frame["true_drift"], "chunk_index"].tolist() == [10, 20]


def test_the_run_log_download_holds_every_setting_and_seed():
    # it held setting 1's first seed only
    cfg = ExplorerConfig(n_chunks=8, seeds=2, baselines=("ddm",),
                         settings=(PUDDSetting(3), PUDDSetting(1, {"clamp_min": 0})))
    comparison = cfg.comparison([run_experiment(c) for c in cfg.run_configs()])
    frame = comparison_log_frame(comparison)
    assert list(frame.columns[:2]) == ["setting", "seed"]
    for label, group in zip(comparison.labels, comparison.settings, strict=True):
        for j, run in enumerate(group):
            part = frame[(frame["setting"] == label) & (frame["seed"] == run.config.seed)]
            alone = run_log_frame(run, [b[j] for b in comparison.baselines])
            assert part.drop(columns=["setting", "seed"]).reset_index(drop=True).equals(alone)
    assert len(frame) == 2 * 2 * 7 and frame["seed"].unique().tolist() == [0, 1]
    assert frame["setting"].unique().tolist() == ["PUDD-3", "PUDD-1 (floor 0)"]


def test_summary_counts_each_detectors_alarms(runs):
    table = summary_frame(runs)
    assert table.index.tolist() == ["PUDD", "ADWIN", "DDM"]
    assert table["alarms"].tolist() == [r.n_alarms for r in runs]


# --- a user's file ------------------------------------------------------------------------------
def test_an_uploaded_csv_runs_as_a_stream_named_by_its_hash():
    data = _csv()
    stream = user_stream(data, label="label", chunk_size=100)
    assert stream.name == upload_name(data) and stream.n_chunks == 6
    cfg = RunConfig(stream.name, "gnb", "pudd", alpha=1e-3)
    res = run_experiment(cfg, stream=stream)
    assert len(res.chunks) == 5 and res.drift_chunks is None


def test_an_upload_can_be_cut_to_fewer_chunks():
    assert user_stream(_csv(), label="label", chunk_size=100, n_chunks=4).n_chunks == 4
    assert user_stream(_csv(), label="label", chunk_size=100, n_chunks=40).n_chunks == 6


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"", "the file is empty"),
        (b"   \n", "the file is empty"),
        (b"justonecolumn\n1\n2\n", "the file has 1 column"),
        (b'a,b\n"unterminated,1\n', "could not be read as CSV"),
    ],
)
def test_unreadable_csv_files_say_what_is_wrong(data, match):
    with pytest.raises(ValueError, match=match):
        csv_columns(data)


def test_csv_columns_reads_the_header():
    assert csv_columns(_csv()) == ("x0", "x1", "label")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"label": "nope"}, "label column 'nope' not found"),
        ({"chunk_size": 1000}, "fewer than one chunk of 1000"),
    ],
)
def test_bad_upload_settings_raise_the_librarys_message(kwargs, match):
    with pytest.raises(ValueError, match=match):
        user_stream(_csv(), **{"label": "label", "chunk_size": 100, **kwargs})


# --- which control an error is about ------------------------------------------------------------
@pytest.mark.parametrize(
    ("err", "upload", "field"),
    [
        (ParameterError("label", "label column 'y' not found; the columns are: 'a'"), True,
         "label"),
        (ParameterError("chunk_size", "uploaded file has 2 rows, fewer than one chunk of 1000"),
         True, "chunk_size"),
        (ParameterError("n_chunks", "a run needs at least two chunks: chunk 0 trains"), False,
         "n_chunks"),
        (ParameterError("classifier", "classifier 'gnb' cannot learn the image stream"), False,
         "classifier"),
        (ParameterError("format", "format must be 'auto', 'csv' or 'parquet'"), True, "upload"),
        (ParameterError("alpha", "alpha must be ..."), False, "dataset"),  # no control: fallback
        (ImportError("No module named 'torch'"), False, "classifier"),
        (DatasetUnavailableError("data file 'elec2/electricity.csv.gz' was not found"), False,
         "dataset"),
        (ValueError("column 'x' has a non-finite value inf at row 3"), True, "upload"),
    ],
)
def test_errors_are_placed_next_to_the_control_that_caused_them(err, upload, field):
    where, hint = error_field(err, upload=upload)
    assert where == field and hint.endswith(".")


@pytest.mark.parametrize("param", ["label", "chunk_size", "n_chunks", "classifier", "upload"])
@pytest.mark.parametrize("wording", ["", "x", "label column classifier chunk_size n_chunks",
                                     "a run needs at least two chunks", "single class"])
def test_an_error_goes_by_its_parameter_whatever_its_wording(param, wording):
    assert error_field(ParameterError(param, wording), upload=True)[0] == param


def test_real_library_errors_land_under_their_control():
    upload = b"a,y\n" + b"".join(b"%d,%d\n" % (i, i % 2) for i in range(30))
    cases = [
        (lambda: user_stream(upload, label="nope", chunk_size=10), "label"),
        (lambda: user_stream(upload, label="y", chunk_size=1000), "chunk_size"),
        (lambda: user_stream(b"a,y\n" + b"1,3\n" * 30, label="y", chunk_size=10), "label"),
    ]
    for call, field in cases:
        with pytest.raises(ParameterError) as info:
            call()
        assert error_field(info.value, upload=True)[0] == field


def test_a_shared_stream_gives_each_detector_exactly_its_own_run():
    cfgs = ExplorerConfig(n_chunks=25, seed=9, baselines=("ddm",)).run_configs()
    from pudd_core.views.explorer import run_stream

    stream = run_stream(cfgs[0])
    for cfg in cfgs:
        alone, shared = run_experiment(cfg), run_experiment(cfg, stream=stream)
        timings = ["predict_ms", "detect_ms", "train_ms"]
        assert shared.to_frame().drop(columns=timings).equals(
            alone.to_frame().drop(columns=timings))  # NaN p-values compare equal here
        assert [c.window for c in shared.chunks] == [c.window for c in alone.chunks]
