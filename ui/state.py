"""Session-state keys, their defaults and the query-parameter sync, declared once.

Keys are ``"<page>_<name>"``. Canonical values live in non-widget keys, which survive page
changes (widget keys vanish on pages without the widget, streamlit/streamlit#5813); each
widget gets its own key from :func:`widget_key`, seeded from the canonical value and copied
back by :func:`commit` in its ``on_change`` callback. Shareable values also travel in the URL:
read once per session and page into ``session_state``, written back on every run.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

# --- keys ------------------------------------------------------------------------------------
SEED = "app_seed"
QUERY_WARNINGS = "app_query_warnings"

THEOREM2_N = "theorem2_n"
THEOREM2_ERROR_RATE = "theorem2_error_rate"
THEOREM2_CORRECT1 = "theorem2_correct1"
THEOREM2_WRONG1 = "theorem2_wrong1"
THEOREM2_CORRECT2 = "theorem2_correct2"
THEOREM2_WRONG2 = "theorem2_wrong2"
THEOREM2_ALPHA_EXP = "theorem2_alpha_exp"

THEOREM1_N = "theorem1_n"
THEOREM1_ERROR_RATE = "theorem1_error_rate"
THEOREM1_FACTOR = "theorem1_factor"
THEOREM1_PERTURBATION = "theorem1_perturbation"
THEOREM1_AMOUNT = "theorem1_amount"

FIG1_ALPHA_EXP = "fig1_alpha_exp"
FIG1_MAX_N = "fig1_max_n"
FIG1_SEED = "fig1_seed"

EXPLORER_DATASET = "explorer_dataset"  # a registry stream, or EXPLORER_UPLOAD
EXPLORER_CLASSIFIER = "explorer_classifier"
EXPLORER_REGIME = "explorer_regime"
EXPLORER_ALPHA_EXP = "explorer_alpha_exp"
EXPLORER_BASELINES = "explorer_baselines"
EXPLORER_CHUNK_SIZE = "explorer_chunk_size"
EXPLORER_N_CHUNKS = "explorer_n_chunks"  # None: the stream's own length
EXPLORER_LABEL = "explorer_label"  # label column of an uploaded CSV
EXPLORER_CURSOR = "explorer_chunk"  # the chunk the charts show (1 = first tested chunk)
EXPLORER_UPLOAD = "upload"  # the dataset choice "my CSV file"
EXPLORER_JOB = "explorer_job"  # ui.progress: "", "run:<sel>", "running:<sel>", "stop:<sel>"

CIFAR_N_CHUNKS = "cifar_n_chunks"
CIFAR_CLASSIFIER = "cifar_classifier"
CIFAR_DETECTORS = "cifar_detectors"  # "pudd" and river baselines, by registry name
CIFAR_ALPHA_EXP = "cifar_alpha_exp"
CIFAR_CHUNK = "cifar_chunk"  # the chunk whose images are shown
CIFAR_JOB = "cifar_job"  # ui.progress: "", "run:<sel>", "running:<sel>", "stop:<sel>"

THRESHOLDS_DATASET = "thresholds_dataset"
THRESHOLDS_CLASSIFIER = "thresholds_classifier"
THRESHOLDS_EXPONENTS = "thresholds_exponents"  # (first, last) x of alpha = 10^-x
THRESHOLDS_SEEDS = "thresholds_seeds"  # number of seeds, from the sidebar seed on
THRESHOLDS_N_CHUNKS = "thresholds_n_chunks"  # 0: the stream's own length
THRESHOLDS_ALPHA_EXP = "thresholds_alpha_exp"
THRESHOLDS_STUDY_DATASET = "thresholds_study_dataset"  # a synthetic stream, kept stationary
THRESHOLDS_STUDY_CHUNKS = "thresholds_study_chunks"
THRESHOLDS_JOB = "thresholds_job"
THRESHOLDS_STUDY_JOB = "thresholds_study_job"

REPRODUCTION_VIEW = "reproduction_view"  # "<classifier>:<n_chunks or full>"; None: largest
REPRODUCTION_CLASSIFIER = "reproduction_classifier"
REPRODUCTION_DATASETS = "reproduction_datasets"
REPRODUCTION_DETECTORS = "reproduction_detectors"  # the paper's row names: pudd-3, ddm, ...
REPRODUCTION_REGIMES = "reproduction_regimes"
REPRODUCTION_SEEDS = "reproduction_seeds"
REPRODUCTION_N_CHUNKS = "reproduction_n_chunks"  # 0: the paper's stream lengths
REPRODUCTION_JOB = "reproduction_job"

DEFAULTS: dict[str, Any] = {
    SEED: 0,
    THEOREM2_N: 1000,
    THEOREM2_ERROR_RATE: 0.5,
    THEOREM2_CORRECT1: (0.0, 0.1),
    THEOREM2_WRONG1: (0.9, 1.0),
    THEOREM2_CORRECT2: (0.1, 0.2),
    THEOREM2_WRONG2: (0.8, 0.9),
    THEOREM2_ALPHA_EXP: 5,
    THEOREM1_N: 500,
    THEOREM1_ERROR_RATE: 0.2,
    THEOREM1_FACTOR: 2,
    THEOREM1_PERTURBATION: "none",
    THEOREM1_AMOUNT: 20,
    FIG1_ALPHA_EXP: 5,
    FIG1_MAX_N: 20000,
    FIG1_SEED: 42,
    EXPLORER_DATASET: "sea0",
    EXPLORER_CLASSIFIER: "gnb",
    EXPLORER_REGIME: "incremental",
    EXPLORER_ALPHA_EXP: 3,
    EXPLORER_BASELINES: ("adwin", "ddm"),
    EXPLORER_CHUNK_SIZE: 1000,
    EXPLORER_N_CHUNKS: None,
    EXPLORER_LABEL: None,
    EXPLORER_CURSOR: 1,
    CIFAR_N_CHUNKS: 10,
    CIFAR_CLASSIFIER: "pretrained-cnn",
    CIFAR_DETECTORS: ("pudd", "ddm"),
    CIFAR_ALPHA_EXP: 3,
    CIFAR_CHUNK: 0,
    EXPLORER_JOB: "",
    CIFAR_JOB: "",
    THRESHOLDS_DATASET: "sea0",
    THRESHOLDS_CLASSIFIER: "gnb",
    THRESHOLDS_EXPONENTS: (1, 10),
    THRESHOLDS_SEEDS: 2,
    THRESHOLDS_N_CHUNKS: 50,
    THRESHOLDS_ALPHA_EXP: 2,
    THRESHOLDS_STUDY_DATASET: "sea0",
    THRESHOLDS_STUDY_CHUNKS: 200,
    THRESHOLDS_JOB: "",
    THRESHOLDS_STUDY_JOB: "",
    REPRODUCTION_VIEW: None,
    REPRODUCTION_CLASSIFIER: "gnb",
    REPRODUCTION_DATASETS: ("sea0", "sine"),
    REPRODUCTION_DETECTORS: ("pudd-3", "ddm"),
    REPRODUCTION_REGIMES: ("incremental", "train-once"),
    REPRODUCTION_SEEDS: 2,
    REPRODUCTION_N_CHUNKS: 20,
    REPRODUCTION_JOB: "",
}


# --- query parameters ------------------------------------------------------------------------
def _int_in(lo: int, hi: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = hi + 1
        if not lo <= value <= hi:
            raise ValueError(f"expected an integer from {lo} to {hi}")
        return value

    return parse


def _float_in(lo: float, hi: float) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not lo <= value <= hi:
            raise ValueError(f"expected a number from {lo} to {hi}")
        return value

    return parse


def _range_in(lo: float, hi: float) -> Callable[[str], tuple[float, float]]:
    def parse(text: str) -> tuple[float, float]:
        try:
            a, b = (float(v) for v in text.split("-"))
        except ValueError:
            a = b = math.nan
        if not lo <= a <= b <= hi:
            raise ValueError(f"expected 'low-high' with {lo} <= low <= high <= {hi}")
        return (a, b)

    return parse


def _fmt_range(value: Any) -> str:
    return f"{value[0]:g}-{value[1]:g}"


#: The values of the select sliders that a link can set (the controls use these tuples).
CIFAR_CHUNK_CHOICES = (3, 5, 10, 20, 30, 50, 100)
THRESHOLDS_LENGTHS = (0, 20, 30, 50, 100)  # 0: the stream's own length
REPRODUCTION_LENGTHS = (0, 10, 20)  # 0: the paper's lengths; powersupply has 29 chunks


def _int_of(options: tuple[int, ...]) -> Callable[[str], int]:
    """An integer the control can show: a select slider has no value between its options."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value not in options:
            raise ValueError(f"expected one of {', '.join(map(str, options))}")
        return value

    return parse


def _one_of(options: Callable[[], tuple[str, ...]]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in options():
            raise ValueError(f"expected one of {', '.join(options())}")
        return text

    return parse


def _some_of(options: Callable[[], tuple[str, ...]]) -> Callable[[str], tuple[str, ...]]:
    def parse(text: str) -> tuple[str, ...]:
        chosen = tuple(v for v in text.split(",") if v)
        if not set(chosen) <= set(options()):
            raise ValueError(f"expected a comma-separated list of {', '.join(options())}")
        return tuple(v for v in options() if v in chosen)

    return parse


def _explorer_datasets() -> tuple[str, ...]:
    from pudd_core.streams import list_streams

    return (*(info.name for info in list_streams()), EXPLORER_UPLOAD)


def _explorer_classifiers() -> tuple[str, ...]:
    from pudd_core.classifiers import CLASSIFIERS

    return tuple(CLASSIFIERS)


def _explorer_baselines() -> tuple[str, ...]:
    from pudd_core.views.explorer import COMPARED

    return COMPARED


def _exponent_range(text: str) -> tuple[int, int]:
    """``"1-10"``: the first and last x of a sweep over alpha = 10^-x."""
    try:
        a, b = (int(v) for v in text.split("-"))
    except ValueError:
        a = b = 0
    if not 1 <= a <= b <= 10:
        raise ValueError("expected 'first-last' with 1 <= first <= last <= 10")
    return (a, b)


def _fmt_exponents(value: Any) -> str:
    return f"{int(value[0])}-{int(value[1])}"


def _stream_names() -> tuple[str, ...]:
    from pudd_core.streams import list_streams

    return tuple(info.name for info in list_streams())


def _cifar_detectors() -> tuple[str, ...]:
    from pudd_core.experiments.baselines import BASELINES

    return ("pudd", *BASELINES)


def _paper_datasets() -> tuple[str, ...]:
    from pudd_core.paper import DATASETS

    return DATASETS


def _paper_detectors() -> tuple[str, ...]:
    from pudd_core.paper import LAYOUTS

    return tuple(d for d in LAYOUTS[1].detectors)


def _view(text: str) -> str:
    """``"gnb:full"`` or ``"gnb:20"``: a group of runs in the results store."""
    classifier, _, length = text.partition(":")
    if not classifier or not (length == "full" or length.isdigit()):
        raise ValueError("expected '<classifier>:full' or '<classifier>:<number of chunks>'")
    return text


@dataclass(frozen=True)
class QueryParam:
    """How one session-state value appears in the URL (``?name=text``)."""

    name: str
    page: str  # url_path of the page that owns it; "" for every page
    parse: Callable[[str], Any]  # raises ValueError on bad text
    fmt: Callable[[Any], str] = str


QUERY: dict[str, QueryParam] = {
    SEED: QueryParam("seed", "", _int_in(0, 2**31 - 1)),
    THEOREM2_N: QueryParam("n", "theorem2", _int_in(50, 5000)),
    THEOREM2_ERROR_RATE: QueryParam("error_rate", "theorem2", _float_in(0.0, 1.0), "{:g}".format),
    THEOREM2_CORRECT1: QueryParam("correct1", "theorem2", _range_in(0.0, 0.5), _fmt_range),
    THEOREM2_WRONG1: QueryParam("wrong1", "theorem2", _range_in(0.5, 1.0), _fmt_range),
    THEOREM2_CORRECT2: QueryParam("correct2", "theorem2", _range_in(0.0, 0.5), _fmt_range),
    THEOREM2_WRONG2: QueryParam("wrong2", "theorem2", _range_in(0.5, 1.0), _fmt_range),
    THEOREM2_ALPHA_EXP: QueryParam("alpha", "theorem2", _int_in(1, 10)),
    FIG1_ALPHA_EXP: QueryParam("alpha", "fig1", _int_in(1, 10)),
    FIG1_SEED: QueryParam("seed_extra", "fig1", _int_in(0, 2**31 - 1)),
    EXPLORER_DATASET: QueryParam("dataset", "explorer", _one_of(_explorer_datasets)),
    EXPLORER_CLASSIFIER: QueryParam("classifier", "explorer", _one_of(_explorer_classifiers)),
    EXPLORER_REGIME: QueryParam("regime", "explorer",
                                _one_of(lambda: ("incremental", "train-once"))),
    EXPLORER_ALPHA_EXP: QueryParam("alpha", "explorer", _int_in(1, 10)),
    EXPLORER_BASELINES: QueryParam("baselines", "explorer", _some_of(_explorer_baselines),
                                   ",".join),
    EXPLORER_CHUNK_SIZE: QueryParam("chunk_size", "explorer", _int_in(10, 100_000)),
    EXPLORER_N_CHUNKS: QueryParam("n_chunks", "explorer", _int_in(2, 10_000)),
    EXPLORER_CURSOR: QueryParam("chunk", "explorer", _int_in(1, 100_000)),
    CIFAR_N_CHUNKS: QueryParam("chunks", "cifar10-cd", _int_of(CIFAR_CHUNK_CHOICES)),
    CIFAR_CLASSIFIER: QueryParam("classifier", "cifar10-cd",
                                 _one_of(lambda: ("pretrained-cnn", "small-cnn", "resnet18"))),
    CIFAR_DETECTORS: QueryParam("detectors", "cifar10-cd", _some_of(_cifar_detectors), ",".join),
    CIFAR_ALPHA_EXP: QueryParam("alpha", "cifar10-cd", _int_in(1, 10)),
    CIFAR_CHUNK: QueryParam("chunk", "cifar10-cd", _int_in(0, 99)),
    THRESHOLDS_DATASET: QueryParam("dataset", "thresholds", _one_of(_stream_names)),
    THRESHOLDS_CLASSIFIER: QueryParam("classifier", "thresholds", _one_of(_explorer_classifiers)),
    THRESHOLDS_EXPONENTS: QueryParam("alphas", "thresholds", _exponent_range, _fmt_exponents),
    THRESHOLDS_SEEDS: QueryParam("seeds", "thresholds", _int_in(1, 5)),
    THRESHOLDS_N_CHUNKS: QueryParam("chunks", "thresholds", _int_of(THRESHOLDS_LENGTHS)),
    THRESHOLDS_ALPHA_EXP: QueryParam("alpha", "thresholds", _int_in(1, 10)),
    REPRODUCTION_VIEW: QueryParam("view", "reproduction", _view),
    REPRODUCTION_CLASSIFIER: QueryParam("classifier", "reproduction",
                                        _one_of(lambda: ("gnb", "vfdt", "dnn"))),
    REPRODUCTION_DATASETS: QueryParam("datasets", "reproduction", _some_of(_paper_datasets),
                                      ",".join),
    REPRODUCTION_DETECTORS: QueryParam("detectors", "reproduction", _some_of(_paper_detectors),
                                       ",".join),
    REPRODUCTION_SEEDS: QueryParam("seeds", "reproduction", _int_in(1, 10)),
    REPRODUCTION_N_CHUNKS: QueryParam("chunks", "reproduction",
                                     _int_of(REPRODUCTION_LENGTHS)),
}


def init() -> None:
    """Set every default once per session and read the app-wide query parameters."""
    for key, value in DEFAULTS.items():
        st.session_state.setdefault(key, value)
    st.session_state.setdefault(QUERY_WARNINGS, [])
    read_query("")


def read_query(page: str) -> None:
    """Copy ``page``'s query parameters into ``session_state``, once per session and page.

    A value that does not parse is ignored (the default stays) and a warning is queued for
    the sidebar, naming the parameter and what it expects.
    """
    flag = f"app_query_read_{page or 'app'}"
    if st.session_state.get(flag):
        return
    st.session_state[flag] = True
    for key, spec in QUERY.items():
        if spec.page != page or spec.name not in st.query_params:
            continue
        text = st.query_params[spec.name]
        try:
            st.session_state[key] = spec.parse(text)
        except ValueError as err:
            from ui.messages import code, escape

            st.session_state[QUERY_WARNINGS].append(  # the link's text, escaped: issue 10
                f"Ignored the link's {code(f'{spec.name}={text}')}: {escape(err)}. "
                "Using the default instead."
            )
        _forget_widget(key)


def write_query(page: str) -> None:
    """Put the app-wide values and ``page``'s own in the URL (only when they changed)."""
    wanted = {
        spec.name: spec.fmt(st.session_state[key])
        for key, spec in QUERY.items()
        if spec.page in ("", page) and st.session_state[key] is not None  # None: not set
    }
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)


# --- widget binding --------------------------------------------------------------------------
def widget_key(key: str) -> str:
    """The widget key of canonical ``key``, seeded from it when the widget is (re)created."""
    wkey = f"w_{key}"
    if wkey not in st.session_state:
        st.session_state[wkey] = st.session_state[key]
    return wkey


def commit(key: str) -> None:
    """``on_change`` callback: copy the widget's value into the canonical key."""
    st.session_state[key] = st.session_state[f"w_{key}"]


def _forget_widget(key: str) -> None:
    st.session_state.pop(f"w_{key}", None)


def get(key: str) -> Any:
    """The canonical value of ``key``."""
    return st.session_state[key]
