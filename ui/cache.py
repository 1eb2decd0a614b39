"""Bounded ``st.cache_data`` wrappers around ``pudd_core``: frozen configs in, results out.

Detectors, models and streams are built inside the cached calls; every caller gets its own
copy of the (immutable) result.
"""

from __future__ import annotations

import platform
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import Any

import pandas as pd
import streamlit as st

from pudd_core.classifiers import TORCH_CLASSIFIERS
from pudd_core.experiments import cost, pool
from pudd_core.experiments.grid import ResultStore, run_grid
from pudd_core.experiments.runner import RunConfig, RunResult, run_experiment
from pudd_core.experiments.sweep import FalseAlarmStudy, false_alarm_study
from pudd_core.reproduction import ReproductionReport, committed, report
from pudd_core.reproduction.significance import FriedmanResult, friedman_nemenyi
from pudd_core.streams import StreamInfo, list_streams
from pudd_core.views import cifar, course, explorer_upload, illustration, reproduction
from ui.progress import Task


@st.cache_data(max_entries=32, show_spinner=False)
def theorem2(config: illustration.Theorem2Config) -> illustration.Theorem2Result:
    """Theorem 2's windows and the three detectors' verdicts."""
    return illustration.theorem2_demo(config)


@st.cache_data(max_entries=32, show_spinner=False)
def theorem1(config: illustration.Theorem1Config) -> illustration.Theorem1Result:
    """Theorem 1's two histograms and the check."""
    return illustration.theorem1_demo(config)


@st.cache_data(max_entries=2, show_spinner="Rebuilding Fig. 1 (SEA + Gaussian naive Bayes) …")
def fig1(seed: int = 42) -> illustration.Fig1Data:
    """The Fig. 1 test sets, model outputs and tests."""
    return illustration.fig1_data(seed)


@st.cache_data(max_entries=16, show_spinner="Growing both test sets and re-testing …")
def fig1_curve(sizes: tuple[int, ...], seed: int) -> illustration.Fig1Curve:
    """p-values of the Fig. 1 comparison for growing test sets."""
    return illustration.fig1_pvalue_curve(sizes, seed=seed)


def off_server(classifier: str, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``; in the torch child (``pool.torch_child``) for a torch model.

    So torch never loads into the server (about 0.5 GB that it would keep): the child exits
    when idle. Without worker processes (``PUDD_WORKERS=1``, the AppTests) it runs here.
    """
    if classifier in TORCH_CLASSIFIERS and pool.parallel():
        return pool.torch_child().call(fn, *args, **kwargs)
    return fn(*args, **kwargs)


@st.cache_data(max_entries=32, show_spinner="Running the stream …")
def run(config: RunConfig) -> RunResult:
    """One experiment of the runner (stream × classifier × detector × seed)."""
    return off_server(config.classifier, run_experiment, config)


# --- the course --------------------------------------------------------------------------------
@st.cache_data(max_entries=16, show_spinner="Running the stream …")
def course_delay(config: course.DelayConfig) -> course.DelayLesson:
    """Lesson 1: PUDD-3 and DDM on a SEA stream with one drift."""
    return course.delay_lesson(config)


@st.cache_data(max_entries=8, show_spinner="Running the same lesson at 50 seeds …")
def course_delay_spread(config: course.DelayConfig) -> course.Spread:
    """Lesson 1 at every class seed (``config``'s own seed is not used): who alarmed first."""
    return course.delay_spread(config)


@st.cache_data(max_entries=16, show_spinner=False)
def course_points(seed: int) -> course.PUPoints:
    """Lesson 2: twenty real predictions and their PU-index."""
    return course.pu_points(seed)


@st.cache_data(max_entries=16, show_spinner="Predicting the chunks …")
def course_cuts(seed: int) -> course.CutLesson:
    """Lesson 3: a chunk history with a drift near its end."""
    return course.cut_lesson(seed)


@st.cache_data(max_entries=2, show_spinner="Running the same lesson at 50 seeds …")
def course_cut_spreads() -> tuple[course.Spread, course.Spread]:
    """Lesson 3 at every class seed: PUDD's alarm, and whether the cut at the drift wins."""
    return course.cut_spreads()


@st.cache_data(max_entries=2, show_spinner="Running the same lesson at 50 seeds …")
def course_study_spread() -> course.StudySpread:
    """Lesson 5's stream without drift at every class seed."""
    return course.study_spread()


@st.cache_data(max_entries=16, show_spinner="Running PUDD on a stream without drift …")
def course_study(seed: int) -> FalseAlarmStudy:
    """Lesson 5: PUDD's tests on SEA without drift."""
    return course.stationary_study(seed)


@st.cache_data(max_entries=16, show_spinner="Running PUDD at ten thresholds …")
def course_sweep(seed: int) -> course.Sweep:
    """Lesson 5: PUDD at α = 10⁻¹ … 10⁻¹⁰ on a drifting SEA stream."""
    return course.drifting_sweep(seed)


@st.cache_data(max_entries=8, show_spinner="Choosing α on the stream's first chunks …")
def course_calibration(seed: int) -> course.LessonCalibration:
    """Lesson 5: α calibrated on the drifting stream's first chunks, the rest at it."""
    return course.calibrated_alpha(seed)


@st.cache_data(max_entries=4, show_spinner="Testing chunks without errors …")
def course_floor(seed: int) -> course.FloorEffect:
    """Lesson 5: the count floor's false alarms where a column is empty."""
    return course.floor_effect(seed)


# --- Stream explorer ---------------------------------------------------------------------------
@st.cache_data(max_entries=8, show_spinner=False)
def explorer_csv_columns(digest: str, _data: bytes) -> tuple[str, ...]:
    """The header of an uploaded CSV (``digest``: the file's hash name)."""
    return explorer_upload.csv_columns(_data)


@st.cache_data(ttl=30, max_entries=1, show_spinner=False)
def streams() -> list[StreamInfo]:
    """The registry's streams with their availability (rechecked every 30 s)."""
    return list_streams()


# --- long work with a progress bar: CIFAR-10-CD, Threshold lab, Reproduction ------------------
# A progress callback inside a cached function would be recorded and replayed on every cache
# hit, where the bar it updates no longer exists (CacheReplayClosureError). So the work runs
# outside the cache and ``_finished`` only keeps its result: a lookup raises NotCached on a
# miss (nothing is stored), and a second call with ``_result`` stores it under the same key.
class NotCached(Exception):
    """No finished result for this spec yet (not an error: compute it)."""


@st.cache_data(max_entries=160, show_spinner=False)
def _finished(spec: tuple[Any, ...], _result: Any = None) -> Any:
    if _result is None:
        raise NotCached(spec)
    return _result


def finished(spec: tuple[Any, ...]) -> Any:
    """The finished result of ``spec`` (a hashable tuple of configs), or None."""
    try:
        return _finished(spec)
    except NotCached:
        return None


def keep(spec: tuple[Any, ...], result: Any) -> Any:
    """Keep ``result`` as the finished result of ``spec``; returns it."""
    return _finished(spec, result)


def run_task(config: RunConfig, label: str) -> Task:
    """One run of the runner, with per-chunk progress; its result cached by config."""
    spec = ("run", config)
    return Task(label, cost.run_seconds(config), lambda: finished(spec),
                lambda progress: keep(spec, off_server(config.classifier, run_experiment, config,
                                                       progress=progress)))


def false_alarm_task(dataset: str, classifier: str, n_chunks: int, seed: int) -> Task:
    """PUDD's p-values on a stationary stream (``experiments.sweep.false_alarm_study``)."""
    spec = ("false-alarm", dataset, classifier, n_chunks, seed)
    seconds = cost.run_seconds(RunConfig(dataset, classifier, n_chunks=n_chunks))
    return Task(f"stationary {dataset}, {n_chunks} chunks", seconds, lambda: finished(spec),
                lambda progress: keep(spec, off_server(
                    classifier, false_alarm_study, dataset, classifier, n_chunks=n_chunks,
                    seed=seed, progress=progress)))


def store_task(config: RunConfig, label: str, store: str, stored: bool) -> Task:
    """One run into the results store (``run_grid``): written as soon as it finishes."""
    return Task(label, cost.run_seconds(config), lambda: True if stored else None,
                lambda progress: off_server(config.classifier, run_grid, [config], store=store,
                                            executor="serial", progress=progress))


def warm_torch() -> None:
    """Start the torch child now, in the background, for a page that runs networks.

    Called first thing on the CIFAR-10-CD page, before it reads its settings: the child's
    start, torch's imports and the backbone's loading (``classifiers.warm_up``, tens of
    seconds on a busy server) then overlap the page's own work (its charts, the images'
    decoding), and the page's first run waits only for what is left of them. Nothing is
    started while the child is alive, or without worker processes (``PUDD_WORKERS=1``).
    """
    if pool.parallel():
        from pudd_core.classifiers import warm_up

        pool.torch_child().warm(warm_up, "auto")


def cuda_possible() -> bool:
    """Whether torch could find a CUDA GPU on this machine, said without importing torch.

    CUDA needs NVIDIA's driver: on Linux its kernel module (``/proc/driver/nvidia``,
    ``/dev/nvidiactl``; WSL's ``/dev/dxg``); macOS has none. Elsewhere only torch can say
    (True). Where it is False the page need not wait for the torch child to know that the
    device is not CUDA.
    """
    system = platform.system()
    if system == "Darwin":
        return False
    if system == "Linux":
        return any(Path(p).exists() for p in ("/proc/driver/nvidia", "/dev/nvidiactl",
                                               "/dev/dxg"))
    return True


@st.cache_resource(show_spinner=False)
def device() -> str:
    """Where the torch classifiers run on this server: ``cuda``, then ``mps``, then ``cpu``.

    Asked of the torch child (torch is imported to know), which then serves the page's runs.
    """
    from pudd_core.classifiers import resolve_device

    return str(off_server("pretrained-cnn", resolve_device, "auto"))


@st.cache_data(max_entries=16, show_spinner=False)
def interest_drift(seed: int, n_chunks: int) -> cifar.InterestDrift:
    """CIFAR-10-CD's Markov interest process for a run's seed (no images needed)."""
    return cifar.interest_drift(seed, n_chunks=n_chunks)


@st.cache_data(max_entries=32, show_spinner="Reading the CIFAR-10 images (the first time, "
                                            "only the JPEGs of the run's own chunks are "
                                            "decoded) …")
def thumbnails(seed: int, chunk: int, n_chunks: int) -> cifar.Thumbnails:
    """A few uint8 training images of each class in one chunk of a run's CIFAR-10-CD stream."""
    return cifar.chunk_thumbnails(seed, chunk, n_chunks=n_chunks)


@st.cache_data(max_entries=4, show_spinner=False)
def store_rows(path: str, parts: tuple[str, ...]) -> pd.DataFrame:
    """Every run in the results store at ``path`` (``parts``: its files, so writes miss)."""
    return ResultStore(path).load()


def store_parts(path: str) -> tuple[str, ...]:
    """The store's part files: a new batch of runs makes a new cache key."""
    folder = Path(path)
    return tuple(sorted(p.name for p in folder.glob("part-*.parquet"))) if folder.is_dir() \
        else ()


@st.cache_data(max_entries=8, show_spinner=False)
def committed_report(path: str, table: int = 1, classifier: str = "gnb"
                     ) -> ReproductionReport | None:
    """A committed reproduction report's cells (``results/table1_gnb*.csv``), or None."""
    return committed.committed_report(path, table, classifier)


@st.cache_data(max_entries=4, show_spinner=False)
def committed_frame(path: str) -> pd.DataFrame | None:
    """A committed CSV of the repository (``results/false_alarms.csv``), or None when missing."""
    file = Path(path)
    return pd.read_csv(file) if file.is_file() else None


def committed_frame_or_say(path: PurePath | None, what: str, writer: str) -> pd.DataFrame | None:
    """:func:`committed_frame` of ``results/<name>``, or an info box naming what writes it."""
    frame = None if path is None else committed_frame(str(path))
    if frame is None:
        name = "results/" + (path.name if path is not None else "")
        st.info(f"No committed {what} (`{name}`) in this installation; {writer} writes it.",
                icon=":material/inventory_2:")
    return frame


@st.cache_data(max_entries=4, show_spinner=False)
def committed_text(path: str) -> str:
    """A committed file of the repository (``results/README.md``), or "" when missing."""
    file = Path(path)
    return file.read_text(encoding="utf-8") if file.is_file() else ""


@st.cache_data(max_entries=4, show_spinner="Checking the paper's claims …")
def claims(folder: str, stamp: tuple[tuple[str, int], ...]) -> tuple[pd.DataFrame, str]:
    """The claims checked on the paper's tables and on the committed reports: table, text.

    ``stamp`` (the reports' files and times) makes a rewritten report be read again.
    """
    from pudd_core.reproduction.claims import check_claims, paper_cells
    from pudd_core.reproduction.verdicts import claims_frame, claims_markdown

    paper = check_claims(paper_cells(), "paper")
    ours = check_claims(committed.committed_cells(folder), "ours")
    text = claims_markdown(paper, ours, reproduction.committed_sources(folder))
    return claims_frame([*paper, *ours]), text


@st.cache_data(max_entries=4, show_spinner=False)
def committed_cells(folder: str, stamp: tuple[tuple[str, int], ...]) -> pd.DataFrame:
    """Our cells from the committed reports in ``folder`` (see ``claims`` for ``stamp``)."""
    return committed.committed_cells(folder)


# --- Reproduction: what the page derives from the committed reports ---------------------------
# Each visit recomputed these from files that change only with the results (about 1 s of the
# page's warm script on the loaded machine: the Friedman tests, the tables beside the
# rankings, the headline, the references' text).
@st.cache_data(max_entries=4, show_spinner=False)
def committed_headline(path: str) -> tuple[report.AcceptanceHeadline, int] | None:
    """A committed report's headline (``report.acceptance_headline``) and seeds.

    None without the report.
    """
    shown = committed.committed_report(path)
    return None if shown is None else (report.acceptance_headline(shown), len(shown.seeds))


@st.cache_data(max_entries=8, show_spinner=False)
def committed_summary(path: str, table: int, classifier: str,
                      not_comparable: tuple[tuple[str, str], ...]
                      ) -> tuple[reproduction.ReportSummary, pd.DataFrame, str] | None:
    """A committed report's counts, its table's rows and what its references say.

    The rows as the page's table shows them (``plots.reproduction_frame``); None without the
    report.
    """
    from pudd_core.plots import reproduction_frame

    shown = committed.committed_report(path, table, classifier)
    if shown is None:
        return None
    return (reproduction.summarise(shown),
            reproduction_frame(shown.cells, not_comparable=dict(not_comparable)),
            shown.reference_text())


@st.cache_data(max_entries=16, show_spinner=False)
def ranking(folder: str | None, stamp: tuple[tuple[str, int], ...], comparison: str
            ) -> tuple[pd.DataFrame, str, FriedmanResult | None]:
    """A comparison's blocks × methods table, its blocks in words and its Friedman test.

    The table is ``claims.comparison_table``'s; the test ``friedman_nemenyi``'s, None where
    it cannot be made. ``folder``: the committed reports' (our runs; see :func:`claims` for
    ``stamp``), or None for the paper's own numbers.
    """
    from pudd_core._validation import ParameterError
    from pudd_core.reproduction.claims import comparison_table, paper_cells

    cells = paper_cells() if folder is None else committed.committed_cells(folder)
    table, blocks = comparison_table(cells, comparison)
    try:
        result = friedman_nemenyi(table, blocks=blocks)
    except ParameterError:
        result = None
    return table, blocks, result


@st.cache_data(max_entries=8, show_spinner=False)
def beside_ranking(folder: str, stamp: tuple[tuple[str, int], ...], comparison: str
                   ) -> pd.DataFrame:
    """``claims.beside_ranking`` of the committed reports (see :func:`claims` for ``stamp``)."""
    from pudd_core.reproduction.claims import beside_ranking as beside

    return beside(committed.committed_cells(folder), comparison)


# --- Reproduction: the threshold studies and the delay study (sections 6-8) -------------------
# Each warm visit recomputed their findings and tables from the committed CSVs: about 4 s of
# the page's 4.1 s warm script at a load of 16 (the studies' Clopper-Pearson intervals 2.4 s,
# the delays' matching of alarms to drifts 1.3 s).
@st.cache_data(max_entries=4, show_spinner=False)
def committed_studies(folder: str, stamp: tuple[tuple[str, int], ...]
                      ) -> tuple[tuple[str, ...], dict[str, pd.DataFrame]]:
    """The threshold studies' findings (their Markdown, markers removed) and tables.

    ``studies.STUDY_FINDINGS`` and ``studies.display_tables`` of the committed CSVs in
    ``folder`` (see :func:`claims` for ``stamp``).
    """
    from pudd_core.reproduction.findings import without_markers
    from pudd_core.reproduction.studies import STUDY_FINDINGS, display_tables

    tables = display_tables(Path(folder))
    if not tables:
        return (), {}
    texts = tuple(without_markers(STUDY_FINDINGS[name](Path(folder))) for name in (
        "studies-defaults", "studies-skip-rule", "studies-false-alarms", "studies-chunk-size"))
    return texts, tables


@st.cache_data(max_entries=4, show_spinner=False)
def delay_runs(path: str, stamp: tuple[tuple[str, int], ...]) -> pd.DataFrame:
    """``delays.read_runs`` of the committed ``delays_runs.csv`` (``stamp``: see :func:`claims`)."""
    from pudd_core.reproduction.delays import read_runs

    return read_runs(path)


@st.cache_data(max_entries=8, show_spinner=False)
def delay_tables(path: str, stamp: tuple[tuple[str, int], ...], cifar: bool
                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The delays and the trade-off curve (``delays.study_tables``) of one group of streams.

    CIFAR-10-CD's runs if ``cifar``, else the synthetic streams'.
    """
    from pudd_core.reproduction.delays import study_tables

    runs = delay_runs(path, stamp)
    delays, _, curve = study_tables(runs[(runs["dataset"] == "cifar10-cd") == cifar])
    return delays, curve


@st.cache_data(max_entries=16, show_spinner=False)
def finding(name: str, folder: str, stamp: tuple[tuple[str, int], ...]) -> str:
    """The generated finding ``name`` (``findings.render``) of the committed reports."""
    from pudd_core.reproduction.findings import Reports, render

    return render(name, Reports(folder))
