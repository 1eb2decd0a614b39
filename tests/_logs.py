"""Prediction logs the monitor's tests share: a 3-class model that gets worse half-way."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from pudd_core.monitoring import Follower


def three_class_log(n: int, seed: int = 0) -> pd.DataFrame:
    """``n`` predictions (``label``, ``proba_0`` .. ``proba_2``), sharper before row n // 2.

    Examples
    --------
    >>> log = three_class_log(4)
    >>> list(log.columns), bool(np.allclose(log.iloc[:, 1:].sum(axis=1), 1))
    (['label', 'proba_0', 'proba_1', 'proba_2'], True)
    """
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    shape = np.ones((n, 3))
    shape[np.arange(n), y] += np.where(np.arange(n) < n // 2, 12.0, 3.0)
    g = rng.gamma(shape)
    frame = pd.DataFrame(g / g.sum(axis=1, keepdims=True),
                         columns=["proba_0", "proba_1", "proba_2"])
    frame.insert(0, "label", y)
    return frame


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
