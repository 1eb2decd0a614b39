"""CIFAR-10-CD with the pretrained CNN: backbone build and load, chunk cost, accuracy, detection.

Run: .venv/bin/python -m benchmarks.bench_cifar [--seeds 0-4] [--n-chunks 50]
     [--classifier-option KEY=VALUE ...]
Needs the CIFAR-10 images ($PUDD_DATA_DIR). Builds the default backbone first if it is not cached.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from benchmarks._common import machine
from pudd_core.experiments.runner import RunConfig, RunResult, run_experiment
from pudd_core.views.cifar import interest_drift

COMMAND = ".venv/bin/python -m benchmarks.bench_cifar"


def _options(pairs: list[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    for pair in pairs:
        key, _, raw = pair.partition("=")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", default="0-4")
    parser.add_argument("--n-chunks", type=int, default=50)
    parser.add_argument("--alpha-exp", type=int, default=3)
    parser.add_argument("--classifier-option", action="append", default=[])
    args = parser.parse_args()
    lo, _, hi = args.seeds.partition("-")
    seeds = list(range(int(lo), int(hi or lo) + 1))
    options = _options(args.classifier_option)

    import torch

    from pudd_core.classifiers import _base, _pretrain, make_classifier
    from pudd_core.streams import load_stream

    print("## CIFAR-10-CD with the pretrained CNN (issue 8)\n")
    print(f"Command: `{COMMAND} --seeds {args.seeds} --n-chunks {args.n_chunks}"
          + "".join(f" --classifier-option {o}" for o in args.classifier_option)
          + f"`  \nMachine: {machine()}, torch {torch.__version__} on "
          f"{_base.resolve_device('auto')} ({torch.get_num_threads()} threads); no GPU here.\n")

    t = time.perf_counter()
    info = _pretrain.pretrained_backbone()
    first = time.perf_counter() - t
    t = time.perf_counter()
    info = _pretrain.pretrained_backbone()
    _pretrain.load_backbone(info.path)
    load = time.perf_counter() - t
    r = info.record
    print("| backbone | value |\n| --- | --- |")
    print(f"| recipe | {json.dumps(r['recipe'])} |")
    print(f"| pretraining images | {r['n_train_images']} CIFAR-10 test images "
          f"(+ {r['n_holdout_images']} held out) |")
    print(f"| held-out 10-class accuracy | {100 * r['holdout_accuracy']:.1f} % |")
    print(f"| build time (recorded when built) | {r['seconds']:.0f} s, torch {r['torch']}, "
          f"{r['threads']} threads |")
    print(f"| this call | {'built' if info.built else 'cached'}: {first:.2f} s |")
    print(f"| later load (checksum + torch.load weights_only) | {load:.3f} s |\n")

    stream = load_stream("cifar10-cd", seed=1, n_chunks=4)
    clf = make_classifier("pretrained-cnn", input_shape=(3, 32, 32), n_classes=2, seed=0,
                          **options)
    X, y = stream.chunk(0)
    X1, y1 = stream.chunk(1)
    clf.fit(X, y)
    t = time.perf_counter()
    clf.predict_proba(X1)
    fresh = time.perf_counter() - t
    t = time.perf_counter()
    clf.partial_fit(X1, y1)
    train = time.perf_counter() - t
    print(f"One 500-image chunk: backbone features + head predict {fresh:.2f} s, head training "
          f"({clf.epochs} epochs of mini-batches of {clf.batch_size}) {train:.2f} s.\n")

    results = [run_experiment(RunConfig(
        "cifar10-cd", "pretrained-cnn", "pudd", alpha=10.0 ** -args.alpha_exp, seed=seed,
        n_chunks=args.n_chunks, classifier_options=options)) for seed in seeds]
    print(f"PUDD-{args.alpha_exp} on {len(seeds)} seeds x {args.n_chunks} chunks "
          f"(classifier options {json.dumps(options) if options else 'default'}):\n")
    print(detection_table(results))


def drift_kind(before: tuple[int, ...], after: tuple[int, ...]) -> str:
    """How a drift changes the positive classes: added, removed or swapped ones.

    >>> drift_kind((0, 1, 2), (0, 1)), drift_kind((0, 1), (0, 1, 6)), drift_kind((0, 1), (0, 5))
    ('removal', 'addition', 'swap')
    """
    gone, new = set(before) - set(after), set(after) - set(before)
    return "swap" if gone and new else "removal" if gone else "addition"


def detection_table(results: list[RunResult], *, early: int = 2) -> str:
    """Per seed: accuracy, the majority rate, the drifts found early; then by kind of drift.

    A drift at chunk 1, or at the chunk right after an alarm, cannot be seen by PUDD (its
    first test after a reset needs two chunks of the new history), so those are counted apart.
    """
    lines = ["| seed | accuracy from chunk 3 | majority rate | true drifts | detected ≤ 1 chunk "
             "| ≤ 2 chunks | at all | false alarms | run (s) |",
             "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    rows, kinds = [], {}
    for res in results:
        n = res.config.n_chunks or len(res.chunks) + 1
        drift = interest_drift(res.config.seed, n_chunks=n)
        acc = {c.chunk_index: c.accuracy for c in res.chunks}
        from3 = [t for t in acc if t >= 3]
        d = res.detection
        assert d is not None and res.drift_chunks == drift.drift_chunks
        for t, hit in zip(drift.drift_chunks, d.detected, strict=True):
            kind = drift_kind(drift.positive_classes[t - 1], drift.positive_classes[t])
            blind = t == 1 or (t - 1) in res.alarms
            key = "blind (chunk 1 or right after an alarm)" if blind else kind
            found = hit is not None and hit - t <= early
            total, got = kinds.get(key, (0, 0))
            kinds[key] = (total + 1, got + int(found))
        rows.append({
            "seed": res.config.seed, "acc3": float(np.mean([acc[t] for t in from3])),
            "majority3": float(np.mean(drift.majority_rates()[from3])),
            "drifts": len(drift.drift_chunks),
            "within1": sum(1 for x in d.delays if x <= 1),
            "within2": sum(1 for x in d.delays if x <= early),
            "detected": len(d.delays), "false": d.false_alarms, "alarms": res.alarms,
            "truth": res.drift_chunks, "seconds": res.elapsed_s,
        })
    for w in rows:
        lines.append(f"| {w['seed']} | {100 * w['acc3']:.2f} | {100 * w['majority3']:.1f} | "
                     f"{w['drifts']} | {w['within1']} | {w['within2']} | {w['detected']} | "
                     f"{w['false']} | {w['seconds']:.0f} |")
    drifts = sum(w["drifts"] for w in rows)
    within1, within2 = sum(w["within1"] for w in rows), sum(w["within2"] for w in rows)
    lines.append(
        f"| **all** | **{100 * np.mean([w['acc3'] for w in rows]):.2f}** | "
        f"{100 * np.mean([w['majority3'] for w in rows]):.1f} | {drifts} | "
        f"{within1} ({100 * within1 / max(drifts, 1):.0f} %) | "
        f"**{within2} ({100 * within2 / max(drifts, 1):.0f} %)** | "
        f"{sum(w['detected'] for w in rows)} | "
        f"**{np.mean([w['false'] for w in rows]):.1f} per run** | "
        f"{sum(w['seconds'] for w in rows):.0f} |")
    lines += ["", f"Detected ≤ {early} chunks, by kind of drift: " + "; ".join(
        f"{k}: {got} of {total}" for k, (total, got) in sorted(kinds.items())) + "."]
    lines += ["", "Detected ≤ k chunks: the first alarm in a drift's segment comes at most k "
              "chunks after the first chunk with the new interests (`evaluation.match_alarms`); "
              "false alarms are the other alarms. Alarms and drifts per seed: "
              + "; ".join(f"{w['seed']}: {list(w['alarms'])} vs {list(w['truth'])}"
                          for w in rows) + "."]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
