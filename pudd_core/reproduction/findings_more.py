"""More of the generated findings: limits, delays and the real streams' alarm timelines.

The limits stated where numbers are shown (issue 36 item 8), the delays as distributions
(item 6) and the alarm timelines on the real streams (item 7). Each function takes a
:class:`~pudd_core.reproduction.findings.Reports` and returns the text of one
``<!-- finding: NAME -->`` block; :data:`MORE` names them, and ``findings.FINDINGS`` takes
them in.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pudd_core._format import power_of_ten
from pudd_core.paper import DISPLAY_NAMES, PUDD_DETECTORS, paper_table

if TYPE_CHECKING:
    from pudd_core.reproduction.findings import Reports

__all__ = ["MORE", "feature_shift"]

#: The reports that run the oracle, with how the findings name them.
_WITH_ORACLE = (("gnb100", "GNB, 100 seeds"), ("gnb", "GNB"), ("vfdt", "VFDT"),
                ("dnn", "DNN (frozen head)"), ("dnn_fixed", "DNN (fixed head)"),
                ("table2", "the 5-DNN ensemble"))


def _name(x: str) -> str:
    if x.startswith("pudd-"):
        return x.upper()
    if "@" in x:
        det, value = x.split("@")
        return f"{DISPLAY_NAMES.get(det, det)} at {value}"
    return DISPLAY_NAMES.get(x, x)


def _words(names: list[str]) -> str:
    return (", ".join(names[:-1]) + " and " + names[-1]) if len(names) > 1 else "".join(names)


def feature_shift(dataset: str, seed: int = 0) -> float:
    """Whether a stream's features move at its first true drift: a KS test's smallest p.

    The smallest two-sample KS p-value over the features, Bonferroni-adjusted (times their
    number), between the chunks either side of the first drift (a small value: the features'
    distribution moved).

    >>> feature_shift("sine") > 0.01, feature_shift("sea0") > 0.01
    (True, True)
    """
    from scipy import stats

    from pudd_core.streams import load_stream

    stream = load_stream(dataset, seed=seed, n_chunks=12)
    if not stream.drift_chunks:
        raise ValueError(f"{dataset}: no known drift in its first 12 chunks")
    d = stream.drift_chunks[0]
    before, after = stream.chunk(d - 1)[0], stream.chunk(d)[0]
    k = before.shape[1]
    smallest = min(float(stats.ks_2samp(before[:, j], after[:, j]).pvalue) for j in range(k))
    return float(min(1.0, k * smallest))


def _mcdd_note(r: Reports) -> str:
    """Why the paper's MCD-DD numbers on mixed and sine cannot be a features-only detector's."""
    cells = r.table2.cells.set_index(["detector", "dataset"])
    paper = paper_table(2).set_index(["detector", "dataset"])["accuracy"]
    parts, shifts = [], []
    for d in ("mixed", "sine"):
        none, mcdd = cells.loc[("none", d)], cells.loc[("mcd-dd", d)]
        oracle = cells.loc[("oracle", d)]
        theirs = float(paper[("mcd-dd", d)])
        parts.append(f"{d}: the paper's MCD-DD {theirs:.2f}, our ensemble that never adapts "
                     f"{none['ours']:.2f} ({theirs - none['ours']:+.2f}), our MCD-DD "
                     f"{mcdd['ours']:.2f} with {mcdd['alarms']:.1f} alarms per run, the oracle "
                     f"{oracle['ours']:.2f}")
        shifts.append(f"{d} {feature_shift(d):.2f}")
    return ("The paper's MCD-DD numbers on mixed and sine cannot come from a detector that "
            "reads only the features at the true drifts: on these streams the features are "
            "drawn alike whatever the concept (only the labelling changes; two-sample KS "
            "tests of each feature between the chunks either side of the first drift, seed "
            f"0, the smallest p, Bonferroni-adjusted: {', '.join(shifts)}). Such a detector's "
            "alarms fall where the "
            "features happen to differ, not at the drifts; without alarms its ensemble is the "
            "one that never adapts. " + "; ".join(parts) + ". The paper's two numbers sit "
            "between doing nothing and the oracle; a features-only detector gets there only "
            "by false alarms that happen to follow the label flips.")


def _oracle_policies(r: Reports) -> str:
    """The oracle is one row for both adaptation policies, and not an upper bound."""
    above, total, where, alike = 0, 0, [], 0
    for attr, label in _WITH_ORACLE:
        cells = getattr(r, attr).cells
        options = {d: set(cells.loc[cells["detector"] == d, "classifier_options"].fillna(""))
                   for d in ("oracle", *PUDD_DETECTORS)}
        alike += all(options[d] == options["oracle"] for d in PUDD_DETECTORS)
        oracle = cells[cells["detector"] == "oracle"][["dataset", "regime", "ours"]]
        pudd = cells[cells["detector"].isin(PUDD_DETECTORS)].merge(
            oracle.rename(columns={"ours": "oracle"}), on=["dataset", "regime"])
        gap = (pudd["ours"].round(2) - pudd["oracle"].round(2)).round(2)
        total += len(pudd)
        above += int((gap > 0).sum())
        if (gap > 0).any():
            best = pudd.loc[gap.idxmax()]
            where.append(f"{label} {int((gap > 0).sum())} of {len(pudd)} (most: "
                         f"{_name(best['detector'])} {_name(best['dataset'])}-"
                         f"{'I' if best['regime'] == 'incremental' else 'O'}, "
                         f"{gap.max():+.2f})")
    return (f"The oracle alarms on the first chunk of each new concept, so the window since "
            "the drift is that one chunk: PUDD's policy (retrain on the window after its cut) "
            "and the baselines' (retrain on the current chunk) give the oracle the same "
            "retraining, and one oracle row is the oracle of both (tests/reproduction/"
            "test_references.py runs both and compares); in "
            f"{alike} of the {len(_WITH_ORACLE)} reports the oracle runs with the PUDD rows' "
            "classifier options (the DNN's frozen head included). It is not \"PUDD with perfect "
            f"detection\" in one respect: a PUDD alarm k chunks late retrains on k + 1 chunks "
            f"of the new concept, and {above} of the {total} PUDD cells beside an oracle are "
            f"above it: {'; '.join(where)}.")


def _range(values: pd.Series, fmt: str = "{:g}") -> str:
    lo, hi = values.min(), values.max()
    return fmt.format(lo) if lo == hi else f"{fmt.format(lo)}-{fmt.format(hi)}"


def _median_range(lo: float, mid: float, hi: float, fmt: str = "{:g}") -> str:
    """``median`` alone when every seed agrees, else ``median (lo-hi)``."""
    return fmt.format(mid) if lo == hi else f"{fmt.format(mid)} ({fmt.format(lo)}-{fmt.format(hi)})"


def _timeline_data(r: Reports) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    from pudd_core.reproduction.timelines import timeline_summary

    runs = pd.read_csv(r.folder / "timelines_runs.csv")
    events = pd.read_csv(r.folder / "timelines_events.csv").fillna({"events": ""})
    return runs, events, timeline_summary(runs, events)


def _timelines(r: Reports) -> str:
    """The real streams' alarms beside their calendars (``timelines_runs.csv``), over seeds."""
    from pudd_core.reproduction.timelines import timeline_spread

    runs, events, summary = _timeline_data(r)
    spread = timeline_spread(summary)
    by_classifier = {c: runs[runs["classifier"] == c] for c in runs["classifier"].unique()}
    per = [f"{_name(c)} on {', '.join(_name(d) for d in part['dataset'].unique())}"
           f" ({_seeds_of(part)})" for c, part in by_classifier.items()]
    same = runs.groupby("detector")["same_every_seed"].all() if "same_every_seed" in runs else None
    drawing = [d for d in runs["detector"].unique() if same is not None and not same[d]]
    differ = (runs[runs["detector"].isin(drawing)].groupby(["detector", "classifier", "dataset"],
                                                           sort=False)["alarms"].nunique())
    moved = _words([f"{_name(d)} with {_name(c)} on {_name(ds)} ({n} different sets)"
                    for (d, c, ds), n in differ[differ > 1].items()])
    out = [f"Incremental (-I) runs of {_words(per)}, PUDD-1/3/5 and the seven classic detectors. "
           + (f"On these streams the data are never drawn and the classifiers ignore the seed, "
              f"so only {_words([_name(d) for d in drawing])} draw on it (PUDD its bucketing "
              "sample, KSWIN its window sample); each other detector is one run, the same at "
              "every seed. Over the seeds the alarms differ "
              + (f"only for {moved}" if moved else "for none of them")
              + "; every other run gives the same alarms at every seed. " if drawing else "")
           + "An alarm is near an event when it is on the event's chunk or the next; chance is "
           "what as many alarms on random tested chunks would give, and p the chance of at "
           "least as many near (hypergeometric)."]
    for dataset in runs["dataset"].unique():
        ev = events[events["dataset"] == dataset]
        known = ev[ev["events"] != ""]
        n = int(runs[runs["dataset"] == dataset]["n_chunks"].iloc[0])
        text = f"{_name(dataset)} ({n} chunks, {ev['first'].iloc[0]} to {ev['last'].iloc[-1]})"
        if known.empty:
            first = runs[(runs["dataset"] == dataset)]
            parts = []
            for c in first["classifier"].unique():
                mine = first[first["classifier"] == c]
                s0 = mine[mine["seed"] == mine["seed"].min()]
                alarms = {row["detector"]: json.loads(row["alarms"]) for row in
                          s0.to_dict("records")}
                counts = summary[(summary["dataset"] == dataset) & (summary["classifier"] == c)]
                pudd_counts = counts[counts["detector"].isin(PUDD_DETECTORS)]
                classic = counts[~counts["detector"].isin(PUDD_DETECTORS)]
                parts.append(
                    f"with {_name(c)} at seed {int(s0['seed'].iloc[0])}, PUDD-1/3/5 alarm at "
                    "chunks " + ", ".join(f"{_name(d)} {', '.join(map(str, alarms[d])) or 'none'}"
                                          for d in PUDD_DETECTORS)
                    + f" (over the seeds {_range(pudd_counts['alarms'])} alarms), the classic "
                    f"detectors {_range(classic['alarms'])} alarms")
            text += (": its card gives no dates, so there is no event to set alarms beside; "
                     + "; ".join(parts) + ".")
        else:
            if dataset == "elec2":
                days = (pd.Timestamp(ev["first"].iloc[-1]) - pd.Timestamp(ev["first"].iloc[0])
                        ).days / (len(ev) - 1)
                text += (f"; a chunk spans about {days:.1f} days, so the weekday/weekend "
                         "cycle repeats inside every chunk and is no chunk-level event")
            text += ": " + "; ".join(f"chunk {c} {e}" for c, e in
                                     zip(known["chunk"], known["events"], strict=True))
            parts = []
            for c in runs[runs["dataset"] == dataset]["classifier"].unique():
                rows = spread[(spread["dataset"] == dataset) & (spread["classifier"] == c)]
                rows = rows.set_index("detector")
                pudd = rows.loc[[d for d in PUDD_DETECTORS if d in rows.index]]
                classic = rows.drop(index=pudd.index)
                seeds = int(rows["seeds"].max())
                parts.append(
                    f"with {_name(c)} ({seeds} seed{'s' if seeds > 1 else ''}), "
                    + ", ".join(f"{_name(d)} has "
                                f"{_median_range(x.near_min, x.near_median, x.near_max)} of "
                                f"{_median_range(x.alarms_min, x.alarms_median, x.alarms_max)}"
                                f" alarms near an event ({x.chance:.2f} by chance; p < 0.05 at "
                                f"{x.significant} of {x.seeds} seeds)"
                                for d, x in pudd.iterrows())
                    + f"; the classic detectors {100 * classic['share'].min():.0f}-"
                    f"{100 * classic['share'].max():.0f} % of their alarms near one, against "
                    f"{100 * rows['chance_share'].iloc[0]:.0f} % by chance, p < 0.05 at "
                    f"{int(classic['significant'].sum())} of {int(classic['seeds'].sum())} "
                    f"({len(classic)} detectors × {seeds} seeds)")
            text += ". Medians over the seeds (the range in brackets): " + "; ".join(parts) + "."
        out.append(text)
    return " ".join(out)


def _timelines_table(r: Reports) -> str:
    """Per stream with events, classifier and detector: the near counts' spread over seeds."""
    from pudd_core.reproduction.timelines import timeline_spread

    _, _, summary = _timeline_data(r)
    spread = timeline_spread(summary)
    order = {d: i for i, d in enumerate(dict.fromkeys(spread["dataset"]))}
    spread = spread.sort_values("dataset", key=lambda col: col.map(order), kind="stable")
    lines = ["| stream | classifier | detector | seeds | alarms | near an event | by chance | "
             "share near (chance) | seeds with p < 0.05 |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for x in spread.itertuples(index=False):
        share = "—" if x.share != x.share else f"{100 * x.share:.0f} %"
        lines.append(
            f"| {_name(x.dataset)} | {_name(x.classifier)} | {_name(x.detector)} | {x.seeds} | "
            f"{_median_range(x.alarms_min, x.alarms_median, x.alarms_max)} | "
            f"{_median_range(x.near_min, x.near_median, x.near_max)} | {x.chance:.2f} | "
            f"{share} ({100 * x.chance_share:.0f} %) | {x.significant} |")
    return "\n".join(lines)


#: The delay study's stream groups: the synthetic streams (GNB) and CIFAR-10-CD.
_GROUPS = (("synthetic", "the synthetic streams"), ("cifar10-cd", "CIFAR-10-CD"))


def _delay_groups(r: Reports) -> list[tuple[str, pd.DataFrame]]:
    from pudd_core.reproduction.delays import read_runs

    runs = read_runs(r.folder / "delays_runs.csv")
    cifar = runs["dataset"] == "cifar10-cd"
    return [(label, part) for (_, label), part in zip(_GROUPS, (runs[~cifar], runs[cifar]),
                                                     strict=True) if len(part)]


def _seeds_of(part: pd.DataFrame) -> str:
    seeds = sorted(part["seed"].unique().tolist())
    if len(seeds) == 1:
        return f"seed {seeds[0]}"
    return (f"seeds {seeds[0]}-{seeds[-1]}" if seeds == list(range(seeds[0], seeds[-1] + 1))
            else "seeds " + ", ".join(map(str, seeds)))


def _delays_table(r: Reports) -> str:
    """Per stream group and detector (the tables' thresholds): the delays' distribution."""
    from pudd_core.reproduction.delays import study_tables

    lines = ["| streams | detector | drifts | detected | early (≤ 2) | median | 75 % | 90 % | "
             "max | false alarms per run |", "| --- | --- | ---: | ---: | ---: | ---: | ---: | "
             "---: | ---: | ---: |"]
    for label, part in _delay_groups(r):
        _, summary, curve = study_tables(part)
        fa = curve.set_index("row")["false_alarms"]
        for row in summary.itertuples(index=False):
            q = [f"{v:.0f}" if v == v else "—" for v in (row.median, row.q75, row.q90, row.max)]
            lines.append(f"| {label} | {_name(row.row)} | {row.drifts} | {row.detected} | "
                         f"{row.early} | {' | '.join(q)} | {fa[row.row]:.1f} |")
    return "\n".join(lines)


def _delays_paired(r: Reports) -> str:
    """Who detects each drift first (paired tests), and the trade-off read at PUDD's points."""
    from pudd_core.reproduction.delays import first_against, matched_early, study_tables

    out = []
    for label, part in _delay_groups(r):
        delays, summary, curve = study_tables(part)
        rows = summary["row"].tolist()
        pudd = max((p for p in PUDD_DETECTORS if p in rows),
                   key=lambda p: int(summary.set_index("row").loc[p, "early"]))
        others = [x for x in rows if x != pudd]
        paired = first_against(delays, pudd, others)
        n_runs = part.groupby(["dataset", "seed"]).ngroups
        text = (f"On {label} ({', '.join(sorted(part['dataset'].unique()))}, "
                f"{_seeds_of(part)}: {n_runs} stream{'s' if n_runs > 1 else ''}, "
                f"{len(delays) // len(rows)} drifts), "
                f"{_name(pudd)} (the PUDD row with the most early detections) against each "
                "other row, drift by drift: first-detected won-lost (ties), sign-test p "
                "Holm-adjusted, and the Wilcoxon signed-rank p of the delays where both "
                "detected: " + "; ".join(
                    f"{_name(q.b)} {q.first_a}-{q.first_b} ({q.ties}), p = {q.sign_p_holm:.2g}"
                    + (f", Wilcoxon p = {q.wilcoxon_p:.2g} over {q.both}"
                       if q.wilcoxon_p == q.wilcoxon_p else "")
                    for q in paired.itertuples(index=False)) + ".")
        reads = []
        for p in (x for x in PUDD_DETECTORS if x in rows):
            at = curve[curve["row"] == p].iloc[0]
            best = matched_early(curve, p).dropna(subset=["early"])
            if len(best):
                top = best.loc[best["early"].idxmax()]
                reads.append(f"at {_name(p)}'s {at['false_alarms']:.1f} false alarms per run "
                             f"({int(at['early'])} of {int(at['drifts'])} early) the best other "
                             f"threshold with no more is {_name(str(top['row']))} "
                             f"({int(top['early'])} early)")
        if reads:
            text += (" Over each detector's thresholds (the trade-off curve): "
                     + "; ".join(reads) + ".")
        ks = curve[curve["detector"] == "kswin"].sort_values("value", ascending=False)
        if len(ks) > 1:
            text += (" KSWIN over its alpha, from the most alarms to the fewest: "
                     + "; ".join(f"at {x.value:g} {int(x.early)} of {int(x.drifts)} early, "
                                 f"{x.false_alarms:.1f} false alarms per run"
                                 for x in ks.itertuples(index=False)) + ".")
        if label == "CIFAR-10-CD":
            table = r.cifar.set_index("detector")
            points = [f"{_name(d)} {int(table.loc[d, 'early'])} of {int(table.loc[d, 'drifts'])}"
                      f" early at {table.loc[d, 'false_alarms']:.1f} false alarms per run"
                      for d in rows if d in table.index]
            text += (" The CIFAR comparison's own runs (`cifar10_cd.md`, "
                     f"{int(table['n_seeds'].max())} seeds, each run adapting after its alarms, "
                     "so no two see the same predictions) give one point per detector: "
                     + "; ".join(points) + ".")
        out.append(text)
    return " ".join(out)


def _fig5_table(r: Reports) -> pd.DataFrame:
    from pudd_core.reproduction.claims import comparison_table

    return comparison_table(r.ours, "fig5")[0]


def fig5(r: Reports) -> str:
    """The EK ablation: GNB means, the paired tests, the Friedman/Nemenyi test."""
    from pudd_core.reproduction.claims import FIG5
    from pudd_core.reproduction.significance import friedman_nemenyi, holm, wilcoxon_pair

    cells = r.ours[(r.ours["table"] == FIG5)]
    gnb = cells[(cells["classifier"] == "gnb") & (cells["regime"] == "incremental")]
    means = gnb.groupby("detector")["accuracy"].mean()
    gnb_text = ", ".join(f"{means[f'pudd-{x}']:.2f} vs {means[f'ek-{x}']:.2f} at {power_of_ten(-x)}"
                         for x in (1, 3, 5))
    wide = _fig5_table(r)
    pairs = [wilcoxon_pair(wide, f"pudd-{x}", f"ek-{x}", "greater") for x in (1, 3, 5)]
    adjusted = holm([p.p_value for p in pairs[1:]])
    pair_text = "; ".join(f"PUDD-{x} against EK-{x} {p.wins}-{p.losses} (p = {p.p_value:.2g})"
                          for x, p in zip((1, 3, 5), pairs, strict=True))
    res = friedman_nemenyi(wide, blocks="cases")
    nemenyi = ", ".join(f"PUDD-{x}/EK-{x} {abs(res.ranks[f'pudd-{x}'] - res.ranks[f'ek-{x}']):.2f}"
                        for x in (3, 5))
    under = all(not res.differs(f"pudd-{x}", f"ek-{x}") for x in (3, 5))
    no_dnn = wide[wide.index.get_level_values("classifier") != "dnn"]
    nd = [wilcoxon_pair(no_dnn, f"pudd-{x}", f"ek-{x}", "greater") for x in (3, 5)]
    return (f"GNB -I means over the datasets, PUDD vs EK: {gnb_text}. Over the {len(wide)} "
            f"cases, one-sided Wilcoxon (wins-losses): {pair_text}; at {power_of_ten(-3)} and "
            f"{power_of_ten(-5)} Holm-adjusted p = {adjusted[0]:.2g} and {adjusted[1]:.2g}. The "
            f"test behind the "
            f"CD diagram: Friedman p = {res.p_value:.2g}, Nemenyi differences {nemenyi} "
            f"{'both under' if under else 'against'} CD = {res.critical_difference:.2f}. Without "
            f"the DNN ({len(no_dnn)} cases): PUDD-3 vs EK-3 p = {nd[0].p_value:.2g}, PUDD-5 vs "
            f"EK-5 p = {nd[1].p_value:.2g}.")


MORE: dict[str, Callable[[Reports], str]] = {
    "fig5": fig5,
    "mcdd-note": _mcdd_note,
    "oracle-policies": _oracle_policies,
    "timelines": _timelines,
    "timelines-table": _timelines_table,
    "delays-table": _delays_table,
    "delays-paired": _delays_paired,
}


def _json_list(text: str) -> list[int]:
    return [int(v) for v in json.loads(text)]


_ = (math, np, pd, _json_list, _words)
