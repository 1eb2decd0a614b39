"""A prediction log from the runner's own test-then-train loop, in the format ``monitor`` reads.

The round trip: ``export_predictions`` writes what a classifier predicted on each tested chunk
of a stream (label and per-class probabilities); :func:`pudd_core.monitor` on that log gives
the p-values :func:`~pudd_core.experiments.runner.run_experiment`'s PUDD gave, chunk for chunk.

Why that is exact, and when:

* the loop is the runner's, step for step (``run_experiment``'s docstring): the stream and
  the classifier are the runner's own (``run_stream``, ``run_model``, seeded by ``run_seeds``);
  chunk 0 trains (twice with ``double_initial_fit``); each later chunk is predicted, then
  trained on in the ``"incremental"`` regime (never in ``"train-once"``);
* there is **no adaptation**: nothing here reacts to an alarm, so the model's predictions
  equal the runner's only while the runner's PUDD has not adapted its model, i.e. up to and
  including its first alarm, and everywhere when it never alarms. After an alarm the runner
  retrains; the log keeps the unadapted model (it is a log of *one* model, as yours is);
* the log's chunk ``i`` is the runner's tested chunk ``i + 1`` (``chunk`` column), with
  ``chunk_size`` rows, so ``monitor(log, chunk_size=stream.chunk_size)`` cuts the same chunks;
* the probabilities are written as float64 and read back exactly (Parquet; CSV with
  round-trip float parsing), and ``monitor`` seeds ChunkPUDD with the runner's detector seed
  when given ``seed=detector_seed(config)``; the detector seed only matters with
  ``cache_buckets`` sampling, but equality is then exact, not approximate;
* the monitor runs the authors' PUDD, as the runner does, with ``variant="authors"`` (its
  default is the calibrated count floor), and where no test ran it reports a missing p-value
  where the runner records 1.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from pudd_core.experiments.runner import RunConfig, run_model, run_seeds, run_stream

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["detector_seed", "export_predictions", "write_log"]

#: The example log's first timestamp; one row per minute after it.
START = "2024-01-01T00:00:00"


def detector_seed(config: RunConfig) -> int:
    """The seed ``run_experiment`` gives its detector for ``config`` (``run_seeds``' third).

    Examples
    --------
    >>> detector_seed(RunConfig(seed=0)) == detector_seed(RunConfig(seed=0, detector="none"))
    True
    """
    return run_seeds(config.seed).detector


def export_predictions(config: RunConfig, *, data_dir: str | None = None,
                       float32: bool = False) -> pd.DataFrame:
    """The prediction log of ``config``'s classifier on its stream, without adaptation.

    Columns: ``ts`` (one row per minute from 2024-01-01, so time windows can be tried),
    ``chunk`` (the runner's tested chunk), ``label`` (class index), ``proba_0 ..
    proba_{K-1}``. The detector named in ``config`` is ignored: no detector runs.

    Examples
    --------
    >>> log = export_predictions(RunConfig("sea0", "gnb", n_chunks=4, chunk_size=100))
    >>> log.shape, list(log.columns), int(log["chunk"].min())
    ((300, 5), ['ts', 'chunk', 'label', 'proba_0', 'proba_1'], 1)
    """
    import dataclasses

    import pandas as pd

    config = dataclasses.replace(config, detector="none")
    config.validate(data_dir)
    stream = run_stream(config, data_dir=data_dir)
    model = run_model(config, stream)
    X0, y0 = stream.chunk(0)
    model.fit(X0, y0)
    if config.double_initial_fit:
        model.partial_fit(X0, y0)
    parts = []
    for t in range(1, stream.n_chunks):
        X, y = stream.chunk(t)
        proba = np.asarray(model.predict_proba(X), dtype=np.float64)
        frame = pd.DataFrame(proba.astype(np.float32) if float32 else proba,
                             columns=[f"proba_{k}" for k in range(proba.shape[1])])
        frame.insert(0, "label", np.asarray(y, dtype=np.int64))
        frame.insert(0, "chunk", t)
        parts.append(frame)
        if config.regime == "incremental":
            model.partial_fit(X, y)
    log = pd.concat(parts, ignore_index=True)
    log.insert(0, "ts", pd.Timestamp(START) + pd.to_timedelta(np.arange(len(log)), unit="min"))
    return log


def write_log(log: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write a log as Parquet (``.parquet``) or CSV (anything else).

    Examples
    --------
    >>> import tempfile
    >>> import pandas as pd
    >>> log = pd.DataFrame({"label": [0, 1], "proba_1": [0.2, 0.9]})
    >>> with tempfile.TemporaryDirectory() as d:
    ...     write_log(log, f"{d}/log.parquet")
    ...     write_log(log, f"{d}/log.csv")
    ...     pd.read_parquet(f"{d}/log.parquet").equals(pd.read_csv(f"{d}/log.csv"))
    True
    """
    if os.fspath(path).endswith(".parquet"):
        log.to_parquet(path, index=False)
    else:
        log.to_csv(path, index=False)
