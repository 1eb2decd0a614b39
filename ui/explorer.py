"""The Stream explorer's settings: widgets -> an ExplorerConfig, runs with a progress bar.

The PUDD setting rows and the seeds are drawn by ``ui.pudd_settings``.

Every input error is shown under the control that caused it (``Settings.error``); the other
settings stay as they are.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import streamlit as st

from pudd_core.classifiers import CLASSIFIERS, TABULAR_CLASSIFIERS
from pudd_core.experiments import cost, pool
from pudd_core.experiments.detectors import DETECTORS
from pudd_core.experiments.runner import RunConfig, RunResult, run_experiment
from pudd_core.paper import REGIMES, Regime
from pudd_core.streams import Stream, StreamInfo
from pudd_core.views.explorer import (
    Comparison,
    ExplorerConfig,
    compared_detectors,
    comparison_log_frame,
    compatible_classifiers,
)
from pudd_core.views.explorer_downloads import cuts_frame, export_json, windows_frame
from pudd_core.views.explorer_upload import error_field, upload_name, user_stream
from ui import cache, messages, player, progress, pudd_settings, state
from ui.progress import Task

_REGIME_HELP: dict[Regime, str] = {
    "incremental": "Incremental (-I): train on every chunk after testing it",
    "train-once": "Train once (-O): train at the start and after each alarm only",
}
#: pudd_core.views.explorer_upload.Field -> the label of its control, to name it in messages.
LABELS = {"dataset": "Dataset", "classifier": "Classifier", "chunk_size": "Chunk size",
          "n_chunks": "Chunks", "upload": "CSV file", "label": "Label column"}
_UPLOAD_KEY = "explorer_upload"  # the file uploader's own widget key (not shareable)
_KEPT_UPLOAD = "explorer_kept_upload"  # (file name, bytes) of the last upload
_STREAM_CHUNK_DEFAULT = 1000
RUN_ANCHOR = "stream-explorer"  # the page title's anchor: the Run button is just under it


def _infos() -> dict[str, StreamInfo]:
    return {info.name: info for info in cache.streams()}


def _dataset_changed() -> None:
    """New dataset: its own chunk size, and a classifier that can learn it."""
    state.commit(state.EXPLORER_DATASET)
    info = _infos().get(state.get(state.EXPLORER_DATASET))
    state.set_value(state.EXPLORER_CHUNK_SIZE, info.chunk_size if info else _STREAM_CHUNK_DEFAULT)
    allowed = compatible_classifiers(info) if info else TABULAR_CLASSIFIERS
    if state.get(state.EXPLORER_CLASSIFIER) not in allowed:
        state.set_value(state.EXPLORER_CLASSIFIER, allowed[0])


@dataclass(frozen=True)
class Upload:
    """An uploaded CSV: its bytes and the label column."""

    data: bytes
    label: str


@dataclass(frozen=True)
class Settings:
    """What the controls chose, and where each control's errors go."""

    config: ExplorerConfig | None  # None until the inputs are complete
    upload: Upload | None
    slots: Mapping[str, Any]  # views.explorer_upload.Field -> placeholder under its control
    band: bool = False  # several seeds: show their mean and band (else the first seed)
    run_slot: Any = None  # under the Seeds field: where to say the runs wait for Run

    def ask_to_run(self) -> None:
        """Say, beside the Seeds and Chunks that make the work long, where Run is.

        The Run button sits above the settings, with the results: changing the seeds far
        down the page would otherwise leave the visitor with nothing to see (issue 34).
        """
        if self.run_slot is not None:
            self.run_slot.info(
                "These settings take a while: press **Run** [at the top of the page]"
                f"(#{RUN_ANCHOR}), above the settings, to compute them.",
                icon=":material/arrow_upward:")

    def error(self, err: Exception) -> None:
        """Show ``err`` under the control it is about, with what to do."""
        field, hint = error_field(err, upload=self.upload is not None)
        if field not in self.slots:
            field = "dataset"
        self.slots[field].error(f"**{LABELS[field]}**: {messages.escape(err)}\n\n{hint}",
                                icon=":material/error:")


def _dataset_label(infos: Mapping[str, StreamInfo]) -> Any:
    def fmt(name: str) -> str:
        if name == state.EXPLORER_UPLOAD:
            return "Your CSV file …"
        info = infos[name]
        extra = "" if info.available else " (data missing)"
        if info.kind == "image":
            extra += " (images, slow)"
        return f"{info.title}{extra}"

    return fmt


def _classifier_label(name: str) -> str:
    """``gnb`` -> ``Gaussian naive Bayes``: the description up to its first detail."""
    return CLASSIFIERS[name].split(",")[0].split(" (")[0]


def read_upload(file: Any) -> bytes | None:
    """The bytes of the uploader's file (``None`` before a file is chosen)."""
    return None if file is None else bytes(file.getvalue())


def settings() -> Settings:
    """Draw the settings; return the exploration to run, or ``None`` with errors shown."""
    infos = _infos()
    names = (*infos, state.EXPLORER_UPLOAD)
    # two rows, so every label and value fits beside the sidebar on a 1024-pixel projector
    top = st.columns([1.6, 1.6, 1.2])
    top[0].selectbox("Dataset", names, format_func=_dataset_label(infos),
                     key=state.widget_key(state.EXPLORER_DATASET), on_change=_dataset_changed,
                     help="The registry's streams, or a CSV file of your own.")
    # messages go in full-width slots under the row, each naming its control
    under = st.container()
    slots: dict[str, Any] = {f: under.empty() for f in ("dataset", "classifier")}
    dataset = str(state.get(state.EXPLORER_DATASET))
    info = infos.get(dataset)
    allowed = compatible_classifiers(info) if info else TABULAR_CLASSIFIERS
    wanted = state.get(state.EXPLORER_CLASSIFIER)
    if wanted not in allowed:  # e.g. a link asking for gnb on CIFAR-10-CD
        state.set_value(state.EXPLORER_CLASSIFIER, allowed[0])
    top[1].selectbox("Classifier", allowed, format_func=_classifier_label,
                     **state.bound(state.EXPLORER_CLASSIFIER),
                     help="\n\n".join(f"**{c}**: {CLASSIFIERS[c]}" for c in allowed))
    if wanted not in allowed:
        slots["classifier"].warning(
            f"**Classifier**: `{wanted}` cannot learn {info.title if info else 'this stream'} "
            f"(features {info.feature_shape if info else '?'}); using `{allowed[0]}`.",
            icon=":material/swap_horiz:")
    elif info is not None and info.kind == "image":
        slots["classifier"].caption(
            "**Classifier**: an image stream, so only the CNNs are offered. Expect minutes per "
            "run on a CPU; the CIFAR-10-CD page explains the stream.")
    top[2].radio("Training regime", REGIMES, format_func=lambda r: _REGIME_HELP[r].split(":")[0],
                 **state.bound(state.EXPLORER_REGIME),
                 help="\n\n".join(_REGIME_HELP[r] for r in REGIMES))
    mid = st.columns([0.8, 0.8, 1.4, 2.2])
    mid[0].number_input("Chunk size", min_value=10, max_value=100_000, step=100,
                        **state.bound(state.EXPLORER_CHUNK_SIZE))
    default_n = info.n_chunks if info else None
    mid[1].number_input("Chunks", min_value=2, max_value=10_000, step=10,
                        placeholder=f"all ({default_n})" if default_n else "all",
                        **state.bound(state.EXPLORER_N_CHUNKS),
                        help="How many chunks to run; empty for the whole stream.")
    seeds, band = pudd_settings.seeds_controls(mid[2])
    seed_slot = mid[2].empty()  # what the seeds change, once the settings are read
    below = st.container()  # under the second row
    run_slot = mid[2].empty() if seeds > 1 else below.empty()
    slots.update({f: below.empty() for f in ("chunk_size", "n_chunks")})
    mid[3].multiselect("Baseline detectors beside PUDD", list(compared_detectors()),
                       format_func=lambda b: DETECTORS[b], **state.bound(state.EXPLORER_BASELINES),
                       help="Each runs on its own copy of the classifier, adapted at its own "
                            "alarms; all get the same stream and seed (sidebar). The two "
                            "references are not detectors: the model never adapted, and the "
                            "model adapted exactly at the true drifts (synthetic streams).")
    with st.container(border=True):
        chosen = pudd_settings.settings_controls()

    upload = None
    if dataset == state.EXPLORER_UPLOAD:
        upload, ok = _upload_controls(slots)
        if not ok:
            return Settings(None, upload, slots, band)
    elif info is not None and not info.available:
        messages.missing_data(slots["dataset"], "Dataset", info, key="explorer")
        return Settings(None, None, slots, band)
    if not chosen:
        return Settings(None, upload, slots, band)
    n_chunks = state.get(state.EXPLORER_N_CHUNKS)
    config = ExplorerConfig(
        dataset=upload_name(upload.data) if upload else dataset,
        classifier=str(state.get(state.EXPLORER_CLASSIFIER)),
        regime=state.get(state.EXPLORER_REGIME),
        settings=chosen,
        baselines=tuple(state.get(state.EXPLORER_BASELINES)),
        seed=int(state.get(state.SEED)),
        seeds=seeds,
        chunk_size=int(state.get(state.EXPLORER_CHUNK_SIZE)),
        n_chunks=None if n_chunks is None else int(n_chunks),
    )
    note = config.seed_note()
    if note is not None:  # beside the Seeds field: runs the seed cannot change are run once
        seed_slot.caption(note)
    if config.dropped:
        below.caption(f"The oracle is not run here: {DETECTORS['oracle']} adapts at the "
                      "stream's true drifts, and this stream's are unknown.")
    return Settings(config, upload, slots, band, run_slot)


def _upload_controls(slots: dict[str, Any]) -> tuple[Upload | None, bool]:
    cols = st.columns([2, 1])
    # Streamlit forgets an uploader's file when its page is left; the file is kept here so
    # coming back to the explorer needs no new upload. A cleared uploader (its state still
    # there, holding no file) forgets it.
    returning = _UPLOAD_KEY not in st.session_state
    file = cols[0].file_uploader(
        "CSV file: a header row, feature columns and a label column", type=["csv"],
        key=_UPLOAD_KEY, help="Rows are read in file order as the stream; text columns are "
                              "one-hot encoded. Uploads are not part of shareable links.")
    data = read_upload(file)
    under = st.container()
    slots["upload"], slots["label"] = under.empty(), under.empty()
    if data is not None:
        st.session_state[_KEPT_UPLOAD] = (str(getattr(file, "name", "your file")), data)
    elif returning and _KEPT_UPLOAD in st.session_state:
        name, data = st.session_state[_KEPT_UPLOAD]
        cols[0].caption(f"Using **{messages.escape(name)}**, uploaded earlier in this "
                        "session; choose another file to replace it.")
    else:
        st.session_state.pop(_KEPT_UPLOAD, None)
    if data is None:
        slots["upload"].info("Upload a CSV file to explore it. Links to this page cannot carry "
                             "the file: upload it again after opening one.",
                             icon=":material/upload_file:")
        return None, False
    try:
        columns = cache.explorer_csv_columns(upload_name(data), data)
    except ValueError as err:
        slots["upload"].error(f"**CSV file**: {messages.escape(err)}\n\nUpload a "
                              "comma-separated file with a header row, feature columns and a "
                              "label column.",
                              icon=":material/error:")
        return None, False
    if state.get(state.EXPLORER_LABEL) not in columns:
        state.set_value(state.EXPLORER_LABEL, columns[-1])
    cols[1].selectbox("Label column", columns, **state.bound(state.EXPLORER_LABEL),
                      help="The column that holds each row's class; the others are features.")
    if state.get(state.EXPLORER_LABEL) == columns[-1]:
        cols[1].caption("The last column is the label unless you pick another: make sure it "
                        "holds the classes.")
    return Upload(data, str(state.get(state.EXPLORER_LABEL))), True


def compute(config: ExplorerConfig, upload: Upload | None) -> list[RunResult] | None:
    """Per seed, each PUDD setting's run then each baseline's: cached, or computed with Stop.

    Runs estimated under ``progress.AUTO_SECONDS`` start by themselves; longer ones (a DNN
    or a CNN over many chunks) wait for Run and can be stopped, keeping the finished runs.
    Returns None while some run is not computed (the page then shows the Run button).
    """
    start = time.perf_counter()
    # a run the seed cannot change is the same config at every seed: computed once
    every = config.run_configs()
    configs = list(dict.fromkeys(every))

    @functools.cache
    def stream(seed: int) -> Stream:
        """The exploration's stream for ``seed``, loaded once if any run is not cached yet."""
        if upload is None:
            cfg = next(c for c in configs if c.seed == seed)
            return pool.kept_stream(cfg, _infos().get(cfg.dataset))
        return user_stream(upload.data, label=upload.label,
                           chunk_size=config.chunk_size or _STREAM_CHUNK_DEFAULT,
                           n_chunks=config.n_chunks)

    def tasks_now() -> list[Task]:
        return [_run_task(cfg, upload, functools.partial(stream, cfg.seed)) for cfg in configs]

    tasks = tasks_now()
    at_once = _at_once(configs, tasks, upload, stream)
    if at_once:
        tasks = tasks_now()  # a task looks its result up when made: now they are all cached
    outcome = progress.run_tasks(state.EXPLORER_JOB, tasks, what="runs")
    if not outcome.complete:
        return None
    if outcome.computed or at_once:
        player.log_time("runs", start)
    by_config = dict(zip(configs, outcome.results, strict=True))
    return [by_config[c] for c in every]


def _at_once(configs: list[RunConfig], tasks: list[Task], upload: Upload | None,
             stream: Callable[[int], Stream]) -> int:
    """Compute the missing runs in parallel when there are several and they are quick.

    Returns how many it computed (and cached); 0 leaves them all to the one-by-one loop.
    """
    missing = [(cfg, t) for cfg, t in zip(configs, tasks, strict=True) if t.peek() is None]
    keys = [_run_key(cfg, upload) for cfg, _ in missing]
    runs = pool.run_at_once(
        [config for _, config in keys], sum(t.seconds for _, t in missing),
        lambda: [stream(cfg.seed) for cfg, _ in missing],
        busy=st.spinner(f"Computing {progress.count(len(missing), 'runs')} at once …"))
    if runs is None:
        return 0
    for (spec, _), run in zip(keys, runs, strict=True):
        cache.keep(spec, run)
    return len(runs)


def _run_key(cfg: RunConfig, upload: Upload | None) -> tuple[tuple[Any, ...], RunConfig]:
    """The cache key of ``cfg``'s run, and the config it runs."""
    spec = ("explorer", cfg) if upload is None else ("explorer-csv", cfg, upload.label)
    # an upload's run ignores n_chunks: its stream() already holds just those chunks
    return spec, (cfg if upload is None else replace(cfg, n_chunks=None))


def _run_task(cfg: RunConfig, upload: Upload | None, stream: Callable[[], Stream]) -> Task:
    """One detector's run as a ``progress.Task``, its result kept by config (and label)."""
    spec, config = _run_key(cfg, upload)
    done = cache.finished(spec)  # looked up once per rerun; estimated only when missing
    if done is not None:
        seconds = 0.0
    elif upload is None:
        seconds = cost.run_seconds(cfg)
    else:  # cfg.dataset is the file's hash name: the estimate needs the parsed stream
        seconds = cost.CHUNK_SECONDS.get(cfg.classifier, 0.0) * max(stream().n_chunks - 1, 0)

    def compute(report: progress.Progress) -> RunResult:
        result = cache.off_server(config.classifier, run_experiment, config, stream=stream(),
                                  progress=report)
        cache.keep(spec, result)
        return result

    label = DETECTORS[cfg.detector] if cfg.detector != "pudd" else f"PUDD α = {cfg.alpha:g}"
    return Task(f"{label}, seed {cfg.seed}", seconds, lambda: done, compute)


def downloads(config: ExplorerConfig, comparison: Comparison) -> None:
    """The exploration's numbers as files: the run log, every cut's test, the windows, JSON.

    Each file is made when its button is pressed (a callable ``data``), so reruns stay cheap.
    """
    stem = config.file_stem()
    files = (
        ("Run log (CSV)", f"{stem}_log.csv", "text/csv", "explorer_download",
         lambda: comparison_log_frame(comparison).to_csv(index=False),
         "Per setting and seed (the first two columns), the per-chunk log (accuracy, PU mean, "
         "min p, every cut's p, alarms), plus each baseline's alarms and error rate."),
        ("Every cut's χ² test (CSV)", f"{stem}_cuts.csv", "text/csv", "explorer_download_cuts",
         lambda: cuts_frame(comparison).to_csv(index=False),
         "Per setting, seed, chunk and cut: χ² statistic, degrees of freedom, p, and whether "
         "the skip rule, a shortcut, the count floor or the data decided it."),
        ("Windows: tables and histograms (CSV)", f"{stem}_windows.csv", "text/csv",
         "explorer_download_windows", lambda: windows_frame(comparison).to_csv(index=False),
         "Per setting, seed and test: the winning cut's observed (after the floor) and expected "
         "counts, and the two windows' 40-bin PU histograms, one value a row."),
        ("Everything (JSON)", f"{stem}.json", "application/json", "explorer_download_json",
         lambda: json.dumps(export_json(comparison), indent=1),
         "All of the above, nested by setting, seed and chunk."),
    )
    cols = [*st.columns(2), *st.columns(2)]  # two rows: four in a row cut their labels
    for col, (label, name, mime, key, data, help_text) in zip(cols, files, strict=True):
        col.download_button(label, data, file_name=name, mime=mime, key=key, help=help_text,
                            icon=":material/download:", on_click="ignore")
    st.caption("Figures: the camera of each chart's toolbar saves a PNG, the one beside it an "
               "SVG, named after the chart, the chunk and, for a setting's details, the "
               "setting and seed.")
