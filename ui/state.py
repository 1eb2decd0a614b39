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
            st.session_state[QUERY_WARNINGS].append(
                f"Ignored the link's `{spec.name}={text}`: {err}. Using the default instead."
            )
        _forget_widget(key)


def write_query(page: str) -> None:
    """Put the app-wide values and ``page``'s own in the URL (only when they changed)."""
    wanted = {
        spec.name: spec.fmt(st.session_state[key])
        for key, spec in QUERY.items()
        if spec.page in ("", page)
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
