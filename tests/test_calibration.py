"""Choosing α on a stable stretch: ``monitoring.calibrate``, ``calibrate_log`` and the CLI."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from pudd_core.cli import main
from pudd_core.detector import ChunkPUDD
from pudd_core.monitoring import VARIANTS, calibrate, calibrate_log, inject_change
from pudd_core.monitoring._calibrate import _alarm_chunks, _cut, block_resample


def _stream(n_rows: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """I.i.d. rows of a binary model: its top probability ~ U(0.51, 1) to two decimals, right
    with that probability (a calibrated model), u = 1 - p(true class)."""
    rng = np.random.default_rng(seed)
    p_top = np.round(rng.uniform(0.51, 1.0, n_rows), 2)
    ok = rng.random(n_rows) < p_top
    return np.where(ok, 1 - p_top, p_top), ok


def _log(n_rows: int, seed: int) -> pd.DataFrame:
    u, ok = _stream(n_rows, seed)
    p1 = np.round(1 - u, 2)  # label 1 throughout: p(true class) = proba_1
    return pd.DataFrame({"label": 1, "proba_0": np.round(1 - p1, 2), "proba_1": p1})


# --- the pieces ----------------------------------------------------------------------------
def test_block_resample_lays_whole_blocks_of_consecutive_rows_end_to_end():
    idx = block_resample(1000, 250, 100, np.random.default_rng(0))
    assert idx.size == 250 and idx.min() >= 0 and idx.max() < 1000
    blocks = [idx[:100], idx[100:200], idx[200:]]
    assert all((np.diff(b) == 1).all() for b in blocks)
    assert len({int(b[0]) for b in blocks}) == 3  # drawn starts, not one block repeated


def test_a_confidence_shift_keeps_every_decision_and_an_error_rise_only_adds_errors():
    u, ok = _stream(2000, 1)
    cu, cok = inject_change(u, ok, 1000, "confidence", 0.5, np.random.default_rng(0))
    assert (cok == ok).all() and (cu[:1000] == u[:1000]).all()
    up = ok[1000:]
    np.testing.assert_allclose(cu[1000:][up], u[1000:][up] + 0.5 * (0.5 - u[1000:][up]))
    assert (cu[1000:][~up] == u[1000:][~up]).all()
    eu, eok = inject_change(u, ok, 1000, "error_rate", 0.3, np.random.default_rng(0))
    flipped = ok & ~eok
    assert flipped[:1000].sum() == 0 and not (eok & ~ok).any()
    assert 0.25 < flipped.sum() / ok[1000:].sum() < 0.35
    np.testing.assert_allclose(eu[flipped], 1 - u[flipped])
    for kind in ("confidence", "error_rate"):
        zu, zok = inject_change(u, ok, 0, kind, 0.0, np.random.default_rng(0))
        assert (zu == u).all() and (zok == ok).all()


@pytest.mark.parametrize("variant", ["calibrated", "authors"])
def test_one_shared_run_gives_each_alphas_alarms_as_its_own_run(variant: str):
    # the oracle: a separate ChunkPUDD per alpha, fed the same chunks with the same seed
    u, ok = _stream(60 * 100, 2)
    u[3000:] = np.where(ok[3000:], u[3000:] * 0.5 + 0.2, u[3000:])  # a drift: runs part
    grid = [0.3, 0.1, 0.01, 1e-3, 1e-6]

    def make(alpha: float) -> ChunkPUDD:
        return ChunkPUDD(alpha, seed=3, **VARIANTS[variant])

    shared = _alarm_chunks(_cut(u, ok, 100), grid, make)
    alone = [_alarm_chunks(_cut(u, ok, 100), [a], make)[0] for a in grid]
    assert shared == alone
    assert len({tuple(a) for a in alone}) >= 3  # the runs did part


# --- the null: the rate matches fresh streams ----------------------------------------------
@pytest.mark.parametrize("skip_rule", [
    "accuracy",
    # Without the skip rule (the monitor's default since the threshold studies) the block
    # bootstrap of a 40-chunk stretch over-states the rate: 0.1625 (0.143 .. 0.184) against
    # 0.112 on fresh streams. Each window then repeats some of the stretch's rows, so its
    # counts vary more than the test's multinomial assumes; the error is on the safe side
    # (a smaller alpha is chosen than needed). Left for the calibration (issue 35 item 1).
    pytest.param(None, marks=pytest.mark.xfail(strict=True, reason="the bootstrap over-states "
                                                                   "the no-skip rate")),
])
def test_on_iid_rows_the_estimated_rate_matches_a_brute_force_simulation(skip_rule):
    alpha, n_chunks, chunk = 0.1, 40, 100
    u, ok = _stream(n_chunks * chunk, 3)
    est = calibrate(u, ok, chunk, [alpha], n_resamples=30, change=None, seed=0,
                    detector_options={"skip_rule": skip_rule}).row(alpha)
    # brute force: fresh streams from the same generator, each through its own detector
    alarms = 0
    for s in range(60):
        fu, fok = _stream(n_chunks * chunk, 100 + s)
        det = ChunkPUDD(alpha, seed=s, **{**VARIANTS["calibrated"], "skip_rule": skip_rule})
        for a in range(0, fu.size, chunk):
            det.update(fu[a:a + chunk], fok[a:a + chunk])
            alarms += det.drift_detected
    brute = alarms / (60 * n_chunks)
    assert est.n_alarms > 20  # the rate is measured, not zero
    assert est.ci[0] <= brute <= est.ci[1], (brute, est.false_alarm_rate, est.ci)


def test_a_change_of_size_zero_gives_the_false_alarms_and_a_large_one_is_caught():
    u, ok = _stream(30 * 100, 4)
    grid = [0.1, 1e-2, 1e-3]
    zero = calibrate(u, ok, 100, grid, n_resamples=12, size=0.0, after=15, seed=1)
    for a in zero.per_alpha:
        first = [min((t for t in h if t >= 15), default=math.inf) - 15 for h in a.alarm_chunks]
        assert list(a.delays) == first
        assert a.n_alarms == sum(len(h) for h in a.alarm_chunks)
    big = calibrate(u, ok, 100, grid, n_resamples=12, size=0.8, after=15, seed=1)
    for z, b in zip(zero.per_alpha, big.per_alpha, strict=True):
        assert (z.n_alarms, z.alarm_chunks) == (b.n_alarms, b.alarm_chunks)  # same null
        assert b.detection_rate > z.detection_rate
        assert b.delay_quantiles()[0.5] == 0.0
        # a false alarm just before the change leaves only changed chunks to compare: missed
        assert b.detection_rate == 1.0 or z.alpha == 0.1
    rise = calibrate(u, ok, 100, [1e-3], n_resamples=12, change="error_rate", size=0.5,
                     after=15, seed=1).row(1e-3)
    assert rise.detection_rate > 0.9


def test_the_same_seed_gives_the_same_calibration_and_another_seed_another():
    u, ok = _stream(20 * 100, 5)
    a, b, c = (calibrate(u, ok, 100, [0.1, 1e-3], n_resamples=6, seed=s).to_json()
               for s in (7, 7, 8))
    assert a == b
    assert a["per_alpha"] != c["per_alpha"]


def test_the_recommended_alpha_is_the_largest_whose_upper_bound_meets_the_target():
    u, ok = _stream(30 * 100, 6)
    res = calibrate(u, ok, 100, [0.3, 0.1, 0.03, 0.01, 1e-3], n_resamples=10, change=None,
                    seed=0)
    assert res.recommended is None  # no target, no recommendation
    a = res.row(0.03)
    # a target between 0.03's estimate and its upper bound: the estimate meets it, the
    # interval does not, and the recommendation goes by the interval
    target = (a.false_alarm_rate + a.ci[1]) / 2
    res = dataclasses.replace(res, target=target)
    meets = [r.alpha for r in res.per_alpha if r.ci[1] <= target]
    assert res.recommended is not None and res.recommended.alpha == max(meets) < 0.03
    assert res.to_json()["alpha"] == res.recommended.alpha
    assert res.to_json()["ci"] == list(res.recommended.ci)
    none = calibrate(u, ok, 100, [0.3], target=0.01, n_resamples=3, change=None)
    assert none.recommended is None and none.to_json()["alpha"] is None


@pytest.mark.parametrize(("args", "param"), [
    (dict(chunk_size=0), "chunk_size"), (dict(alphas=[0.0]), "alphas"),
    (dict(alphas=[]), "alphas"), (dict(target=1.5), "target"),
    (dict(n_resamples=0), "n_resamples"), (dict(block=0), "block"),
    (dict(change="prior"), "change"), (dict(size=2.0), "size"), (dict(after=0), "after"),
    (dict(after=20), "after"), (dict(within=0), "within"), (dict(variant="x"), "variant"),
    (dict(detector_options={"nope": 1}), "detector_options"), (dict(chunk_size=1500), "u"),
])
def test_bad_calibration_arguments_are_refused_by_name(args: dict, param: str):
    from pudd_core._validation import ParameterError

    u, ok = _stream(2000, 0)
    kw = {"chunk_size": 100, **args}
    with pytest.raises(ParameterError) as err:
        calibrate(u, ok, **kw)
    assert err.value.param == param


# --- the bar: calibrated on 100 chunks, the next 400 keep the rate --------------------------
def _accurate_log(n_rows: int, seed: int) -> pd.DataFrame:
    """A binary model 99.9 % accurate, P(1) to two decimals: p(true class) ~ Beta(10, 1),
    the log on which the authors' count floor alarms on 41 of 500 chunks at 1e-3."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n_rows)
    p_true = np.round(rng.beta(10.0, 1.0, n_rows), 2)
    return pd.DataFrame({"label": y, "p": np.where(y == 1, p_true, np.round(1 - p_true, 2))})


LOGS = {"uniform": (_log, {"proba_prefix": "proba_"}),
        "accurate": (_accurate_log, {"proba_columns": ["p"]})}


def _bar(variant: str, log: str, chunk: int, n_resamples: int, tmp_path: Path) -> None:
    target = 0.01
    path = tmp_path / "log.csv"
    make, columns = LOGS[log]
    make(500 * chunk, 9).to_csv(path, index=False)
    cal, res = calibrate_log(path, label="label", chunk_size=chunk, calibrate_on=100 * chunk,
                             false_alarm_rate=target, n_resamples=n_resamples, change=None,
                             variant=variant, **columns)
    best = cal.recommended
    assert best is not None and res.alpha == best.alpha and res.n_chunks == 400
    assert res.spans[0].first_row == 100 * chunk  # the rest, numbered as in the log
    k = len(res.alarms)
    seen = binomtest(k, 400).proportion_ci(0.95, method="wilson")
    assert k / 400 <= target
    assert seen.low <= best.false_alarm_rate <= seen.high, (k, best)


#: (variant, log) pairs where some alpha of the grid meets 0.01 (see the test after next)
BAR = [("calibrated", "uniform"), ("calibrated", "accurate"), ("authors", "uniform")]


@pytest.mark.parametrize(("variant", "log"), BAR)
def test_alpha_calibrated_on_100_chunks_keeps_the_rate_on_the_next_400(variant: str, log: str,
                                                                     tmp_path: Path):
    _bar(variant, log, 100, 10, tmp_path)


def test_on_the_accurate_log_the_authors_variant_is_estimated_right_and_refused(
        tmp_path: Path):
    # the floor of 5 alarms on about 8 % of the chunks at 1e-3 there, and still on more than
    # 1 % at 1e-6 (invented counts in a near-empty misclassified column): the estimate from
    # the first 100 chunks holds the rate of the next 400, and no alpha meets 0.01
    from pudd_core._validation import ParameterError
    from pudd_core.monitoring import monitor

    log = _accurate_log(500 * 100, 9)
    u = np.where(log["label"] == 1, 1 - log["p"], log["p"]).astype(float)[:100 * 100]
    res = calibrate(u, u < 0.5, 100, [1e-3], n_resamples=10, change=None, variant="authors")
    rest = monitor(log.iloc[100 * 100:], label="label", proba_columns=["p"], chunk_size=100,
                   variant="authors")
    est = res.row(1e-3)
    assert est.false_alarm_rate > 0.02
    assert est.ci[0] <= len(rest.alarms) / rest.n_chunks <= est.ci[1]
    path = tmp_path / "log.csv"
    log.to_csv(path, index=False)
    with pytest.raises(ParameterError, match="calibrated variant") as err:
        calibrate_log(path, label="label", proba_columns=["p"], chunk_size=100,
                      calibrate_on=100 * 100, false_alarm_rate=0.01, n_resamples=10,
                      change=None, variant="authors")
    assert err.value.param == "false_alarm_rate"


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "log"), BAR)
def test_alpha_calibrated_on_100_chunks_of_1000_keeps_the_rate_on_the_next_400(
        variant: str, log: str, tmp_path: Path):
    _bar(variant, log, 1000, 50, tmp_path)


# --- the command line ----------------------------------------------------------------------
def test_the_cli_names_the_calibrated_alpha_as_the_library_chooses_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "log.csv"
    log = _log(60 * 100, 10)
    log.to_csv(path, index=False)
    args = [str(path), "--label", "label", "--proba-prefix", "proba_", "--chunk-size", "100",
            "--calibrate-on", "3000", "--false-alarm-rate", "0.02", "--resamples", "8"]
    assert main(["monitor", *args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    read = pd.read_csv(path)  # the reference reading: u = 1 - p(label 1), right if p > 1/2
    u, ok = 1 - read["proba_1"].to_numpy(), (read["proba_1"] > read["proba_0"]).to_numpy()
    lib = calibrate(u[:3000], ok[:3000], 100, target=0.02, n_resamples=8, seed=0)
    assert out["calibration"] == json.loads(json.dumps(lib.to_json()))
    assert out["alpha"] == out["calibration"]["alpha"] == lib.recommended.alpha
    assert out["n_chunks"] == 30
    assert main(["monitor", *args]) == 0
    text = capsys.readouterr().out
    best = lib.recommended
    assert f"alpha={best.alpha:g}, the largest" in text
    assert f"false alarms: {best.n_alarms} in {best.n_chunks:,} resampled chunks" in text
    assert f"at alpha={lib.recommended.alpha:g}" in text


def test_with_a_confidence_shift_after_the_reference_the_calibrated_alpha_is_not_later(
        tmp_path: Path):
    # issue 35's second bar: the rest of the log drifts (a confidence shift at flat accuracy
    # from chunk 250 on); the alpha chosen on the first 100 chunks alarms no later than the
    # monitor's default alpha on the same rows
    from pudd_core.monitoring import monitor

    log = _log(400 * 100, 11)
    u, ok = 1 - log["proba_1"].to_numpy(), (log["proba_1"] > 0.5).to_numpy()
    cu, _ = inject_change(u, ok, 250 * 100, "confidence", 0.2, np.random.default_rng(0))
    log["proba_1"] = np.round(1 - cu, 2)
    log["proba_0"] = np.round(1 - log["proba_1"], 2)
    path = tmp_path / "log.csv"
    log.to_csv(path, index=False)
    cal, res = calibrate_log(path, label="label", proba_prefix="proba_", chunk_size=100,
                             calibrate_on=100 * 100, false_alarm_rate=0.03, n_resamples=10,
                             change=None)
    assert res.alpha > 1e-3  # a choice other than the default
    default = monitor(log.iloc[100 * 100:], label="label", proba_prefix="proba_",
                      chunk_size=100)
    first = min(a for a in res.alarms if a >= 150)
    assert first <= min(a for a in default.alarms if a >= 150)
    assert first - 150 <= 2  # and it is caught at once


def test_progress_counts_every_run_and_can_stop_the_calibration():
    u, ok = _stream(10 * 100, 12)
    seen: list[tuple[int, int]] = []
    calibrate(u, ok, 100, [0.1], n_resamples=4, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(i, 8) for i in range(1, 9)]
    seen.clear()
    calibrate(u, ok, 100, [0.1], n_resamples=3, change=None,
              progress=lambda d, t: seen.append((d, t)))
    assert seen == [(1, 3), (2, 3), (3, 3)]

    class Stop(Exception):
        pass

    def stop(done: int, total: int) -> None:
        if done == 2:
            raise Stop

    with pytest.raises(Stop):
        calibrate(u, ok, 100, [0.1], n_resamples=50, progress=stop)


def test_a_stretch_without_two_chunks_of_labels_or_without_rows_after_it_is_refused(
        tmp_path: Path):
    from pudd_core._validation import ParameterError

    log = _log(1000, 13).astype({"label": "float"})
    log.loc[:250, "label"] = np.nan  # not yet labelled
    path = tmp_path / "log.csv"
    log.to_csv(path, index=False)
    kw = dict(label="label", proba_prefix="proba_", chunk_size=100, false_alarm_rate=0.01)
    with pytest.raises(ParameterError, match="hold 149 labelled rows") as err:
        calibrate_log(path, calibrate_on=400, **kw)
    assert err.value.param == "calibrate_on"
    for rows, batch in ((1000, 300), (1000, 500), (1100, 500)):  # the log ends in or on a batch
        with pytest.raises(ParameterError, match="it has 1000 rows"):
            calibrate_log(path, calibrate_on=rows, batch_rows=batch, **kw)
