"""monitor FILE --follow (issue 22 item 6): a log that keeps growing, followed as it grows.

Its lines equal the batch monitor's chunks on the final log, chunk for chunk: fed in bytes cut
anywhere (partial lines), across a restore from the state file, and as real processes (a
writer appending in bursts, the follower killed and started again); bad options are refused
before any work.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pudd_core import monitor
from pudd_core._validation import ParameterError
from pudd_core.cli import main
from pudd_core.monitoring import Follower, LogFormat, Monitor, chunk_json
from tests._logs import three_class_log

ROOT = Path(__file__).resolve().parents[1]
FMT = LogFormat(label="label", proba_prefix="proba_")
ARGS = ["--label", "label", "--proba-prefix", "proba_", "--chunk-size", "250"]


def _log(n: int = 6000, seed: int = 0) -> pd.DataFrame:
    """A 3-class log, worse from the middle on; a few rows without a label yet."""
    frame = three_class_log(n, seed)
    label = pd.Series(frame.pop("label"), dtype="Int64")
    unlabelled = np.random.default_rng(seed + 1).choice(n - 300, 40, replace=False)
    label[unlabelled] = pd.NA  # unlabelled rows, not at the end
    frame.insert(0, "label", label)
    return frame


def _expected(frame: pd.DataFrame, **kw) -> list[dict]:
    """The batch monitor's chunks on the final log, as lines, all but the last.

    The last chunk is still open when following: rows of it may still come.
    """
    res = monitor(frame, FMT, chunk_size=250, **kw)
    hits = res.baselines
    lines = [chunk_json(s, r, {k: v[s.index] for k, v in hits.items()})
             for s, r in zip(res.spans, res.records, strict=True)]
    return [json.loads(json.dumps(x)) for x in lines[:-1]]


def _key(**kw) -> dict:
    return {"chunk_size": 250, **kw}


def _make() -> Monitor:
    return Monitor(FMT, chunk_size=250)


@pytest.mark.integration
@settings(max_examples=15, deadline=None)
@given(cuts=st.lists(st.integers(1, 10**6), min_size=1, max_size=12, unique=True),
       restart=st.integers(0, 12))
def test_bytes_appended_cut_anywhere_give_the_batch_chunks(tmp_path_factory, cuts, restart):
    folder = tmp_path_factory.mktemp("follow")
    frame = _log(3000)
    text = frame.to_csv(index=False).encode()
    cuts = sorted(c % len(text) for c in cuts)
    path, state = folder / "log.csv", folder / "state"
    path.write_bytes(b"")
    f = Follower(path, _make, _key(), state)
    lines: list[dict] = []
    for i, (a, b) in enumerate(zip([0, *cuts], [*cuts, len(text)], strict=True)):
        with open(path, "ab") as fh:  # a piece may end inside a row, or inside the header
            fh.write(text[a:b])
        while True:
            while f.outbox:
                lines.append(json.loads(f.outbox[0]))
                f.written()
            if not f.read():
                break
            if i == restart and len(f.outbox) > 1:  # killed with lines still to write
                lines.append(json.loads(f.outbox[0]))
                f.written()
                f.close()
                f = Follower(path, _make, _key(), state)
    f.close()
    assert lines == _expected(frame)


def _writer(src: Path, dst: Path, seed: int, pause: float = 0.02, burst: int = 20000,
            start: int = 0) -> subprocess.Popen:
    """A process appending ``src``'s bytes from ``start`` to ``dst`` in bursts cut anywhere."""
    code = (
        "import sys, time, numpy as np\n"
        "data = open(sys.argv[1], 'rb').read()\n"
        "rng = np.random.default_rng(int(sys.argv[3]))\n"
        f"i = {start}\n"
        "with open(sys.argv[2], 'ab', buffering=0) as out:\n"
        "    while i < len(data):\n"
        f"        n = int(rng.integers(1, {burst}))\n"
        "        out.write(data[i:i + n]); i += n\n"
        f"        time.sleep({pause})\n"
    )
    return subprocess.Popen([sys.executable, "-c", code, str(src), str(dst), str(seed)])


def _follow(path: Path, out: Path, *extra: str) -> subprocess.Popen:
    """The follower as a process: its lines go to ``out``, its messages to ``out``.err."""
    with open(out, "ab") as fh, open(f"{out}.err", "wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "pudd_core", "monitor", str(path), "--follow", *ARGS,
             "--poll", "0.05", *extra], stdout=fh, stderr=err, cwd=ROOT)
    proc.err = Path(f"{out}.err")  # type: ignore[attr-defined]
    return proc


def _lines(out: Path) -> list[dict]:
    text = out.read_text() if out.exists() else ""
    return [json.loads(line) for line in text.splitlines() if line.endswith("}")]


def _wait_for(out: Path, n: int, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while len(_lines(out)) < n:
        assert time.monotonic() < end, f"{len(_lines(out))} of {n} lines after {timeout} s"
        time.sleep(0.05)


def _stop(proc: subprocess.Popen) -> str:
    """SIGTERM once it follows (its signal handlers set); its messages once it has stopped."""
    end = time.monotonic() + 60
    while "following" not in proc.err.read_text():  # type: ignore[attr-defined]
        assert proc.poll() is None and time.monotonic() < end, proc.err.read_text()
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0, proc.err.read_text()  # type: ignore[attr-defined]
    return proc.err.read_text()  # type: ignore[attr-defined]


@pytest.mark.integration
def test_a_writer_process_and_the_follower_give_the_batch_chunks(tmp_path):
    frame = _log()
    src, path, out = tmp_path / "all.csv", tmp_path / "log.csv", tmp_path / "out.jsonl"
    frame.to_csv(src, index=False)
    path.write_bytes(b"")
    follower = _follow(path, out, "--state", str(tmp_path / "state"))
    writer = _writer(src, path, seed=1)
    assert writer.wait(timeout=60) == 0
    expected = _expected(frame)
    _wait_for(out, len(expected))
    err = _stop(follower)
    assert "stopped at row 6,000" in err  # the last chunk's rows were read, and wait open
    assert _lines(out) == expected


@pytest.mark.integration
def test_killed_mid_way_and_started_again_it_repeats_and_loses_nothing(tmp_path):
    frame = _log()
    src, path = tmp_path / "all.csv", tmp_path / "log.csv"
    first, second, state = tmp_path / "1.jsonl", tmp_path / "2.jsonl", tmp_path / "state"
    frame.to_csv(src, index=False)
    head = src.read_bytes()[:20000]  # about 300 rows, and part of one
    path.write_bytes(head)
    expected = _expected(frame)
    follower = _follow(path, first, "--state", str(state))
    _wait_for(first, 1)  # started: then the log grows for about 4 s
    writer = _writer(src, path, seed=2, pause=0.03, burst=5000, start=len(head))
    _wait_for(first, len(expected) // 3)
    follower.kill()  # SIGKILL: no chance to save anything
    follower.wait(timeout=30)
    assert writer.poll() is None  # the log is still growing
    again = _follow(path, second, "--state", str(state))
    assert writer.wait(timeout=60) == 0
    _wait_for(second, len(expected) - len(_lines(first)))
    _stop(again)
    got = _lines(first) + _lines(second)
    assert len(_lines(first)) >= len(expected) // 3 and _lines(second)
    assert [x["chunk"] for x in got] == list(range(len(expected)))  # none twice, none lost
    assert got == expected
    # stopped with SIGTERM and started again: nothing new to say, nothing said twice
    third = tmp_path / "3.jsonl"
    once_more = _follow(path, third, "--state", str(state))
    time.sleep(1.0)
    _stop(once_more)
    assert _lines(third) == []


@pytest.mark.integration
def test_a_folder_of_parquet_parts_read_once_each_in_name_order(tmp_path):
    frame = _log()
    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / "_SUCCESS").write_text("")  # a marker some writers leave: not a part
    out, state = tmp_path / "out.jsonl", tmp_path / "state"
    follower = _follow(folder, out, "--state", str(state))
    bounds = [0, 700, 1300, 1301, 2500, 4100, 6000]
    for i, (a, b) in enumerate(zip(bounds, bounds[1:], strict=False)):
        frame.iloc[a:b].to_parquet(folder / f"part-{i:04d}.parquet", index=False)
        time.sleep(0.1)
        if i == 3:  # stopped and started again between parts
            _wait_for(out, 2500 // 250 - 1)
            _stop(follower)
            follower = _follow(folder, out, "--state", str(state))
    expected = _expected(frame)
    _wait_for(out, len(expected))
    _stop(follower)
    assert _lines(out) == expected


# --- bad input: refused before any work, naming the option -----------------------------------
@pytest.fixture
def csv_log(tmp_path):
    path = tmp_path / "log.csv"
    _log(1000).to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def shared_log(tmp_path_factory):
    path = tmp_path_factory.mktemp("poll") / "log.csv"
    _log(1000).to_csv(path, index=False)
    return path


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # capsys: read each time
@given(poll=st.one_of(st.floats(max_value=0.0), st.sampled_from([float("nan"), float("inf")])))
def test_a_poll_not_above_zero_or_not_finite_is_refused(shared_log, capsys, poll):
    code = main(["monitor", str(shared_log), "--follow", *ARGS, f"--poll={poll!r}"])
    assert code == 2 and "--poll" in capsys.readouterr().err


def test_poll_that_is_not_a_number_is_a_usage_error(csv_log, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["monitor", str(csv_log), "--follow", *ARGS, "--poll", "soon"])
    assert exc.value.code == 2 and "--poll" in capsys.readouterr().err


@pytest.mark.parametrize("case", ["missing", "missing_folder", "state_folder", "no_follow",
                                  "report", "parquet_file", "no_column"])
def test_bad_options_are_refused_with_a_clear_error(tmp_path, csv_log, capsys, case):
    base = ["monitor", str(csv_log), "--follow", *ARGS]
    argv, needle = {
        "missing": (["monitor", str(tmp_path / "nope.csv"), "--follow", *ARGS], "nope.csv"),
        "missing_folder": (["monitor", str(tmp_path / "parts"), "--follow", *ARGS], "parts"),
        "state_folder": ([*base, "--state", str(tmp_path / "no" / "st")], "--state"),
        "no_follow": (["monitor", str(csv_log), *ARGS, "--state", str(tmp_path / "s")],
                      "--follow"),
        "report": ([*base, "--report", str(tmp_path / "r.html")], "--report"),
        "parquet_file": (["monitor", str(tmp_path / "log.parquet"), "--follow", *ARGS],
                         "Parquet"),
        "no_column": (["monitor", str(csv_log), "--follow", "--label", "y", "--proba-prefix",
                       "proba_"], "'y'"),
    }[case]
    if case == "parquet_file":
        _log(1000).to_parquet(tmp_path / "log.parquet")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and needle in err and "Traceback" not in err
    assert not (tmp_path / "s").exists()


def _state_of(path: Path, state: Path, **kw) -> None:
    """A state file written by following ``path`` (what a run of --follow leaves)."""
    key = {"format": repr(FMT), "chunk_size": 250, "window": None, "alpha": 1e-3,
           "detector_options": "[]", "variant": "calibrated", "baselines": "",
           "normalize": False, "seed": 0, **kw}
    f = Follower(path, _make, key, state)
    while f.read():
        while f.outbox:
            f.written()
    f.close()


@pytest.mark.parametrize("case", ["other_log", "other_options", "not_a_state", "rewritten"])
def test_a_state_of_another_log_or_options_is_refused(tmp_path, csv_log, capsys, case):
    state = tmp_path / "state"
    other = tmp_path / "other.csv"
    _log(1000, seed=1).to_csv(other, index=False)
    _state_of(csv_log, state)
    before = state.read_bytes()
    log, args, needle = csv_log, ARGS, "written for another log"
    if case == "other_log":
        log = other
    elif case == "other_options":
        args = [*ARGS[:-1], "300"]
        needle = "chunk_size: 250 there, 300 here"
    elif case == "not_a_state":
        state.write_bytes(b"label,proba_0\n1,0.5\n")
        before, needle = state.read_bytes(), "not a state file"
    else:  # the log was replaced by another one of the same columns
        other.replace(csv_log)
        needle = "replaced by another file"
    code = main(["monitor", str(log), "--follow", *args, "--state", str(state)])
    err = capsys.readouterr().err
    assert code == 2 and needle in err and str(state) in err
    assert state.read_bytes() == before  # the state is left as it was


def test_drain_hands_out_each_chunk_once_and_forgets_it():
    frame = _log(3000)
    batch = monitor(frame, FMT, chunk_size=250, baselines=["ddm"])
    m = Monitor(FMT, chunk_size=250, baselines=["ddm"])
    got = []
    for a in range(0, 3000, 700):
        m.feed(frame.iloc[a:a + 700])
        got += m.drain()
        assert not m.chunks.records and not m.chunks.spans  # nothing kept once handed out
    m.finish()
    got += m.drain()
    assert [s for s, _, _ in got] == list(batch.spans)
    assert [r.p_value for _, r, _ in got] == pytest.approx(batch.p_values, nan_ok=True)
    assert [h["ddm"] for _, _, h in got] == list(batch.baselines["ddm"])
    with pytest.raises(ParameterError, match="drain"):
        m.result()
