"""The runs behind the paper's Tables 1 and 2, and the names and seed lists a report gives them.

:func:`reproduction_configs` lists the runs; any executor runs them (``experiments.grid``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from pudd_core import _options, _validation
from pudd_core.experiments.baselines import ALIASES
from pudd_core.experiments.detectors import DETECTORS, needs_drifts, takes_alpha
from pudd_core.experiments.runner import RunConfig
from pudd_core.paper import (
    LAYOUTS,
    PUDD_DETECTORS,
    REFERENCES,
    SOTA_DETECTORS,
    SOTA_LEARNERS,
    SOTA_NOT_RUN,
    Regime,
    TableLayout,
)
from pudd_core.streams import drifts_known

if TYPE_CHECKING:

    pass

__all__ = [
    "ACCEPTANCE_DATASETS",
    "detector_label",
    "parse_seed_text",
    "reproduction_configs",
    "seed_text",
    "setting_text",
    "table_layout",
]

#: Datasets of the acceptance check: all but airline, whose file is a substitute.
ACCEPTANCE_DATASETS = ("sea0", "sea10", "sea20", "sine", "mixed", "elec2", "powersupply")


def table_layout(table: int, classifier: str) -> TableLayout:
    """The layout of paper table ``table`` (1 or 2), checked to have ``classifier``.

    Examples
    --------
    >>> table_layout(2, "dnn-ensemble").datasets == table_layout(1, "gnb").datasets
    True
    >>> table_layout(3, "gnb")
    Traceback (most recent call last):
    ...
    ValueError: unknown table 3; choose 1 (classic detectors) or 2 (SOTA)
    """
    layout = LAYOUTS.get(table) if isinstance(table, int) else None
    if layout is None:
        raise ValueError(f"unknown table {table!r}; choose 1 (classic detectors) or 2 (SOTA)")
    if classifier not in layout.classifiers:
        raise ValueError(f"table {table} has classifier(s) {', '.join(layout.classifiers)}, "
                         f"not {classifier!r}")
    return layout


def _choose(kind: str, chosen: str | Sequence[str] | None, allowed: Sequence[str]) -> list[str]:
    if chosen is None:
        return list(allowed)
    names = [chosen] if isinstance(chosen, str) else list(chosen)
    unknown = [n for n in names if n not in allowed]
    if unknown or not names:
        raise _validation.ParameterError(
            f"{kind}s", f"{kind}s must be among {', '.join(allowed)}; got {names!r}", allowed)
    return [n for n in allowed if n in names]  # the table's order, duplicates dropped


def reproduction_configs(
    table: int,
    classifier: str,
    seeds: int | Sequence[int],
    *,
    datasets: Sequence[str] | None = None,
    detectors: Sequence[str] | None = None,
    regimes: Sequence[str] | None = None,
    n_chunks: int | None = None,
    reproduce_frozen_head: bool = False,
) -> list[RunConfig]:
    """The runs behind one of the paper's tables, for one classifier.

    Table 1 (with the appendix's sea10/sea20): every dataset × regime × detector × seed,
    PUDD-x as ``RunConfig(detector="pudd", alpha=10**-x)``, each baseline by name with river's
    defaults. Table 2, incremental only (the readme's command): the 5-DNN ensemble
    (``"dnn-ensemble"``) with PUDD-1/3/5 and with the SOTA detectors (MCD-DD), and the SOTA
    learners (AMF, NS, ADLTER) as ``RunConfig(dataset, name, detector="none")``; IWE is not
    run (``pudd_core.paper.SOTA_NOT_RUN`` says why). Both tables add the reference rows
    ``none`` (the same model with no detector: it never adapts) and ``oracle`` (it adapts
    exactly at the true drifts, on synthetic streams only).

    Parameters
    ----------
    table
        1 or 2.
    classifier
        ``"dnn"``, ``"gnb"`` or ``"vfdt"`` for table 1; ``"dnn-ensemble"`` for table 2.
    seeds
        A count *n* (seeds ``0 .. n - 1``; the paper uses 100) or the seeds themselves.
    datasets, detectors, regimes
        Subsets in our names (default: all of the table, and both reference rows). KSWIN,
        river's per-instance KS test, costs about 60 s per 100-chunk GNB episode;
        ``detectors=`` can leave it out.
    n_chunks
        Shorter streams for a quick look (default: the paper's lengths).
    reproduce_frozen_head
        DNN only: reproduce the authors' frozen-head bug, which produced the published DNN
        numbers (spec §8.1); off by default, the fixed adaptation.

    Examples
    --------
    >>> cfgs = reproduction_configs(1, "gnb", 10, detectors=["ddm", "pudd-3"])
    >>> len(cfgs), cfgs[0].dataset, cfgs[-1].dataset
    (320, 'airline', 'sea20')
    >>> sorted({(c.detector, c.alpha) for c in cfgs})
    [('ddm', 0.001), ('pudd', 0.001)]
    >>> [(c.classifier, c.detector, c.alpha) for c in reproduction_configs(
    ...     2, "dnn-ensemble", [7], datasets=["sine"], detectors=["amf", "ns", "pudd-3"])]
    [('amf', 'none', 0.001), ('ns', 'none', 0.001), ('dnn-ensemble', 'pudd', 0.001)]

    The reference rows (:data:`~pudd_core.paper.REFERENCES`), run by default: the same model
    with no detector, and the oracle, only on streams whose drifts are known:

    >>> [(c.dataset, c.classifier, c.detector) for c in reproduction_configs(
    ...     1, "gnb", [0], datasets=["elec2", "sea0"], regimes=["incremental"],
    ...     detectors=["none", "oracle"])]
    [('elec2', 'gnb', 'none'), ('sea0', 'gnb', 'none'), ('sea0', 'gnb', 'oracle')]
    """
    layout = table_layout(table, classifier)
    if isinstance(seeds, bool) or (isinstance(seeds, int) and seeds < 1):
        raise ValueError(f"seeds must be a positive count or a list of seeds, got {seeds!r}")
    seed_list = list(range(seeds)) if isinstance(seeds, int) else [int(s) for s in seeds]
    if not seed_list or min(seed_list) < 0 or len(set(seed_list)) != len(seed_list):
        raise ValueError(f"seeds must be distinct non-negative integers, got {seeds!r}")
    if reproduce_frozen_head and classifier != "dnn":
        raise ValueError("reproduce_frozen_head applies to classifier 'dnn' only")
    runnable = [d for d in layout.detectors
                if d not in SOTA_NOT_RUN and (d not in SOTA_DETECTORS or d in DETECTORS)]
    options = (("reproduce_frozen_head", True),) if reproduce_frozen_head else ()
    out = []
    for dataset in _choose("dataset", datasets, layout.datasets):
        for regime in _choose("regime", regimes, layout.regimes):
            for name in _choose("detector", detectors, [*runnable, *REFERENCES]):
                if needs_drifts(name) and not drifts_known(dataset):
                    continue  # a real stream: no true drifts to adapt at
                pudd = name in PUDD_DETECTORS
                learner = name in SOTA_LEARNERS
                cfgs = [RunConfig(
                    dataset, name if learner else classifier,
                    "none" if learner else "pudd" if pudd else name,
                    alpha=float(f"1e-{name[5:]}") if pudd else RunConfig.alpha,
                    regime=cast(Regime, regime),
                    seed=seed, n_chunks=n_chunks, classifier_options=options,
                ) for seed in seed_list]
                cfgs[0].validate()  # the seed changes nothing that validate() checks
                out.extend(cfgs)
    if not out:
        raise _validation.ParameterError(
            "detectors", "nothing to run: the oracle adapts at a stream's true drifts, and "
                         f"{', '.join(datasets or ())} has none known; add a synthetic "
                         "dataset or another detector")
    return out


def detector_label(detector: str, alpha: float) -> str:
    """The paper's row name of a run: PUDD-x for PUDD with ``alpha = 10**-x``, else the name.

    Examples
    --------
    >>> detector_label("pudd", 1e-3), detector_label("ph", 1e-3), detector_label("pudd", 0.05)
    ('pudd-3', 'pagehinkley', 'pudd@0.05')
    """
    detector = ALIASES.get(detector, detector)
    if detector not in DETECTORS or not takes_alpha(detector):
        return detector
    x = -math.log10(alpha)
    return f"{detector}-{round(x)}" if abs(x - round(x)) < 1e-9 else f"{detector}@{alpha:g}"


def setting_text(name: str, value: Any) -> str:
    """One canonical string per setting value, whatever the store's encoding.

    Examples
    --------
    >>> setting_text("n_chunks", None), setting_text("detector_options", "{}")
    ('default', '{}')
    """
    import pandas as pd

    if not isinstance(value, str | tuple | list | dict) and pd.isna(value):
        return "default"  # None, NaN or pd.NA: Parquet's null for "the stream's default"
    if name.endswith("_options"):
        if isinstance(value, str):
            parsed = _options.read_options_json(value)  # older stores: str(dict) in error rows
            if parsed is None:
                return value
            value = parsed
        return _options.options_json(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value.item() if hasattr(value, "item") else value)


def seed_text(seeds: Sequence[int]) -> str:
    """``[0, 1, 2, 5]`` -> ``"0-2, 5"``: seeds as every report writes them (none: "none").

    Examples
    --------
    >>> seed_text([5, 0, 1, 2]), seed_text([0, 3]), seed_text([])
    ('0-2, 5', '0, 3', 'none')
    """
    parts: list[str] = []
    for s in sorted(seeds):
        if parts and parts[-1].split("-")[-1] == str(s - 1):
            parts[-1] = f"{parts[-1].split('-')[0]}-{s}"
        else:
            parts.append(str(s))
    return ", ".join(parts) if parts else "none"


def parse_seed_text(text: str) -> frozenset[int]:
    """``"0-2, 5"`` -> ``{0, 1, 2, 5}``: the inverse of :func:`seed_text` (``""``: none).

    Examples
    --------
    >>> sorted(parse_seed_text("0-2, 5")), parse_seed_text("")
    ([0, 1, 2, 5], frozenset())
    """
    seeds: set[int] = set()
    for part in (p.strip() for p in text.split(",")):
        if not part or part == "none":
            continue
        first, _, last = part.partition("-")
        if not first.isdigit() or not (last.isdigit() or not last):
            raise ValueError(f"seeds {text!r} are not like '0-2, 5'")
        seeds.update(range(int(first), int(last or first) + 1))
    return frozenset(seeds)
