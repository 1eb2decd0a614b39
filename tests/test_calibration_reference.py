"""The calibration's stretch is the monitor's reference: its chunks feed PUDD's history."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pudd_core.cli import main
from pudd_core.monitoring import calibrate_log, inject_change, monitor

CHUNK, STRETCH, N_CHUNKS = 100, 20, 30
COLUMNS = dict(label="label", proba_prefix="proba_", chunk_size=CHUNK)


def _log(seed: int, change_at: int | None) -> pd.DataFrame:
    """A calibrated binary model's log (two-decimal probabilities, label 1 throughout); from
    row ``change_at`` on, half of its right predictions turn wrong."""
    rng = np.random.default_rng(seed)
    p_top = np.round(rng.uniform(0.51, 1.0, N_CHUNKS * CHUNK), 2)
    ok = rng.random(p_top.size) < p_top
    u = np.where(ok, 1 - p_top, p_top)
    if change_at is not None:
        u, ok = inject_change(u, ok, change_at, "error_rate", 0.5, np.random.default_rng(1))
    p1 = np.round(1 - u, 2)
    return pd.DataFrame({"label": 1, "proba_0": np.round(1 - p1, 2), "proba_1": p1})


def _calibrated(log: pd.DataFrame, tmp_path: Path):
    path = tmp_path / "log.csv"
    log.to_csv(path, index=False)
    return path, calibrate_log(path, calibrate_on=STRETCH * CHUNK, false_alarm_rate=0.05,
                               n_resamples=6, change=None, **COLUMNS)


def test_a_change_at_the_first_chunk_after_the_stretch_alarms_there(tmp_path: Path):
    # the stretch's chunks are the history the first chunk after it is tested against;
    # without them the monitor cannot test its first two chunks at all
    _, (cal, res) = _calibrated(_log(3, STRETCH * CHUNK), tmp_path)
    assert res.reference_chunks == STRETCH and res.spans[0].first_row == STRETCH * CHUNK
    assert res.records[0].no_test is None
    assert res.alarms[:1] == (0,)
    _, (quiet, _) = _calibrated(_log(3, None), tmp_path)  # the same α without the change
    assert quiet.recommended == cal.recommended


@pytest.mark.parametrize("seed", [4, 5])
def test_the_chunks_after_the_stretch_are_the_whole_logs_chunk_for_chunk(tmp_path: Path,
                                                                        seed: int):
    log = _log(seed, (STRETCH + 4) * CHUNK + 30)
    _, (cal, res) = _calibrated(log, tmp_path)
    whole = monitor(log, alpha=res.alpha, **COLUMNS)
    assert res.n_chunks == whole.n_chunks - STRETCH == N_CHUNKS - STRETCH
    frame, plain = res.to_frame(), whole.to_frame().iloc[STRETCH:].reset_index(drop=True)
    assert (frame["chunk"] == plain["chunk"] - STRETCH).all()
    pd.testing.assert_frame_equal(frame.drop(columns="chunk"), plain.drop(columns="chunk"))
    assert res.reference_alarms == tuple(a for a in whole.alarms if a < STRETCH)
    assert res.alarms == tuple(a - STRETCH for a in whole.alarms if a >= STRETCH)


def test_the_cli_reports_the_reference_and_its_alarms_apart(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path, (_, res) = _calibrated(_log(3, STRETCH * CHUNK), tmp_path)
    args = [str(path), "--label", "label", "--proba-prefix", "proba_", "--chunk-size",
            str(CHUNK), "--calibrate-on", str(STRETCH * CHUNK), "--false-alarm-rate", "0.05",
            "--resamples", "6"]
    assert main(["monitor", *args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["reference"] == {"n_chunks": STRETCH, "alarms": list(res.reference_alarms)}
    assert out["alarms"][:1] == [0] and out["n_chunks"] == N_CHUNKS - STRETCH
    assert main(["monitor", *args]) == 0
    text = capsys.readouterr().out
    assert (f"reference: the stretch's {STRETCH} chunks (rows 0..{STRETCH * CHUNK - 1}) "
            f"fed PUDD's history; {len(res.reference_alarms)} alarm(s) there") in text
