"""CIFAR-10-CD: the Markov interest drift, the images, and PUDD against the baselines."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from pudd_core import plots
from pudd_core.experiments.runner import RunResult
from pudd_core.streams import get_info
from pudd_core.views.cifar import majority_verdict
from ui import cache, chart, cifar, controls, progress, state
from ui.pages import ensure_routed

ensure_routed()  # first: run inside app.py's frame (ui/pages.py explains why)
cache.warm_torch()  # the torch child's start and imports overlap everything below

seed = int(state.get(state.SEED))

st.title("CIFAR-10-CD: interest drift on images")
st.markdown(
    "The paper's image stream: CIFAR-10's 50,000 training images in chunks of 500 (50 per "
    "class, each image used once). An image is **positive** (label 1) when its class is one "
    "of three *interests*; after every chunk each interest moves to another class by a Markov "
    "chain, so the concept drifts while the images themselves do not change. A classifier "
    "learns the binary task; the detectors watch its predictions."
)
# the device only matters here where CUDA may exist (ResNet-18 is then the default): elsewhere
# the page goes on while the torch child imports torch
cfg = cifar.controls_row(seed, cache.device() if cache.cuda_possible() else "cpu")
drift = cache.interest_drift(seed, cfg.n_chunks)
names = drift.class_names

st.subheader("1. The Markov interest process")
# the matrix and its text one under the other: side by side, the 10 x 10 cells were too
# narrow for their numbers at 1024 px
chart.chart(plots.transition_matrix_figure(drift.transition_matrix, names,
                                           title="Transition matrix M"),
            key="cifar_matrix")
st.markdown(
    f"""
**M = U[0, 1) + 100 I, rows normalised** (seeded by the run's seed, {seed}). Each interest
stays with probability about {drift.stay_probability:.3f}; otherwise it jumps to another
class, each about equally likely. With three interests moving independently, the positive
set changes in about one chunk in {1 / drift.change_probability:.0f}. Interests can
collide, leaving two positive classes (or one) for a while.

The stream starts with the interests *airplane, automobile, bird*. The timeline below shows
the positive classes of each chunk of this run; a grey band marks a **true drift**, the
first chunk with a new positive set.
"""
)
chart.chart(plots.interest_timeline_figure(drift.positive_mask(), names,
                                           drift_chunks=drift.drift_chunks,
                                           title=f"Interests of the {cfg.n_chunks} chunks"),
            key="cifar_timeline")
st.caption(
    (f"True drifts at chunks {', '.join(map(str, drift.drift_chunks))}. " if drift.drift_chunks
     else f"No true drift in these {cfg.n_chunks} chunks: try more chunks or another seed. ")
    + "Computed from the seed and CIFAR-10's class counts (5000 images per class) without "
    "reading an image; the decoded stream has exactly these interests."
)

info = get_info("cifar10-cd")
st.subheader("2. The images of a chunk")
if not info.available:
    cifar.unavailable(info)
else:
    chunk = cifar.chunk_slider(cfg.n_chunks)
    thumbs = cache.thumbnails(seed, chunk, cfg.n_chunks)
    positive = ", ".join(names[c] for c in drift.positive_classes[chunk])
    chart.chart(plots.sample_grid_figure(thumbs.images, thumbs.classes, thumbs.labels, names,
                                         title=f"Chunk {chunk}: positive classes {positive}"),
                key="cifar_samples")
    st.caption(f"Six of the 50 images of each class in chunk {chunk}, framed orange when "
               f"labelled 1. Source: {cifar.source_name(thumbs.source)}.")

st.subheader("3. PUDD against the baselines")
if not info.available:
    st.info("The detector runs need the images: provide them as described in section 2.",
            icon=":material/image_not_supported:")
elif cfg.detectors and (cfg.classifier != "pretrained-cnn" or cifar.ensure_backbone()):
    st.markdown(
        f"Each detector runs the whole stream with its own **{cfg.classifier}**, trained on "
        "chunk 0, then tested and trained on every later chunk (-I); after an alarm the model "
        "is adapted on the recent data. Finished runs are kept, so coming back is instant."
    )
    st.caption(f"Runs on **{cache.device()}** (CUDA, then Apple MPS, then the CPU). "
               + (cifar.backbone_caption() if cfg.classifier == "pretrained-cnn" else ""))
    runs = cfg.runs()
    live = st.empty()  # the first runs' chart while the others compute

    def finished(results: Sequence[RunResult | None]) -> dict[str, RunResult]:
        return {n: r for n, r in zip(runs, results, strict=True) if r is not None}

    def draw(done: dict[str, RunResult], what: str, key: str) -> None:
        chart.chart(plots.runs_figure(done, true_drifts=drift.drift_chunks,
                                      title=f"{cfg.classifier} on CIFAR-10-CD: {what}"),
                    key=key)

    def draw_so_far(results: Sequence[RunResult | None]) -> None:
        so_far = finished(results)
        with live.container():
            draw(so_far, "the runs finished so far", f"cifar_runs_{len(so_far)}_of_{len(runs)}")

    outcome = progress.run_tasks(
        state.CIFAR_JOB, [cache.run_task(c, name) for name, c in runs.items()],
        what="detector runs", auto_seconds=cifar.AUTO_SECONDS, on_result=draw_so_far)
    live.empty()
    done = finished(outcome.results)
    if done:
        draw(done, "error rate per chunk and alarms", "cifar_runs")
        controls.run_summary(plots.run_summary_frame(done))
        verdicts = {n: majority_verdict(
            {c.chunk_index: c.accuracy for c in r.chunks}, drift) for n, r in done.items()}
        first = next(iter(verdicts.values()))
        st.markdown(
            f"**Model against the majority class:** {cfg.classifier} is right on "
            f"{100 * first.accuracy:.1f} % of the images of the tested chunks "
            f"({next(iter(done))}'s run); always answering the majority label (*negative*, "
            f"{100 * first.majority:.1f} % of these chunks) scores that without looking at an "
            "image.")
        weak = [n for n, v in verdicts.items() if not v.learned]
        if weak:
            st.warning(
                f"**The model is no better than the majority class** in the run(s) of "
                f"{', '.join(weak)}: {cfg.classifier} has learned nothing from the images that "
                "always answering the majority label would not give, so its errors carry no "
                "signal and no detector has anything to detect. Choose the pretrained CNN."
                if cfg.classifier != "pretrained-cnn" else
                f"**The model is no better than the majority class** in the run(s) of "
                f"{', '.join(weak)}: its errors carry no signal for a detector.",
                icon=":material/warning:")
        st.caption(
            "Grey bands: true drifts (new positive set). A drift is detected by the first alarm "
            "in its segment; later alarms there, and alarms before the first drift, are false "
            "alarms. Within a chunk the images come class by class, as in the authors' code, "
            "so the 0/1 errors an instance-level baseline reads arrive in bursts."
        )
    # built only while open: st.code loads Streamlit's 1.6 MB highlighter with the page
    code = st.expander("Show the code", key="cifar_code_open", on_change="rerun")
    if code.open:
        code.code(cfg.as_python(), language="python")

st.subheader("4. The paper's comparison, measured")
cifar.committed_comparison()

state.write_query("cifar10-cd")
