"""The paper's published accuracies (Tables 1 and 2 and their appendix twins), by name.

The numbers live in ``pudd_core/paper/tables.toml``, transcribed from the LaTeX source;
``tests/test_paper.py`` re-parses the ``.tex`` and checks every one.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, get_args

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CLASSIC_DETECTORS",
    "DATASETS",
    "DISPLAY_NAMES",
    "LAYOUTS",
    "PUDD_DETECTORS",
    "REFERENCES",
    "REGIMES",
    "Regime",
    "RowRole",
    "SOTA_DETECTORS",
    "SOTA_LEARNERS",
    "SOTA_METHODS",
    "SOTA_NOT_RUN",
    "PaperEntry",
    "TableLayout",
    "paper_accuracy",
    "paper_entries",
    "paper_table",
    "row_role",
]

#: Dataset names of the tables, in the paper's column order (``ps`` is ``powersupply``).
DATASETS = ("airline", "elec2", "mixed", "powersupply", "sea0", "sine", "sea10", "sea20")
#: The seven river baselines of Table 1, in the paper's row order.
CLASSIC_DETECTORS = ("adwin", "ddm", "eddm", "hddma", "hddmw", "kswin", "pagehinkley")
#: PUDD-x is PUDD with ``alpha = 10**-x``.
PUDD_DETECTORS = ("pudd-1", "pudd-3", "pudd-5")
#: The SOTA methods of Table 2, in the paper's row order.
SOTA_METHODS = ("amf", "iwe", "ns", "adlter", "mcd-dd")
#: The reference rows every comparison of ours adds (the paper has none): the same model never
#: adapted (``"none"``: no detector) and adapted exactly at the stream's true drifts
#: (``"oracle"``, only where they are known). Shown beside the ranking, never ranked.
REFERENCES = ("none", "oracle")
#: A training regime: ``-I`` (test then train on every chunk) or ``-O`` (train at the start and
#: at alarms only). The one source of the regime names: ``RunConfig.regime``, the CLI's
#: ``--regime`` and the app's controls all take theirs from here.
Regime = Literal["incremental", "train-once"]
#: The regimes, in the paper's order.
REGIMES: tuple[Regime, ...] = get_args(Regime)
#: SOTA methods that are learners adapting by themselves: run as ``RunConfig(dataset, name,
#: detector="none")``, shown as their own row of Table 2.
SOTA_LEARNERS = ("amf", "ns", "adlter")
#: SOTA methods run as a detector resetting Table 2's 5-DNN ensemble, like PUDD.
SOTA_DETECTORS = ("mcd-dd",)
#: What a row of a table of accuracies is (:func:`row_role`).
RowRole = Literal["reference", "learner", "detector"]


def row_role(name: str) -> RowRole:
    """What row ``name`` of a table of accuracies is: the one rule every comparison follows.

    ``"reference"`` (:data:`REFERENCES`: no detector, the oracle): shown beside a ranking,
    never ranked, never counted. ``"learner"`` (:data:`SOTA_LEARNERS`: AMF, NS, ADLTER adapt
    by themselves and raise no alarms): ranked as one of Table 2's methods, as the paper
    ranks them, never counted as a detector (whose alarms pay or not). ``"detector"``: every
    other row (PUDD-x, EK-x, the classic detectors, MCD-DD).

    Examples
    --------
    >>> [row_role(n) for n in ("oracle", "none", "ns", "pudd-3", "mcd-dd", "ek-5")]
    ['reference', 'reference', 'learner', 'detector', 'detector', 'detector']
    """
    if name in REFERENCES:
        return "reference"
    return "learner" if name in SOTA_LEARNERS else "detector"

#: SOTA methods not run here -> why; their Table 2 rows are the paper's numbers only.
SOTA_NOT_RUN: Mapping[str, str] = MappingProxyType({
    "iwe": "IWE (Jiao et al., IEEE TAI 2024) is not implemented: only its abstract could be "
           "found (a chunk-based ensemble whose base classifiers learn every instance, a new "
           "one per chunk, weighted by their accuracy on a variable-size window of the latest "
           "instances); the base learner, the window rule and the weight formula are not "
           "described there and no code is public, so an implementation would be our "
           "invention. Its row is the paper's number only.",
})
#: Our name -> the name printed in the paper (and our reference rows' names).
DISPLAY_NAMES: Mapping[str, str] = MappingProxyType({
    "adwin": "ADWIN", "ddm": "DDM", "eddm": "EDDM", "hddma": "HDDM-A", "hddmw": "HDDM-W",
    "kswin": "KSWIN", "pagehinkley": "PH", "pudd-1": "PUDD-1", "pudd-3": "PUDD-3",
    "pudd-5": "PUDD-5", "amf": "AMF", "iwe": "IWE", "ns": "NS", "adlter": "ADLTER",
    "mcd-dd": "MCD-DD", "dnn": "DNN", "gnb": "GNB", "vfdt": "VFDT",
    "dnn-ensemble": "DNN ensemble (5 DNNs, soft vote)", "incremental": "-I",
    "train-once": "-O", "powersupply": "ps",
    "none": "No detector (ref.)", "oracle": "Oracle (ref.)",
})


class TableLayout(NamedTuple):
    """Rows, columns and LaTeX sources of one of our two tables.

    Examples
    --------
    >>> t1 = LAYOUTS[1]
    >>> t1.classifiers, t1.regimes
    (('dnn', 'gnb', 'vfdt'), ('incremental', 'train-once'))
    >>> "sea10" in t1.datasets and "pudd-3" in t1.detectors
    True
    """

    title: str
    classifiers: tuple[str, ...]
    detectors: tuple[str, ...]
    datasets: tuple[str, ...]
    regimes: tuple[str, ...]
    sources: tuple[str, ...]
    """Sections of the data file: the main-text table, then its appendix twin (sea10, sea20)."""


#: Table number -> layout. Table 1 includes the appendix's sea10/sea20 table, Table 2 its
#: appendix twin, so each number names every result of one experiment.
LAYOUTS: Mapping[int, TableLayout] = MappingProxyType({
    1: TableLayout(
        "Table 1: classic drift detectors (appendix: sea10, sea20)",
        ("dnn", "gnb", "vfdt"), CLASSIC_DETECTORS + PUDD_DETECTORS, DATASETS, REGIMES,
        ("baseline", "baseline-sea"),
    ),
    2: TableLayout(
        "Table 2: SOTA methods, ensemble setting (appendix: sea10, sea20)",
        ("dnn-ensemble",), SOTA_METHODS + PUDD_DETECTORS, DATASETS, ("incremental",),
        ("sota", "sota-sea"),
    ),
})


class PaperEntry(NamedTuple):
    """One published accuracy, in percent.

    Examples
    --------
    >>> paper_entries()[0]
    PaperEntry(table=1, source='baseline', classifier='dnn', detector='adwin', dataset='airline',
               regime='incremental', accuracy=61.65)
    """

    table: int
    source: str
    classifier: str
    detector: str
    dataset: str
    regime: str
    accuracy: float


@functools.cache
def paper_entries() -> tuple[PaperEntry, ...]:
    """Every published accuracy of the four tables, in the data file's order.

    Examples
    --------
    >>> len(paper_entries())
    544
    """
    # beside this module rather than importlib.resources, which fails on namespace-style
    # editable installs; package data ships it (pyproject: data/*.toml)
    raw = (Path(__file__).parent / "tables.toml").read_text("utf-8")
    data: dict[str, Any] = tomllib.loads(raw)
    out: list[PaperEntry] = []
    for source, section in data.items():
        table = int(section["table"])
        for classifier, regimes in section.items():
            if not isinstance(regimes, dict):
                continue  # metadata: table, latex
            for regime, rows in regimes.items():
                for detector, values in rows.items():
                    out.extend(
                        PaperEntry(table, source, classifier, detector, dataset, regime, float(v))
                        for dataset, v in values.items()
                    )
    return tuple(out)


@functools.cache
def _index() -> Mapping[tuple[int, str, str, str, str], float]:
    return MappingProxyType({
        (e.table, e.classifier, e.detector, e.dataset, e.regime): e.accuracy
        for e in paper_entries()
    })


def _check_table(table: int) -> TableLayout:
    layout = LAYOUTS.get(table) if isinstance(table, int) else None
    if layout is None:
        raise ValueError(f"unknown table {table!r}; choose 1 (classic detectors) or 2 (SOTA)")
    return layout


def paper_accuracy(
    table: int, classifier: str, detector: str, dataset: str, regime: str
) -> float | None:
    """The published accuracy (%) of one cell, or ``None`` where the paper gives none.

    Parameters
    ----------
    table
        1: classic detectors (Table 1 and the appendix's sea10/sea20 table); 2: SOTA methods,
        ensemble setting (Table 2 and its appendix twin).
    classifier
        ``"dnn"``, ``"gnb"``, ``"vfdt"`` (table 1) or ``"dnn-ensemble"`` (table 2).
    detector
        A baseline (``"adwin"``, ..., ``"pagehinkley"``), ``"pudd-1"``, ``"pudd-3"``,
        ``"pudd-5"``, or a SOTA method (``"amf"``, ``"iwe"``, ``"ns"``, ``"adlter"``,
        ``"mcd-dd"``).
    dataset
        One of :data:`DATASETS`.
    regime
        ``"incremental"`` (-I) or ``"train-once"`` (-O).

    Raises
    ------
    ValueError
        For a table other than 1 or 2.

    Examples
    --------
    >>> paper_accuracy(1, "gnb", "pudd-3", "sea0", "incremental")
    94.81
    >>> paper_accuracy(1, "vfdt", "pagehinkley", "sea20", "train-once")
    76.57
    >>> paper_accuracy(2, "dnn-ensemble", "adlter", "airline", "incremental")
    70.0
    >>> paper_accuracy(2, "dnn-ensemble", "pudd-3", "sea0", "train-once") is None
    True
    """
    _check_table(table)
    return _index().get((table, classifier, detector, dataset, regime))


def paper_table(table: int) -> pd.DataFrame:
    """All published accuracies of one table, long format, in the paper's order.

    Columns: ``table, classifier, detector, dataset, regime, accuracy`` (percent) and
    ``source`` (the LaTeX table: ``"baseline"``/``"sota"`` for the main text,
    ``"baseline-sea"``/``"sota-sea"`` for the appendix).

    Examples
    --------
    >>> df = paper_table(1)
    >>> len(df), df.groupby("source").size().to_dict()
    (480, {'baseline': 360, 'baseline-sea': 120})
    >>> gnb_sea0 = df.query("classifier == 'gnb' and dataset == 'sea0'")
    >>> gnb_sea0.pivot(index="detector", columns="regime", values="accuracy").loc[["ddm", "pudd-3"]]
    regime    incremental  train-once
    detector
    ddm             93.97       93.48
    pudd-3          94.81       94.60
    >>> paper_table(2).query("dataset == 'sine'").set_index("detector")["accuracy"].idxmax()
    'pudd-3'
    """
    import pandas as pd

    layout = _check_table(table)

    def rank(e: PaperEntry) -> tuple[int, int, int, int]:
        return (layout.classifiers.index(e.classifier), layout.regimes.index(e.regime),
                layout.detectors.index(e.detector), layout.datasets.index(e.dataset))

    entries = sorted((e for e in paper_entries() if e.table == table), key=rank)
    cols = ["table", "classifier", "detector", "dataset", "regime", "accuracy", "source"]
    return pd.DataFrame([e._asdict() for e in entries], columns=cols)
