"""Before/after check: the same seeded runs on two checkouts give the same numbers, exactly.

Each checkout runs a fixed set of ``run_experiment`` configurations (synthetic streams, two
classifiers, PUDD at several alphas, the EK ablation, two river baselines, no adaptation and
the oracle, both regimes), plus ``threshold_sweep`` and ``false_alarm_study``, in a subprocess
with that checkout first on ``PYTHONPATH``. Every per-chunk number (accuracy, PU mean and
median, p-value, every cut's p-value, alarm, cut point, adaptation, detections, floored
cells, the recorded window) and every summary number must be identical; timings are left out.

Run from the repository root, against a worktree of the reference commit:

    git worktree add --detach /tmp/pudd-base main
    python scripts/check_runner_equivalence.py /tmp/pudd-base [--quick]

Exit status 0 when everything matches, 1 otherwise (the first differences are printed).
"""

from __future__ import annotations

import argparse
import math
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

_TIMINGS = ("predict_ms", "detect_ms", "train_ms")


def _configs(quick: bool) -> list[dict[str, Any]]:
    """The runs compared: keyword arguments of ``RunConfig``."""
    streams = ("sea0", "sine") if quick else ("sea0", "sine", "mixed", "sea10")
    classifiers = ("gnb",) if quick else ("gnb", "vfdt")
    detectors: list[tuple[str, float]] = [
        ("pudd", 1e-1), ("pudd", 1e-3), ("pudd", 1e-5), ("ek", 1e-3),
        ("ddm", 1e-3), ("adwin", 1e-3), ("none", 1e-3), ("oracle", 1e-3),
    ]
    out = []
    for i, (stream, clf) in enumerate((s, c) for s in streams for c in classifiers):
        for det, alpha in detectors:
            for regime in ("incremental", "train-once"):
                out.append({
                    "dataset": stream, "classifier": clf, "detector": det, "alpha": alpha,
                    "regime": regime, "seed": i, "n_chunks": 35, "chunk_size": 500,
                    "record_windows": det == "pudd" and alpha == 1e-3,
                })
    # the other settings of the loop: PUDD retraining on the chunk only, all cut points
    # (a longer retraining window), a single initial fit
    out.append({"dataset": "sea0", "detector": "pudd", "adaptation": "chunk", "seed": 3,
                "n_chunks": 35, "chunk_size": 500})
    out.append({"dataset": "sine", "detector": "pudd", "seed": 4, "n_chunks": 35,
                "chunk_size": 500, "detector_options": {"cut_points": "all"}})
    out.append({"dataset": "sea0", "detector": "ddm", "seed": 5, "n_chunks": 35,
                "chunk_size": 500, "double_initial_fit": False})
    return out


def _plain(value: Any) -> Any:
    """Nested tuples/lists/dicts of numbers, with NaN as a comparable marker."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if hasattr(value, "item"):  # numpy scalar
        return _plain(value.item())
    return value


def _frame(df: Any) -> Any:
    return {"columns": tuple(df.columns), "dtypes": tuple(str(t) for t in df.dtypes),
            "rows": _plain(df.to_dict(orient="records"))}


def collect(quick: bool) -> dict[str, Any]:
    """Run everything in this interpreter (the checkout on ``sys.path``); plain results."""
    import dataclasses

    import pudd_core
    from pudd_core.experiments.runner import RunConfig, run_experiment
    from pudd_core.experiments.sweep import false_alarm_study, threshold_sweep

    print(f"collecting with {Path(pudd_core.__file__).parent}", file=sys.stderr)
    out: dict[str, Any] = {}
    for kwargs in _configs(quick):
        res = run_experiment(RunConfig(**kwargs))
        chunks = []
        for c in res.chunks:
            row = dataclasses.asdict(c)
            for k in _TIMINGS:
                row.pop(k)
            # since issue 22 a cut the skip rule spared has p NaN (older checkouts: 1) and
            # no_test gives the reason: what a log shows changed, not what was computed
            row.pop("no_test", None)
            row["cut_p_values"] = tuple((k, 1.0 if p != p else p) for k, p in row["cut_p_values"])
            chunks.append(_plain(row))
        d = res.detection
        out["run " + repr(sorted(kwargs.items()))] = {
            "chunks": chunks, "accuracy": res.accuracy, "alarms": res.alarms,
            "drift_chunks": res.drift_chunks,
            "detection": _plain(dataclasses.asdict(d)) if d is not None else None,
        }
    sweep = threshold_sweep(RunConfig("sea0", "gnb", n_chunks=30, chunk_size=500),
                            exponents=(1, 3, 5), seeds=(0, 1))
    out["threshold_sweep sea0"] = _frame(sweep)
    sweep = threshold_sweep(RunConfig("sine", "vfdt", n_chunks=25, chunk_size=500,
                                      regime="train-once"), exponents=(2, 4), seeds=(2,))
    out["threshold_sweep sine vfdt train-once"] = _frame(sweep)
    for kwargs in ({}, {"dataset": "sine", "seed": 3},
                   {"classifier": "vfdt", "detector_options": {"clamp_min": 0}}):
        study = false_alarm_study(n_chunks=25, chunk_size=500, **kwargs)  # type: ignore[arg-type]
        name = "false_alarm_study " + repr(sorted(kwargs.items()))
        out[name] = {"cut_p": _frame(study.cut_p), "chunk_p": _frame(study.chunk_p),
                     "rates": _frame(study.rates((1, 2, 3)))}
    return out


def _run_in(tree: Path, quick: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "out.pkl"
        env = {**os.environ, "PYTHONPATH": str(tree)}
        cmd = [sys.executable, str(Path(__file__).resolve()), "--collect", str(target)]
        if quick:
            cmd.append("--quick")
        subprocess.run(cmd, env=env, cwd=tree, check=True)
        with open(target, "rb") as fh:
            return pickle.load(fh)  # noqa: S301 (our own file, just written)


def _compare(base: dict[str, Any], ours: dict[str, Any]) -> tuple[int, int, list[str]]:
    """(items compared, per-chunk records compared, differences)."""
    diffs = [f"missing in one checkout: {k}" for k in sorted(set(base) ^ set(ours))]
    n_chunks = 0
    added: set[str] = set()
    for key in sorted(set(base) & set(ours)):
        b, o = base[key], ours[key]
        if key.startswith("run "):
            n_chunks += len(b["chunks"])
            for cb, co in zip(b["chunks"], o["chunks"], strict=False):
                added.update(set(co) - set(cb))  # fields a later feature added: not compared
                missing = sorted(set(cb) - set(co))
                if missing or any(cb[f] != co[f] for f in cb):
                    bad = missing + [f for f in cb if f in co and cb[f] != co[f]]
                    diffs.append(f"{key}: chunk {cb['chunk_index']} differs in {bad}")
                    break
            if len(b["chunks"]) != len(o["chunks"]):
                diffs.append(f"{key}: {len(b['chunks'])} vs {len(o['chunks'])} chunks")
            rest_b = {k: v for k, v in b.items() if k != "chunks"}
            rest_o = {k: v for k, v in o.items() if k != "chunks"}
            if rest_b != rest_o:
                diffs.append(f"{key}: summary differs: {rest_b} vs {rest_o}")
        elif b != o:
            diffs.append(f"{key} differs:\n  base {b}\n  ours {o}")
    if added:
        print(f"fields only in the checkout under test (not compared): {', '.join(sorted(added))}")
    return len(set(base) & set(ours)), n_chunks, diffs


def main(argv: list[str] | None = None) -> int:
    """Compare the two checkouts (or, with ``--collect``, write this one's results)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", nargs="?", help="the reference checkout (a git worktree)")
    parser.add_argument("--ours", default=str(Path(__file__).resolve().parents[1]),
                        help="the checkout under test (default: this one)")
    parser.add_argument("--quick", action="store_true", help="fewer streams and classifiers")
    parser.add_argument("--base-cache", help="a file keeping the reference results: read when "
                        "it exists, else written (the reference checkout does not change)")
    parser.add_argument("--collect", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.collect:
        with open(args.collect, "wb") as fh:
            pickle.dump(collect(args.quick), fh)
        return 0
    if not args.base:
        parser.error("give the reference checkout")
    cache = Path(args.base_cache) if args.base_cache else None
    if cache is not None and cache.exists():
        with open(cache, "rb") as fh:
            base = pickle.load(fh)  # noqa: S301 (written by this script)
    else:
        base = _run_in(Path(args.base).resolve(), args.quick)
        if cache is not None:
            with open(cache, "wb") as fh:
                pickle.dump(base, fh)
    ours = _run_in(Path(args.ours).resolve(), args.quick)
    n_items, n_chunks, diffs = _compare(base, ours)
    n_runs = sum(k.startswith("run ") for k in base)
    print(f"compared {n_items} items: {n_runs} runs ({n_chunks} per-chunk records), "
          f"{n_items - n_runs} sweep/study outputs; {len(diffs)} differ")
    for line in diffs[:20]:
        print(" ", line)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
