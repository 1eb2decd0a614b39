"""The Threshold lab's controls: the sweep (stream, classifier, α range, seeds) and the study."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import streamlit as st

from pudd_core.classifiers import CLASSIFIERS
from pudd_core.runner import RunConfig
from pudd_core.streams import list_streams
from ui import controls, messages, state

LENGTHS = state.THRESHOLDS_LENGTHS  # 0: the stream's own length
STUDY_CHUNKS = (60, 100, 200, 400)
_IMAGES = ("pretrained-cnn", "small-cnn", "resnet18")


def _bound(key: str) -> dict[str, Any]:
    return {"key": state.widget_key(key), "on_change": state.commit, "args": (key,)}


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

    def runs(self) -> list[tuple[str, RunConfig]]:
        """(label, config) of every sweep point, α from large to small."""
        return [(f"α = 1e-{x}, seed {s}",
                 dataclasses.replace(self.base(), alpha=10.0 ** -x, seed=s))
                for x in self.exponents for s in self.seeds]

    def as_python(self) -> str:
        """The equivalent ``pudd_core`` call."""
        length = f", n_chunks={self.n_chunks}" if self.n_chunks else ""
        return (
            "from pudd_core.runner import RunConfig\n"
            "from pudd_core.sweep import threshold_sweep\n\n"
            f'sweep = threshold_sweep(RunConfig("{self.dataset}", "{self.classifier}"{length}),\n'
            f"                        exponents={list(self.exponents)}, "
            f"seeds={list(self.seeds)})"
        )


@dataclass(frozen=True)
class Slots:
    """Placeholders under the controls, for errors that name them."""

    slots: Mapping[str, Any]
    labels: Mapping[str, str]

    def show(self, err: BaseException) -> None:
        """Put ``err`` under the control it concerns (the stream when it names none)."""
        text = str(err)
        name = ("classifier" if text.startswith("classifier ")
                else "n_chunks" if "n_chunks" in text else "stream")
        hint = {"classifier": "Choose a classifier for this kind of stream.",
                "n_chunks": "Choose a shorter stream length (or the stream's own).",
                "stream": "Provide the data as described, or choose another stream; "
                          "the synthetic streams need no files."}[name]
        messages.show_error(self.slots[name], self.labels[name], err, hint)


def sweep_controls(seed: int) -> tuple[SweepConfig, Slots]:
    """Stream, classifier, stream length, number of seeds and the range of α."""
    names = [info.name for info in list_streams()]
    titles = {info.name: info.title for info in list_streams()}
    cols = st.columns(4)
    cols[0].selectbox("Stream", names, format_func=lambda n: f"{n}: {titles[n]}",
                      **_bound(state.THRESHOLDS_DATASET))
    cols[1].selectbox("Classifier", list(CLASSIFIERS), **_bound(state.THRESHOLDS_CLASSIFIER),
                      format_func=lambda c: f"{c}: {CLASSIFIERS[c]}")
    cols[2].select_slider("Stream length", options=list(LENGTHS), format_func=_length,
                          **_bound(state.THRESHOLDS_N_CHUNKS),
                          help="Shorter streams give quicker, noisier sweeps.")
    cols[3].number_input("Seeds per α", 1, 5, step=1, **_bound(state.THRESHOLDS_SEEDS),
                         help=f"Seeds {seed}, {seed + 1}, … (from the sidebar seed on); each "
                              "point is their mean, error bars ±1 standard deviation.")
    slots = {"stream": cols[0].empty(), "classifier": cols[1].empty(),
             "n_chunks": cols[2].empty()}
    labels = {"stream": "Stream", "classifier": "Classifier", "n_chunks": "Stream length"}
    # st.slider, not select_slider: a range select_slider seeded from session_state (no
    # value=) reads the browser's two handles back as one value (streamlit 1.67)
    st.slider("Range of α, from 10⁻¹ to 10⁻¹⁰", 1, 10, step=1, format="1e-%d",
              **_bound(state.THRESHOLDS_EXPONENTS),
              help="Every α = 10⁻ˣ from the first to the last x is run; PUDD-1/3/5 are the "
                   "paper's.")
    first, last = (int(v) for v in state.get(state.THRESHOLDS_EXPONENTS))
    n_seeds = int(state.get(state.THRESHOLDS_SEEDS))
    cfg = SweepConfig(
        str(state.get(state.THRESHOLDS_DATASET)), str(state.get(state.THRESHOLDS_CLASSIFIER)),
        tuple(range(first, last + 1)), tuple(range(seed, seed + n_seeds)),
        int(state.get(state.THRESHOLDS_N_CHUNKS)) or None,
    )
    return cfg, Slots(slots, labels)


@dataclass(frozen=True)
class StudyConfig:
    """The stationary stream of the false-alarm study."""

    dataset: str
    classifier: str
    n_chunks: int
    seed: int


def study_controls(seed: int, classifier: str) -> tuple[StudyConfig, Any]:
    """The synthetic stream kept stationary, its length, and α for the p-value chart."""
    synthetic = [i.name for i in list_streams() if i.kind == "synthetic"]
    cols = st.columns(3)
    cols[0].selectbox("Stationary stream (one concept throughout)", synthetic,
                      **_bound(state.THRESHOLDS_STUDY_DATASET),
                      help="A synthetic stream whose concept never changes: every test is a "
                           "test of a true null hypothesis.")
    cols[1].select_slider("Chunks of 1000", options=list(STUDY_CHUNKS),
                          **_bound(state.THRESHOLDS_STUDY_CHUNKS))
    with cols[2]:
        controls.alpha_selector(state.THRESHOLDS_ALPHA_EXP, label="α for the p-value chart")
    slot = cols[0].empty()
    return StudyConfig(str(state.get(state.THRESHOLDS_STUDY_DATASET)),
                       classifier if classifier not in _IMAGES else "gnb",
                       int(state.get(state.THRESHOLDS_STUDY_CHUNKS)), seed), slot
