"""The CIFAR-10-CD page's controls: run length, classifier, detectors and PUDD's threshold."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

import streamlit as st

from pudd_core.experiments.detectors import DETECTORS, detector_names
from pudd_core.experiments.runner import RunConfig
from pudd_core.paper import REFERENCES
from pudd_core.reproduction.cifar import paired_ranks
from pudd_core.streams import StreamInfo
from pudd_core.streams.locate import project_root
from ui import cache, controls, messages, state

if TYPE_CHECKING:
    import pandas as pd

    from pudd_core.reproduction.significance import FriedmanResult

CLASSIFIERS = {
    "pretrained-cnn": "Pretrained CNN + head (~1 s/chunk)",
    "small-cnn": "Small CNN from scratch (learns nothing)",
    "resnet18": "ResNet-18, the authors' recipe (~25 s/chunk on CPU)",
}
CHUNK_CHOICES = state.CIFAR_CHUNK_CHOICES
DETECTOR_NAMES = {d: DETECTORS[d] for d in ("pudd", *detector_names("errors"))}  # offered here


@dataclass(frozen=True)
class CifarConfig:
    """The runs the page compares: one per detector, same stream, classifier and seed."""

    seed: int
    n_chunks: int
    classifier: str
    detectors: tuple[str, ...]
    alpha_exp: int

    def names(self) -> tuple[str, ...]:
        """Display names, PUDD as PUDD-x (α = 10⁻ˣ)."""
        return tuple(f"PUDD-{self.alpha_exp}" if d == "pudd" else DETECTOR_NAMES[d]
                     for d in self.detectors)

    def runs(self) -> dict[str, RunConfig]:
        """Display name -> the run's config, PUDD first."""
        return {
            name: RunConfig("cifar10-cd", self.classifier, d, alpha=10.0 ** -self.alpha_exp,
                            seed=self.seed, n_chunks=self.n_chunks)
            for name, d in zip(self.names(), self.detectors, strict=True)
        }

    def as_python(self) -> str:
        """The equivalent ``pudd_core`` calls."""
        lines = ["from pudd_core.experiments.runner import RunConfig, run_experiment", ""]
        for name, cfg in self.runs().items():
            alpha = f", alpha={cfg.alpha:g}" if cfg.detector == "pudd" else ""
            lines.append(f'{name.lower().replace("-", "_")} = run_experiment(RunConfig('
                         f'"cifar10-cd", "{cfg.classifier}", "{cfg.detector}"{alpha}, '
                         f"seed={cfg.seed}, n_chunks={cfg.n_chunks}))")
        return "\n".join(lines)


def _default_for_this_machine(device: str) -> None:
    """ResNet-18 with the authors' recipe is the default classifier where CUDA exists."""
    flag = "cifar_machine_default"
    if flag in st.session_state:
        return
    st.session_state[flag] = True
    untouched = state.get(state.CIFAR_CLASSIFIER) == state.DEFAULTS[state.CIFAR_CLASSIFIER]
    if device == "cuda" and untouched and "classifier" not in st.query_params:
        state.set_value(state.CIFAR_CLASSIFIER, "resnet18")


def current_config(seed: int) -> CifarConfig:
    """The page's runs as its controls last left them (for pages that show its results)."""
    detectors = tuple(d for d in DETECTOR_NAMES if d in state.get(state.CIFAR_DETECTORS))
    return CifarConfig(seed, int(state.get(state.CIFAR_N_CHUNKS)),
                       str(state.get(state.CIFAR_CLASSIFIER)), detectors,
                       int(state.get(state.CIFAR_ALPHA_EXP)))


def controls_row(seed: int, device: str = "cpu") -> CifarConfig:
    """Run length, classifier, detectors (PUDD first) and, with PUDD, its threshold."""
    _default_for_this_machine(device)
    # two rows of two: four columns cut the detectors' chips and wrap the radio at 1024 px
    top, bottom = st.columns(2), st.columns(2)
    cols = [top[0], bottom[0], bottom[1], top[1]]
    cols[0].select_slider("Chunks in the run (500 images each)", options=list(CHUNK_CHOICES),
                          **state.bound(state.CIFAR_N_CHUNKS),
                          help="The paper's stream has 100 chunks; chunk 0 trains the model, "
                               "every later chunk is tested, then trained on.")
    cols[1].radio("Classifier", list(CLASSIFIERS), format_func=CLASSIFIERS.__getitem__,
                  **state.bound(state.CIFAR_CLASSIFIER),
                  help="Pretrained CNN: a small CNN pretrained by PUDD Lab on CIFAR-10's "
                       "10,000 test images (never in the stream), frozen; a small head "
                       "learns each chunk in a fraction of a second. Small CNN from scratch: "
                       "full-batch SGD on 500 images learns nothing and answers 'negative' "
                       "for every image (the honest failure mode). ResNet-18 without "
                       "BatchNorm, from scratch: the paper's network and recipe (the authors "
                       "start from ImageNet weights, which are not downloaded), the default "
                       "on a CUDA GPU, slow on CPU. Times per chunk on 2 cores (BENCHMARKS.md).")
    cols[2].multiselect("Detectors", list(DETECTOR_NAMES), format_func=DETECTOR_NAMES.__getitem__,
                        **state.bound(state.CIFAR_DETECTORS),
                        help="Each detector gets its own run: its own model, adapted after its "
                             "own alarms. The river baselines read the 0/1 errors instance by "
                             "instance.")
    detectors = tuple(d for d in DETECTOR_NAMES if d in state.get(state.CIFAR_DETECTORS))
    if not detectors:
        cols[2].warning("Choose at least one detector to compare; PUDD is the paper's.",
                        icon=":material/warning:")
    with cols[3]:
        controls.alpha_selector(state.CIFAR_ALPHA_EXP, label="PUDD's threshold α")
    return current_config(seed)


#: The default run (PUDD and DDM, 10 chunks of pretrained-cnn, about 20 s) starts by itself;
#: the chart shows PUDD's run as soon as it is done, while the baseline computes.
AUTO_SECONDS = 45.0


def source_name(source: str) -> str:
    """The kind of image source and its file's name, without the server's folders.

    >>> source_name("image folder: /srv/data/cifar10/train")
    'image folder: train'
    """
    kind, sep, path = source.partition(": ")
    return f"{kind}{sep}{PurePath(path).name}" if sep else source


def chunk_slider(n_chunks: int) -> int:
    """The chunk whose images are shown (kept inside the run's chunks)."""
    if int(state.get(state.CIFAR_CHUNK)) >= n_chunks:
        state.set_value(state.CIFAR_CHUNK, n_chunks - 1)
    st.slider("Chunk", 0, n_chunks - 1, **state.bound(state.CIFAR_CHUNK))
    return int(state.get(state.CIFAR_CHUNK))


def unavailable(info: StreamInfo, *, where: Any = None) -> None:
    """The images are missing: the Download button, where to copy them, and every other way.

    The same message as the other pages' (:func:`ui.messages.missing_data`): a
    checksum-verified download of the official CIFAR-10 batches into the data cache (170 MB),
    then a rerun; or where to copy them on the server.
    """
    slot = st.empty() if where is None else where
    messages.missing_data(slot, "CIFAR-10 images", info, key="cifar")
    st.caption("The Markov process above needs no images.")


def ensure_backbone() -> bool:
    """Find the pretrained backbone; build it once (with a progress bar) only when it is absent.

    The backbone ships with the package (checked against its sha256 here); only where that file
    was deleted is it pretrained into the cache, about 3 min on 2 free CPU cores. Returns True
    when it is ready. A failure (a damaged shipped file, no CIFAR-10 images) is shown inline.
    """
    from pudd_core.classifiers import cached_backbone, pretrained_backbone

    if cached_backbone() is not None:
        return True
    slot = st.empty()
    bar = slot.progress(0.0, text="Reading CIFAR-10's 10,000 test images …")

    def decoded(done: int, total: int) -> None:
        bar.progress(min(done / max(total, 1), 1.0) * 0.05,
                     text=f"Reading CIFAR-10's test images: {done:,} of {total:,}")

    def trained(done: int, total: int) -> None:
        bar.progress(0.05 + 0.95 * done / max(total, 1),
                     text=f"The backbone shipped with PUDD Lab is missing: pretraining it once "
                          f"on CIFAR-10's 10,000 test images (never in the stream): step {done} "
                          f"of {total}. About 3 min on 2 free CPU cores; later visits load it "
                          "in under a second.")

    try:
        cache.off_server("pretrained-cnn", pretrained_backbone, progress=trained,
                         decode_progress=decoded)
    except (OSError, ValueError) as exc:
        slot.error(f"The pretrained backbone cannot be used: {exc}", icon=":material/error:")
        return False
    slot.empty()
    return True


def backbone_caption() -> str:
    """Where the backbone came from and how good it is, for the caption."""
    from pudd_core.classifiers import cached_backbone

    info = cached_backbone()
    if info is None:
        return ""
    r = info.record
    where = "shipped with PUDD Lab" if info.shipped else "built on this server"
    return (f"Backbone: pretrained by PUDD Lab on {r['n_train_images']:,} CIFAR-10 test images "
            f"(held-out 10-class accuracy {100 * r['holdout_accuracy']:.0f} %), frozen, "
            f"{where}; sha256 {info.sha256[:12]}. ")


# --- the committed comparison report (results/cifar10_cd.md / .csv) -----------------------------
_ROOT = project_root()
#: Written by ``python -m pudd_core reproduce --table cifar``; None when installed without the
#: project folder.
COMPARISON: PurePath | None = None if _ROOT is None else _ROOT / "results" / "cifar10_cd.csv"


def committed_comparison() -> None:
    """The paper's comparison as measured: every detector's accuracy and detections."""
    frame = cache.committed_frame_or_say(COMPARISON, "comparison",
                                         "`python -m pudd_core reproduce --table cifar`")
    if frame is None:
        return
    first = frame.iloc[0]
    seeds = str(first["seeds"]).split()
    is_ref = frame["detector"].isin(REFERENCES)
    ranked_rows = frame[~is_ref]
    best = ranked_rows.loc[ranked_rows["accuracy"].idxmax()]
    refs = " ".join(
        f"{r['name']}: {r['accuracy']:.2f} %" + (
            f" ({int((ranked_rows['accuracy'] <= r['accuracy'] + 1e-9).sum())} of "
            f"{len(ranked_rows)} detectors at or below it)." if r["detector"] == "none" else ".")
        for _, r in frame[is_ref].iterrows())
    st.markdown(
        f"The paper compares PUDD-1/3/5 with the seven classic detectors on CIFAR-10-CD, "
        f"incremental training only (mean accuracy over runs). Measured here with "
        f"**{first['classifier']}** on {int(first['n_chunks'])} chunks, {len(seeds)} seed(s) "
        f"({', '.join(seeds)}), every detector on the same streams. Best accuracy: "
        f"**{best['name']}, {best['accuracy']:.2f} %**."
        + (f" The references, not ranked (the classifier never adapted; adapted exactly at "
           f"the interest changes): {refs}" if refs else ""))
    table = frame.assign(
        early=[f"{e} of {d}" for e, d in zip(frame["early"], frame["drifts"], strict=True)])
    ranked = _paired_ranks(frame)
    columns = ["name", "accuracy", "std", "alarms", "early", "false_alarms"]
    names = ["Detector", "Accuracy (%)", "± (seeds)", "Alarms per run",
             "Drifts detected ≤ 2 chunks", "False alarms per run"]
    if "delay" in table:  # a report written before reports kept it has none
        columns.insert(5, "delay")
        names.insert(5, "Mean delay (chunks)")
    if ranked is not None:
        table = table.assign(rank=table["detector"].map(ranked.ranks))
        columns.insert(3, "rank")
        names.insert(3, "Average rank (paired by seed)")
    table = table[columns]
    table.columns = names
    # a static table wraps its headers (st.dataframe's columns scrolled at 1024 px)
    st.table(table.style.hide(axis="index").format(
        {c: "{:.2f}" for c in ("Accuracy (%)", "± (seeds)", "Average rank (paired by seed)",
                               "Mean delay (chunks)")
         if c in table.columns} | {"Alarms per run": "{:g}", "False alarms per run": "{:g}"},
        na_rep="–"))  # the references are not ranked
    if ranked is not None:
        st.caption("Average rank: each seed's detectors ranked by accuracy (1 = best; every "
                   f"detector sees the same stream per seed). {ranked.caption()}")
    st.caption("From the committed `results/cifar10_cd.csv`; `results/cifar10_cd.md` has the "
               "command, the run time and how to read it. The same command runs ResNet-18 "
               "with the authors' recipe where a CUDA GPU is.")


def _paired_ranks(frame: pd.DataFrame) -> FriedmanResult | None:
    """The report's ranks over its seeds; None for a report written before it kept them."""
    try:
        return paired_ranks(frame)
    except ValueError:
        return None
