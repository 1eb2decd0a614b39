"""The committed threshold studies (``results/``): their cells read back, summarised and written.

``scripts/threshold_studies.py`` computes the cells (:mod:`pudd_core.experiments.studies`);
this module turns the CSVs into the Markdown reports, the findings of ``results/README.md``
and README.md, and the tables the Reproduction page shows.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from pudd_core._format import power_of_ten

STATIONARY_CSV = "stationary_false_alarms.csv"
SKIP_CSV = "skip_rule.csv"
CHUNK_SIZE_CSV = "chunk_size.csv"
#: Delays counted one by one up to this many chunks; later detections are ``delay_more``.
DELAY_COUNTED = 3
#: The skip-rule study's episodes: chunks per episode, and the chunk the change starts at.
EPISODE, AFTER = 30, 20


def delay_counts(delays: pd.DataFrame) -> pd.DataFrame:
    """Per variant and α, how many episodes' changes were caught after 0, 1, 2, 3, more chunks.

    ``delays`` is :func:`~pudd_core.experiments.studies.shift_delays`' frame; the counts
    (``delay_0`` .. ``delay_3``, ``delay_more``, ``missed``) keep every quantile up to 3
    chunks and the detection rate within 1 .. 4 chunks; ``early`` sums the false alarms
    before the changes.

    Examples
    --------
    >>> d = pd.DataFrame({"variant": "v", "alpha": 0.1, "episode": [0, 1, 2],
    ...                   "delay": [0.0, 5.0, math.inf], "early": [1, 0, 0]})
    >>> delay_counts(d).iloc[0].to_dict()  # doctest: +NORMALIZE_WHITESPACE
    {'variant': 'v', 'alpha': 0.1, 'episodes': 3, 'delay_0': 1, 'delay_1': 0, 'delay_2': 0,
     'delay_3': 0, 'delay_more': 1, 'missed': 1, 'early': 1}
    """
    rows = []
    for (variant, alpha), g in delays.groupby(["variant", "alpha"], sort=False):
        d = g["delay"].to_numpy()
        rows.append({"variant": variant, "alpha": alpha, "episodes": len(g),
                     **{f"delay_{k}": int((d == k).sum()) for k in range(DELAY_COUNTED + 1)},
                     "delay_more": int(((d > DELAY_COUNTED) & np.isfinite(d)).sum()),
                     "missed": int(np.isinf(d).sum()), "early": int(g["early"].sum())})
    return pd.DataFrame(rows)




#: The thresholds the reports show (the CSVs hold the whole grid).
SHOWN_ALPHAS: tuple[float, ...] = (1e-1, 1e-3, 1e-5)
#: A change counts as detected early when caught within this many chunks (delay < WITHIN).
WITHIN = 3
#: The false-alarm rate per chunk the recommended α must keep (its interval's upper end).
TARGET = 0.01
CLASSIFIER_NAMES = {"gnb": "GNB", "vfdt": "VFDT", "dnn": "DNN"}


def _alpha(a: float) -> str:
    return power_of_ten(round(math.log10(a))) if math.log10(a).is_integer() else f"{a:g}"


def _ci(low: float, high: float) -> str:
    return f"{low:.4f} - {high:.4f}"


def pooled_false_alarms(frame: pd.DataFrame) -> pd.DataFrame:
    """False alarms per chunk pooled over seeds: one row per classifier, variant and α.

    Examples
    --------
    >>> f = pd.DataFrame({"classifier": "gnb", "seed": [0, 1], "variant": "v", "alpha": 0.1,
    ...                   "alarms": [1, 2], "chunks": [100, 100], "accuracy": [0.9, 0.92],
    ...                   "run_s": [3.0, 4.0]})
    >>> r = pooled_false_alarms(f).iloc[0]
    >>> int(r["alarms"]), int(r["chunks"]), float(r["rate"]), round(float(r["ci_high"]), 4)
    (3, 200, 0.015, 0.0432)
    """
    from pudd_core.experiments.studies import clopper_pearson

    g = frame.groupby(["classifier", "variant", "alpha"], sort=False)
    out = g.agg(alarms=("alarms", "sum"), chunks=("chunks", "sum"), seeds=("seed", "nunique"),
                accuracy=("accuracy", "mean")).reset_index()
    if "regime" in frame:
        out["regime"] = g["regime"].first().to_numpy()
    out["rate"] = out["alarms"] / out["chunks"]
    ci = [clopper_pearson(int(k), int(n)) for k, n in zip(out["alarms"], out["chunks"],
                                                          strict=True)]
    out["ci_low"] = [c[0] for c in ci]
    out["ci_high"] = [c[1] for c in ci]
    return out


def pooled_delays(frame: pd.DataFrame) -> pd.DataFrame:
    """Delay counts pooled over seeds, with the detection rate and the median delay.

    ``detected``: the share caught within :data:`WITHIN` chunks; ``median_delay``: ``inf``
    when beyond the counted chunks or missed.

    Examples
    --------
    >>> f = pd.DataFrame({"classifier": "gnb", "seed": [0, 1], "change": "confidence",
    ...                   "size": 0.5, "variant": "v", "alpha": 0.1, "episodes": [2, 2],
    ...                   "delay_0": [0, 1], "delay_1": [1, 0], "delay_2": [0, 0],
    ...                   "delay_3": [0, 0], "delay_more": [0, 1], "missed": [1, 0],
    ...                   "early": [0, 0]})
    >>> r = pooled_delays(f).iloc[0]
    >>> int(r["episodes"]), float(r["detected"]), float(r["median_delay"])
    (4, 0.5, 1.0)
    """
    counts = [f"delay_{k}" for k in range(DELAY_COUNTED + 1)]
    keys = ["classifier", "change", "size", "variant", "alpha"]
    out = frame.groupby(keys, sort=False)[
        ["episodes", *counts, "delay_more", "missed", "early"]].sum().reset_index()
    out["detected"] = out[counts[:WITHIN]].sum(axis=1) / out["episodes"]
    cum = out[counts].cumsum(axis=1).to_numpy()
    half = out["episodes"].to_numpy()[:, None] / 2
    reached = cum >= half
    out["median_delay"] = np.where(reached.any(axis=1), reached.argmax(axis=1), np.inf)
    return out


def recommended(pooled: pd.DataFrame, target: float = TARGET) -> pd.DataFrame:
    """Per classifier and variant, the largest α whose false-alarm interval stays <= target.

    The rule of :func:`~pudd_core.monitoring.calibrate` (the upper end of the interval, not
    the estimate). ``alpha`` is NaN where no α of the grid meets the target.

    Examples
    --------
    >>> p = pd.DataFrame({"classifier": "gnb", "variant": "v", "alpha": [0.1, 1e-3],
    ...                   "ci_high": [0.05, 0.004], "rate": [0.03, 0.0]})
    >>> recommended(p)[["classifier", "variant", "alpha"]].values.tolist()
    [['gnb', 'v', 0.001]]
    """
    rows = []
    for (clf, variant), g in pooled.groupby(["classifier", "variant"], sort=False):
        ok = g[g["ci_high"] <= target]
        rows.append({"classifier": clf, "variant": variant,
                     "alpha": float(ok["alpha"].max()) if len(ok) else math.nan})
    return pd.DataFrame(rows)


def tradeoff(stationary: pd.DataFrame, skip: pd.DataFrame, change: str = "confidence",
             size: float = 0.5, target: float = TARGET) -> pd.DataFrame:
    """Each variant at its recommended α: false alarms per chunk and the delay it costs.

    One row per classifier and variant: the α (:func:`recommended`), its false-alarm rate
    and interval, and, on the injected ``change`` of ``size``, the share detected within
    :data:`WITHIN` chunks and the median delay.

    Examples
    --------
    >>> st = pd.DataFrame({"classifier": "gnb", "seed": 0, "variant": "v",
    ...                    "alpha": [0.1, 1e-3], "alarms": [30, 1], "chunks": 1000,
    ...                    "accuracy": 0.9})
    >>> sk = pd.DataFrame({"classifier": "gnb", "seed": 0, "change": "confidence",
    ...                    "size": 0.5, "variant": "v", "alpha": [0.1, 1e-3], "episodes": 4,
    ...                    "delay_0": [4, 2], "delay_1": 0, "delay_2": [0, 1], "delay_3": 0,
    ...                    "delay_more": [0, 1], "missed": 0, "early": 0})
    >>> tradeoff(st, sk)[["alpha", "alarms", "detected", "median_delay"]].values.tolist()
    [[0.001, 1.0, 0.75, 0.0]]
    """
    pooled = pooled_false_alarms(stationary)
    delays = pooled_delays(skip)
    delays = delays[(delays["change"] == change) & np.isclose(delays["size"], size)]
    rec = recommended(pooled, target)
    out = rec.merge(pooled, on=["classifier", "variant", "alpha"], how="left")
    out = out.merge(delays[["classifier", "variant", "alpha", "detected", "median_delay"]],
                    on=["classifier", "variant", "alpha"], how="left")
    return out[["classifier", "variant", "alpha", "alarms", "chunks", "rate", "ci_high",
                "detected", "median_delay"]]


def _header(title: str, command: str, written: str, seconds: float, method: str) -> list[str]:
    return [f"# {title}", "", f"Command: `{command}` (written {written}; this study's wall "
            f"time, summed over its runs, {seconds / 60:.1f} minutes under `nice -n 10` on the "
            "shared 2-core machine, with a load average about 20; the CSV holds every cell "
            "and α, this page the reported ones).", "", method, ""]


def _delay_text(d: float) -> str:
    return f"{d:.0f}" if math.isfinite(d) else f"> {DELAY_COUNTED}"


def _render_stationary(frame: pd.DataFrame, *, command: str, written: str) -> str:
    """``stationary_false_alarms.md``: false alarms per chunk, pooled over seeds."""
    pooled = pooled_false_alarms(frame)
    lines = _header(
        "PUDD's false alarms on a stationary stream, with the lab's classifiers", command,
        written, float(frame.groupby(["classifier", "seed"])["run_s"].first().sum()),
        "SEA (sea0) with one concept throughout, so every alarm is false. The classifier "
        "trains on chunk 0 (twice, as in a run); *train-once*: it is then fixed, so every "
        "chunk is drawn alike; *incremental* (VFDT, which after chunk 0 alone is one "
        "naive-Bayes leaf, GNB's decisions): it trains on each chunk after scoring it, as in "
        "the lab's runs, but is never reset (the detector does not adapt it). "
        "Its PU-index and correctness per 1,000-row chunk go through PUDD's variants (the "
        "monitor's two count floors, each with the authors' accuracy skip rule and without "
        "one: `experiments.studies.STUDY_VARIANTS`), which reset after each alarm as a "
        "monitor does. *per chunk*: alarms over the chunks monitored (all but the first of "
        "each seed), pooled over the seeds; *95 % interval*: Clopper-Pearson.")
    lines += ["| classifier | regime | seeds | accuracy | variant | α | false alarms | chunks "
              "| per chunk | 95 % interval |", "|---|---|---:|---:|---|---|---:|---:|---:|---|"]
    shown = pooled[pooled["alpha"].isin(SHOWN_ALPHAS)]
    for r in shown.itertuples():
        lines.append(f"| {CLASSIFIER_NAMES.get(r.classifier, r.classifier)} "
                     f"| {getattr(r, 'regime', 'train-once')} | {r.seeds} "
                     f"| {r.accuracy:.4f} | {r.variant} | {_alpha(r.alpha)} | {r.alarms} "
                     f"| {r.chunks} | {r.rate:.4f} | {_ci(r.ci_low, r.ci_high)} |")
    return "\n".join(lines) + "\n"


def _render_skip(frame: pd.DataFrame, stationary: pd.DataFrame, *, command: str,
                written: str) -> str:
    """``skip_rule.md``: the delay on injected changes against the false alarms, per variant."""
    delays = pooled_delays(frame)
    pooled = pooled_false_alarms(stationary)
    lines = _header(
        "The skip rule and the count floor: delay against false alarms", command, written,
        float(frame.groupby(["classifier", "seed", "change", "size"])["run_s"].first().sum()),
        f"The stationary study's chunks cut into episodes of {EPISODE} chunks; in each, a "
        f"change starts at chunk {AFTER} (`monitoring.inject_change`): a "
        "confidence shift at flat accuracy (each correct prediction's PU-index moved the "
        "given share of the way up to 0.5, every decision kept: the paper's case) or an "
        "error-rate rise (that share of the correct predictions made wrong). *detected*: "
        f"the share of episodes whose change is caught within {WITHIN} chunks (delay 0 is "
        "the first changed chunk); *median delay* in chunks; *false alarms per chunk*: the "
        "stationary study's rate for the same classifier, variant and α.")
    lines += ["| change | classifier | variant | α | episodes | detected | median delay "
              "| false alarms per chunk |", "|---|---|---|---|---:|---:|---:|---:|"]
    merged = delays.merge(pooled[["classifier", "variant", "alpha", "rate"]],
                          on=["classifier", "variant", "alpha"], how="left")
    for r in merged[merged["alpha"].isin(SHOWN_ALPHAS)].itertuples():
        name = CLASSIFIER_NAMES.get(r.classifier, r.classifier)
        lines.append(f"| {r.change} {r.size:g} | {name} | {r.variant} | {_alpha(r.alpha)} "
                     f"| {r.episodes} | {r.detected:.0%} "
                     f"| {_delay_text(r.median_delay)} | {r.rate:.4f} |")
    lines += shift_size_lines(delays)
    shifts = sorted(delays.loc[delays["change"] == "confidence", "size"].unique())
    for size in dict.fromkeys([0.5, *shifts[:1]]):  # the paper's size, and the smallest
        lines += ["", f"## Each variant at the largest α whose false-alarm interval stays at "
                  f"or below {TARGET:g} per chunk (confidence shift {size:g})", "",
                  "| classifier | variant | α | false alarms per chunk | upper 95 % | detected "
                  "| median delay |", "|---|---|---|---:|---:|---:|---:|"]
        for r in tradeoff(stationary, frame, size=float(size)).itertuples():
            if math.isnan(r.alpha):
                lines.append(f"| {CLASSIFIER_NAMES.get(r.classifier, r.classifier)} "
                             f"| {r.variant} | none of the grid | | | | |")
                continue
            lines.append(f"| {CLASSIFIER_NAMES.get(r.classifier, r.classifier)} | {r.variant} "
                         f"| {r.alpha:g} | {r.rate:.4f} | {r.ci_high:.4f} | {r.detected:.0%} "
                         f"| {_delay_text(r.median_delay)} |")
    return "\n".join(lines) + "\n"


def shift_size_lines(delays: pd.DataFrame, alpha: float = 1e-3) -> list[str]:
    """The skip rule's delay against the size of a confidence shift (calibrated floor).

    ``delays`` is :func:`pooled_delays`' frame; one row per classifier and shift size, the
    calibrated floor with the skip rule beside it without one, at ``alpha``.

    Examples
    --------
    >>> f = pd.DataFrame({"classifier": "gnb", "seed": 0, "change": "confidence",
    ...                   "size": 0.05, "variant": ["calibrated, skip rule",
    ...                   "calibrated, no skip"], "alpha": 1e-3, "episodes": 4,
    ...                   "delay_0": [1, 3], "delay_1": 0, "delay_2": [1, 0], "delay_3": 0,
    ...                   "delay_more": [1, 0], "missed": [1, 1], "early": 0})
    >>> shift_size_lines(pooled_delays(f))[-1]
    '| 0.05 | GNB | 4 | 50% | 2 | 75% | 0 |'
    """
    d = delays[(delays["change"] == "confidence") & np.isclose(delays["alpha"], alpha)]
    with_, without = (d[d["variant"] == v].set_index(["classifier", "size"])
                      for v in ("calibrated, skip rule", "calibrated, no skip"))
    keys = [k for k in with_.index if k in without.index]
    if not keys:
        return []
    lines = ["", f"## The skip rule's delay against the size of a confidence shift "
                 f"(calibrated floor, α = {_alpha(alpha)})", "",
             "The confidence-shift rows above, by shift size: the calibrated floor with "
             "the authors' accuracy skip rule (a cut point is tested only where the recent "
             "window's accuracy fell) beside the same floor testing every cut point.", "",
             "| shift | classifier | episodes | skip rule: detected | median delay "
             "| no skip: detected | median delay |", "|---:|---|---:|---:|---:|---:|---:|"]
    for clf, size in sorted(keys, key=lambda k: (k[1], list(CLASSIFIER_NAMES).index(k[0])
                                                 if k[0] in CLASSIFIER_NAMES else 9)):
        a, b = with_.loc[(clf, size)], without.loc[(clf, size)]
        lines.append(f"| {size:g} | {CLASSIFIER_NAMES.get(clf, clf)} | {int(a['episodes'])} "
                     f"| {a['detected']:.0%} | {_delay_text(a['median_delay'])} "
                     f"| {b['detected']:.0%} | {_delay_text(b['median_delay'])} |")
    return lines


def chunk_size_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per stream, chunk size and α, means over seeds; the delay also in rows.

    Examples
    --------
    >>> f = pd.DataFrame({"classifier": "gnb", "dataset": "sea0", "chunk_size": 500,
    ...                   "alpha": 1e-3, "seed": [0, 1], "accuracy": [0.9, 0.8],
    ...                   "alarms": [9, 11], "drifts": 9, "missed": [1, 0],
    ...                   "false_alarms": [1, 2], "mean_delay_chunks": [1.0, 2.0]})
    >>> chunk_size_summary(f)[["seeds", "alarms", "delay_chunks", "delay_rows"]].values.tolist()
    [[2.0, 10.0, 1.5, 750.0]]
    """
    g = frame.groupby(["classifier", "dataset", "chunk_size", "alpha"], sort=False)
    out = g.agg(seeds=("seed", "nunique"), accuracy=("accuracy", "mean"),
                alarms=("alarms", "mean"), drifts=("drifts", "first"),
                missed=("missed", "mean"), false_alarms=("false_alarms", "mean"),
                delay_chunks=("mean_delay_chunks", "mean")).reset_index()
    out["delay_rows"] = out["delay_chunks"] * out["chunk_size"]
    return out


def _render_chunk_size(frame: pd.DataFrame, *, command: str, written: str) -> str:
    """``chunk_size.md``: accuracy, alarms, delay and false alarms per chunk size."""
    s = chunk_size_summary(frame)
    lines = _header(
        "Detection against the chunk size, on the paper's streams", command, written,
        float(frame["run_s"].sum()),
        "Whole runs (`run_experiment`, PUDD as the lab runs it: the authors' defaults, "
        "incremental training, adaptation on the winning window) of each stream's rows "
        "(100,000 for the synthetic streams, 45,000 elec2, 29,000 powersupply) cut into "
        "chunks of 250 to 5,000; the synthetic streams drift every 10,000 rows whatever the "
        "chunk size. Means over the seeds; *delay*: mean chunks from a drift to its first "
        "alarm, and the same in rows; *missed* and *false alarms* per run (elec2 and "
        "powersupply have no known drifts: accuracy and alarms only).")
    lines += ["| classifier | stream | chunk size | α | seeds | accuracy | alarms | missed "
              "| false alarms | delay (chunks) | delay (rows) |",
              "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"]

    def num(x: float, fmt: str) -> str:
        return "–" if pd.isna(x) else format(x, fmt)

    for r in s.itertuples():
        lines.append(f"| {CLASSIFIER_NAMES.get(r.classifier, r.classifier)} | {r.dataset} "
                     f"| {r.chunk_size:,} | {_alpha(r.alpha)} | {r.seeds} "
                     f"| {100 * r.accuracy:.2f} | {r.alarms:.1f} | {num(r.missed, '.1f')} "
                     f"| {num(r.false_alarms, '.1f')} | {num(r.delay_chunks, '.2f')} "
                     f"| {num(r.delay_rows, ',.0f')} |")
    return "\n".join(lines) + "\n"


#: Each report and the CSVs its numbers come from.
REPORT_SOURCES: dict[str, tuple[str, ...]] = {
    STATIONARY_CSV.replace(".csv", ".md"): (STATIONARY_CSV,),
    SKIP_CSV.replace(".csv", ".md"): (SKIP_CSV, STATIONARY_CSV),
    CHUNK_SIZE_CSV.replace(".csv", ".md"): (CHUNK_SIZE_CSV,)}


def report_stamps(folder: Path, changed: Collection[str], *, command: str,
                  now: str) -> dict[str, tuple[str, str]]:
    """Each report's command and "written" date, per report file: when its numbers came.

    ``command`` and ``now`` for a report one of whose CSVs (:data:`REPORT_SOURCES`) is in
    ``changed`` (cells computed by this run) or that ``folder`` does not hold yet; else the
    command and date the report in ``folder`` gives, so that writing it again from unchanged
    CSVs (``--render``, or a run of another study) keeps its computation's.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "skip_rule.md").write_text("Command: `x --study all` (written "
    ...                                          "2026-11-28 12:53 UTC; this study's ...)")
    >>> report_stamps(folder, {CHUNK_SIZE_CSV}, command="y", now="now")["skip_rule.md"]
    ('x --study all', '2026-11-28 12:53 UTC')
    >>> report_stamps(folder, {STATIONARY_CSV}, command="y", now="now")["skip_rule.md"]
    ('y', 'now')
    """
    import re

    out = {}
    for name, sources in REPORT_SOURCES.items():
        file = folder / name
        said = (re.search(r"^Command: `([^`]*)` \(written ([^;)]+)[;)]",
                          file.read_text(encoding="utf-8"), re.MULTILINE)
                if file.is_file() else None)
        if said is None or set(sources) & set(changed):
            out[name] = (command, now)
        else:
            out[name] = (said.group(1), said.group(2))
    return out


def render_all(folder: Path, *, command: str | Mapping[str, str],
               written: str | Mapping[str, str]) -> dict[str, str]:
    """The Markdown report of each study whose CSV is in ``folder``: file name -> text.

    ``command`` and ``written``: the command and date each report says its numbers came
    from (one for all, or per report file, as :func:`report_stamps` gives them).

    Examples
    --------
    >>> render_all(Path("no/such/folder"), command="-", written="-")
    {}
    """
    def date(name: str) -> str:
        return written if isinstance(written, str) else written[name.replace(".csv", ".md")]

    def said(name: str) -> str:
        return command if isinstance(command, str) else command[name.replace(".csv", ".md")]

    out = {}
    read = {name: frame for name in (STATIONARY_CSV, SKIP_CSV, CHUNK_SIZE_CSV)
            if (frame := _read(folder, name)) is not None}
    if STATIONARY_CSV in read:
        out[STATIONARY_CSV.replace(".csv", ".md")] = _render_stationary(
            read[STATIONARY_CSV], command=said(STATIONARY_CSV), written=date(STATIONARY_CSV))
        if SKIP_CSV in read:
            out[SKIP_CSV.replace(".csv", ".md")] = _render_skip(
                read[SKIP_CSV], read[STATIONARY_CSV], command=said(SKIP_CSV),
                written=date(SKIP_CSV))
    if CHUNK_SIZE_CSV in read:
        out[CHUNK_SIZE_CSV.replace(".csv", ".md")] = _render_chunk_size(
            read[CHUNK_SIZE_CSV], command=said(CHUNK_SIZE_CSV),
            written=date(CHUNK_SIZE_CSV))
    return out


# --- the findings: prose generated from the committed studies ------------------------------
def _read(folder: Path, name: str) -> pd.DataFrame | None:
    file = folder / name
    if not file.is_file():
        return None
    return pd.read_csv(file)


def _missing(name: str) -> str:
    return (f"No committed `results/{name}` yet: `scripts/threshold_studies.py` writes it.")


def _names(items: list[str]) -> str:
    return (", ".join(items[:-1]) + " and " + items[-1]) if len(items) > 1 else "".join(items)


#: The count-floor study (``scripts/false_alarm_table.py``): false alarms per test on
#: stationary logs with few errors, per floor, and the study variants' floor of each of its rows.
FLOOR_CSV = "false_alarms.csv"
FLOOR_ROWS = {"authors": "default (floor 5)", "calibrated": "clamp_min=0, min_expected=5"}


def floors_above_alpha(folder: Path) -> dict[str, tuple[int, int]]:
    """Per count floor, its count-floor cells above α, and its cells: ``(above, cells)``.

    A cell of ``false_alarms.csv`` is above α when its false alarms per test are (the 95 %
    interval's lower end above α).

    Examples
    --------
    >>> floors_above_alpha(Path("no/such/folder"))
    {}
    """
    frame = _read(folder, FLOOR_CSV)
    if frame is None:
        return {}
    out = {}
    for floor, row in FLOOR_ROWS.items():
        cells = frame[frame["variant"] == row]
        out[floor] = (int(cells["above_alpha"].astype(bool).sum()), len(cells))
    return out


def variant_scores(stationary: pd.DataFrame, skip: pd.DataFrame,
                   target: float = TARGET) -> pd.DataFrame:
    """Each variant on the same footing: detection at matched false alarms.

    At each variant's recommended α per classifier (:func:`recommended`), the mean share of
    changes detected within :data:`WITHIN` chunks over classifiers and changes
    (``detected``), and its pooled false alarms per chunk at α = 10⁻³ (``rate_1e3``).

    Examples
    --------
    >>> st = pd.DataFrame({"classifier": "gnb", "seed": 0, "variant": ["a", "a", "b", "b"],
    ...                    "alpha": [0.1, 1e-3] * 2, "alarms": [30, 1, 60, 1],
    ...                    "chunks": 1000, "accuracy": 0.9})
    >>> sk = pd.DataFrame({"classifier": "gnb", "seed": 0, "change": "confidence",
    ...                    "size": 0.5, "variant": ["a", "a", "b", "b"],
    ...                    "alpha": [0.1, 1e-3] * 2, "episodes": 10, "delay_0": [9, 8, 10, 10],
    ...                    "delay_1": 0, "delay_2": 0, "delay_3": 0, "delay_more": 0,
    ...                    "missed": [1, 2, 0, 0], "early": 0})
    >>> variant_scores(st, sk)[["variant", "detected"]].values.tolist()
    [['b', 1.0], ['a', 0.8]]
    """
    pooled = pooled_false_alarms(stationary)
    delays = pooled_delays(skip)
    rec = recommended(pooled, target)
    at = delays.merge(rec, on=["classifier", "variant", "alpha"])
    score = at.groupby("variant", sort=False)["detected"].mean()
    fa = pooled[np.isclose(pooled["alpha"], 1e-3)].groupby("variant", sort=False)[
        ["alarms", "chunks"]].sum()
    out = pd.DataFrame({"variant": list(rec["variant"].unique())})
    out["detected"] = [float(score.get(v, 0.0)) for v in out["variant"]]
    out["rate_1e3"] = [float(fa.loc[v, "alarms"] / fa.loc[v, "chunks"]) if v in fa.index
                       else math.nan for v in out["variant"]]
    at_1e3 = delays[np.isclose(delays["alpha"], 1e-3)].groupby("variant", sort=False)[
        "detected"].mean()
    out["detected_1e3"] = [float(at_1e3.get(v, math.nan)) for v in out["variant"]]
    matched = sorted(rec.dropna(subset=["alpha"])["classifier"].unique())
    out["matched_on"] = _names([CLASSIFIER_NAMES.get(c, c) for c in matched])
    # the best detection at matched false alarms first; then the fewer false alarms at 10⁻³
    return out.sort_values(["detected", "rate_1e3"], ascending=[False, True],
                           kind="stable").reset_index(drop=True)


def effective_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` with ChunkPUDD's default filled in for every option it leaves out.

    Examples
    --------
    >>> effective_options({"clamp_min": 0})["skip_rule"], effective_options({})["clamp_min"]
    ('accuracy', 5)
    """
    import inspect

    from pudd_core.detector import ChunkPUDD

    params = inspect.signature(ChunkPUDD).parameters
    return {name: options.get(name, p.default) for name, p in params.items()
            if name not in ("alpha", "seed")}


def chosen_defaults(folder: Path) -> dict[str, Any] | None:
    """The monitor's PUDD options the committed studies choose (None: no studies yet).

    The variant of :func:`variant_scores` that comes first among those whose count floor
    keeps its false alarms per test at α on the count-floor study's stationary logs with few
    errors (:func:`floors_above_alpha`: no cell above α), as the options it adds to
    ChunkPUDD's defaults (``monitoring.VARIANTS`` holds the monitor's).

    Examples
    --------
    >>> chosen_defaults(Path("no/such/folder")) is None
    True
    """
    from pudd_core.experiments.studies import STUDY_VARIANTS

    st, sk = _read(folder, STATIONARY_CSV), _read(folder, SKIP_CSV)
    if st is None or sk is None:
        return None
    return dict(STUDY_VARIANTS[_candidates(folder, variant_scores(st, sk))[0]])


def _candidates(folder: Path, scores: pd.DataFrame) -> list[str]:
    """The variants of ``scores``, in order, whose floor no count-floor cell puts above α."""
    above = floors_above_alpha(folder)
    kept = [str(v) for v in scores["variant"] if not above.get(str(v).split(",")[0], (0, 0))[0]]
    return kept or [str(v) for v in scores["variant"]]


def _finding_false_alarms(folder: Path) -> str:
    """``studies-false-alarms``: the stationary rate per α, classifier and variant."""
    st = _read(folder, STATIONARY_CSV)
    if st is None:
        return _missing(STATIONARY_CSV)
    p = pooled_false_alarms(st)
    parts = []
    for clf, g in p.groupby("classifier", sort=False):
        spans = []
        for a in SHOWN_ALPHAS:
            r = g[np.isclose(g["alpha"], a)]
            worst = r.loc[r["ci_high"].idxmax()]
            spans.append(f"at {_alpha(a)} {r['rate'].min():.4f} to {r['rate'].max():.4f} "
                         f"(the largest upper 95 % bound {worst['ci_high']:.4f}, "
                         f"{worst['variant']})")
        parts.append(f"{CLASSIFIER_NAMES.get(clf, clf)} ({int(g['seeds'].iloc[0])} seed(s), "
                     f"{int(g['chunks'].iloc[0]):,} chunks, accuracy "
                     f"{100 * g['accuracy'].iloc[0]:.2f} %): " + "; ".join(spans))
    skip = p[np.isclose(p["alpha"], 0.1)].groupby("variant")["alarms"].sum()
    ratio = (skip.get("calibrated, no skip", math.nan)
             / max(skip.get("calibrated, skip rule", 0), 1))
    return ("False alarms per chunk on SEA without drift, over the four variants: "
            + "; ".join(parts) + f". Without the skip rule the calibrated floor raises "
            f"{ratio:.1f} times as many false alarms at {_alpha(1e-1)} (all classifiers "
            f"pooled); at {_alpha(1e-5)} no variant raised one.") if not (
                p[np.isclose(p["alpha"], 1e-5)]["alarms"].sum()) else (
            "False alarms per chunk on SEA without drift, over the four variants: "
            + "; ".join(parts) + f". Without the skip rule the calibrated floor raises "
            f"{ratio:.1f} times as many false alarms at {_alpha(1e-1)} (all classifiers pooled).")


def _finding_skip_rule(folder: Path) -> str:
    """``studies-skip-rule``: delay with and without the skip rule, and what it costs."""
    st, sk = _read(folder, STATIONARY_CSV), _read(folder, SKIP_CSV)
    if st is None or sk is None:
        return _missing(SKIP_CSV)
    d = pooled_delays(sk)
    p = pooled_false_alarms(st)
    d = d[np.isclose(d["alpha"], 1e-3)]
    parts = []
    for (change, size), g in d.groupby(["change", "size"], sort=False):
        both = []
        for v in ("calibrated, skip rule", "calibrated, no skip"):
            r = g[g["variant"] == v]
            det = r["detected"].to_numpy() * r["episodes"].to_numpy()
            both.append(f"{int(det.sum())} of {int(r['episodes'].sum())} "
                        f"({det.sum() / r['episodes'].sum():.0%})")
        what = change.replace('_', '-')
        parts.append(f"{'an' if what[0] == 'e' else 'a'} {what} change of {size:g}: "
                     f"{both[0]} with the skip rule, {both[1]} without")
    fa = p[np.isclose(p["alpha"], 1e-3)].groupby("variant")[["alarms", "chunks"]].sum()
    cost = [f"{int(fa.loc[v, 'alarms'])} in {int(fa.loc[v, 'chunks']):,}"
            for v in ("calibrated, skip rule", "calibrated, no skip")]
    scores = variant_scores(st, sk)
    best = scores.iloc[0]
    listing = "; ".join(f"{r.variant} {r.detected:.0%}" for r in scores.itertuples())
    return (f"Changes caught within {WITHIN} chunks at α = {_alpha(1e-3)} (calibrated floor, all "
            "classifiers pooled): " + "; ".join(parts) + f". The false alarms this costs on "
            f"the stationary stream at {_alpha(1e-3)}: {cost[0]} chunks with the skip rule, "
            f"{cost[1]} without. On the same footing (each variant at the largest α whose "
            f"false-alarm interval stays at or below {TARGET:g} per chunk, per classifier), "
            f"the mean share detected within {WITHIN} chunks over the classifiers and "
            f"changes: {listing}; first: {best['variant']}.")


def _finding_chunk_size(folder: Path) -> str:
    """``studies-chunk-size``: accuracy, delay and false alarms against the chunk size."""
    cs = _read(folder, CHUNK_SIZE_CSV)
    if cs is None:
        return _missing(CHUNK_SIZE_CSV)
    s = chunk_size_summary(cs)
    syn = s[s["drifts"] > 0]
    parts = []
    for a in SHOWN_ALPHAS:
        g = syn[np.isclose(syn["alpha"], a)].groupby("chunk_size")
        if not len(syn[np.isclose(syn["alpha"], a)]):
            continue
        m = g.agg(acc=("accuracy", "mean"), rows=("delay_rows", "mean"),
                  missed=("missed", "mean"), fa=("false_alarms", "mean"),
                  streams=("dataset", "nunique"))
        parts.append(f"at {_alpha(a)}: " + ", ".join(
            f"{size:,} rows {100 * r.acc:.2f} % accuracy, delay {r.rows:,.0f} rows, "
            f"{r.missed:.1f} missed and {r.fa:.1f} false alarms per run"
            for size, r in m.iterrows()))
    real = s[s["drifts"] == 0]
    real_text = "; ".join(
        f"{name} " + ", ".join(f"{r.chunk_size:,}: {100 * r.accuracy:.2f} %"
                               for r in g[np.isclose(g['alpha'], 1e-3)].itertuples())
        for name, g in real.groupby("dataset", sort=False))
    return (f"Means over the synthetic streams run ({_names(sorted(syn['dataset'].unique()))}"
            f"; drifts every 10,000 rows), by chunk size, " + "; ".join(parts)
            + (f". The real streams' accuracy at {_alpha(1e-3)} by chunk size: {real_text}."
               if real_text else "."))


def _finding_defaults(folder: Path) -> str:
    """``studies-defaults``: the monitor's defaults and the numbers that chose them."""
    from pudd_core.monitoring import VARIANTS

    st, sk = _read(folder, STATIONARY_CSV), _read(folder, SKIP_CSV)
    if st is None or sk is None:
        return _missing(SKIP_CSV)
    scores = variant_scores(st, sk)
    chosen = chosen_defaults(folder) or {}
    name = _candidates(folder, scores)[0]
    best = scores[scores["variant"] == name].iloc[0]
    agree = effective_options(chosen) == effective_options(VARIANTS["calibrated"])
    above = floors_above_alpha(folder)
    passed = [r for r in scores.itertuples() if r.variant != name
              and scores["variant"].tolist().index(r.variant) < scores["variant"].tolist().index(
                  name)]
    why = ("" if not passed else " " + "; ".join(
        f"The variant “{r.variant}” catches more here ({r.detected:.0%}), but its floor raises "
        "false alarms "
        f"per test above α in {above[r.variant.split(',')[0]][0]} of "
        f"{above[r.variant.split(',')[0]][1]} cells of the stationary logs with few errors "
        f"(results/false_alarms.md), so it is not a candidate" for r in passed) + ".")
    skip = "none (every cut tested)" if chosen.get("skip_rule", "accuracy") is None else \
        "the authors' accuracy rule"
    floor = ("the calibrated count floor (`clamp_min=0, min_expected=5`)"
             if chosen.get("clamp_min") == 0 else "the authors' count floor of 5")
    others = "; ".join(f"{r.variant} {r.detected:.0%} ({r.detected_1e3:.0%} at {_alpha(1e-3)}, "
                       f"{r.rate_1e3:.4f} false alarms per chunk)"
                       for r in scores.itertuples() if r.variant != name)
    return (f"The committed studies choose {floor} with skip rule {skip} ({name}): the "
            "variant that catches the most injected changes at matched false alarms among "
            "those whose count floor keeps its false alarms at α on stationary logs." + why
            + f" At matched false alarms (each variant at the largest α whose interval stays "
            f"at or below {TARGET:g} per chunk; only {best['matched_on'] or 'no classifier'} "
            f"ran enough chunks to show one) it catches {best['detected']:.0%} of the injected "
            f"changes within {WITHIN} chunks; at the monitor's α = {_alpha(1e-3)}, over every "
            f"classifier and change, {best['detected_1e3']:.0%}, with {best['rate_1e3']:.4f} "
            f"false alarms per chunk. The others: {others}. A tie in detection goes to the "
            f"fewer false alarms at {_alpha(1e-3)}. " + _floors_at_1e3(st, sk) + " "
            + ("The monitor's default variant is this one."
               if agree else "The monitor's default variant is not (yet) this one."))


def _floors_at_1e3(stationary: pd.DataFrame, skip: pd.DataFrame) -> str:
    """The two floors without the skip rule at α = 10⁻³, classifier by classifier."""
    a, c = "authors, no skip", "calibrated, no skip"
    d = pooled_delays(skip)
    d = d[np.isclose(d["alpha"], 1e-3)].groupby(["classifier", "variant"], sort=False)[
        "detected"].mean()
    p = pooled_false_alarms(stationary)
    p = p[np.isclose(p["alpha"], 1e-3)].set_index(["classifier", "variant"])
    parts = [f"{CLASSIFIER_NAMES.get(k, k)} {d[(k, a)]:.0%} against {d[(k, c)]:.0%}, false "
             f"alarms {int(p.loc[(k, a), 'alarms'])} against {int(p.loc[(k, c), 'alarms'])} "
             f"in {int(p.loc[(k, c), 'chunks']):,} chunks"
             for k in p.index.get_level_values(0).unique() if (k, a) in d and (k, c) in d]
    more = [k for k in p.index.get_level_values(0).unique()
            if (k, a) in d and (k, c) in d and d[(k, a)] > d[(k, c)]]
    costly = all(p.loc[(k, a), "alarms"] >= p.loc[(k, c), "alarms"] for k in more)
    matched = set(recommended(pooled_false_alarms(stationary)).dropna(subset=["alpha"])[
        "classifier"])
    few = [k for k in more if k not in matched]
    return (f"Without the skip rule at α = {_alpha(1e-3)}, the changes caught within "
            f"{WITHIN} chunks with the authors' floor against the calibrated one (mean over "
            "the changes): " + "; ".join(parts) + "." + (
                f" Where the authors' floor catches more "
                f"({_names([CLASSIFIER_NAMES.get(k, k) for k in more])}) "
                f"it raises {'as many or more' if costly else 'in places fewer'} false alarms "
                "here, and on logs with rarer errors far more than α (results/false_alarms.md)"
                + (f"; {_names([CLASSIFIER_NAMES.get(k, k) for k in few])} ran too few "
                   "chunks to compare the floors at matched false alarms" if few else "")
                + "." if more else ""))


STUDY_FINDINGS: dict[str, Callable[[Path], str]] = {
    "studies-false-alarms": _finding_false_alarms,
    "studies-skip-rule": _finding_skip_rule,
    "studies-chunk-size": _finding_chunk_size,
    "studies-defaults": _finding_defaults,
}


def _on_reports(finding: Callable[[Path], str]) -> Callable[[Any], str]:
    return lambda reports: finding(reports.folder)


#: The same, as ``findings.FINDINGS`` calls them: with its ``Reports`` (their folder).
REPORT_FINDINGS: dict[str, Callable[[Any], str]] = {
    name: _on_reports(f) for name, f in STUDY_FINDINGS.items()}


def display_tables(folder: Path) -> dict[str, pd.DataFrame]:
    """The committed studies as the Reproduction page shows them: title -> table.

    Only the studies whose CSV is in ``folder``; every number from it.

    Examples
    --------
    >>> display_tables(Path("no/such/folder"))
    {}
    """
    st, sk, cs = (_read(folder, n) for n in (STATIONARY_CSV, SKIP_CSV, CHUNK_SIZE_CSV))
    out: dict[str, pd.DataFrame] = {}
    if st is not None:
        p = pooled_false_alarms(st)
        p = p[p["alpha"].isin(SHOWN_ALPHAS)]
        out["False alarms per chunk without drift"] = pd.DataFrame({
            "classifier": p["classifier"].map(lambda c: CLASSIFIER_NAMES.get(c, c)),
            "variant": p["variant"], "α": p["alpha"].map(_alpha),
            "false alarms": p["alarms"], "chunks": p["chunks"], "per chunk": p["rate"],
            "95 % low": p["ci_low"], "95 % high": p["ci_high"]})
    if st is not None and sk is not None:
        t = tradeoff(st, sk)
        out[f"Each variant at the largest α keeping false alarms ≤ {TARGET:g} per chunk "
            "(confidence shift 0.5)"] = pd.DataFrame({
                "classifier": t["classifier"].map(lambda c: CLASSIFIER_NAMES.get(c, c)),
                "variant": t["variant"], "α": t["alpha"], "per chunk": t["rate"],
                "95 % high": t["ci_high"], f"caught within {WITHIN}": t["detected"],
                "median delay": t["median_delay"]})
    if cs is not None:
        s = chunk_size_summary(cs)
        out["Chunk size: accuracy, alarms and delay on the paper's streams"] = pd.DataFrame({
            "stream": s["dataset"], "chunk size": s["chunk_size"], "α": s["alpha"].map(_alpha),
            "seeds": s["seeds"], "accuracy %": 100 * s["accuracy"], "alarms": s["alarms"],
            "missed": s["missed"], "false alarms": s["false_alarms"],
            "delay (chunks)": s["delay_chunks"], "delay (rows)": s["delay_rows"]})
    return out
