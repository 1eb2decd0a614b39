"""Scoring a run: mean chunk accuracy, and alarms against the true drift chunks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["DetectionSummary", "match_alarms", "mean_accuracy"]


def mean_accuracy(chunk_accuracies: Sequence[float]) -> float:
    """Mean per-chunk accuracy, each tested chunk weighing the same (spec section 3.2).

    Examples
    --------
    >>> mean_accuracy([0.9, 0.8, 1.0])
    0.9
    """
    if not len(chunk_accuracies):
        raise ValueError("no tested chunk: a run needs at least two chunks (chunk 0 trains)")
    return float(np.mean(chunk_accuracies))


@dataclass(frozen=True)
class DetectionSummary:
    """Alarms matched to true drifts.

    Attributes
    ----------
    detected
        For each true drift chunk, the chunk of the alarm that detected it (or ``None``).
    delays
        Detection delay in chunks of each detected drift (0: alarm on the first chunk of
        the new concept).
    missed
        True drifts with no alarm before the next drift (or the end of the stream).
    false_alarms
        Alarms that detected nothing: before the first drift, or after the first alarm
        within a drift's segment.

    Examples
    --------
    >>> s = match_alarms([3, 12, 14], drift_chunks=[10, 20], n_chunks=30)
    >>> s.detected, s.delays, s.missed, s.false_alarms, s.mean_delay
    ((12, None), (2,), 1, 2, 2.0)
    """

    detected: tuple[int | None, ...]
    delays: tuple[int, ...]
    missed: int
    false_alarms: int

    @property
    def mean_delay(self) -> float:
        """Mean detection delay in chunks (NaN when nothing was detected)."""
        return float(np.mean(self.delays)) if self.delays else float("nan")


def match_alarms(
    alarms: Sequence[int], drift_chunks: Sequence[int], n_chunks: int
) -> DetectionSummary:
    """Match alarm chunks to true drift chunks, segment by segment.

    The segment of drift ``d_i`` runs from ``d_i`` to the next drift (or the stream's end);
    its first alarm detects ``d_i``, with delay ``alarm - d_i``.

    Examples
    --------
    >>> s = match_alarms([3, 10, 11, 25], [10, 20], 30)
    >>> s.detected, s.delays, s.missed, s.false_alarms
    ((10, 25), (0, 5), 0, 2)
    """
    bounds = [*sorted(drift_chunks), n_chunks]
    alarms = sorted(alarms)
    detected: list[int | None] = []
    used = 0
    for start, end in zip(bounds[:-1], bounds[1:], strict=True):
        hits = [a for a in alarms if start <= a < end]
        detected.append(hits[0] if hits else None)
        used += 1 if hits else 0
    delays = tuple(a - d for a, d in zip(detected, bounds[:-1], strict=False) if a is not None)
    missed = sum(a is None for a in detected)
    return DetectionSummary(tuple(detected), delays, missed, len(alarms) - used)
