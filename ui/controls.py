"""Widgets that return frozen configs, the shared sidebar, and inline error placement."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import streamlit as st

from pudd_core._format import power_of_ten
from pudd_core._validation import ParameterError
from pudd_core.views.illustration import FIG1_SIZES, Theorem1Config, Theorem2Config
from ui import messages, state

PAPER = (
    "P. Lu, J. Lu, A. Liu and G. Zhang, *Early Concept Drift Detection via Prediction "
    "Uncertainty*, AAAI 2025"
)
PAPER_VARIANTS = {1: "PUDD-1", 3: "PUDD-3", 5: "PUDD-5"}  # the paper's thresholds (Table 1)


def alpha_label(exponent: int) -> str:
    """``10⁻⁵ (PUDD-5)``: a threshold on the log scale, the paper's variants named."""
    text = power_of_ten(-exponent)
    return f"{text} ({PAPER_VARIANTS[exponent]})" if exponent in PAPER_VARIANTS else text


def sidebar() -> None:
    """The frame shared by every page: the seed, link warnings and the citation."""
    with st.sidebar:
        st.number_input(
            "Seed", min_value=0, max_value=2**31 - 1, step=1, **state.bound(state.SEED),
            help="Seeds every random draw on the pages (same seed, same pictures).",
        )
        for warning in st.session_state[state.QUERY_WARNINGS]:
            st.warning(warning, icon=":material/link_off:")
        st.session_state[state.QUERY_WARNINGS] = []  # shown once, on the run that read the link
        st.caption(f"Built on `pudd_core`, a re-implementation of {PAPER}.")


def alpha_selector(key: str, *, label: str = "Threshold α") -> float:
    """A threshold on a log scale from 10⁻¹ to 10⁻¹⁰, with PUDD-1/3/5 marked."""
    exponent = st.select_slider(
        label, options=list(range(1, 11)), format_func=alpha_label, **state.bound(key),
        help="A test alarms when its p-value is below α. The paper's PUDD-x uses α = 10⁻ˣ.",
    )
    return float(10.0 ** -int(exponent))


def run_summary(frame: Any) -> None:
    """``plots.run_summary_frame``'s table, static so that its headers wrap.

    As ``st.dataframe`` its eight columns scrolled sideways at 1024 px, hiding the delays.
    """
    st.table(frame.style.hide(axis="index").format(
        {"accuracy (%)": "{:.2f}", "mean delay (chunks)": "{:.1f}", "run time (s)": "{:.1f}"},
        na_rep="–"))


# --- Theorem 2 ----------------------------------------------------------------------------------
_HINTS = {
    "correct": "Choose two different ends, both below 0.50: a correct binary prediction "
               "has PU-index u < 0.5.",
    "wrong": "Choose two different ends, both above 0.50: a misclassified binary prediction "
             "has PU-index u > 0.5.",
    "amount": "Move fewer instances, or make window 1 larger or its scale factor bigger.",
}


@dataclass(frozen=True)
class ErrorSlots:
    """Placeholders under the controls, keyed by the ``pudd_core`` parameter they set."""

    slots: Mapping[str, Any]
    labels: Mapping[str, str]

    def show(self, err: BaseException) -> bool:
        """Put ``err`` under the control of its ``ParameterError.param``; False when none."""
        name = err.param if isinstance(err, ParameterError) else None
        if name is None or name not in self.slots:
            return False
        hint = _HINTS.get(name.rstrip("12"), "")
        self.slots[name].error(f"**{self.labels[name]}**: {messages.escape(str(err))}. "
                               f"{hint}".strip(), icon=":material/error:")
        return True

    def report(self, err: BaseException) -> None:
        """``show`` ``err`` under its control, else as one error above the page's results."""
        if not self.show(err):
            st.error(f"These settings cannot be used: {messages.escape(err)}.",
                     icon=":material/error:")


def theorem2_controls(seed: int) -> tuple[Theorem2Config, ErrorSlots]:
    """Window size, error rate and the four PU ranges of Theorem 2's counterexample."""
    top = st.columns(2)
    top[0].slider("Window size n (predictions per window)", 50, 5000, step=50,
                  **state.bound(state.THEOREM2_N))
    top[1].slider("Error rate of both windows", 0.0, 1.0, step=0.05,
                  **state.bound(state.THEOREM2_ERROR_RATE),
                  help="The same share of each window is misclassified (the theorem's premise).")
    slots, labels = {}, {}
    for col, w in zip(st.columns(2), (1, 2), strict=True):
        col.markdown(f"**Window {w}** ({'reference, older' if w == 1 else 'recent'})")
        for kind, lo, hi, text in (("correct", 0.0, 0.5, "correct predictions"),
                                   ("wrong", 0.5, 1.0, "misclassified predictions")):
            name = f"{kind}{w}"
            labels[name] = f"Window {w}, PU range of {text}"
            col.slider(labels[name], lo, hi, step=0.01,
                       **state.bound(getattr(state, f"THEOREM2_{kind.upper()}{w}")))
            slots[name] = col.empty()
    cfg = Theorem2Config(
        n=int(state.get(state.THEOREM2_N)),
        error_rate=float(state.get(state.THEOREM2_ERROR_RATE)),
        correct1=_pair(state.get(state.THEOREM2_CORRECT1)),
        wrong1=_pair(state.get(state.THEOREM2_WRONG1)),
        correct2=_pair(state.get(state.THEOREM2_CORRECT2)),
        wrong2=_pair(state.get(state.THEOREM2_WRONG2)),
        seed=seed,
    )
    return cfg, ErrorSlots(slots, labels)


def _pair(value: Any) -> tuple[float, float]:
    return (round(float(value[0]), 4), round(float(value[1]), 4))


# --- Theorem 1 ----------------------------------------------------------------------------------
PERTURBATIONS = {
    "none": "None: window 2 is window 1 scaled",
    "between_error_bins": "Move errors between two error bins",
    "correct_to_error": "Turn correct predictions into errors",
}


def theorem1_controls(seed: int) -> tuple[Theorem1Config, ErrorSlots]:
    """Window 1, the scale factor of window 2 and an optional perturbation."""
    cols = st.columns(3)
    cols[0].slider("Window 1 size", 100, 2000, step=100, **state.bound(state.THEOREM1_N))
    cols[0].slider("Window 1 error rate", 0.05, 0.95, step=0.05,
                   **state.bound(state.THEOREM1_ERROR_RATE))
    cols[1].select_slider("Window 2 = window 1 scaled by", options=list(range(1, 11)),
                          format_func=lambda f: f"× {f}", **state.bound(state.THEOREM1_FACTOR),
                          help="Every bin count of window 1 multiplied: identical proportions.")
    cols[2].radio("Perturb window 2", list(PERTURBATIONS), format_func=PERTURBATIONS.__getitem__,
                  **state.bound(state.THEOREM1_PERTURBATION))
    cols[2].slider("Instances moved", 1, 500, **state.bound(state.THEOREM1_AMOUNT),
                   disabled=state.get(state.THEOREM1_PERTURBATION) == "none")
    slot = cols[2].empty()
    cfg = Theorem1Config(
        n=int(state.get(state.THEOREM1_N)),
        error_rate=float(state.get(state.THEOREM1_ERROR_RATE)),
        factor=int(state.get(state.THEOREM1_FACTOR)),
        perturbation=state.get(state.THEOREM1_PERTURBATION),
        amount=int(state.get(state.THEOREM1_AMOUNT)),
        seed=seed,
    )
    return cfg, ErrorSlots({"amount": slot}, {"amount": "Instances moved"})


# --- Fig. 1 -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Fig1CurveConfig:
    """Which test-set sizes to test, the seed of the extra points, and the threshold."""

    sizes: tuple[int, ...]
    seed: int
    alpha: float


def fig1_curve_controls() -> Fig1CurveConfig:
    """Largest test-set size, seed of the extra SEA points and the threshold α."""
    cols = st.columns(3)
    cols[0].select_slider("Largest test-set size n", options=list(FIG1_SIZES[1:]),
                          format_func="{:,}".format, **state.bound(state.FIG1_MAX_N))
    cols[1].number_input("Seed of the extra test points", 0, 2**31 - 1, step=1,
                         **state.bound(state.FIG1_SEED),
                         help="Points beyond Fig. 1's first 1000 come from new SEA generators "
                              "seeded from this number.")
    with cols[2]:
        alpha = alpha_selector(state.FIG1_ALPHA_EXP)
    max_n = int(state.get(state.FIG1_MAX_N))
    sizes = tuple(n for n in FIG1_SIZES if n <= max_n)
    return Fig1CurveConfig(sizes, int(state.get(state.FIG1_SEED)), alpha)
