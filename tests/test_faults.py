"""Fault injection: unwritable or full destinations, corrupt files, a grid killed mid-way.

Nothing computed is lost (a fallback file keeps it, its path printed), a bad destination is
found before any work, a corrupt part or cache file is named, set aside and rebuilt, and a
killed grid resumes to the same results as an uninterrupted one.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pudd_core._validation import ParameterError
from pudd_core.cli import main
from pudd_core.experiments import grid
from pudd_core.experiments.grid import (
    ResultStore,
    StoreWarning,
    StoreWriteError,
    expand_grid,
    run_grid,
)

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = expand_grid({"detector": ["pudd", "ddm"], "seeds": "0-2", "n_chunks": 12})


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the key of every run actually computed."""
    ran: list[str] = []
    real = grid.safe_run

    def counted(cfg, data_dir=None):
        ran.append(cfg.key())
        return real(cfg, data_dir)

    monkeypatch.setattr(grid, "safe_run", counted)
    return ran


def _grid(store: Path | str) -> pd.DataFrame:
    return run_grid(CONFIGS, store=store, executor="serial", progress=False)


# --- destinations checked before any work -------------------------------------------------------
@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_store_fails_before_any_run(tmp_path, monkeypatch):
    ran = _counting(monkeypatch)
    store = tmp_path / "store"
    store.mkdir()
    store.chmod(0o555)
    try:
        with pytest.raises(ParameterError, match="cannot be written") as info:
            _grid(store)
    finally:
        store.chmod(0o755)
    assert info.value.param == "store" and ran == []


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc")
def test_unwritable_store_fails_before_any_run_even_for_root(monkeypatch):
    ran = _counting(monkeypatch)
    with pytest.raises(ParameterError, match="cannot be written") as info:
        _grid("/proc/self")  # an existing folder nobody can create files in
    assert info.value.param == "store" and ran == []


def test_a_complete_store_is_read_without_writing(tmp_path, monkeypatch):
    store = tmp_path / "store"
    first = _grid(store)

    def refuse(self):
        raise AssertionError("a store holding every run needs no write check")

    monkeypatch.setattr(ResultStore, "check_writable", refuse)
    ran = _counting(monkeypatch)
    pd.testing.assert_frame_equal(_grid(store), first)
    assert ran == []


def test_store_that_is_a_file_fails_before_any_run(tmp_path, monkeypatch):
    ran = _counting(monkeypatch)
    (tmp_path / "f").write_text("x")
    with pytest.raises(ParameterError, match="is a file, not a folder"):
        _grid(tmp_path / "f")
    assert ran == []


def test_log_in_a_missing_folder_fails_before_any_run(tmp_path, monkeypatch, capsys):
    from pudd_core.experiments import runner

    calls: list[object] = []
    monkeypatch.setattr(runner, "run_experiment", lambda *a, **k: calls.append(a))
    code = main(["run", "--n-chunks", "12", "--log", str(tmp_path / "no" / "log.csv")])
    assert code == 2 and calls == []
    assert "does not exist" in capsys.readouterr().err


# --- write failures mid-way: the results are kept ---------------------------------------------
def _full_disk(monkeypatch: pytest.MonkeyPatch, after: int = 0) -> None:
    """Make every Parquet write after the first ``after`` fail as on a full disk."""
    real = pd.DataFrame.to_parquet
    count = {"n": 0}

    def to_parquet(self, path, *args, **kwargs):
        count["n"] += 1
        if count["n"] > after:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(self, path, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_parquet", to_parquet)


def test_full_disk_mid_grid_keeps_the_rows_in_a_fallback_file(tmp_path, monkeypatch):
    _full_disk(monkeypatch)
    store = ResultStore(tmp_path / "store", flush_every=2)
    with pytest.raises(StoreWriteError, match="No space left") as info:
        run_grid(CONFIGS, store=store, executor="serial", progress=False)
    fallback = info.value.fallback
    assert fallback is not None and str(fallback) in str(info.value)
    rows = [json.loads(line) for line in fallback.read_text().splitlines()]
    assert len(rows) == 2 and {r["status"] for r in rows} == {"ok"}
    assert {r["key"] for r in rows} <= {c.key() for c in CONFIGS}
    assert not list((tmp_path / "store").glob("*.tmp"))  # no half-written part left
    fallback.unlink()


def test_full_disk_in_the_cli_is_one_line_naming_the_fallback(tmp_path, monkeypatch, capsys):
    _full_disk(monkeypatch)
    code = main(["run", "--n-chunks", "12", "--seeds", "0-1", "--executor", "serial",
                 "--store", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "Traceback" not in err[0]
    path = Path(err[0].split("saved to ")[1].split(" ")[0].rstrip(";"))
    assert len(path.read_text().splitlines()) == 2
    path.unlink()


@pytest.mark.integration
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_log_to_dev_full_keeps_the_log_in_a_fallback_file(tmp_path):
    res = subprocess.run(
        [sys.executable, "-m", "pudd_core", "run", "--n-chunks", "12", "--log", "/dev/full"],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1 and "Traceback" not in res.stderr
    assert "No space left on device" in lines[0]
    path = Path(lines[0].split("saved to ")[1].split(" ")[0])
    assert len(path.read_text().splitlines()) == 11  # 11 tested chunks of one seed
    path.unlink()


# --- corrupt part files -----------------------------------------------------------------------
@pytest.mark.parametrize("damage", ["garbage", "empty", "half-written", "no key column"])
def test_a_corrupt_part_is_named_set_aside_and_only_its_runs_recomputed(
    tmp_path, monkeypatch, damage
):
    store = tmp_path / "store"
    first = run_grid(CONFIGS[:3], store=store, executor="serial", progress=False)
    run_grid(CONFIGS[3:], store=store, executor="serial", progress=False)
    parts = sorted(store.glob("part-*.parquet"))
    assert len(parts) == 2
    bad = parts[0]
    if damage == "garbage":
        bad.write_bytes(os.urandom(500))
    elif damage == "empty":
        bad.write_bytes(b"")
    elif damage == "half-written":
        bad.write_bytes(bad.read_bytes()[: bad.stat().st_size // 2])
    else:
        pd.DataFrame({"x": [1]}).to_parquet(bad)
    ran = _counting(monkeypatch)
    with pytest.warns(StoreWarning, match=bad.name):
        again = _grid(store)
    assert sorted(ran) == sorted(first["key"])  # only the lost runs
    assert (store / "corrupt" / bad.name).exists() and not bad.exists()
    assert len(again) == len(CONFIGS) and set(again["status"]) == {"ok"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # set aside once: no warning any more
        assert len(ResultStore(store).load()) == len(CONFIGS)


def test_a_corrupt_part_in_the_cli_is_one_warning_line(tmp_path, capsys):
    store = tmp_path / "store"
    args = ["run", "--n-chunks", "12", "--executor", "serial", "--store", str(store)]
    assert main(args) == 0
    part = next(store.glob("part-*.parquet"))
    part.write_bytes(b"not parquet")
    capsys.readouterr()
    assert main(args) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("warning: ") and part.name in err[0]


# --- parsed-data cache ------------------------------------------------------------------------
def test_an_edited_or_truncated_cache_is_rebuilt(tmp_path):
    from pudd_core.streams import locate

    folder = tmp_path / "set"
    arrays = {"X": np.arange(12.0).reshape(4, 3), "y": np.arange(4)}
    locate.save_arrays(folder, arrays)
    assert locate.load_arrays(folder, ("X", "y")) is not None
    x = np.load(folder / "X.npy")
    x[0, 0] = 99.0
    np.save(folder / "X.npy", x)  # same size, other bytes
    with pytest.warns(UserWarning, match="X.npy does not match its recorded sha256"):
        assert locate.load_arrays(folder, ("X", "y")) is None
    assert not folder.exists()  # removed, so a fresh one can be written
    locate.save_arrays(folder, arrays)
    with open(folder / "y.npy", "r+b") as fh:
        fh.truncate(20)
    with pytest.warns(UserWarning, match="y.npy has 20 bytes"):
        assert locate.load_arrays(folder, ("X", "y")) is None
    locate.save_arrays(folder, arrays)
    np.testing.assert_array_equal(locate.load_arrays(folder, ("X", "y"))["X"], arrays["X"])


@pytest.mark.datasets
def test_an_edited_elec2_cache_does_not_change_the_results(tmp_path, monkeypatch):
    from pudd_core.experiments.runner import RunConfig, run_experiment
    from pudd_core.streams import locate

    monkeypatch.setenv("PUDD_CACHE_DIR", str(tmp_path))
    cfg = RunConfig("elec2", n_chunks=20)
    clean = run_experiment(cfg).accuracy
    folder = next((locate.cache_dir() / "parsed").glob("elec2-*"))
    x = np.load(folder / "X.npy")
    x[:2000] += 5.0
    np.save(folder / "X.npy", x)
    with pytest.warns(UserWarning, match="damaged"):
        assert run_experiment(cfg).accuracy == clean
    (folder / "y.npy").write_bytes(b"\x93NUMPY")
    with pytest.warns(UserWarning, match="damaged"):
        assert run_experiment(cfg).accuracy == clean


# --- a grid killed mid-way resumes to the same results ----------------------------------------
KILL_GRID = """
import sys
from pudd_core.experiments import grid
from pudd_core.experiments.grid import ResultStore, expand_grid, run_grid
cfgs = expand_grid({"detector": ["pudd", "ddm"], "seeds": "0-29", "n_chunks": 12})
run_grid(cfgs, store=ResultStore(sys.argv[1], flush_every=4), executor="serial",
         progress=False)
"""


@pytest.mark.integration
def test_sigkill_mid_grid_then_resume_equals_an_uninterrupted_grid(tmp_path):
    store = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", KILL_GRID, str(store)], env=env)
    try:
        deadline = time.monotonic() + 120
        while len(list(store.glob("part-*.parquet"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    killed_keys = ResultStore(store).keys()
    cfgs = expand_grid({"detector": ["pudd", "ddm"], "seeds": "0-29", "n_chunks": 12})
    assert 0 < len(killed_keys) < len(cfgs)  # killed mid-way, some runs kept
    resumed = run_grid(cfgs, store=store, executor="serial", progress=False)
    whole = run_grid(cfgs, store=tmp_path / "whole", executor="serial", progress=False)
    raw = pd.concat([pd.read_parquet(p) for p in store.glob("part-*.parquet")])
    assert raw["key"].value_counts().max() == 1  # every finished run kept once
    cols = ["key", "accuracy", "n_alarms", "alarms", "status"]
    a = resumed[cols].sort_values("key").reset_index(drop=True)
    b = whole[cols].sort_values("key").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.integration
@pytest.mark.datasets
def test_a_damaged_data_file_fails_before_any_run_with_one_line(tmp_path):
    import gzip

    source = Path(os.environ["PUDD_DATA_DIR"]) / "elec2" / "electricity.csv.gz"
    raw = gzip.decompress(source.read_bytes())
    (tmp_path / "elec2").mkdir()
    (tmp_path / "elec2" / "electricity.csv.gz").write_bytes(
        gzip.compress(raw[: len(raw) // 2] + b"garbage,,,\n" + raw[len(raw) // 2:]))
    res = subprocess.run(
        [sys.executable, "-m", "pudd_core", "run", "--dataset", "elec2", "--n-chunks", "5",
         "--data-dir", str(tmp_path), "--store", str(tmp_path / "store")],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PUDD_CACHE_DIR": str(tmp_path / "cache")})
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1 and "Traceback" not in res.stderr
    assert "does not match the manifest entry 'elec2'" in lines[0]
    assert "Replace the file" in lines[0]
    assert not list((tmp_path / "store").glob("part-*"))  # nothing ran
