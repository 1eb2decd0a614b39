"""Saved monitor states are data (issue 32, items 1 and 2).

A state file (``Monitor.save``, ``monitor --follow --state``) is read back, so reading it must
never run code: it is JSON and NumPy arrays with a checksum, a pickle of an earlier version is
refused, and a crafted file is refused or read as plain data, never executed. Writing it never
opens an existing path (a symbolic link planted beside it is left alone), and a second follower
of the same state is refused at start, naming the process that holds it.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import subprocess
import sys
import time
import warnings
import zipfile
from io import BytesIO
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pudd_core import monitor
from pudd_core._validation import ParameterError
from pudd_core.cli import main
from pudd_core.monitoring import Follower, LogFormat, Monitor
from pudd_core.monitoring._state import HEADER, MAGIC, dumps, loads, write_atomic

ROOT = Path(__file__).resolve().parents[1]
FMT = LogFormat(label="label", proba_prefix="proba_")
ARGS = ["--label", "label", "--proba-prefix", "proba_", "--chunk-size", "250"]
BASELINES = ["adwin", "ddm", "eddm", "hddma", "hddmw", "kswin", "pagehinkley"]


def _log(n: int = 4000, seed: int = 0) -> pd.DataFrame:
    """A two-class log with string labels and a time column, worse from the middle on."""
    rng = np.random.default_rng(seed)
    p = np.r_[rng.uniform(0.7, 1.0, n // 2), rng.uniform(0.3, 1.0, n - n // 2)]
    return pd.DataFrame({
        "ts": pd.date_range("2024-01-01", periods=n, freq="min").astype(str),
        "label": rng.choice(["cat", "dog"], n),
        "proba_cat": 1 - p, "proba_dog": p})


def _numeric(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as the command line's ARGS read it: labels 0/1, columns proba_0/proba_1."""
    return pd.DataFrame({"label": (frame.label == "dog").astype(int),
                         "proba_0": frame.proba_cat, "proba_1": frame.proba_dog})


class _Payload:
    """A pickle that, when loaded, creates a file: proof that loading ran code."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _with_checksum(tree: dict, arrays: list[np.ndarray], counter: int = 0) -> bytes:
    """A state file holding ``tree`` and ``arrays`` with a valid checksum (a forger's file)."""
    body = BytesIO()
    with zipfile.ZipFile(body, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("state.json", json.dumps(tree))
        for i, arr in enumerate(arrays):
            with zf.open(f"a{i}.npy", "w") as fh:
                np.lib.format.write_array(fh, arr, allow_pickle=False)
    data = body.getvalue()
    return MAGIC + counter.to_bytes(8, "little") + hashlib.sha256(data).digest() + data


# --- the state is data: a saved monitor goes on exactly as one never stopped ---------------
@pytest.mark.parametrize("variant", ["calibrated", "authors"])
@pytest.mark.parametrize("how", [{"chunk_size": 500}, {"window": "1h"}])
def test_a_restored_monitor_with_every_baseline_goes_on_as_if_never_stopped(tmp_path, variant,
                                                                           how):
    frame = _log()
    fmt = LogFormat(label="label", proba_prefix="proba_",
                    time_column="ts" if "window" in how else None)

    def make() -> Monitor:
        return Monitor(fmt, baselines=BASELINES, variant=variant, record_windows="all", **how)

    whole = make()
    whole.feed(frame)
    whole.finish()
    m = make()
    m.feed(frame.iloc[:2345])
    m.save(tmp_path / "state")
    again = Monitor.restore(tmp_path / "state")
    again.feed(frame.iloc[2345:])
    again.finish()
    got, want = again.result().to_frame(), whole.result().to_frame()
    assert got.equals(want)  # every chunk, p-value, cut and baseline alarm, bit for bit
    assert again.result().alarms == whole.result().alarms


def test_a_state_file_has_the_layout_the_docs_give(tmp_path):
    m = Monitor(FMT, chunk_size=300)
    m.feed(_numeric(_log(700)))
    m.save(tmp_path / "s")
    raw = (tmp_path / "s").read_bytes()
    assert raw[:8] == MAGIC and int.from_bytes(raw[8:16], "little") == 0
    assert hashlib.sha256(raw[HEADER:]).digest() == raw[16:HEADER]
    with zipfile.ZipFile(BytesIO(raw[HEADER:])) as zf:
        names = zf.namelist()
        tree = json.loads(zf.read("state.json"))
        assert all(i.compress_type == zipfile.ZIP_STORED for i in zf.infolist())
    assert names[0] == "state.json" and all(n.endswith(".npy") for n in names[1:])
    assert tree["format"] == 4 and tree["kind"] == "pudd-lab monitor"
    assert tree["root"]["$obj"] == "pudd_core.monitoring._incremental:Monitor"


# --- item 1: a state file never runs code -------------------------------------------------
def _pickle_states(marker: Path) -> dict[str, bytes]:
    payload = pickle.dumps(_Payload(marker))
    return {
        "follower, old layout": b"PUDDFLW1" + bytes(8) + payload,  # the issue's crafted file
        "bare pickle": payload,
        "new magic, pickle after": MAGIC + bytes(40) + payload,
    }


def test_a_crafted_pickle_state_is_refused_and_runs_nothing(tmp_path, capsys):
    log = tmp_path / "log.csv"
    _numeric(_log(1000)).to_csv(log, index=False)
    marker = tmp_path / "pwned"
    pickle.loads(pickle.dumps(_Payload(marker)))  # the payload works: loading it runs code
    assert marker.exists()
    marker.unlink()
    for name, raw in _pickle_states(marker).items():
        state = tmp_path / "state"
        state.write_bytes(raw)
        code = main(["monitor", str(log), "--follow", "--label", "label", "--proba-prefix",
                     "proba_", "--state", str(state)])
        err = capsys.readouterr().err
        assert code == 2 and str(state) in err, (name, err)
        assert "Traceback" not in err
        with pytest.raises(ParameterError):
            Monitor.restore(state)
        assert not marker.exists(), f"{name}: reading the state ran code"
        assert state.read_bytes() == raw  # left as it was


def test_an_earlier_pickled_state_is_refused_with_how_to_start_a_new_one(tmp_path):
    old = tmp_path / "old"
    old.write_bytes(b"PUDDFLW1" + bytes(8) + pickle.dumps({"monitor": None}))
    with pytest.raises(ParameterError, match="earlier version of PUDD Lab as a Python pickle"
                                             r".*start a new state") as err:
        Monitor.restore(old)
    assert err.value.param == "path"
    old.write_bytes(pickle.dumps(("pudd-lab monitor state", 3, None)))  # Monitor.save's
    with pytest.raises(ParameterError, match="pickle, which this version never reads"):
        Monitor.restore(old)


@pytest.mark.integration
def test_a_forged_state_naming_a_callable_is_refused_and_runs_nothing(tmp_path):
    marker = tmp_path / "pwned"
    forged = {
        "os.system": {"$obj": "os:system", "state": None},
        "subprocess": {"$ext": "subprocess:Popen", "args": {"$tuple": [f"touch {marker}"]},
                       "state": {"$bytes": ""}},
        "builtins.eval": {"$obj": "builtins:eval", "state": None},
        "a method not on the class": {"$method": "__class__",
                                      "self": {"$obj": "pudd_core.monitoring._log:LogFormat",
                                               "state": {"$dict": []}}},
        "generator by any name": {"$generator": {"$dict": [["bit_generator", "system"]]}},
        "a follower, which writes files": {"$obj": "pudd_core.monitoring._follow:Follower",
                                           "state": {"$dict": []}},
        "a dotted path": {"$obj": "pudd_core.monitoring._log:os.system", "state": None},
        "an unknown tag": {"$eval": f"open('{marker}', 'w')"},
        "a dangling reference": {"$ref": 7},
    }
    for name, root in forged.items():
        raw = _with_checksum({"format": 4, "kind": "pudd-lab monitor", "root": root}, [])
        (tmp_path / "s").write_bytes(raw)
        with pytest.raises(ParameterError, match="state|monitor"):
            Monitor.restore(tmp_path / "s")
        assert not marker.exists(), name


def test_only_a_river_detector_s_own_method_is_made_back_bound():
    """River's PageHinkley keeps a bound method; a forger's binding of one of the lab's own
    methods (``Monitor.save`` writes a file when called) is refused before anything runs."""
    from pudd_core.monitoring._state import StateError, _Reader

    monitor_save = {"$method": "save", "self": {
        "$obj": "pudd_core.monitoring._incremental:Monitor", "state": {"$dict": []}}}
    with pytest.raises(StateError, match="not a method of a river detector"):
        _Reader([])(monitor_save)
    dunder = {"$method": "__init__", "self": {"$obj": "river.drift.page_hinkley:PageHinkley",
                                              "state": {"$dict": []}}}
    with pytest.raises(StateError, match="not a method of a river detector"):
        _Reader([])(dunder)


def test_an_object_array_in_a_forged_state_is_refused(tmp_path):
    body = BytesIO()
    with zipfile.ZipFile(body, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("state.json", json.dumps({"format": 4, "kind": "pudd-lab monitor",
                                              "root": {"$array": 0}}))
        with zf.open("a0.npy", "w") as fh:
            np.lib.format.write_array(fh, np.array([_Payload], dtype=object), allow_pickle=True)
    data = body.getvalue()
    raw = MAGIC + bytes(8) + hashlib.sha256(data).digest() + data
    with pytest.raises(ParameterError, match="damaged"):
        loads(raw, kind="pudd-lab monitor", where="s")


def test_a_compressed_member_is_refused_before_it_is_inflated():
    body = BytesIO()
    with zipfile.ZipFile(body, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("state.json", json.dumps({"format": 4, "kind": "k", "root": None}))
        zf.writestr("a0.npy", b"\0" * 10_000_000)  # a bomb would be far larger
    data = body.getvalue()
    with pytest.raises(ParameterError, match="compressed members"):
        loads(MAGIC + bytes(8) + hashlib.sha256(data).digest() + data, kind="k", where="s")


def test_another_format_or_kind_is_refused_by_name():
    raw = _with_checksum({"format": 5, "kind": "pudd-lab monitor", "root": None}, [])
    with pytest.raises(ParameterError, match="format 5; this version reads format 4"):
        loads(raw, kind="pudd-lab monitor", where="s")
    raw = dumps([1, 2], kind="pudd-lab monitor --follow")
    with pytest.raises(ParameterError, match="not of 'pudd-lab monitor'"):
        loads(raw, kind="pudd-lab monitor", where="s")


# --- the reader against arbitrary and damaged bytes ----------------------------------------
@pytest.fixture(scope="module")
def saved() -> bytes:
    m = Monitor(LogFormat(label="label", proba_prefix="proba_", time_column="ts"),
                window="1h", baselines=BASELINES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.feed(_log(1500))
    return dumps(m, kind="pudd-lab monitor")


@settings(max_examples=200, deadline=None)
@given(raw=st.one_of(st.binary(max_size=300), st.binary(max_size=300).map(lambda b: MAGIC + b)))
def test_arbitrary_bytes_are_refused_as_a_state(raw):
    with pytest.raises(ParameterError) as err:
        loads(raw, kind="pudd-lab monitor", where="STATE")
    assert err.value.param == "state" and "STATE" in str(err.value)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_damage_to_a_saved_state_is_refused(saved, data):
    raw = bytearray(saved)
    how = data.draw(st.sampled_from(["flip", "cut", "extend"]))
    if how == "flip":  # any byte but the counter (the follower's, outside the checksum)
        i = data.draw(st.one_of(st.integers(0, 7), st.integers(16, len(raw) - 1)))
        raw[i] ^= data.draw(st.integers(1, 255))
    elif how == "cut":
        raw = raw[:data.draw(st.integers(0, len(raw) - 1))]
    else:
        raw += data.draw(st.binary(min_size=1, max_size=20))
    with pytest.raises(ParameterError):
        loads(bytes(raw), kind="pudd-lab monitor", where="STATE")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_forged_tree_with_a_valid_checksum_is_refused_or_read_as_data(saved, data):
    """Any node of a real state replaced by a forger's: a ParameterError, or plain data."""
    with zipfile.ZipFile(BytesIO(saved[HEADER:])) as zf:
        tree = json.loads(zf.read("state.json"))
        arrays = [np.lib.format.read_array(zf.open(n)) for n in zf.namelist()[1:]]
    nodes: list[tuple[object, object]] = []

    def collect(node: object) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                nodes.append((node, k))
                collect(v)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                nodes.append((node, i))
                collect(v)

    collect(tree["root"])
    parent, key = data.draw(st.sampled_from(nodes))
    parent[key] = data.draw(st.one_of(  # type: ignore[index]
        st.none(), st.integers(-3, 10**6), st.text(max_size=8), st.floats(),
        st.sampled_from([{"$ref": 0}, {"$array": 10**6}, {"$obj": "builtins:object"},
                         {"$list": {"a": 1}}, {"$dict": [[1]]}, {"$float": "1e999"},
                         {"$tuple": None}, {"$bytes": "@@"}, {"$offset": "not-a-freq"},
                         {"$generator": {"$ref": 0}}, {}])))
    raw = _with_checksum(tree, arrays)
    try:
        loads(raw, kind="pudd-lab monitor", where="STATE")
    except ParameterError as err:
        assert "STATE" in str(err)


# --- item 2: the write never follows a link; one follower per state ------------------------
def test_a_link_planted_where_the_temporary_file_went_is_left_alone(tmp_path):
    log, state, victim = tmp_path / "log.csv", tmp_path / "state", tmp_path / "victim"
    _numeric(_log(1000)).to_csv(log, index=False)
    victim.write_text("precious")
    for name in ("state.tmp", ".state.tmp"):
        (tmp_path / name).symlink_to(victim)
    f = Follower(log, lambda: Monitor(FMT, chunk_size=250), {"chunk_size": 250}, state)
    while f.read():
        for _ in list(f.outbox):
            f.written()
    f.close()
    assert victim.read_text() == "precious"
    assert state.is_file() and not state.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".state.tmp", "log.csv", "state", "state.lock", "state.tmp", "victim"]  # no leftovers


def test_write_atomic_replaces_a_link_instead_of_writing_through_it(tmp_path):
    victim, path = tmp_path / "victim", tmp_path / "state"
    victim.write_bytes(b"precious")
    path.symlink_to(victim)
    write_atomic(path, b"new")
    assert victim.read_bytes() == b"precious" and path.read_bytes() == b"new"
    assert not path.is_symlink()


def test_a_lock_file_that_is_a_link_is_refused(tmp_path):
    log, victim = tmp_path / "log.csv", tmp_path / "victim"
    _numeric(_log(600)).to_csv(log, index=False)
    victim.write_text("precious")
    (tmp_path / "state.lock").symlink_to(victim)
    with pytest.raises(ParameterError, match="lock file .*state.lock.* cannot be opened"):
        Follower(log, lambda: Monitor(FMT, chunk_size=250), {}, tmp_path / "state")
    assert victim.read_text() == "precious"


def test_a_second_follower_of_a_state_is_refused_until_the_first_lets_go(tmp_path):
    log, state = tmp_path / "log.csv", tmp_path / "state"
    _numeric(_log(1000)).to_csv(log, index=False)

    def follower() -> Follower:
        return Follower(log, lambda: Monitor(FMT, chunk_size=250), {}, state)

    first = follower()
    with pytest.raises(ParameterError, match=f"in use by process {os.getpid()}"):
        follower()
    first.close()
    follower().close()  # released: the next one starts


@pytest.mark.integration
def test_a_second_follower_process_is_refused_at_start_naming_the_first(tmp_path):
    log, state = tmp_path / "log.csv", tmp_path / "state"
    _numeric(_log(1000)).to_csv(log, index=False)
    out = tmp_path / "out.jsonl"
    with open(out, "wb") as fh, open(tmp_path / "err", "wb") as err:
        first = subprocess.Popen(
            [sys.executable, "-m", "pudd_core", "monitor", str(log), "--follow", *ARGS,
             "--poll", "0.05", "--state", str(state)], stdout=fh, stderr=err, cwd=ROOT)
    try:
        end = time.monotonic() + 120  # the event: the first says it follows
        while "following" not in (tmp_path / "err").read_text():
            assert first.poll() is None and time.monotonic() < end, \
                (tmp_path / "err").read_text()
            time.sleep(0.05)
        second = subprocess.run(
            [sys.executable, "-m", "pudd_core", "monitor", str(log), "--follow", *ARGS,
             "--state", str(state)], capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert second.returncode == 2
        assert f"in use by process {first.pid}" in second.stderr
        assert "Traceback" not in second.stderr and second.stdout == ""
    finally:
        first.terminate()
        first.wait(timeout=60)


def test_the_follower_state_round_trips_its_counter_and_outbox(tmp_path):
    log, state = tmp_path / "log.csv", tmp_path / "state"
    frame = _numeric(_log(2000))
    frame.to_csv(log, index=False)
    f = Follower(log, lambda: Monitor(FMT, chunk_size=250), {}, state)
    assert f.read() and len(f.outbox) >= 3
    lines = list(f.outbox)
    f.written()
    f.written()
    f.close()  # killed with lines still to write
    again = Follower(log, lambda: Monitor(FMT, chunk_size=250), {}, state)
    assert again.outbox == lines[2:]
    again.close()
    batch = monitor(frame, FMT, chunk_size=250)
    assert len(lines) == batch.n_chunks - 1  # the last chunk is still open
