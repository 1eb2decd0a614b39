"""What the monitor found: where each chunk lies in the log, PUDD's record of it, the result."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pudd_core.experiments.records import ChunkTest, CutTest, WindowRecord
from pudd_core.monitoring._log import LogFormat

if TYPE_CHECKING:
    import pandas as pd

    from pudd_core.experiments.runner import ChunkLog, RunResult

__all__ = ["ChunkRecord", "ChunkSpan", "MonitorResult"]


@dataclass(frozen=True)
class ChunkSpan:
    """Where one chunk lies in the log.

    Attributes
    ----------
    index
        0-based chunk index.
    first_row, last_row
        Its first and last row (0-based, header excluded; both included).
    n_rows, n_labelled
        Rows in the chunk, and those with a label (the detector sees only these).
    start, end
        With time windows: the window ``[start, end)`` as ISO texts; else ``None``.
    """

    index: int
    first_row: int
    last_row: int
    n_rows: int
    n_labelled: int
    start: str | None = None
    end: str | None = None


@dataclass(frozen=True)
class ChunkRecord(ChunkTest):
    """PUDD on one chunk of the log (light: no import of the runner and its classifiers).

    The ``ChunkTest``, then the monitor's own fields; :attr:`MonitorResult.chunks` turns
    these into the runner's ``ChunkLog`` records.
    """

    floored_cells: int
    detect_ms: float
    #: The winning cut's windows, where recorded.
    window: WindowRecord | None = field(default=None, repr=False)
    #: Every cut's test, where windows were recorded.
    cut_tests: tuple[CutTest, ...] = field(default=(), repr=False)
    #: Why no test ran on this chunk (then ``p_value`` is NaN, never 1): the detector's
    #: words, e.g. "fewer than two chunks since the last alarm".
    no_test: str | None = None


@dataclass(frozen=True)
class MonitorResult:
    """What :func:`monitor` found: the chunks, PUDD's per-chunk log and the baselines' alarms.

    ``records`` hold PUDD's result per chunk; :attr:`chunks` gives them as the runner's
    :class:`~pudd_core.experiments.runner.ChunkLog` records with 0-based ``chunk_index``
    (``window`` set where windows were recorded); :meth:`runs` renumbers them from 1 for the
    explorer's player.
    """

    source: str
    format: LogFormat
    alpha: float
    detector_options: tuple[tuple[str, Any], ...]
    spans: tuple[ChunkSpan, ...]
    records: tuple[ChunkRecord, ...] = field(repr=False)
    baselines: Mapping[str, tuple[tuple[int, ...], ...]] = field(default_factory=dict,
                                                                 repr=False)
    n_rows: int = 0
    elapsed_s: float = 0.0
    #: Chunks at the end of the log whose labels have not all arrived: not tested yet.
    pending: tuple[ChunkSpan, ...] = ()
    #: What was inferred and chosen (the positive class, the decisions used), and warnings.
    notes: tuple[str, ...] = ()
    #: Labelled rows with both probabilities and decisions, and those where the two disagree.
    n_checked: int = 0
    n_disagree: int = 0
    #: With a reference (``calibrate_log``'s stretch): its chunks before these, which fed the
    #: detector's history, and their alarms (0-based among them), not in :attr:`alarms`.
    reference_chunks: int = 0
    reference_alarms: tuple[int, ...] = ()

    @property
    def n_pending_rows(self) -> int:
        """Rows of the pending tail."""
        return sum(s.n_rows for s in self.pending)

    @property
    def n_chunks(self) -> int:
        """Number of chunks."""
        return len(self.spans)

    @cached_property
    def chunks(self) -> tuple[ChunkLog, ...]:
        """The records as the runner's ``ChunkLog`` (0-based ``chunk_index``)."""
        from pudd_core.experiments.runner import ChunkLog

        return tuple(
            ChunkLog(r.chunk_index, r.accuracy, r.pu_mean, r.pu_median, r.p_value,
                     r.cut_p_values, r.alarm, r.cut_point, False, (), 0.0, r.detect_ms, 0.0,
                     r.window, r.floored_cells, r.cut_tests, r.no_test)
            for r in self.records)

    @property
    def alarms(self) -> tuple[int, ...]:
        """0-based indices of the chunks where PUDD alarmed."""
        return tuple(c.chunk_index for c in self.records if c.alarm)

    @property
    def p_values(self) -> tuple[float, ...]:
        """PUDD's smallest p over the cut points, per chunk (NaN where no test ran)."""
        return tuple(c.p_value for c in self.records)

    @property
    def accuracy(self) -> tuple[float, ...]:
        """Accuracy of the labelled rows, per chunk."""
        return tuple(c.accuracy for c in self.records)

    def baseline_alarms(self) -> dict[str, tuple[int, ...]]:
        """Baseline name -> 0-based chunks where it fired."""
        return {name: tuple(i for i, hits in enumerate(per) if hits)
                for name, per in self.baselines.items()}

    def alarm_frame(self) -> pd.DataFrame:
        """One row per PUDD alarm: chunk, rows, time window, p-value and winning cut."""
        import pandas as pd

        rows = []
        for i in self.alarms:
            s, c = self.spans[i], self.records[i]
            rows.append({"chunk": i, "first_row": s.first_row, "last_row": s.last_row,
                         "start": s.start, "end": s.end, "p_value": c.p_value,
                         "cut_point": c.cut_point, "accuracy": c.accuracy})
        return pd.DataFrame(rows, columns=["chunk", "first_row", "last_row", "start", "end",
                                           "p_value", "cut_point", "accuracy"])

    def to_frame(self) -> pd.DataFrame:
        """The per-chunk log: boundaries, accuracy, PU summary, p-values, every alarm.

        ``status`` is ``"tested"``, or ``"pending"`` for the chunks of the unlabelled tail
        (their numbers empty).
        """
        import json

        import pandas as pd

        rows = []
        for s, c in zip(self.spans, self.records, strict=True):
            row: dict[str, Any] = {
                "chunk": s.index, "status": "tested", "first_row": s.first_row,
                "last_row": s.last_row, "n_rows": s.n_rows, "n_labelled": s.n_labelled,
                "start": s.start, "end": s.end, "accuracy": c.accuracy, "pu_mean": c.pu_mean,
                "pu_median": c.pu_median, "p_value": c.p_value, "cut_point": c.cut_point,
                "alarm": c.alarm, "floored_cells": c.floored_cells, "no_test": c.no_test,
                "cut_p_values": json.dumps(_strict(c.cut_p_values)),
            }
            for name, per in self.baselines.items():
                row[f"{name}_alarm"] = bool(per[s.index])
            rows.append(row)
        for s in self.pending:
            rows.append({"chunk": s.index, "status": "pending", "first_row": s.first_row,
                         "last_row": s.last_row, "n_rows": s.n_rows,
                         "n_labelled": s.n_labelled, "start": s.start, "end": s.end})
        return pd.DataFrame(rows)

    def to_json(self) -> dict[str, Any]:
        """The command line's ``--json`` object (strict JSON: NaN becomes ``None``)."""

        def num(v: float) -> float | None:
            return None if math.isnan(v) else float(v)

        return {
            "source": self.source,
            "n_rows": self.n_rows,
            "n_chunks": self.n_chunks,
            "alpha": self.alpha,
            "alarms": list(self.alarms),
            "p_values": [num(p) for p in self.p_values],
            "accuracy": [num(a) for a in self.accuracy],
            "cut_points": [c.cut_point for c in self.records],
            "no_test": [c.no_test for c in self.records],
            "alarm_details": self.alarm_frame().astype(object).where(
                self.alarm_frame().notna(), None).to_dict("records"),
            "baselines": {k: list(v) for k, v in self.baseline_alarms().items()},
            "chunks": [vars(s) for s in self.spans],
            "pending": {"n_rows": self.n_pending_rows,
                        "chunks": [vars(s) for s in self.pending]},
            "decisions": self.format.pred or self.format.correct or "argmax",
            "positive_label": self.format.positive_label,
            "disagreement": {"n_checked": self.n_checked, "n_disagree": self.n_disagree},
            "notes": list(self.notes),
            "elapsed_s": self.elapsed_s,
            **({"reference": {"n_chunks": self.reference_chunks,
                              "alarms": list(self.reference_alarms)}}
               if self.reference_chunks else {}),
        }

    def runs(self) -> list[RunResult]:
        """PUDD's run and each baseline's, as the explorer's player draws them.

        The player numbers tested chunks from 1 (the runner's chunk 0 trains the model), so
        chunk ``i`` of this result is chunk ``i + 1`` there. Nothing adapts here (the log is
        fixed), so every detector's error rate is the model's.
        """
        from pudd_core.experiments.evaluation import mean_accuracy
        from pudd_core.experiments.runner import RunConfig, RunResult

        shifted = tuple(replace(c, chunk_index=c.chunk_index + 1) for c in self.chunks)
        acc = mean_accuracy([c.accuracy for c in shifted]) if shifted else math.nan
        name = Path(self.source).name or "log"
        out = [RunResult(RunConfig(dataset=name, classifier="your-model", detector="pudd",
                                   alpha=self.alpha, detector_options=self.detector_options),
                         shifted, acc, tuple(i + 1 for i in self.alarms), None, None,
                         self.elapsed_s)]
        for det, per in self.baselines.items():
            logs = tuple(replace(c, p_value=math.nan, cut_p_values=(), alarm=bool(hits),
                                 cut_point=None, detections=hits, window=None, floored_cells=0,
                                 cut_tests=())
                         for c, hits in zip(shifted, per, strict=True))
            out.append(RunResult(RunConfig(dataset=name, classifier="your-model", detector=det),
                                 logs, acc, tuple(c.chunk_index for c in logs if c.alarm),
                                 None, None, self.elapsed_s))
        return out


def _strict(cuts: tuple[tuple[int, float], ...]) -> list[tuple[int, float | None]]:
    """Cut p-values for strict JSON: a skipped cut's NaN becomes ``null``."""
    return [(k, None if math.isnan(p) else p) for k, p in cuts]
