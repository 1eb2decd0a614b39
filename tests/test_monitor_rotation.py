"""A followed log that is rotated, truncated or rewritten (issue 32, item 3).

Before, a log renamed away and replaced by a new file, or truncated and refilled past the old
offset, was read on from the old byte offset: thousands of rows skipped without a word. Now
the follower checks the file's identity and the bytes it read last before each read; a log
rotated is read to its end, then the follower stops saying so, or (``on_rotation="continue"``)
goes on with the new file from its first row. The reference reading: the batch monitor on all
the rows written, in order, which the follower must give chunk for chunk.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pudd_core import monitor
from pudd_core._validation import ParameterError
from pudd_core.cli import main
from pudd_core.monitoring import Follower, LogFormat, Monitor, chunk_json
from tests._logs import three_class_log

FMT = LogFormat(label="label", proba_prefix="proba_")
ARGS = ["--label", "label", "--proba-prefix", "proba_", "--chunk-size", "250"]


def _log(n: int = 3000, seed: int = 0) -> pd.DataFrame:
    return three_class_log(n, seed)


def _expected(frame: pd.DataFrame) -> list[dict]:
    """The batch monitor's chunks on every row written, as lines, all but the open last."""
    res = monitor(frame, FMT, chunk_size=250)
    lines = [chunk_json(s, r, {}) for s, r in zip(res.spans, res.records, strict=True)]
    return [json.loads(json.dumps(x)) for x in lines[:-1]]


def _rows(frame: pd.DataFrame, header: bool) -> bytes:
    return frame.to_csv(index=False, header=header).encode()


class _Run:
    """A follower of ``folder/log.csv`` whose lines are collected; restarted at will."""

    def __init__(self, folder: Path, on_rotation: str = "continue") -> None:
        self.path, self.state = folder / "log.csv", folder / "state"
        self.on_rotation = on_rotation
        self.lines: list[dict] = []
        self.notices: list[str] = []
        self.f = self._new()

    def _new(self) -> Follower:
        return Follower(self.path, lambda: Monitor(FMT, chunk_size=250), {"chunk_size": 250},
                        self.state, on_rotation=self.on_rotation)

    def drain(self) -> None:
        while True:
            while self.f.outbox:
                self.lines.append(json.loads(self.f.outbox[0]))
                self.f.written()
            fed = self.f.read()
            self.notices += self.f.notices
            self.f.notices.clear()
            if not fed:
                return

    def restart(self) -> None:
        self.f.close()
        self.f = self._new()
        self.notices += self.f.notices
        self.f.notices.clear()


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_rotations_of_any_kind_at_any_moment_give_the_batch_chunks(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("rot")
    frame = _log(2000)
    n_files = data.draw(st.integers(2, 4))
    bounds = sorted(data.draw(st.lists(st.integers(1, len(frame) - 1), min_size=n_files - 1,
                                       max_size=n_files - 1, unique=True)))
    segments = [frame.iloc[a:b] for a, b in zip([0, *bounds], [*bounds, len(frame)],
                                                strict=True)]
    path = folder / "log.csv"
    path.write_bytes(b"")
    run = _Run(folder)
    read_since = True  # the follower read since the last rotation
    for k, seg in enumerate(segments):
        if k:
            if not read_since:  # two rotations between reads: the file between is not seen
                run.drain()
            read_since = False
            how = data.draw(st.sampled_from(["create", "copytruncate"]), label="rotation")
            header = data.draw(st.booleans(), label="the new file has a header")
            stopped = data.draw(st.booleans(), label="rotated while the follower is stopped")
            if how == "copytruncate":
                run.drain()  # rows written after the last read are lost to any reader here
            if stopped:
                run.f.close()
            if how == "create":
                path.rename(folder / f"log.csv.{k}")
                path.write_bytes(_rows(seg.iloc[:0], header=True) if header else b"")
            else:
                with open(path, "r+b") as fh:
                    fh.truncate(0)
                    fh.write(_rows(seg.iloc[:0], header=True) if header else b"")
            if stopped:
                run.f = run._new()
                run.notices += run.f.notices
                run.f.notices.clear()
        text = _rows(seg, header=k == 0)
        cuts = sorted(set(data.draw(st.lists(st.integers(1, len(text) - 1), max_size=4))))
        for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True):
            with open(path, "ab") as fh:  # a piece may end inside a row
                fh.write(text[a:b])
            first = k == 0  # a follower stopped before it read a row keeps no state at all
            action = "read" if first else data.draw(st.sampled_from(["read", "wait", "restart"]),
                                                    label="then")
            if action in ("read", "restart"):
                run.drain()
                read_since = True
            if action == "restart":
                run.restart()
    run.drain()
    run.drain()  # a rotation found at the end of a file is followed on the next read
    run.f.close()
    assert run.lines == _expected(frame)
    assert len([n for n in run.notices if "following the new file" in n]) == n_files - 1


def test_a_log_replaced_by_a_longer_one_is_not_read_on_from_the_old_offset(tmp_path):
    """The issue's case: before, the rows of the new file up to the old offset were skipped."""
    frame = _log(4000)
    path = tmp_path / "log.csv"
    path.write_bytes(_rows(frame.iloc[:1000], header=True))
    run = _Run(tmp_path, on_rotation="stop")
    run.drain()
    with open(path, "ab") as fh:  # written just before the rotation, not read yet
        fh.write(_rows(frame.iloc[1000:1100], header=False))
    path.rename(tmp_path / "log.csv.1")
    path.write_bytes(_rows(frame.iloc[1100:], header=True))  # far past the old offset
    with pytest.raises(ParameterError, match=r"replaced by another file .* after row 1,100 "
                                             r".*--on-rotation continue") as err:
        run.drain()
    assert err.value.param == "source"
    assert run.f.monitor.next_row == 1100  # the old file read to its end, nothing else
    state = (tmp_path / "state").read_bytes()
    run.f.close()
    run.on_rotation = "continue"  # the user's choice: go on with the new file
    run.restart()
    run.drain()
    run.drain()
    assert (tmp_path / "state").read_bytes() != state
    assert run.lines == _expected(frame)
    assert any("as row 1,100" in n for n in run.notices)


@pytest.mark.parametrize("on_rotation", ["stop", "continue"])
def test_labels_filled_into_rows_already_read_are_refused_as_a_rewrite(tmp_path, on_rotation):
    frame = _log(2000).astype({"label": "Int64"})
    late = frame.copy()
    late.loc[1500:, "label"] = pd.NA  # not labelled yet
    path = tmp_path / "log.csv"
    path.write_bytes(_rows(late, header=True))
    run = _Run(tmp_path, on_rotation=on_rotation)
    run.drain()
    path.write_bytes(_rows(frame, header=True))  # the labels filled in, rewritten in place
    with pytest.raises(ParameterError, match="rewritten in place.*without --follow"):
        run.drain()
    run.f.close()


def test_the_command_line_stops_on_a_rotation_and_says_how_to_go_on(tmp_path, capsys):
    frame = _log(2000)
    path = tmp_path / "log.csv"
    path.write_bytes(_rows(frame.iloc[:1000], header=True))
    state = tmp_path / "state"
    key = {"format": repr(FMT), "chunk_size": 250, "window": None, "alpha": 1e-3,
           "detector_options": "[]", "variant": "calibrated", "baselines": "",
           "normalize": False, "seed": 0}  # the command line's: a state it left, stopped
    f = Follower(path, lambda: Monitor(FMT, chunk_size=250), key, state)
    while f.read():
        while f.outbox:
            f.written()
    f.close()
    with open(path, "r+b") as fh:  # copytruncate while it was stopped
        fh.truncate(0)
        fh.write(_rows(frame.iloc[1000:], header=True))
    code = main(["monitor", str(path), "--follow", *ARGS, "--state", str(state)])
    err = capsys.readouterr().err
    assert code == 2 and "truncated and written anew" in err and "--on-rotation continue" in err
    assert "Traceback" not in err


def test_on_rotation_goes_with_follow_and_takes_stop_or_continue(tmp_path, capsys):
    path = tmp_path / "log.csv"
    path.write_bytes(_rows(_log(600), header=True))
    assert main(["monitor", str(path), *ARGS, "--on-rotation", "continue"]) == 2
    assert "--on-rotation goes with --follow" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["monitor", str(path), "--follow", *ARGS, "--on-rotation", "reopen"])
    assert exit_.value.code == 2
    assert "invalid choice: 'reopen'" in capsys.readouterr().err
    with pytest.raises(ParameterError, match="on_rotation must be 'stop' or 'continue'"):
        Follower(path, lambda: Monitor(FMT, chunk_size=250), {}, on_rotation="restart")
    assert not os.path.exists(tmp_path / "state")
