"""Session-state keys, their defaults and the query-parameter sync: one declaration per value.

Each value is one :func:`_value` call below, giving its key, its default and, if a link
carries it, its URL name and parser; ``DEFAULTS`` and ``QUERY`` derive from those calls.
Keys are ``"<page>_<name>"``. Canonical values live in non-widget keys, which survive page
changes (widget keys vanish on pages without the widget, streamlit/streamlit#5813); each
widget gets its own key from :func:`widget_key`, seeded from the canonical value and copied
back by :func:`commit` in its ``on_change`` callback. Shareable values also travel in the URL:
read once per session and page into ``session_state``, written back on every run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import streamlit as st

from pudd_core.monitoring import LOG_FIELDS
from pudd_core.paper import REGIMES


# --- query parameters ------------------------------------------------------------------------
# Each parser says what its control can show (``bounds`` or ``choices``), so a test checks
# every link parameter against its control: a value the parser lets through never makes a
# widget raise (e.g. a number above a number input's largest).
@dataclass(frozen=True)
class _Bounded:
    """A parser of what a control shows from ``lo`` to ``hi`` (the control's range)."""

    lo: float
    hi: float

    @property
    def bounds(self) -> tuple[float, float]:
        return (self.lo, self.hi)


@dataclass(frozen=True)
class _FloatIn(_Bounded):
    """A number from ``lo`` to ``hi``."""

    kind: ClassVar[type[float]] = float
    noun: ClassVar[str] = "a number"

    def __call__(self, text: str) -> float:
        try:
            value = self.kind(text)
        except ValueError:
            value = math.nan
        if not self.lo <= value <= self.hi:
            raise ValueError(f"expected {self.noun} from {self.lo} to {self.hi}")
        return value


@dataclass(frozen=True)
class _IntIn(_FloatIn):
    """An integer from ``lo`` to ``hi`` (the control's range)."""

    kind = int
    noun = "an integer"


def _int_in(lo: int, hi: int) -> _IntIn:
    return _IntIn(lo, hi)


def _float_in(lo: float, hi: float) -> _FloatIn:
    return _FloatIn(lo, hi)


@dataclass(frozen=True)
class _FloatStep(_FloatIn):
    """A number the slider can show: in [lo, hi] with at most ``decimals`` decimals."""

    decimals: int = 2

    def __call__(self, text: str) -> float:
        value = super().__call__(text)
        if round(value, self.decimals) != value:
            raise ValueError(f"expected a number from {self.lo} to {self.hi} with at most "
                             f"{self.decimals} decimals")
        return value


def _float_step(lo: float, hi: float, decimals: int) -> _FloatStep:
    return _FloatStep(lo, hi, decimals)


@dataclass(frozen=True)
class _RangeIn(_Bounded):
    """``"low-high"`` with ``lo <= low <= high <= hi`` (a range slider)."""

    integer: bool = False

    def __call__(self, text: str) -> tuple[float, float]:
        kind = int if self.integer else float
        try:
            a, b = (kind(v) for v in text.split("-"))
        except ValueError:
            a = b = math.nan
        if not self.lo <= a <= b <= self.hi:
            first, last = ("first", "last") if self.integer else ("low", "high")
            raise ValueError(f"expected '{first}-{last}' with {self.lo:g} <= {first} <= "
                             f"{last} <= {self.hi:g}")
        return (a, b)


def _range_in(lo: float, hi: float) -> _RangeIn:
    return _RangeIn(lo, hi)


def _fmt_number(value: Any) -> str:
    """The shortest text that reads back as exactly ``value`` (``0.45``, ``0.4500001``, ``1``).

    ``"{:g}"`` kept six digits, so a link's ``error_rate=0.4500001`` came back as ``0.45``;
    positional, never ``1e-05``, whose ``-`` a range would split on.
    """
    import numpy as np

    return str(np.format_float_positional(float(value), trim="-"))


def _fmt_range(value: Any) -> str:
    return f"{_fmt_number(value[0])}-{_fmt_number(value[1])}"


#: The values of the select sliders that a link can set (the controls use these tuples).
CIFAR_CHUNK_CHOICES = (3, 5, 10, 20, 30, 50, 100)
THRESHOLDS_LENGTHS = (0, 20, 30, 50, 100)  # 0: the stream's own length
REPRODUCTION_LENGTHS = (0, 10, 20)  # 0: the paper's lengths; powersupply has 29 chunks


@dataclass(frozen=True)
class _IntOf:
    """An integer the control can show: a select slider has no value between its options."""

    options: tuple[int, ...]

    def choices(self) -> tuple[int, ...]:
        return self.options

    def __call__(self, text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value not in self.options:
            raise ValueError(f"expected one of {', '.join(map(str, self.options))}")
        return value


def _int_of(options: tuple[int, ...]) -> _IntOf:
    return _IntOf(options)


@dataclass(frozen=True)
class _Named:
    """A parser of names from ``options()`` (read when a link is read: registries may grow)."""

    options: Callable[[], tuple[str, ...]]

    def choices(self) -> tuple[str, ...]:
        return self.options()


@dataclass(frozen=True)
class _OneOf(_Named):
    """One name of ``options()``."""

    def __call__(self, text: str) -> str:
        if text not in self.options():
            raise ValueError(f"expected one of {', '.join(self.options())}")
        return text


def _one_of(options: Callable[[], tuple[str, ...]]) -> _OneOf:
    return _OneOf(options)


@dataclass(frozen=True)
class _SomeOf(_Named):
    """A comma-separated list of names of ``options()``, in the options' order."""

    def __call__(self, text: str) -> tuple[str, ...]:
        chosen = tuple(v for v in text.split(",") if v)
        if not set(chosen) <= set(self.options()):
            raise ValueError(f"expected a comma-separated list of {', '.join(self.options())}")
        return tuple(v for v in self.options() if v in chosen)


def _some_of(options: Callable[[], tuple[str, ...]]) -> _SomeOf:
    return _SomeOf(options)


def _explorer_datasets() -> tuple[str, ...]:
    from pudd_core.streams import list_streams

    return (*(info.name for info in list_streams()), EXPLORER_UPLOAD)


def _explorer_classifiers() -> tuple[str, ...]:
    from pudd_core.classifiers import CLASSIFIERS

    return tuple(CLASSIFIERS)


def _image_classifiers() -> tuple[str, ...]:
    from pudd_core.classifiers import IMAGE_CLASSIFIERS

    return IMAGE_CLASSIFIERS


def _explorer_baselines() -> tuple[str, ...]:
    from pudd_core.views.explorer import compared_detectors

    return compared_detectors()


#: ``"1-10"``: the first and last x of a sweep over alpha = 10^-x.
_exponent_range = _RangeIn(1, 10, integer=True)


def _fmt_exponents(value: Any) -> str:
    return f"{int(value[0])}-{int(value[1])}"


def _stream_names() -> tuple[str, ...]:
    from pudd_core.streams import list_streams

    return tuple(info.name for info in list_streams())


def _cifar_detectors() -> tuple[str, ...]:
    from pudd_core.experiments.detectors import detector_names

    return ("pudd", *detector_names("errors"))


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


#: Every declared key's default, and the URL form of those a link carries (from _value).
DEFAULTS: dict[str, Any] = {}
QUERY: dict[str, QueryParam] = {}


def _value(key: str, default: Any, url: str | None = None, page: str = "",
           parse: Callable[[str], Any] | None = None, fmt: Callable[[Any], str] = str) -> str:
    """Declare session-state ``key``: its default and, with ``url``, its query parameter."""
    if key in DEFAULTS:
        raise ValueError(f"session-state key {key!r} declared twice")
    DEFAULTS[key] = default
    if url is not None:
        if parse is None:
            raise ValueError(f"{key!r}: a query parameter needs a parser")
        QUERY[key] = QueryParam(url, page, parse, fmt)
    return key


def _settings_texts(text: str) -> tuple[str, ...]:
    """``"3;5,cut_points=all"``: the explorer's PUDD settings, each checked on its page."""
    from pudd_core.views.explorer import MAX_SETTINGS

    parts = tuple(p.strip() for p in text.split(";") if p.strip())
    if not 1 <= len(parts) <= MAX_SETTINGS:
        raise ValueError(f"expected 1 to {MAX_SETTINGS} settings separated by ';'")
    return parts


# --- declarations: key, default, then URL name, page and parser where a link carries it -------
# not widget-bound, not in links
QUERY_WARNINGS = "app_query_warnings"
SEED = _value("app_seed", 0, "seed", "", _int_in(0, 2**31 - 1))

THEOREM2_N = _value("theorem2_n", 1000, "n", "theorem2", _int_in(50, 5000))
THEOREM2_ERROR_RATE = _value("theorem2_error_rate", 0.5, "error_rate", "theorem2",
                             _float_in(0.0, 1.0), _fmt_number)
THEOREM2_CORRECT1 = _value("theorem2_correct1", (0.0, 0.1), "correct1", "theorem2",
                           _range_in(0.0, 0.5), _fmt_range)
THEOREM2_WRONG1 = _value("theorem2_wrong1", (0.9, 1.0), "wrong1", "theorem2",
                         _range_in(0.5, 1.0), _fmt_range)
THEOREM2_CORRECT2 = _value("theorem2_correct2", (0.1, 0.2), "correct2", "theorem2",
                           _range_in(0.0, 0.5), _fmt_range)
THEOREM2_WRONG2 = _value("theorem2_wrong2", (0.8, 0.9), "wrong2", "theorem2",
                         _range_in(0.5, 1.0), _fmt_range)
THEOREM2_ALPHA_EXP = _value("theorem2_alpha_exp", 5, "alpha", "theorem2", _int_in(1, 10))
THEOREM2_ERROR_SHIFT = _value("theorem2_error_shift", 0.10)  # step 5: window 2's error rate up

#: Names that older links use, read when the current name is absent (never written).
OLD_NAMES: dict[str, QueryParam] = {}

THEOREM1_N = _value("theorem1_n", 500)
THEOREM1_ERROR_RATE = _value("theorem1_error_rate", 0.2)
THEOREM1_FACTOR = _value("theorem1_factor", 2)
THEOREM1_PERTURBATION = _value("theorem1_perturbation", "none")
THEOREM1_AMOUNT = _value("theorem1_amount", 20)

FIG1_ALPHA_EXP = _value("fig1_alpha_exp", 5, "alpha", "fig1", _int_in(1, 10))
FIG1_MAX_N = _value("fig1_max_n", 20000)
FIG1_SEED = _value("fig1_seed", 42, "seed_extra", "fig1", _int_in(0, 2**31 - 1))

EXPLORER_UPLOAD = "upload"  # the dataset choice "my CSV file" (a value, not a key)
EXPLORER_DATASET = _value("explorer_dataset", "sea0", "dataset", "explorer",
                          _one_of(_explorer_datasets))  # a registry stream, or EXPLORER_UPLOAD
EXPLORER_CLASSIFIER = _value("explorer_classifier", "gnb", "classifier", "explorer",
                             _one_of(_explorer_classifiers))
EXPLORER_REGIME = _value("explorer_regime", "incremental", "regime", "explorer",
                         _one_of(lambda: REGIMES))
#: the PUDD settings side by side, as link texts ("x,option=value,..."); checked on the page
EXPLORER_SETTINGS = _value("explorer_settings", ("3",), "pudd", "explorer", _settings_texts,
                           ";".join)
OLD_NAMES[EXPLORER_SETTINGS] = QueryParam(  # before side-by-side settings: ?alpha=x
    "alpha", "explorer", lambda text: (str(_int_in(1, 10)(text)),))
EXPLORER_SEEDS = _value("explorer_seeds", 1, "seeds", "explorer", _int_in(1, 10))
EXPLORER_SEED_VIEW = _value("explorer_seed_view", "band", "seed_view", "explorer",
                            _one_of(lambda: ("band", "one")))  # several seeds: band or one
EXPLORER_BASELINES = _value("explorer_baselines", ("adwin", "ddm", "none", "oracle"),
                            "baselines", "explorer",
                            _some_of(_explorer_baselines), ",".join)
EXPLORER_CHUNK_SIZE = _value("explorer_chunk_size", 1000, "chunk_size", "explorer",
                             _int_in(10, 100_000))
EXPLORER_N_CHUNKS = _value("explorer_n_chunks", None, "n_chunks", "explorer",
                           _int_in(2, 10_000))  # None: the stream's own length
EXPLORER_LABEL = _value("explorer_label", None)  # label column of an uploaded CSV
#: the chunk the charts show (1 = first tested chunk), and the setting whose details they show
EXPLORER_CURSOR = _value("explorer_chunk", 1, "chunk", "explorer", _int_in(1, 100_000))
EXPLORER_DETAIL = _value("explorer_detail", 1, "detail", "explorer", _int_in(1, 4))
EXPLORER_JOB = _value("explorer_job", "")  # ui.progress: "", "run:<sel>", "running:<sel>", ...

CIFAR_N_CHUNKS = _value("cifar_n_chunks", 10, "chunks", "cifar10-cd",
                        _int_of(CIFAR_CHUNK_CHOICES))
CIFAR_CLASSIFIER = _value("cifar_classifier", "pretrained-cnn", "classifier", "cifar10-cd",
                          _one_of(_image_classifiers))
CIFAR_DETECTORS = _value("cifar_detectors", ("pudd", "ddm"), "detectors", "cifar10-cd",
                         _some_of(_cifar_detectors), ",".join)  # "pudd" and river baselines
CIFAR_ALPHA_EXP = _value("cifar_alpha_exp", 3, "alpha", "cifar10-cd", _int_in(1, 10))
CIFAR_CHUNK = _value("cifar_chunk", 0, "chunk", "cifar10-cd",
                     _int_in(0, 99))  # the chunk whose images are shown
CIFAR_JOB = _value("cifar_job", "")
MONITOR_JOB = _value("monitor_job", "")  # ui.progress job of the monitor page
MONITOR_CALIB_JOB = _value("monitor_calib_job", "")  # its calibration's (ui.calibration)

# the monitor page ("Your model's predictions"): the log, its description, the run's settings
MONITOR_SOURCES = ("The example log", "Upload a file", "A path on the server")
MONITOR_SOURCE = _value("monitor_source", MONITOR_SOURCES[0])
MONITOR_PATH = _value("monitor_path", "")  # a path on the server, as typed
MONITOR_UPLOAD = "monitor_upload"  # the file uploader's own key (free_widget_key)
#: The labels in a second file: its uploader's own key, and the id column joining the two
MONITOR_LABELS_UPLOAD = "monitor_labels_upload"
MONITOR_ID = _value("monitor_id", None)
MONITOR_ID_FOR = _value("monitor_id_for", None)  # the log and labels the id was chosen for
MONITOR_GUESSED_FOR = _value("monitor_guessed_for", None)  # the log the column values are for
MONITOR_FORM = _value("monitor_form", None)  # the probability form: a LOG_FIELDS entry's name
#: One key per entry of LOG_FIELDS (the log's description): its control's value
MONITOR_FIELDS: dict[str, str] = {
    f.name: _value(f"monitor_{f.name}", None) for f in LOG_FIELDS}
MONITOR_CHUNKINGS = ("Rows", "Time windows")
MONITOR_CHUNKING = _value("monitor_chunking", MONITOR_CHUNKINGS[0])
MONITOR_CHUNK_SIZE = _value("monitor_chunk_size", 1000)
MONITOR_WINDOW = _value("monitor_window", "6h")
MONITOR_ALPHA_EXP = _value("monitor_alpha_exp", 3)
MONITOR_BASELINES = _value("monitor_baselines", ("adwin", "ddm"))
MONITOR_NORMALIZE = _value("monitor_normalize", False)
MONITOR_VARIANT = _value("monitor_variant", "calibrated")  # a key of monitoring.VARIANTS

THRESHOLDS_DATASET = _value("thresholds_dataset", "sea0", "dataset", "thresholds",
                            _one_of(_stream_names))
THRESHOLDS_CLASSIFIER = _value("thresholds_classifier", "gnb", "classifier", "thresholds",
                               _one_of(_explorer_classifiers))
THRESHOLDS_EXPONENTS = _value("thresholds_exponents", (1, 10), "alphas", "thresholds",
                              _exponent_range, _fmt_exponents)  # (first, last) x of 10^-x
THRESHOLDS_SEEDS = _value("thresholds_seeds", 2, "seeds", "thresholds",
                          _int_in(1, 5))  # number of seeds, from the sidebar seed on
THRESHOLDS_N_CHUNKS = _value("thresholds_n_chunks", 50, "chunks", "thresholds",
                             _int_of(THRESHOLDS_LENGTHS))  # 0: the stream's own length
THRESHOLDS_ALPHA_EXP = _value("thresholds_alpha_exp", 2, "alpha", "thresholds", _int_in(1, 10))
THRESHOLDS_STUDY_CHUNKS = _value("thresholds_study_chunks", 200)
THRESHOLDS_JOB = _value("thresholds_job", "")
THRESHOLDS_STUDY_JOB = _value("thresholds_study_job", "")
THRESHOLDS_CALIB_JOB = _value("thresholds_calib_job", "")

REPRODUCTION_VIEW = _value("reproduction_view", None, "view", "reproduction",
                           _view)  # "<classifier>:<n_chunks or full>"; None: largest
REPRODUCTION_CLASSIFIER = _value("reproduction_classifier", "gnb", "classifier", "reproduction",
                                 _one_of(lambda: ("gnb", "vfdt", "dnn")))
REPRODUCTION_DATASETS = _value("reproduction_datasets", ("sea0", "sine"), "datasets",
                               "reproduction", _some_of(_paper_datasets), ",".join)
REPRODUCTION_DETECTORS = _value("reproduction_detectors", ("pudd-3", "ddm"), "detectors",
                                "reproduction", _some_of(_paper_detectors),
                                ",".join)  # the paper's row names: pudd-3, ddm, ...
REPRODUCTION_REGIMES = _value("reproduction_regimes", REGIMES)
REPRODUCTION_SEEDS = _value("reproduction_seeds", 2, "seeds", "reproduction", _int_in(1, 10))
REPRODUCTION_N_CHUNKS = _value("reproduction_n_chunks", 20, "chunks", "reproduction",
                               _int_of(REPRODUCTION_LENGTHS))  # 0: the paper's lengths
REPRODUCTION_JOB = _value("reproduction_job", "")
REPRODUCTION_COMMITTED = _value("reproduction_committed",
                                "table1_gnb.csv")  # file name of a committed report
REPRODUCTION_COMPARISON = _value("reproduction_comparison",
                                 "table1")  # key of claims.COMPARISONS
#: The Reproduction page's sections, shown one at a time (ui/reproduction.py names them)
REPRODUCTION_SECTIONS = ("committed", "rankings", "claims", "store", "run", "studies", "delays",
                         "timelines")
REPRODUCTION_SECTION = _value("reproduction_section", "claims", "section", "reproduction",
                              _one_of(lambda: REPRODUCTION_SECTIONS))


def _lesson1_streams() -> tuple[str, ...]:
    from pudd_core.views.course import LESSON1_STREAMS

    return tuple(LESSON1_STREAMS)


# the course: answers are replaced, never mutated in place (the default is shared by sessions)
COURSE_ANSWERS = _value("course_answers", {})  # "question key|scenario" -> option index
# lesson 1's stream: DelayConfig's default (chosen by data; tests/app/test_course.py)
COURSE_DRIFT_STREAM = _value("course_drift_stream", "sea20", "stream", "course-drift",
                             _one_of(_lesson1_streams))
# None: up to the question's prediction (lesson 2 sets it from its points when drawn)
COURSE_PU_SHOWN = _value("course_pu_shown", None, "shown", "course-pu-index", _int_in(1, 20))
COURSE_TEST_CUT = _value("course_test_cut", 3, "cut", "course-test", _int_in(1, 11))
COURSE_POWER_N_CHOICES = (200, 500, 1000, 2000, 5000, 10_000)
COURSE_POWER_N = _value("course_theorem2_n", 1000, "n", "course-theorem2",
                        _int_of(COURSE_POWER_N_CHOICES))
COURSE_POWER_ERROR2 = _value("course_theorem2_error2", 0.13, "error2", "course-theorem2",
                             _float_step(0.11, 0.5, 2), _fmt_number)
COURSE_POWER_K = _value("course_theorem2_k", 5, "k", "course-theorem2", _int_in(1, 10))
COURSE_ALPHA_EXP = _value("course_thresholds_alpha", 3, "alpha", "course-thresholds",
                          _int_in(1, 10))

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
    entries = [*((k, q, False) for k, q in QUERY.items()),
               *((k, q, True) for k, q in OLD_NAMES.items())]
    for key, spec, old in entries:
        if spec.page != page or spec.name not in st.query_params:
            continue
        if old and QUERY[key].name in st.query_params:
            continue  # the current name wins over an old one
        text = st.query_params[spec.name]
        try:
            st.session_state[key] = spec.parse(text)
        except ValueError as err:
            from ui.messages import code, escape

            st.session_state[QUERY_WARNINGS].append(  # the link's text, escaped: issue 10
                f"Ignored the link's {code(f'{spec.name}={text}')}: {escape(err)}. "
                "Using the default instead."
            )
        forget_widget(key)


def link_params(values: dict[str, Any]) -> dict[str, str]:
    """The query parameters that set canonical ``values`` (keys) when a link opens their page."""
    return {QUERY[key].name: QUERY[key].fmt(value) for key, value in values.items()
            if value is not None}


def reread_query(page: str) -> None:
    """Read ``page``'s query parameters again on its next run: a link is about to set them."""
    st.session_state.pop(f"app_query_read_{page or 'app'}", None)


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
_WIDGET_PREFIX = "w_"  # widget key = prefix + canonical key; written here only


def widget_key(key: str) -> str:
    """The widget key of canonical ``key``, seeded from it when the widget is (re)created."""
    wkey = _WIDGET_PREFIX + key
    if wkey not in st.session_state:
        st.session_state[wkey] = st.session_state[key]
    return wkey


def commit(key: str) -> None:
    """``on_change`` callback: copy the widget's value into the canonical key.

    A radio or select box whose option labels changed since the browser drew it gets that
    old label back as its value (Streamlit matches options by label): a text its key's link
    parser refuses is such a stale label, so the canonical value stays and the widget is
    re-seeded from it.
    """
    value = st.session_state[_WIDGET_PREFIX + key]
    spec = QUERY.get(key)
    if isinstance(value, str) and spec is not None:
        try:
            spec.parse(value)
        except ValueError:
            forget_widget(key)
            return
    st.session_state[key] = value


def bound(key: str, default: str | None = None,
          options: Sequence[Any] | None = None) -> dict[str, Any]:
    """Keyword arguments binding a widget to canonical ``key``: ``st.slider(..., **bound(k))``.

    With ``default`` (the widget's argument: ``"value"``, ``"default"``, or ``"index"`` into
    ``options``), the widget's value is also its default, except on the run that seeds it
    (Streamlit warns when a key set on that run also gets a default). A widget that the
    browser draws anew while its key is kept (after a run stopped above it) then starts
    from its value, not from the call's default, which its ``on_change`` would take in.
    """
    seeding = _WIDGET_PREFIX + key not in st.session_state
    out: dict[str, Any] = {"key": widget_key(key), "on_change": commit, "args": (key,)}
    if default is not None and not seeding:
        value = st.session_state[out["key"]]
        if options is None:
            out[default] = value
        elif value in options:
            out[default] = list(options).index(value)
    return out


def free_widget_key(name: str) -> str:
    """The key of a widget bound to no canonical key (its value is read where it is drawn)."""
    return _WIDGET_PREFIX + name


def forget_widget(key: str) -> None:
    """Drop ``key``'s widget value, so the widget is re-seeded from the canonical value."""
    st.session_state.pop(_WIDGET_PREFIX + key, None)


def set_value(key: str, value: Any) -> None:
    """Change canonical ``key`` and re-seed its widget (only before the widget is drawn)."""
    st.session_state[key] = value
    forget_widget(key)


def get(key: str) -> Any:
    """The canonical value of ``key``."""
    return st.session_state[key]
