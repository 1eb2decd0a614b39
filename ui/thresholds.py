"""The Threshold lab's controls: the sweep (stream, classifier, α range, seeds) and the study."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pandas as pd
import streamlit as st

from pudd_core._validation import ParameterError
from pudd_core.classifiers import CLASSIFIERS, IMAGE_CLASSIFIERS
from pudd_core.experiments.runner import RunConfig
from pudd_core.experiments.seeding import SeedDependence, seed_dependence
from pudd_core.streams import DatasetUnavailableError, get_info
from pudd_core.streams.locate import project_root
from ui import cache, controls, messages, state

LENGTHS = state.THRESHOLDS_LENGTHS  # 0: the stream's own length
STUDY_CHUNKS = (60, 100, 200, 400)


def _length(n: int) -> str:
    return "the stream's own" if n == 0 else f"{n} chunks"


@dataclass(frozen=True)
class SweepConfig:
    """PUDD runs at α = 10⁻ˣ for each x in ``exponents`` and each seed."""

    dataset: str
    classifier: str
    exponents: tuple[int, ...]
    seeds: tuple[int, ...]
    n_chunks: int | None

    def base(self) -> RunConfig:
        """The run every sweep point varies (validated before any work)."""
        return RunConfig(self.dataset, self.classifier, "pudd", seed=self.seeds[0],
                         n_chunks=self.n_chunks)

    def seed_dependence(self) -> SeedDependence:
        """Which parts of the sweep's runs depend on the seed (α changes none of them)."""
        return seed_dependence(self.base())

    @property
    def seeds_run(self) -> tuple[int, ...]:
        """The seeds run: the first alone where the runs do not depend on the seed."""
        return self.seeds if self.seed_dependence().depends else self.seeds[:1]

    def seed_note(self) -> str | None:
        """What the seeds change, for several seeds where some part of a run ignores them."""
        if len(self.seeds) == 1:
            return None
        dep = self.seed_dependence()
        pair = f"{self.dataset} × {self.classifier}"
        if not dep.depends:
            return (f"{pair} does not depend on the seed: one run shown per α, not a mean "
                    f"of {len(self.seeds)} identical ones.")
        if dep.stream or dep.model:
            return None
        return (f"{pair}: the data and the model are the same for every seed; the seeds "
                f"differ only in {' and '.join(dep.parts())}.")

    def runs(self) -> list[tuple[str, RunConfig]]:
        """(label, config) of every sweep point, α from large to small."""
        return [(f"α = 1e-{x}, seed {s}",
                 dataclasses.replace(self.base(), alpha=10.0 ** -x, seed=s))
                for x in self.exponents for s in self.seeds_run]

    def as_python(self) -> str:
        """The equivalent ``pudd_core`` call."""
        length = f", n_chunks={self.n_chunks}" if self.n_chunks else ""
        return (
            "from pudd_core.experiments.runner import RunConfig\n"
            "from pudd_core.experiments.sweep import threshold_sweep\n\n"
            f'sweep = threshold_sweep(RunConfig("{self.dataset}", "{self.classifier}"{length}),\n'
            f"                        exponents={list(self.exponents)}, "
            f"seeds={list(self.seeds_run)})"
        )


@dataclass(frozen=True)
class Slots:
    """Placeholders under the controls, for errors that name them."""

    slots: Mapping[str, Any]
    labels: Mapping[str, str]
    dataset: str | None = None  # the stream chosen, for a missing-data message

    def show(self, err: BaseException) -> None:
        """Put ``err`` under the control it concerns (the stream when it names none)."""
        if isinstance(err, DatasetUnavailableError) and self.dataset is not None:
            messages.missing_data(self.slots["stream"], self.labels["stream"],
                                  get_info(self.dataset), key="thresholds")
            return
        param = err.param if isinstance(err, ParameterError) else None
        name = param if param in ("classifier", "n_chunks") else "stream"
        hint = {"classifier": "Choose a classifier for this kind of stream.",
                "n_chunks": "Choose a shorter stream length (or the stream's own).",
                "stream": "Provide the data as described, or choose another stream; "
                          "the synthetic streams need no files."}[name]
        messages.show_error(self.slots[name], self.labels[name], err, hint)


def sweep_controls(seed: int) -> tuple[SweepConfig, Slots]:
    """Stream, classifier, stream length, number of seeds and the range of α."""
    infos = {info.name: info for info in cache.streams()}  # checked once per 30 s, not per call
    names = list(infos)
    titles = {name: info.title for name, info in infos.items()}
    cols = st.columns(4)
    cols[0].selectbox("Stream", names, format_func=lambda n: f"{n}: {titles[n]}",
                      **state.bound(state.THRESHOLDS_DATASET))
    cols[1].selectbox("Classifier", list(CLASSIFIERS), **state.bound(state.THRESHOLDS_CLASSIFIER),
                      format_func=lambda c: f"{c}: {CLASSIFIERS[c]}")
    cols[2].select_slider("Stream length", options=list(LENGTHS), format_func=_length,
                          **state.bound(state.THRESHOLDS_N_CHUNKS),
                          help="Shorter streams give quicker, noisier sweeps.")
    cols[3].number_input("Seeds per α", 1, 5, step=1, **state.bound(state.THRESHOLDS_SEEDS),
                         help=f"Seeds {seed}, {seed + 1}, … (from the sidebar seed on); each "
                              "point is their mean, error bars ±1 standard deviation.")
    slots = {"stream": cols[0].empty(), "classifier": cols[1].empty(),
             "n_chunks": cols[2].empty()}
    labels = {"stream": "Stream", "classifier": "Classifier", "n_chunks": "Stream length"}
    # st.slider, not select_slider: a range select_slider seeded from session_state (no
    # value=) reads the browser's two handles back as one value (streamlit 1.67)
    st.slider("Range of α, from 10⁻¹ to 10⁻¹⁰", 1, 10, step=1, format="1e-%d",
              **state.bound(state.THRESHOLDS_EXPONENTS),
              help="Every α = 10⁻ˣ from the first to the last x is run; PUDD-1/3/5 are the "
                   "paper's.")
    first, last = (int(v) for v in state.get(state.THRESHOLDS_EXPONENTS))
    n_seeds = int(state.get(state.THRESHOLDS_SEEDS))
    dataset = str(state.get(state.THRESHOLDS_DATASET))
    n_chunks = int(state.get(state.THRESHOLDS_N_CHUNKS)) or None
    own = infos[dataset].n_chunks if dataset in infos else None
    if n_chunks is not None and own is not None and n_chunks > own:
        # a length past the stream's end is not an error to fix: use the whole stream
        slots["n_chunks"].caption(f"**Stream length**: {titles[dataset]} has {own} chunks; "
                                  "the whole stream is used.")
        n_chunks = None
    cfg = SweepConfig(
        dataset, str(state.get(state.THRESHOLDS_CLASSIFIER)),
        tuple(range(first, last + 1)), tuple(range(seed, seed + n_seeds)), n_chunks,
    )
    try:
        note = cfg.seed_note()
    except (ValueError, DatasetUnavailableError):  # said under its control by the page
        note = None
    if note is not None:  # under the Seeds per α field
        cols[3].caption(note)
    return cfg, Slots(slots, labels, dataset)


@dataclass(frozen=True)
class StudyConfig:
    """The stationary stream of the false-alarm study."""

    dataset: str
    classifier: str
    n_chunks: int
    seed: int


def study_controls(seed: int, classifier: str, dataset: str) -> tuple[StudyConfig | None, Any]:
    """The chosen stream kept stationary, its length, and α for the p-value chart.

    Only a synthetic stream has a version without drift (one concept throughout); for any
    other the study does not run, and the page says so (it never runs on another stream).
    """
    infos = {i.name: i for i in cache.streams()}
    cols = st.columns(3)
    cols[1].select_slider("Chunks of 1000", options=list(STUDY_CHUNKS),
                          **state.bound(state.THRESHOLDS_STUDY_CHUNKS))
    with cols[2]:
        controls.alpha_selector(state.THRESHOLDS_ALPHA_EXP, label="α for the p-value chart")
    slot = cols[0].empty()
    info = infos.get(dataset)
    if info is None or info.kind != "synthetic":
        title = info.title if info is not None else dataset
        slot.info(f"**{title}** is not a synthetic stream: it has no version without drift, "
                  "so no test on it is known to be a false alarm. Section 3 estimates its "
                  "false alarms from a stable stretch of its own predictions.",
                  icon=":material/info:")
        return None, slot
    slot.caption(f"**{info.title}** with one concept throughout (its drift never comes).")
    return StudyConfig(dataset, classifier if classifier not in IMAGE_CLASSIFIERS else "gnb",
                       int(state.get(state.THRESHOLDS_STUDY_CHUNKS)), seed), slot


# --- choosing α on the chosen stream, or on an uploaded log (issue 35) -------------------------
CALIB_SOURCES = ("The stream above (its classifier's predictions)", "A prediction log you upload")
CALIB_PREFIX = "thresholds"
CALIB_UPLOAD = "thresholds_calib_upload"


def stream_log(config: RunConfig) -> pd.DataFrame:
    """The prediction log of the sweep's stream and classifier (``export_predictions``)."""
    from pudd_core.experiments.export import export_predictions

    return cast(pd.DataFrame, cache.off_server(config.classifier, export_predictions, config))


@dataclass(frozen=True)
class CalibSource:
    """What the calibration reads: a name, a key, the log, its chunk size and columns."""

    name: str
    key: str
    log: Callable[[], Any]
    chunk_size: int
    n_chunks: int
    columns: tuple[tuple[str, Any], ...]
    path: str  # the log's file name in the equivalent commands
    options: str  # the monitor command's options for its columns
    make: str = ""  # the command that writes the log ("": the user's own file)


def calib_source(sweep: SweepConfig) -> CalibSource | None:
    """The chosen stream's predictions, or an uploaded log read with guessed columns."""
    choice = st.radio("Choose α on", CALIB_SOURCES, key="thresholds_calib_source",
                      horizontal=True)
    if choice == CALIB_SOURCES[0]:
        try:
            sweep.base().validate()
        except (ValueError, DatasetUnavailableError):
            st.info("Fix the stream or classifier marked in section 1 to choose α on its "
                    "predictions.", icon=":material/info:")
            return None
        infos = {i.name: i for i in cache.streams()}
        info = infos[sweep.dataset]
        config = dataclasses.replace(sweep.base(), detector="none")
        n = (sweep.n_chunks or info.n_chunks) - 1  # chunk 0 trains the model
        size = config.chunk_size or info.chunk_size
        length = f" --n-chunks {sweep.n_chunks}" if sweep.n_chunks else ""
        return CalibSource(
            f"{sweep.dataset} with {sweep.classifier}", f"stream:{config.key()}",
            lambda: stream_log(config), size, n,
            (("label", "label"), ("proba_prefix", "proba_")), "log.parquet",
            "--label label --proba-prefix proba_",
            f"python -m pudd_core export-predictions --dataset {sweep.dataset} --classifier "
            f"{sweep.classifier} --seed {config.seed}{length} --out log.parquet")
    return _uploaded()


def uploaded_file(file: Any) -> tuple[str, bytes] | None:
    """The uploader's file name and bytes (None before a file is chosen)."""
    return None if file is None else (str(file.name), bytes(file.getvalue()))


def _uploaded() -> CalibSource | None:
    from pudd_core.monitoring import guess_columns, read_log_head
    from pudd_core.views.explorer_upload import upload_name

    file = st.file_uploader("Prediction log (CSV or Parquet): a label column and one "
                            "probability column per class", type=["csv", "parquet"],
                            key=CALIB_UPLOAD)
    slot = st.empty()
    chosen = uploaded_file(file)
    if chosen is None:
        slot.info("Upload a log of your model's predictions; its columns are guessed by "
                  "their names (label, proba_*), as on the page “Your model's predictions”, "
                  "where any other shape can be mapped by hand.", icon=":material/upload:")
        return None
    name, data = chosen
    import io

    try:
        head = read_log_head(io.BytesIO(data), 200)
        guess = guess_columns(head)
        if guess["label"] is None or guess["proba_prefix"] is None:
            raise ParameterError("upload", "no label column and probability columns with a "
                                           "common prefix (label, proba_0, proba_1, ...) "
                                           "were found by their names")
        n_rows = len(read_log_head(io.BytesIO(data), len(data)))  # at most a row per byte
    except (ValueError, OSError) as err:
        messages.show_error(slot, "Prediction log", err,
                            "Upload a CSV or Parquet log with a label column and one "
                            "probability column per class (proba_0, proba_1, ...); other "
                            "shapes: the page “Your model's predictions”.")
        return None
    size = 1000 if n_rows >= 6000 else max(n_rows // 6, 1)
    st.caption(f"**{messages.escape(name)}**: {n_rows:,} rows, label "
               f"`{guess['label']}`, probabilities `{guess['proba_prefix']}*`; chunks of "
               f"{size:,} rows.")
    columns = (("label", guess["label"]), ("proba_prefix", guess["proba_prefix"]))
    return CalibSource(name, upload_name(data), lambda: io.BytesIO(data), size,
                       n_rows // size, columns, name,
                       f"--label {guess['label']} --proba-prefix {guess['proba_prefix']}")


# --- the committed false-alarm table (issue 10 item 6) ------------------------------------------
#: Written by ``scripts/false_alarm_table.py``; None when installed without the project folder.
_ROOT = project_root()
FALSE_ALARMS: Path | None = None if _ROOT is None else _ROOT / "results" / "false_alarms.csv"
VARIANTS = {  # the CSV's variant -> what it is, in a word
    "default (floor 5)": "the authors' count floor: a cell under 5 counts as 5",
    "clamp_min=0": "no floor: the counts as observed",
    "clamp_min=0, min_expected=5": "no floor, and columns expected under 5 merged",
}


def _in_order(variants: Any) -> list[str]:
    """The variants, those of :data:`VARIANTS` first in its order, then any others."""
    given = [str(v) for v in variants]
    return [v for v in VARIANTS if v in given] + [v for v in given if v not in VARIANTS]


def false_alarm_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The CSV's rows as one line per stream (chunk size × error rate), a column per variant.

    Each cell: the per-test false-alarm rate, ``▲`` where its 95 % lower bound is above α.
    """
    frame = frame.assign(cell=[f"{p:.5f}{' ▲' if above else ''}" for p, above in
                               zip(frame["per_test"], frame["above_alpha"], strict=True)])
    table = frame.pivot(index=["chunk_size", "error_rate"], columns="variant", values="cell")
    table = table[_in_order(table.columns)]
    table = table.reset_index()
    table["error_rate"] = [f"{100 * r:g} %" for r in table["error_rate"]]
    table.columns = ["Chunk size", "Error rate", *table.columns[2:]]
    table.columns.name = None
    return table


def committed_false_alarms() -> None:
    """The committed stationary false-alarm table with what its three variants are."""
    frame = cache.committed_frame_or_say(FALSE_ALARMS, "false-alarm table",
                                         "`scripts/false_alarm_table.py`")
    if frame is None:
        return
    alpha = float(frame["alpha"].iloc[0])
    n_chunks = int(frame["n_chunks"].iloc[0])
    above = frame.groupby("variant", sort=False)["above_alpha"].agg(["sum", "size"])
    counts = "; ".join(f"{v}: {int(above.loc[v, 'sum'])} of {int(above.loc[v, 'size'])}"
                       for v in _in_order(above.index))
    st.markdown(
        f"PUDD's χ² test raises every observed count under 5 to 5 before testing (the "
        f"authors' *count floor*). With few or no misclassified predictions, the empty "
        f"misclassified column becomes 5 errors in each window and the test can reject "
        f"where nothing changed. Measured on stationary streams ({n_chunks} chunks per "
        f"cell, α = {alpha:g}), the share of single tests with p < α, per variant:"
    )
    st.markdown("\n".join(f"- **{v}**: {what}" for v, what in VARIANTS.items()))
    table = false_alarm_table(frame)
    st.dataframe(table, hide_index=True, height=35 * (len(table) + 1) + 3)  # every row shown
    st.caption(
        f"▲: the rate's 95 % lower bound exceeds α = {alpha:g}, so the excess is not sampling "
        f"noise. Streams above α, per variant: {counts}. The default stays the authors' "
        "behaviour, for reproducing the paper; `ChunkPUDD(clamp_min=0, min_expected=5)` is "
        "the variant whose rate stays at or below α. From the committed "
        "`results/false_alarms.csv`; `results/false_alarms.md` has the command and the "
        "intervals."
    )
