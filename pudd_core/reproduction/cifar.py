"""The paper's CIFAR-10-CD comparison: PUDD-1/3/5 against the seven classic detectors.

The paper compares them on CIFAR-10-CD with incremental training only (its Fig. "Comparison
with baselines on CIFAR-10-CD", mean accuracy over runs; the figure's numbers are not in the
paper's source). :func:`comparison_configs` lists the runs, any executor runs them
(``experiments.grid``), and :func:`comparison_report` scores them: mean accuracy, and the
alarms against the stream's true interest changes. ``python -m pudd_core reproduce --table
cifar`` does all three and writes ``results/cifar10_cd.md`` and ``.csv``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from pudd_core import _validation
from pudd_core.experiments.evaluation import match_alarms
from pudd_core.experiments.runner import RunConfig, run_seeds
from pudd_core.paper import (
    CLASSIC_DETECTORS,
    DISPLAY_NAMES,
    PUDD_DETECTORS,
    REFERENCES,
    row_role,
)
from pudd_core.reproduction.significance import (
    FriedmanResult,
    at_reported_precision,
    friedman_nemenyi,
    holm,
    wilcoxon_pair,
)
from pudd_core.streams import markov_interest_stream
from pudd_core.streams.images import CIFAR10_CLASSES

if TYPE_CHECKING:
    import os

    import pandas as pd

__all__ = ["COMPARED", "IMAGES_PER_CLASS", "MAX_CHUNKS", "CifarComparison", "InterestDrift",
           "comparison_configs", "comparison_report", "default_classifier", "interest_drift",
           "merge_comparisons", "read_comparison", "stream_seed"]

#: The figure's rows: PUDD-1/3/5, then the seven river baselines in the paper's order.
COMPARED = (*PUDD_DETECTORS, *CLASSIC_DETECTORS)
#: Every row a report may hold: the ranked ones, then the references (no detector, the oracle
#: at the interest changes), which are never ranked.
_ROWS = (*COMPARED, *REFERENCES)
#: A drift counts as detected early when the first alarm in its segment is at most this many
#: chunks after its first chunk (the issue's target: 2).
EARLY = 2
STEM = "cifar10_cd"


# --- the stream's interest process, without images ---------------------------------------
IMAGES_PER_CLASS = 5000
#: Chunks of a CIFAR-10-CD run at most: 5000 images per class / 50 per chunk (the paper's
#: 500-image chunks).
MAX_CHUNKS = 100


def stream_seed(seed: int) -> int:
    """The seed ``run_experiment(RunConfig(seed=seed))`` draws its stream with.

    The stream's part of :func:`~pudd_core.experiments.runner.run_seeds`.

    Examples
    --------
    >>> stream_seed(0)
    3757552657
    """
    return run_seeds(seed).stream


@dataclass(frozen=True)
class InterestDrift:
    """The Markov interest drift of a CIFAR-10-CD run: which classes are positive, when.

    Attributes
    ----------
    seed
        The run's seed (``RunConfig.seed``), not the stream's derived seed.
    transition_matrix
        ``(10, 10)`` row-stochastic matrix *M*: row *i* is where an interest in class *i*
        moves for the next chunk.
    interests
        ``(n_chunks, 3)`` interest slots per chunk (slots may coincide).
    positive_classes
        The distinct positive classes of each chunk.
    drift_chunks
        Chunks whose positive-class set differs from the previous chunk's.
    class_names
        CIFAR-10's class names, by label.

    Examples
    --------
    >>> drift = interest_drift(0, n_chunks=12)
    >>> drift.n_chunks, drift.positive_classes[8], drift.drift_chunks
    (12, (1, 2, 7), (8, 11))
    """

    seed: int
    transition_matrix: NDArray[np.float64]
    interests: NDArray[np.int64]
    positive_classes: tuple[tuple[int, ...], ...]
    drift_chunks: tuple[int, ...]
    class_names: tuple[str, ...] = CIFAR10_CLASSES

    @property
    def n_chunks(self) -> int:
        """Number of chunks."""
        return len(self.positive_classes)

    @property
    def stay_probability(self) -> float:
        """Mean probability that an interest stays on its class for the next chunk."""
        return float(self.transition_matrix.diagonal().mean())

    @property
    def change_probability(self) -> float:
        """About how often the positive set changes: 1 - (stay probability)^(interests).

        Examples
        --------
        >>> round(interest_drift(0).change_probability, 3)
        0.132
        """
        return 1.0 - self.stay_probability ** int(self.interests.shape[1])

    def majority_rates(self) -> NDArray[np.float64]:
        """Per chunk, the accuracy of always answering the chunk's majority label.

        A chunk holds every class equally, so with *k* positive classes it is ``1 - k/10``
        (0.7 with three distinct interests, 0.8 when two collide).

        Examples
        --------
        >>> interest_drift(0, n_chunks=3).majority_rates().tolist()
        [0.7, 0.7, 0.7]
        """
        share = np.array([len(c) for c in self.positive_classes]) / len(self.class_names)
        rates: NDArray[np.float64] = np.maximum(share, 1.0 - share)
        return rates

    def positive_mask(self) -> NDArray[np.bool_]:
        """``(n_classes, n_chunks)``: True where the class is an interest of the chunk.

        Examples
        --------
        >>> interest_drift(0, n_chunks=3).positive_mask()[:, 0].nonzero()[0].tolist()
        [0, 1, 2]
        """
        mask = np.zeros((len(self.class_names), self.n_chunks), dtype=bool)
        for t, classes in enumerate(self.positive_classes):
            mask[list(classes), t] = True
        return mask


def interest_drift(
    seed: int, *, n_chunks: int = MAX_CHUNKS, chunk_size: int = 500
) -> InterestDrift:
    """The interest process of the CIFAR-10-CD stream of a run with ``seed``, without images.

    `markov_interest_stream` draws the matrix and the interest moves from their own child
    seeds; only the image sampling reads the labels. Run on CIFAR-10's known class counts
    (5000 per class), it gives the real stream's matrix, interests and drift chunks
    (``tests/views/test_cifar.py`` checks this against the decoded images).

    Parameters
    ----------
    seed
        The run's seed, as in ``RunConfig(seed=...)``.
    n_chunks
        Number of chunks (at most 100 for 500-image chunks).
    chunk_size
        Images per chunk, a multiple of 10.

    Examples
    --------
    >>> drift = interest_drift(0, n_chunks=20)
    >>> drift.interests.shape, drift.drift_chunks
    ((20, 3), (8, 11, 18))
    >>> round(float(drift.transition_matrix[0, 0]), 3)
    0.963
    """
    labels = np.repeat(np.arange(len(CIFAR10_CLASSES)), IMAGES_PER_CLASS)
    res = markov_interest_stream(
        labels, chunk_size=chunk_size, n_chunks=n_chunks, n_classes=len(CIFAR10_CLASSES),
        seed=np.random.SeedSequence(stream_seed(seed)),
    )
    return InterestDrift(seed, res.transition_matrix, res.interests, res.positive_classes,
                         res.drift_chunks)


def default_classifier(device: str = "auto") -> str:
    """ResNet-18 (the authors' network) on CUDA, the pretrained CNN elsewhere.

    ``device`` is a device name, or ``"auto"`` for this machine's (CUDA, then MPS, then CPU).

    Examples
    --------
    >>> default_classifier("cpu"), default_classifier("cuda")
    ('pretrained-cnn', 'resnet18')
    """
    from pudd_core.classifiers import resolve_device

    resolved = resolve_device(device) if device == "auto" else device
    return "resnet18" if resolved == "cuda" else "pretrained-cnn"


def comparison_configs(
    seeds: Sequence[int],
    *,
    classifier: str | None = None,
    detectors: Sequence[str] | None = None,
    n_chunks: int | None = None,
) -> list[RunConfig]:
    """The runs behind the comparison: every detector × seed on CIFAR-10-CD, incremental.

    Parameters
    ----------
    seeds
        The seeds (the same streams for every detector).
    classifier
        ``None``: :func:`default_classifier` (ResNet-18 on a CUDA GPU, else the pretrained
        CNN); or any image classifier.
    detectors
        A subset of :data:`COMPARED` and the references ``none`` (the classifier never
        adapted) and ``oracle`` (adapted exactly at the interest changes), in our names
        (``pudd-3``, ``ddm``, ...); default all twelve.
    n_chunks
        Shorter streams for a quick look (default: the paper's 100 chunks of 500 images).

    Examples
    --------
    >>> cfgs = comparison_configs([0, 1], classifier="pretrained-cnn")
    >>> len(cfgs), cfgs[0].detector, cfgs[0].alpha, cfgs[-1].detector, cfgs[-1].seed
    (24, 'pudd', 0.1, 'oracle', 1)
    >>> {c.regime for c in cfgs}, {c.dataset for c in cfgs}
    ({'incremental'}, {'cifar10-cd'})
    """
    chosen = list(_ROWS) if detectors is None else list(detectors)
    unknown = [d for d in chosen if d not in _ROWS]
    if unknown or not chosen:
        raise _validation.ParameterError(
            "detectors", f"detectors must be among {', '.join(_ROWS)}; got {chosen!r}",
            _ROWS)
    seed_list = [int(s) for s in seeds]
    if not seed_list or min(seed_list) < 0 or len(set(seed_list)) != len(seed_list):
        raise _validation.ParameterError(
            "seeds", f"seeds must be distinct non-negative integers, got {list(seeds)!r}")
    name = classifier or default_classifier()
    out: list[RunConfig] = []
    for det in (d for d in _ROWS if d in chosen):
        pudd = det in PUDD_DETECTORS
        out.extend(RunConfig(
            "cifar10-cd", name, "pudd" if pudd else det,
            alpha=float(f"1e-{det[5:]}") if pudd else RunConfig.alpha,
            regime="incremental", seed=s, n_chunks=n_chunks) for s in seed_list)
    return out


def _alarms(value: object) -> list[int]:
    """A run's alarm chunks, as the store keeps them (JSON text) or as a list or array.

    >>> _alarms("[3, 9]"), _alarms(np.array([4])), _alarms([])
    ([3, 9], [4], [])
    """
    if isinstance(value, str):
        value = json.loads(value)
    return [int(a) for a in value]  # type: ignore[attr-defined]


def _label(detector: str, alpha: float) -> str:
    return f"pudd-{round(-math.log10(alpha))}" if detector == "pudd" else detector


@dataclass(frozen=True, eq=False)
class CifarComparison:
    """Mean accuracy and detection of every compared detector over the same seeds.

    ``cells`` columns: ``detector`` (our name), ``name`` (the paper's), ``accuracy`` and
    ``std`` (%, over seeds), ``n_seeds``, ``alarms`` (per run), ``drifts`` (true interest
    changes, all seeds), ``early`` (detected within :data:`EARLY` chunks), ``detected`` (at
    all), ``false_alarms`` (per run), ``run_s`` (mean seconds per run); and, the same on
    every row so that the CSV stands alone, ``classifier``, ``n_chunks`` and ``seeds``;
    ``seed_accuracy``: the accuracy (%) of each seed's run, in the order of ``seeds``
    (``nan``: not run), read by :func:`seed_accuracies` for the tests paired by seed.

    Examples
    --------
    >>> report = comparison_report(_example_runs())
    >>> report.cells[["detector", "accuracy", "early", "false_alarms"]]
      detector  accuracy  early  false_alarms
    0   pudd-3      82.0      2           0.0
    1      ddm      78.0      1           0.5
    """

    classifier: str
    n_chunks: int
    seeds: tuple[int, ...]
    cells: pd.DataFrame
    majority: float
    n_errors: int
    device: str = ""
    wall_s: float = float("nan")

    def markdown(self, command: str = "") -> str:
        """The report as Markdown: settings, the table, how to read it.

        Examples
        --------
        >>> text = comparison_report(_example_runs()).markdown()
        >>> print(text.splitlines()[0])
        # CIFAR-10-CD: PUDD against the classic detectors (incremental)
        >>> [line for line in text.splitlines() if line.startswith("| PUDD-3")]
        ['| PUDD-3 | 82.00 ± 1.41 | 2 | 1.0 | 2 of 6 (33 %) | 2 | 1.00 | 0.0 | 10 |']
        """
        c = self.cells
        runs = int(c["n_seeds"].sum())
        lines = [
            "# CIFAR-10-CD: PUDD against the classic detectors (incremental)",
            "",
            "The paper's CIFAR-10-CD comparison (its figure \"Comparison with baselines on "
            "CIFAR-10-CD\": mean accuracy over runs, incremental training only; the figure's "
            "numbers are not in the paper's source, so there is no published number to put "
            "beside ours).",
            "",
            f"- Classifier: `{self.classifier}`"
            + (f" on {self.device}" if self.device else "")
            + (" (a frozen backbone pretrained by PUDD Lab on CIFAR-10's 10,000 test images, "
               "never in the stream, and a small head trained on every chunk; the authors "
               "use an ImageNet-pretrained ResNet-18, which is `--classifier resnet18` on a "
               "GPU)" if self.classifier == "pretrained-cnn" else "") + ".",
            f"- Stream: {self.n_chunks} chunks of 500 images (chunk 0 trains; "
            f"{self.n_chunks - 1} tested), incremental (-I): test then train on every chunk; "
            "after an alarm the model is adapted on the recent data (PUDD: its winning cut's "
            "window; the baselines: the current chunk).",
            f"- Seeds: {', '.join(map(str, self.seeds))} ({len(self.seeds)}; the same streams "
            f"for every detector). Runs: {runs} ok, {self.n_errors} failed (left out).",
            f"- Always answering *negative* (the majority label) scores {self.majority:.2f} % "
            "on these chunks.",
        ]
        if command:  # one command, or commands quoted with notes beside them (--add)
            lines.append(f"- Command: {command}" if "`" in command else f"- Command: `{command}`")
        if not math.isnan(self.wall_s):
            lines.append(f"- Run time: {self.wall_s / 60:.1f} min summed over the runs "
                         f"({self.wall_s / max(runs, 1):.0f} s per run).")
        lines += [
            "",
            f"| detector | accuracy (%) | seeds | alarms per run | drifts detected ≤ {EARLY} "
            "chunks | detected at all | mean delay (chunks) | false alarms per run | s per run |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for r in c.itertuples(index=False):
            pct = f" ({100 * r.early / r.drifts:.0f} %)" if r.drifts else ""
            delay = "—" if math.isnan(r.delay) else f"{r.delay:.2f}"
            lines.append(
                f"| {r.name} | {r.accuracy:.2f} ± {r.std:.2f} | {r.n_seeds} | {r.alarms:.1f} | "
                f"{r.early} of {r.drifts}{pct} | {r.detected} | {delay} | "
                f"{r.false_alarms:.1f} | {r.run_s:.0f} |")
        ranked = self.ranks()
        if ranked is not None:
            order = ", ".join(f"{DISPLAY_NAMES[d]} {r:.2f}" for d, r in ranked.ranks.items())
            lines += [
                "",
                f"Paired by seed (every detector sees the same stream per seed), average ranks "
                f"of the accuracy, 1 = best: {order}. {ranked.caption()}",
            ]
        lines += self._reading()
        lines += [
            "",
            "Accuracy: per run the mean per-chunk accuracy over the tested chunks, then the "
            "mean (± standard deviation) over seeds. A true drift is a chunk whose positive "
            "classes differ from the previous chunk's; the first alarm in its segment detects "
            f"it (`evaluation.match_alarms`), early when at most {EARLY} chunks late; the other "
            "alarms are false alarms. Mean delay: chunks from a drift's first chunk to the "
            "alarm that detected it (0: on that chunk), the mean over every detected drift of "
            "every seed"
            + (" (— : not recorded, this report was written before reports kept it: run its "
               "command again to fill it)" if c["delay"].isna().all() and
               c["detected"].sum() > 0 else "")
            + ". Rows marked (ref.) are references, not ranked: the same "
            "classifier with no detector (never adapted), and the oracle, adapted exactly at "
            "each interest change.",
        ]
        return "\n".join(lines) + "\n"

    def _reading(self) -> list[str]:
        """How to read the table, every number computed from the cells."""
        c = self.cells
        ranked = c[c["detector"].map(row_role) != "reference"]
        if ranked.empty:
            return []
        best = ranked.loc[ranked["accuracy"].idxmax()]
        worst = ranked.loc[ranked["accuracy"].idxmin()]
        text = (f"Reading it: the ranked rows' accuracies lie within "
                f"{best.accuracy - worst.accuracy:.2f} points of each other ({best['name']} "
                f"{best.accuracy:.2f}, {worst['name']} {worst.accuracy:.2f})")
        if len(self.seeds) > 1:
            text += (f"; each row's standard deviation over seeds is {ranked['std'].min():.1f}"
                     f"-{ranked['std'].max():.1f} points, as every seed is a different stream")
        text += "."
        refs = c.set_index("detector")
        if "none" in refs.index:
            none = float(refs.loc["none", "accuracy"])
            # at or below as printed: float noise never makes a row "above"
            low = ranked[at_reported_precision(ranked["accuracy"].to_numpy())
                         <= at_reported_precision(np.array([none]))[0]]
            text += (f" With no detector at all the same classifier scores {none:.2f}: "
                     + (f"{len(low)} of the {len(ranked)} ranked rows are at or below it ("
                        + ", ".join(low["name"]) + ")" if len(low) else
                        f"every ranked row beats it, by {ranked['accuracy'].min() - none:.2f} "
                        f"to {ranked['accuracy'].max() - none:.2f} points") + ".")
        if "oracle" in refs.index:
            text += (f" Adapted exactly at the {int(refs.loc['oracle', 'drifts'])} interest "
                     f"changes (the oracle) it scores {float(refs.loc['oracle', 'accuracy']):.2f}.")
        lines = ["", text]
        ranks = self.ranks()
        if ranks is not None:
            table = _ranked(seed_accuracies(c)).dropna()
            top = next(d for d in ranks.ranks.index if d in PUDD_DETECTORS) \
                if any(d in PUDD_DETECTORS for d in ranks.ranks.index) else ranks.ranks.index[0]
            others = [d for d in ranks.ranks.index if d != top]
            pairs = [wilcoxon_pair(table, top, d) for d in others]
            adjusted = holm([p.p_value for p in pairs])
            lines += ["", f"Paired by seed, {DISPLAY_NAMES[top]} (the best-ranked PUDD) against "
                      "each other ranked row: seeds won-lost and the two-sided Wilcoxon "
                      f"signed-rank p, Holm-adjusted over the {len(pairs)} comparisons: "
                      + "; ".join(f"{DISPLAY_NAMES[p.b]} {p.wins}-{p.losses}, p = {q:.2g}"
                                  for p, q in zip(pairs, adjusted, strict=True)) + "."]
        return lines

    def ranks(self, alpha: float = 0.05) -> FriedmanResult | None:
        """:func:`paired_ranks` of the cells.

        Examples
        --------
        >>> comparison_report(_example_runs()).ranks() is None  # two detectors only
        True
        """
        return paired_ranks(self.cells, alpha)

    def save(self, directory: str | os.PathLike[str], command: str = "") -> tuple[Path, Path]:
        """Write ``cifar10_cd.md`` and the cells as ``cifar10_cd.csv``; return both paths.

        Examples
        --------
        >>> import tempfile
        >>> [p.name for p in comparison_report(_example_runs()).save(tempfile.mkdtemp())]
        ['cifar10_cd.md', 'cifar10_cd.csv']
        """
        folder = Path(directory)
        folder.mkdir(parents=True, exist_ok=True)
        md, csv = folder / f"{STEM}.md", folder / f"{STEM}.csv"
        md.write_text(self.markdown(command), encoding="utf-8")
        self.cells.to_csv(csv, index=False)
        return md, csv


def seed_accuracies(cells: pd.DataFrame) -> pd.DataFrame:
    """Each seed's accuracy (%) per detector, from a report's cells (or its CSV read back).

    Rows: the seeds; columns: the detectors (our names); NaN where a seed was not run.

    Examples
    --------
    >>> seed_accuracies(comparison_report(_example_runs()).cells).to_dict("list")
    {'pudd-3': [81.0, 83.0], 'ddm': [77.0, 79.0]}
    """
    import pandas as pd

    if "seed_accuracy" not in cells.columns:
        raise ValueError("these cells have no seed_accuracy column (a report written before "
                         "it was added): run the comparison's command again to write it")
    out = {}
    for r in cells.itertuples(index=False):
        seeds = [int(x) for x in str(r.seeds).split()]
        values = [float(x) for x in str(r.seed_accuracy).split()]
        if len(values) != len(seeds):
            raise ValueError(f"{r.detector}: {len(values)} seed accuracies for "
                             f"{len(seeds)} seeds")
        out[r.detector] = pd.Series(values, index=pd.Index(seeds, name="seed"))
    frame = pd.DataFrame(out)
    frame.columns.name = "detector"
    return frame


def paired_ranks(cells: pd.DataFrame, alpha: float = 0.05) -> FriedmanResult | None:
    """Friedman test and Nemenyi critical difference over the seeds (the blocks).

    ``cells``: a report's cells or its CSV read back. None with fewer than two seeds that
    every detector ran, or fewer than 3 detectors; ValueError for cells without
    ``seed_accuracy``. The reference rows are left out: they are not ranked.
    """
    table = _ranked(seed_accuracies(cells)).dropna()
    if len(table) < 2 or table.shape[1] < 3:
        return None
    return friedman_nemenyi(table, alpha=alpha, blocks=f"{len(table)} seeds")


def _ranked(table: pd.DataFrame) -> pd.DataFrame:
    """The ranked detectors' columns: the references are never ranked."""
    return table[[c for c in table.columns if row_role(c) != "reference"]]


def comparison_report(runs: pd.DataFrame, *, device: str = "") -> CifarComparison:
    """Score the stored runs of :func:`comparison_configs` (rows of ``run_grid``).

    Failed runs are counted and left out. Every detector must have run on the same
    classifier and number of chunks.

    Examples
    --------
    >>> r = comparison_report(_example_runs())
    >>> r.classifier, r.n_chunks, r.seeds, r.n_errors, round(r.majority, 2)
    ('pretrained-cnn', 20, (0, 1), 1, 73.68)
    """
    import pandas as pd

    ok = runs[runs["status"] == "ok"]
    if ok.empty:
        raise ValueError("no successful run to report")
    for col in ("classifier", "n_chunks"):
        if ok[col].nunique() != 1:
            raise ValueError(f"the runs mix {col} values {sorted(map(str, ok[col].unique()))}")
    n_chunks = int(ok["n_chunks"].iloc[0]) if pd.notna(ok["n_chunks"].iloc[0]) else 100
    seeds = tuple(sorted(int(s) for s in ok["seed"].unique()))
    drifts = {s: interest_drift(s, n_chunks=n_chunks) for s in seeds}
    labels = [_label(d, a) for d, a in zip(ok["detector"], ok["alpha"], strict=True)]
    rows = []
    for det in (d for d in _ROWS if d in labels):
        part = ok[[lab == det for lab in labels]]
        early = found = n_drifts = false = 0
        delays: list[int] = []
        for r in part.itertuples(index=False):
            truth = drifts[int(r.seed)].drift_chunks
            m = match_alarms(_alarms(r.alarms), truth, n_chunks)
            n_drifts += len(truth)
            found += len(m.delays)
            delays += m.delays
            early += sum(1 for x in m.delays if x <= EARLY)
            false += m.false_alarms
        acc = 100 * part["accuracy"].astype(float)
        by_seed = dict(zip(part["seed"].astype(int), acc, strict=True))
        rows.append({
            "detector": det, "name": DISPLAY_NAMES[det], "accuracy": acc.mean(),
            "std": acc.std(ddof=1) if len(acc) > 1 else 0.0, "n_seeds": len(part),
            "alarms": float(np.mean([len(_alarms(a)) for a in part["alarms"]])),
            "drifts": n_drifts,
            "early": early, "detected": found, "false_alarms": false / len(part),
            "delay": float(np.mean(delays)) if delays else math.nan,
            "run_s": float(part["elapsed_s"].mean()),
            "classifier": str(ok["classifier"].iloc[0]), "n_chunks": n_chunks,
            "seeds": " ".join(map(str, seeds)),
            "seed_accuracy": " ".join(f"{by_seed[x]:.4f}" if x in by_seed else "nan"
                                      for x in seeds),
        })
    majority = float(np.mean([100 * d.majority_rates()[1:].mean() for d in drifts.values()]))
    return CifarComparison(
        str(ok["classifier"].iloc[0]), n_chunks, seeds, pd.DataFrame(rows), majority,
        int((runs["status"] != "ok").sum()), device, float(ok["elapsed_s"].sum()))


def read_comparison(csv: str | os.PathLike[str]) -> tuple[CifarComparison, str]:
    """A report as :meth:`CifarComparison.save` wrote it, and the command its Markdown names.

    The cells come from the CSV; the device, the run time and the command from the Markdown
    beside it, where there; the majority rate is computed again from the seeds.

    Raises
    ------
    FileNotFoundError
        No file at ``csv``.
    ValueError
        The file is not such a report (a column missing, several classifiers, an unknown row).

    Examples
    --------
    >>> import tempfile
    >>> report = comparison_report(_example_runs(), device="cpu")
    >>> _, csv = report.save(tempfile.mkdtemp(), "the command")
    >>> back, command = read_comparison(csv)
    >>> back.cells.equals(report.cells), back.seeds, back.device, command
    (True, (0, 1), 'cpu', 'the command')
    """
    import re

    import pandas as pd

    path = Path(csv)
    if not path.is_file():
        raise FileNotFoundError(f"no report at {path}: write one first (without --add)")
    what = f"{path} is not a CIFAR-10-CD comparison as `reproduce --table cifar` writes it"
    try:
        cells = pd.read_csv(path, dtype={"seeds": str, "seed_accuracy": str},
                            float_precision="round_trip")
    except (ValueError, UnicodeDecodeError) as err:
        raise ValueError(f"{what}: {' '.join(str(err).split())}") from None
    missing = [c for c in ("detector", "accuracy", "classifier", "n_chunks", "seeds",
                           "seed_accuracy") if c not in cells]
    if missing or cells.empty:
        raise ValueError(f"{what}: " + (f"no column {', '.join(missing)}" if missing
                                         else "no rows"))
    for name in ("classifier", "n_chunks", "seeds"):
        if cells[name].nunique() != 1:
            raise ValueError(f"{what}: its rows have several {name} values (or none)")
    unknown = sorted(set(map(str, cells["detector"])) - set(_ROWS))
    if unknown:
        raise ValueError(f"{what}: unknown row(s) {', '.join(unknown)}")
    if cells["detector"].duplicated().any():
        raise ValueError(f"{what}: a detector has several rows")
    if "delay" not in cells:  # written before reports kept the mean delay
        names = list(cells.columns)
        cells.insert(names.index("false_alarms") + 1 if "false_alarms" in names else len(names),
                     "delay", math.nan)
    seeds, n_chunks = _read_stream(cells, what)
    md = path.with_suffix(".md")
    text = md.read_text(encoding="utf-8", errors="replace") if md.is_file() else ""
    device = re.search(r"^- Classifier: `[^`]+` on (\S+?)[ .(]", text, re.M)
    timed = re.search(r"^- Run time: ([0-9.]+) min summed", text, re.M)
    command = re.search(r"^- Command: (.*)$", text, re.M)  # `cmd`, or with notes beside it
    majority = float(np.mean([100 * interest_drift(s, n_chunks=n_chunks).majority_rates()[1:]
                              .mean() for s in seeds]))
    return CifarComparison(
        str(cells["classifier"].iloc[0]), n_chunks, seeds, cells, majority, 0,
        device.group(1) if device else "", 60 * float(timed.group(1)) if timed else math.nan,
    ), _unquoted(command.group(1).strip()) if command else ""


def _read_stream(cells: pd.DataFrame, what: str) -> tuple[tuple[int, ...], int]:
    """The report's seeds and stream length, each checked; every row's numbers too."""
    import pandas as pd

    from pudd_core.reproduction import checked_numbers

    numbers = ("accuracy", "std", "alarms", "drifts", "early", "detected", "false_alarms",
               "delay", "run_s")
    try:  # checked as every report's reader checks them; the CSV's own types kept
        checked_numbers(cells, Path(), numbers, counts=("n_seeds",), percent=("accuracy",))
    except ValueError as err:
        raise ValueError(f"{what}: {str(err).split(': ', 1)[1]}") from None
    for name in (n for n in numbers if n in cells):
        cells[name] = pd.to_numeric(cells[name])
    text = str(cells["seeds"].iloc[0])
    seeds = tuple(int(x) for x in text.split() if x.isascii() and x.isdigit())
    if not seeds or len(seeds) != len(text.split()) or len(set(seeds)) != len(seeds):
        raise ValueError(f"{what}: seeds {text!r} are not distinct integers >= 0 separated by "
                         "spaces")
    chunks = pd.to_numeric(cells["n_chunks"], errors="coerce").iloc[0]
    if not (chunks == chunks and float(chunks).is_integer() and 2 <= chunks <= MAX_CHUNKS):
        raise ValueError(f"{what}: n_chunks {cells['n_chunks'].iloc[0]!r} is not a whole number "
                         f"of chunks from 2 to {MAX_CHUNKS}")
    for r in cells.itertuples(index=False):
        values = str(r.seed_accuracy).split()
        try:
            ok = len(values) == len(seeds) and all(
                math.isnan(v) or 0 <= v <= 100 for v in map(float, values))
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"{what}: row {r.detector}: seed_accuracy {r.seed_accuracy!r} is "
                             f"not {len(seeds)} accuracies (%) separated by spaces, one per seed")
    return seeds, int(chunks)


def _unquoted(text: str) -> str:
    """``"`cmd`"`` -> ``"cmd"``; a text with notes beside its commands stays as it is."""
    inner = text[1:-1]
    return inner if text.startswith("`") and text.endswith("`") and "`" not in inner else text


def merge_comparisons(base: CifarComparison, added: CifarComparison) -> CifarComparison:
    """``base`` with ``added``'s rows put in: a row of both is ``added``'s, the others kept.

    Raises a ``ParameterError`` (``add``) unless both ran the same classifier, stream length
    and seeds: a comparison is paired by seed, so its rows must share them.

    Examples
    --------
    >>> runs = _example_runs()
    >>> base = comparison_report(runs[runs["detector"] == "pudd"])
    >>> more = comparison_report(runs[runs["detector"] == "ddm"])
    >>> merge_comparisons(base, more).cells["detector"].tolist()
    ['pudd-3', 'ddm']
    """
    import pandas as pd

    for name in ("classifier", "n_chunks", "seeds"):
        if getattr(base, name) != getattr(added, name):
            raise _validation.ParameterError(
                "add", f"--add: the report in --out has {name} {getattr(base, name)!r}, these "
                       f"runs {getattr(added, name)!r}: a comparison pairs its rows by seed, "
                       "so run the same classifier, --n-chunks and --seeds as the report")
    kept = base.cells[~base.cells["detector"].isin(set(added.cells["detector"]))]
    cells = pd.concat([kept, added.cells], ignore_index=True)
    order = {d: i for i, d in enumerate(_ROWS)}
    cells = cells.sort_values("detector", key=lambda s: s.map(order)).reset_index(drop=True)
    return CifarComparison(base.classifier, base.n_chunks, base.seeds, cells, base.majority,
                           base.n_errors + added.n_errors, base.device or added.device,
                           base.wall_s + added.wall_s)


def _example_runs() -> pd.DataFrame:
    """Five hand-made run summaries for the doctests: PUDD-3 and DDM, 20 chunks, one failure.

    Seed 0's stream drifts at chunks 8, 11 and 18 (20 chunks), seed 1's at 7, 10 and 16.
    """
    import pandas as pd

    return pd.DataFrame({
        "dataset": "cifar10-cd", "classifier": "pretrained-cnn", "n_chunks": 20,
        "detector": ["pudd", "pudd", "ddm", "ddm", "ddm"], "alpha": 1e-3,
        "seed": [0, 1, 0, 1, 2], "accuracy": [0.81, 0.83, 0.77, 0.79, None],
        "alarms": [[8, 13], [], [5, 9], [], []], "elapsed_s": [12.0, 8.0, 3.0, 2.0, 0.0],
        "status": ["ok", "ok", "ok", "ok", "error"],
    })
