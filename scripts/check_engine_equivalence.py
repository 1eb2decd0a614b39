"""Check that two checkouts of pudd_core compute the same numbers, to the last bit.

Runs a fixed set of seeded computations in each checkout (a subprocess per checkout, with
``PYTHONPATH`` set to its root) and compares what they give, float for float:

* ``ChunkPUDD`` fed seeded beta streams directly: every chunk's scan (p-value, cut point,
  alarm, every cut's p-value, statistic, tables and expected counts), over the variants
  (alpha, cut points, skip rule, floor, Cochran merge, reference split, caching, EK);
* ``PUDD`` (online) fed seeded instance streams: after every update, the p-value, cut point,
  alarm and every cut of the last test, over clocks, cut points, skip rules and floors;
* ``run_experiment`` with GNB over the synthetic streams and PUDD variants (per-chunk logs
  with window records, timings left out);
* ``monitor`` on a seeded 10-class prediction log (both variants, chunks of rows, the
  bounded history included; and, where the checkout has ``refit``, the monitor's default
  with ``refit="doubling"`` on the same log in float32): every chunk's record (timings left
  out); a record only the checked checkout can make is named and not compared;
* a GNB subset of the reproduction grid (``reproduction_configs(1, "gnb", seeds)``, PUDD-1/3/5):
  the store rows of ``safe_run`` (elapsed time left out) and the per-chunk logs.

Usage::

    git worktree add --detach /work/wt-engine-base main
    python scripts/check_engine_equivalence.py --base /work/wt-engine-base [--seeds 3]

Exits 0 when every record matches, 1 with the first differences otherwise.
"""

from __future__ import annotations

import argparse
import math
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SYNTHETIC = ("sea0", "sea10", "sine", "mixed")
ALPHAS = (1e-1, 1e-3, 1e-5)
CHUNK_VARIANTS: tuple[dict[str, Any], ...] = (
    {},
    {"cut_points": "all"},
    {"skip_rule": "pu_mean"},
    {"skip_rule": None},
    {"clamp_min": 0, "min_expected": 5.0},
    {"yates": False, "n_buckets": 3},
    {"reference_split": "pu_lt_0.5"},
    {"cache_buckets": False},
    {"partition": "ek", "clamp_min": 0},
    {"partition": "ek", "cut_points": "all"},
    {"min_accuracy": 0.9},
    {"max_chunks": 8},
    {"max_chunks": 5, "cut_points": "all", "clamp_min": 0, "min_expected": 5.0},
    {"max_chunks": 6, "reference_split": "pu_lt_0.5", "skip_rule": None},
    {"max_chunks": 7, "partition": "ek", "clamp_min": 0},
)
ONLINE_VARIANTS: tuple[dict[str, Any], ...] = (
    {"cut_every": 200, "clock": 32},
    {"cut_every": 200, "clock": 1},
    {"cut_every": 200, "clock": 200},
    {"cut_every": 150, "clock": 16, "cut_points": "all"},
    {"cut_every": 200, "clock": 32, "skip_rule": "pu_mean"},
    {"cut_every": 200, "clock": 32, "skip_rule": None, "clamp_min": 0, "min_expected": 5.0},
    {"cut_every": 200, "clock": 8, "min_recent_size": 40, "clamp_min": 0},
    {"cut_every": 100, "clock": 25, "min_accuracy": 0.6, "n_buckets": 2},
)
EXPERIMENT_VARIANTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("pudd", {}),
    ("pudd", {"cut_points": "all"}),
    ("pudd", {"skip_rule": "pu_mean"}),
    ("pudd", {"clamp_min": 0, "min_expected": 5.0}),
    ("ek", {}),
)


def _plain(x: Any) -> Any:
    """Floats as exact hex strings (NaN equal to NaN), containers as tuples, arrays as lists."""
    import numpy as np

    if isinstance(x, float | np.floating):
        return "nan" if math.isnan(x) else float(x).hex()
    if isinstance(x, bool | np.bool_):
        return bool(x)
    if isinstance(x, int | np.integer):
        return int(x)
    if isinstance(x, np.ndarray):
        return _plain(x.tolist())
    if isinstance(x, dict):
        return tuple((k, _plain(v)) for k, v in sorted(x.items()))
    if isinstance(x, list | tuple):
        return tuple(_plain(v) for v in x)
    return x


def _scan_record(scan: Any) -> Any:
    if scan is None:
        return None
    cuts = []
    for c in scan.cuts:
        t = c.test
        test = None if t is None else (
            t.p_value, t.statistic, t.dof, t.table, t.observed, t.expected, t.shortcut,
            t.buckets.centres, t.buckets.coef, t.buckets.sample_counts, t.buckets.n_sample,
        )
        cuts.append((c.cut, c.p_value, c.skipped, test))
    return _plain((scan.chunk_index, scan.n_chunks, scan.accuracy, scan.p_value, scan.cut_point,
                   scan.drift_detected, scan.shortcut, cuts))


def _beta_chunks(seed: int, n: int, size: int) -> list[Any]:
    import numpy as np

    rng = np.random.default_rng(seed)
    out = []
    for t in range(n):
        a = 1.0 + 2.0 * (t >= n // 3) + 3.0 * (t >= 2 * n // 3)  # two shifts of uncertainty
        u = rng.beta(a, 6.0, size)
        ok = u < 0.5
        flip = rng.random(size) < 0.05  # some misclassified values below 0.5
        out.append((u, ok & ~flip))
    return out


def _chunk_records() -> dict[str, Any]:
    from pudd_core import ChunkPUDD

    out: dict[str, Any] = {}
    for seed in (0, 1):
        chunks = _beta_chunks(seed, 40, 300)
        for alpha in ALPHAS:
            for opts in CHUNK_VARIANTS:
                det = ChunkPUDD(alpha, seed=seed, **opts)
                rec = []
                for u, ok in chunks:
                    det.update(u, ok)
                    rec.append((_scan_record(det.last_scan), _plain(det.p_value),
                                det.cut_point, det.drift_detected, det.n_chunks))
                out[f"chunk seed={seed} alpha={alpha:g} {opts}"] = tuple(rec)
    return out


def _online_records() -> dict[str, Any]:
    import numpy as np

    from pudd_core import PUDD

    out: dict[str, Any] = {}
    for seed in (0, 1):
        rng = np.random.default_rng(100 + seed)
        n = 6000
        a = np.where(np.arange(n) < 3000, 1.0, 2.5)
        u = rng.beta(a, 6.0)
        ok = (u < 0.5) & (rng.random(n) >= 0.05)
        for alpha in ALPHAS:
            for opts in ONLINE_VARIANTS:
                det = PUDD(alpha, seed=seed, **opts)
                rec = []
                last = None
                for x, c in zip(u.tolist(), ok.tolist(), strict=True):
                    det.update(x, correct=c)
                    scan = det.last_scan
                    if scan is not last:  # a test ran at this update
                        rec.append((det.n_seen, _scan_record(scan), _plain(det.p_value),
                                    det.cut_point, det.drift_detected))
                        last = scan
                out[f"online seed={seed} alpha={alpha:g} {opts}"] = tuple(rec)
    return out


def _as_before_issue_22(chunk: dict[str, Any]) -> None:
    """A ChunkLog row as older checkouts wrote it: a cut the skip rule spared had p = 1.

    Since issue 22 its p is NaN (no test ran) and ``no_test`` gives the reason: what a log
    shows changed, not what was computed, which the comparison checks.
    """
    chunk.pop("no_test", None)
    chunk["cut_p_values"] = tuple((k, 1.0 if p != p else p) for k, p in chunk["cut_p_values"])


def _log_record(res: Any) -> Any:
    from dataclasses import asdict

    chunks = []
    for c in res.chunks:
        d = asdict(c)
        for k in ("predict_ms", "detect_ms", "train_ms"):
            d.pop(k)
        d.pop("cut_tests", None)  # added by the side-by-side explorer: not in older checkouts
        _as_before_issue_22(d)
        chunks.append(d)
    return _plain((res.accuracy, res.alarms, res.drift_chunks, chunks))


def _experiment_records() -> dict[str, Any]:
    from pudd_core.experiments.runner import RunConfig, run_experiment

    out: dict[str, Any] = {}
    for dataset in SYNTHETIC:
        for alpha in ALPHAS:
            for detector, opts in EXPERIMENT_VARIANTS:
                cfg = RunConfig(dataset, "gnb", detector, alpha=alpha, seed=3, n_chunks=60,
                                detector_options=opts, record_windows=True)
                out[f"run {cfg.key()}"] = _log_record(run_experiment(cfg))
    return out


def _monitor_records() -> dict[str, Any]:
    from dataclasses import asdict

    import numpy as np
    import pandas as pd

    from pudd_core import ChunkPUDD, monitor

    # the calibrated preset as it was before refit="doubling" became its default, so that both
    # checkouts run the same detector where one of them has the option
    pinned = {"refit": "every"} if "refit" in ChunkPUDD().__dict__ else {}
    rng = np.random.default_rng(5)
    n, k = 150_000, 10
    y = rng.integers(0, k, n)
    shape = np.ones((n, k))
    shape[np.arange(n), y] += np.where(np.arange(n) < 2 * n // 3, 20.0, 12.0)
    g = rng.standard_gamma(shape)
    log = pd.DataFrame(g / g.sum(axis=1, keepdims=True),
                       columns=[f"proba_{c}" for c in range(k)])
    log.insert(0, "label", y)
    out: dict[str, Any] = {}
    for variant in ("calibrated", "authors"):
        for chunk_size in (1000, 400):
            res = monitor(log, label="label", proba_prefix="proba_", chunk_size=chunk_size,
                          variant=variant, record_windows="alarms", detector_options=pinned)
            recs = [asdict(r) for r in res.records]
            for d in recs:
                d.pop("detect_ms")
            out[f"monitor {variant} chunk_size={chunk_size}"] = _plain(recs)
    if pinned:  # the monitor's default since refit="doubling": its own records, as it runs
        for chunk_size in (1000, 400):
            res = monitor(log.astype({c: np.float32 for c in log.columns if c != "label"}),
                          label="label", proba_prefix="proba_", chunk_size=chunk_size,
                          record_windows="alarms", tolerance=1e-4)
            recs = [asdict(r) for r in res.records]
            for d in recs:
                d.pop("detect_ms")
            out[f"monitor default-float32 chunk_size={chunk_size}"] = _plain(recs)
    return out


def _reproduction_records(seeds: int) -> dict[str, Any]:
    from pudd_core.experiments.grid import safe_run
    from pudd_core.experiments.runner import run_experiment
    try:
        from pudd_core.reproduction import reproduction_configs
    except ImportError:  # a checkout from before the reproduction left experiments/ (issue 33)
        from pudd_core.experiments.reproduce import (  # type: ignore[import-not-found,no-redef]
            reproduction_configs,
        )

    data_dir = os.environ.get("PUDD_DATA_DIR")
    out: dict[str, Any] = {}
    cfgs = reproduction_configs(1, "gnb", seeds, detectors=["pudd-1", "pudd-3", "pudd-5"])
    for cfg in cfgs:
        row = safe_run(cfg, data_dir)
        row.pop("elapsed_s", None)
        out[f"reproduction row {cfg.key()}"] = _plain(row)
        out[f"reproduction log {cfg.key()}"] = _log_record(run_experiment(cfg, data_dir=data_dir))
    return out


def _dump(path: str, seeds: int, parts: list[str]) -> None:
    import pudd_core

    t0 = time.perf_counter()
    records: dict[str, Any] = {}
    makers = {
        "chunk": _chunk_records,
        "online": _online_records,
        "experiment": _experiment_records,
        "monitor": _monitor_records,
        "reproduction": lambda: _reproduction_records(seeds),
    }
    for part in parts:
        records.update(makers[part]())
        print(f"  {part}: {len(records)} records so far, {time.perf_counter() - t0:.0f} s",
              flush=True)
    with open(path, "wb") as f:
        pickle.dump({"pudd_core": pudd_core.__file__, "records": records}, f)


def _run(root: Path, out: Path, seeds: int, parts: list[str]) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--dump", str(out),
           "--seeds", str(seeds), "--parts", *parts]
    print(f"{root}:", flush=True)
    subprocess.run(cmd, env=env, check=True, cwd=root)
    with open(out, "rb") as f:
        data: dict[str, Any] = pickle.load(f)
    where = Path(data["pudd_core"]).resolve()
    if not where.is_relative_to(root.resolve()):
        raise SystemExit(f"{root} imported pudd_core from {where}, not from itself")
    return data


def _records(root: Path, saved: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The records of checkout ``root``: read from ``saved`` if it exists, else computed there."""
    if saved.exists():
        with open(saved, "rb") as f:
            data: dict[str, Any] = pickle.load(f)
        where = Path(data["pudd_core"]).resolve()
        if not where.is_relative_to(root.resolve()):
            raise SystemExit(f"{saved} holds records of {where}, not of {root}")
        print(f"{root}: records read from {saved}")
        return data["records"]
    return _run(root, saved, args.seeds, args.parts)["records"]


def main(argv: list[str] | None = None) -> int:
    """Compare the records of ``--base`` with those of this checkout (or ``--new``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="root of the baseline checkout")
    parser.add_argument("--new", type=Path, default=ROOT, help="root of the checkout to check")
    parser.add_argument("--seeds", type=int, default=3, help="reproduction-grid seeds")
    parser.add_argument("--parts", nargs="+", default=["chunk", "online", "experiment",
                                                       "monitor", "reproduction"])
    parser.add_argument("--base-records", type=Path,
                        help="reuse the baseline's records from this file (written if absent)")
    parser.add_argument("--new-records", type=Path,
                        help="the same for the checkout to check")
    parser.add_argument("--dump", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.dump:
        _dump(args.dump, args.seeds, args.parts)
        return 0
    if args.base is None:
        parser.error("--base is required")
    with tempfile.TemporaryDirectory() as tmp:
        base = _records(args.base, args.base_records or Path(tmp) / "base.pkl", args)
        new = _records(args.new, args.new_records or Path(tmp) / "new.pkl", args)
    if base.keys() - new.keys():
        print(f"records of the baseline missing here: {sorted(base.keys() - new.keys())[:5]}")
        return 1
    only_new = sorted(new.keys() - base.keys())
    if only_new:  # what the baseline cannot compute (an option it lacks): said, not compared
        print(f"{len(only_new)} record(s) only in the checked checkout, not compared: "
              f"{', '.join(only_new[:5])}")
        new = {k: new[k] for k in base}
    differ = [k for k in base if base[k] != new[k]]
    kinds: dict[str, int] = {}
    for k in base:
        kinds[k.split(" ")[0]] = kinds.get(k.split(" ")[0], 0) + 1
    print("records compared: " + ", ".join(f"{v} {k}" for k, v in kinds.items())
          + f"; {len(base)} in all")
    if differ:
        print(f"{len(differ)} differ, e.g.:")
        for k in differ[:5]:
            print("  ", k)
        return 1
    print("every record identical (floats compared bit for bit)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
