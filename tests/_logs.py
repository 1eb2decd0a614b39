"""Prediction logs the monitor's tests share: a 3-class model that gets worse half-way."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from harness.logs import three_class_log

if TYPE_CHECKING:
    from pudd_core.monitoring import Follower

__all__ = ["three_class_log"]


def same_result(a, b) -> None:
    """Two monitor results agree chunk for chunk: spans, pending tail, p-values, accuracy,
    alarms, every cut's p-value and why a chunk was not tested, the baselines' alarms."""
    assert a.spans == b.spans and a.pending == b.pending and a.n_rows == b.n_rows
    np.testing.assert_array_equal(a.p_values, b.p_values)
    assert a.accuracy == b.accuracy and a.alarms == b.alarms
    for x, y in zip(a.records, b.records, strict=True):
        assert np.array_equal(np.array(x.cut_p_values, float).reshape(-1, 2),
                              np.array(y.cut_p_values, float).reshape(-1, 2), equal_nan=True)
        assert x.no_test == y.no_test
    assert a.baselines == b.baselines


def follow_in_pieces(path: Path, text: bytes, cuts: list[int], start: Callable[[], Follower],
                     restart: int) -> list[dict]:
    """The lines of a follower (``start()``) of ``path`` as ``text`` is appended in pieces.

    The pieces end at ``cuts`` (inside a row, or inside the header); after piece ``restart``
    the follower is killed with lines still to write and started again from its state.
    """
    f = start()
    lines: list[dict] = []
    for i, (a, b) in enumerate(zip([0, *cuts], [*cuts, len(text)], strict=True)):
        with open(path, "ab") as fh:
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
                f = start()
    f.close()
    return lines
