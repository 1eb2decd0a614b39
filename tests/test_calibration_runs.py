"""How ``monitoring.calibrate`` runs PUDD over its resamples (issue 35, "runs in seconds").

The runner shares one run among every α until their decisions part, copies an alarmed run
without its history, and may hand the resamples to worker processes. None of this may change
an alarm: the oracle here is the plain way, a fresh ChunkPUDD per resample and per α fed the
resample chunk by chunk, on the very resamples ``calibrate`` built (recorded as the runner
takes them, so the oracle does not depend on how resamples are built).
"""

from __future__ import annotations

import dataclasses
import math
import os

import numpy as np
import pytest

from pudd_core._validation import ParameterError
from pudd_core.detector import ChunkPUDD
from pudd_core.monitoring import VARIANTS, calibrate
from pudd_core.monitoring import _calibrate as cal


def _stream(n_rows: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """I.i.d. rows of a calibrated binary model, p(true class) to two decimals."""
    rng = np.random.default_rng(seed)
    p_top = np.round(rng.uniform(0.51, 1.0, n_rows), 2)
    ok = rng.random(n_rows) < p_top
    return np.where(ok, 1 - p_top, p_top), ok


def _plain(res: cal._Resample, alpha: float, options: dict, chunk: int, after: int,
           ) -> tuple[tuple[int, ...], float]:
    """One ChunkPUDD at ``alpha`` on the null resample (its alarms), and another on the changed
    one from chunk 0 (the chunks from its first alarm at or after ``after``)."""
    def alarms(u: np.ndarray, ok: np.ndarray) -> list[int]:
        det, hits = ChunkPUDD(alpha, seed=res.seed, **options), []
        for t in range(u.size // chunk):
            det.update(u[t * chunk:(t + 1) * chunk], ok[t * chunk:(t + 1) * chunk])
            if det.drift_detected:
                hits.append(t)
        return hits

    null = alarms(res.u, res.correct)
    assert res.changed is not None
    cu = np.concatenate((res.u[:after * chunk], res.changed[0]))
    cok = np.concatenate((res.correct[:after * chunk], res.changed[1]))
    late = [t for t in alarms(cu, cok) if t >= after]
    return tuple(null), float(late[0] - after) if late else math.inf


# the four detectors: both count floors (VARIANTS) with either skip rule
DETECTORS = [(variant, skip) for variant in ("calibrated", "authors")
             for skip in (None, "accuracy")]


@pytest.mark.parametrize(("variant", "skip_rule"), DETECTORS)
def test_the_runs_alarm_chunk_for_chunk_as_one_plain_detector_per_resample_and_alpha(
        variant: str, skip_rule: str | None, monkeypatch: pytest.MonkeyPatch):
    chunk, after = 100, 14
    grid = [0.2, 0.05, 1e-2, 1e-3]  # decisions part often at these
    # bucketing samples of 150 rows: every reference of two chunks or more is subsampled, so
    # a run that drew from another's generator would fit other buckets
    extra = {"skip_rule": skip_rule, "sample_size": 150}
    options = {**VARIANTS[variant], **extra}
    taken: list[cal._Resample] = []
    run = cal._run_resample

    def recording(res: cal._Resample, *args: object) -> cal._Runs:
        taken.append(res)
        return run(res, *args)  # type: ignore[arg-type]

    parted = 0
    for seed in (0, 1, 2):
        u, ok = _stream(28 * chunk, 20 + seed)
        kw = dict(n_resamples=4, size=0.4, after=after, seed=seed, variant=variant,
                  detector_options=extra)
        taken.clear()
        with monkeypatch.context() as m:
            m.setattr(cal, "_run_resample", recording)
            here = calibrate(u, ok, chunk, grid, n_jobs=1, **kw)
        workers = calibrate(u, ok, chunk, grid, n_jobs=2, **kw)
        assert len(taken) == 4
        for alpha in grid:
            plain = [_plain(res, alpha, options, chunk, after) for res in taken]
            expected = ([a for a, _ in plain], [d for _, d in plain])
            for res in (here, workers):
                row = res.row(alpha)
                assert (list(row.alarm_chunks), list(row.delays)) == expected, (seed, alpha)
        parted += len({a.alarm_chunks for a in here.per_alpha})
    assert parted >= 3 * 3  # the alphas' runs did part: the copies were exercised


def test_on_workers_progress_counts_every_resample_and_a_raise_stops_the_calibration():
    u, ok = _stream(12 * 100, 5)
    seen: list[tuple[int, int]] = []
    calibrate(u, ok, 100, [0.1], n_resamples=4, n_jobs=2,
              progress=lambda d, t: seen.append((d, t)))
    assert seen == [(2, 8), (4, 8), (6, 8), (8, 8)]  # both runs of a resample come back at once

    class Stop(Exception):
        pass

    def stop(done: int, total: int) -> None:
        raise Stop

    with pytest.raises(Stop):
        calibrate(u, ok, 100, [0.1], n_resamples=40, n_jobs=2, progress=stop)
    # the workers are free again for the next calibration, which is the same as here
    again = calibrate(u, ok, 100, [0.1, 1e-3], n_resamples=3, n_jobs=2, seed=4)
    assert again == calibrate(u, ok, 100, [0.1, 1e-3], n_resamples=3, n_jobs=1, seed=4)


def test_by_default_small_work_and_workers_turned_off_run_here(
        monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PUDD_WORKERS", "2")
    assert cal._jobs(None, cal.WORKER_CHUNKS - 1, 50) == 1
    assert cal._jobs(None, cal.WORKER_CHUNKS, 50) == min(50, len(os.sched_getaffinity(0)))
    assert cal._jobs(3, 10, 2) == 2  # never more workers than resamples
    monkeypatch.setenv("PUDD_WORKERS", "1")
    assert cal._jobs(None, 10 * cal.WORKER_CHUNKS, 50) == 1


@pytest.mark.parametrize("n_jobs", [0, -1, 1.5, "2", True])
def test_a_bad_worker_count_is_refused_by_name(n_jobs: object):
    u, ok = _stream(4 * 100, 6)
    with pytest.raises(ParameterError, match="n_jobs"):
        calibrate(u, ok, 100, [0.1], n_resamples=2, n_jobs=n_jobs)  # type: ignore[arg-type]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_the_pages_calibration_reports_progress_and_stops_here_and_on_workers(
        workers: str, monkeypatch: pytest.MonkeyPatch):
    # the Threshold lab's and the Monitor page's call (ui.calibration.run, given the page's
    # progress callback): worker processes on (PUDD_WORKERS unset, as a served app) or off
    import pandas as pd

    from ui import calibration
    from ui.progress import Stopped

    monkeypatch.setenv("PUDD_WORKERS", workers)
    monkeypatch.setattr(cal, "WORKER_CHUNKS", 1)  # a small stretch goes to workers too
    u, ok = _stream(16 * 100, 8)
    p1 = np.round(1 - u, 2)
    log = pd.DataFrame({"label": 1, "proba_0": np.round(1 - p1, 2), "proba_1": p1})
    settings = calibration.Settings(chunks=12, target=0.1, n_resamples=6, change="confidence",
                                    size=0.5, within=3, baselines=())
    seen: list[tuple[int, int]] = []
    cal_res, _ = calibration.run(log, 100, settings, progress=lambda d, t: seen.append((d, t)),
                                 label="label", proba_prefix="proba_")
    assert seen[-1] == (12, 12) and [d for d, _ in seen] == sorted({d for d, _ in seen})
    assert cal_res.n_resamples == 6

    def stop(done: int, total: int) -> None:
        raise Stopped

    with pytest.raises(Stopped):
        calibration.run(log, 100, dataclasses.replace(settings, n_resamples=60),
                        progress=stop, label="label", proba_prefix="proba_")
