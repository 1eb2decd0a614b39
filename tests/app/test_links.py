"""Every value a link carries, checked against its control (issue 25, item 8).

Each query parameter of ``ui/state.py`` declares what its control can show (``bounds`` or
``choices``); a value outside is refused when the link is read, with a warning that names
the parameter, and a value inside never makes a widget raise. The explorer's PUDD settings
(``?pudd=``) are checked per setting and explained under that setting's row.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.apptest import open_page
from ui import state
from ui.pages import PAGES

TIMEOUT = 120
#: Link parameters whose text no declared range describes, with what a control shows and what
#: it must refuse. The inventory test fails for a parameter neither declared nor listed here.
CUSTOM = {
    state.EXPLORER_SETTINGS: (["3,clamp_min=1000;5,cut_points=all", "1;10"],
                              ["3,clamp_min=1001", "3,clamp_min=-1", "3,clamp_min=1e9",
                               "0;11", "3,yates=maybe;3", "3,speed=9", "3,refit=sometimes",
                               "3,refit=doubling,cache_buckets=false"]),
    state.REPRODUCTION_VIEW: (["gnb:full", "vfdt:20"], ["gnb:abc", ":full", "nonsense"]),
}


def _page_of(spec: state.QueryParam) -> str:
    """The script of the page that reads ``spec`` (every page reads the app's own: Home)."""
    return next(p.path for p in PAGES if p.url_path == (spec.page or None))


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _edges(key: str) -> tuple[list[str], list[str]]:
    """Texts a control shows at its ends, and texts it cannot show, for link parameter ``key``."""
    spec = state.QUERY[key]
    if key in CUSTOM:
        return CUSTOM[key]
    parse: Any = spec.parse
    if hasattr(parse, "bounds"):
        lo, hi = parse.bounds
        step = 1 if isinstance(lo, int) and isinstance(hi, int) else 0.5
        if hasattr(parse, "integer"):  # a range "low-high"
            good = [f"{_fmt(lo)}-{_fmt(hi)}", f"{_fmt(lo)}-{_fmt(lo)}"]
            bad = [f"{_fmt(hi)}-{_fmt(lo)}" if lo != hi else "x-y",
                   f"{_fmt(lo)}-{_fmt(hi + step)}", "abc", ""]
            return good, bad
        return [_fmt(lo), _fmt(hi)], [_fmt(lo - step), _fmt(hi + step), "abc", "", "nan"]
    if hasattr(parse, "choices"):
        choices = [str(c) for c in parse.choices()]
        joined = isinstance(spec.fmt, type(",".join))  # a list: ",".join
        good = [choices[0], choices[-1]] + ([",".join(choices)] if joined else [])
        bad = ["no-such-choice", "", f"{choices[0]},no-such-choice"]
        if joined:
            bad.remove("")  # an empty list is a choice of nothing
        return good, bad
    raise AssertionError(f"link parameter {spec.name!r} ({key}) declares no range: give its "
                         "parser bounds or choices, or list it in CUSTOM with bad cases")


def test_every_link_parameter_has_its_controls_range_and_bad_cases() -> None:
    """The inventory: no link parameter without a declared range or listed bad cases."""
    for key in state.QUERY:
        good, bad = _edges(key)
        assert good and bad, key
    assert set(CUSTOM) <= set(state.QUERY)


@pytest.mark.parametrize("key", list(state.QUERY))
def test_a_link_value_is_taken_inside_the_controls_range_and_refused_outside(key: str) -> None:
    spec = state.QUERY[key]
    good, bad = _edges(key)
    if key in CUSTOM:
        return  # checked on its page (below)
    for text in good:
        spec.parse(text)
    for text in bad:
        with pytest.raises(ValueError, match="expected"):
            spec.parse(text)


def _within(parse: Any, value: Any) -> bool:
    if hasattr(parse, "bounds"):
        lo, hi = parse.bounds
        values = value if isinstance(value, tuple) else (value,)
        return all(lo <= v <= hi and not math.isnan(v) for v in values)
    choices = set(parse.choices())
    return set(value) <= choices if isinstance(value, tuple) else value in choices


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(sorted(set(state.QUERY) - set(CUSTOM))),
       text=st.one_of(st.text(max_size=12), st.integers(-10**12, 10**12).map(str),
                      st.floats(allow_nan=True).map(repr),
                      st.tuples(st.integers(-20, 200), st.integers(-20, 200)).map(
                          lambda t: f"{t[0]}-{t[1]}")))
def test_any_link_text_is_either_refused_or_a_value_its_control_shows(key: str,
                                                                      text: str) -> None:
    """Property: a parser returns a value inside its control's range or raises ValueError."""
    spec = state.QUERY[key]
    try:
        value = spec.parse(text)
    except ValueError as err:
        assert "expected" in str(err)
        return
    assert _within(spec.parse, value), (spec.name, text, value)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(sorted(state.QUERY)),
       text=st.one_of(st.floats(0, 1).map(repr), st.floats(-1, 6000).map(str),
                      st.tuples(st.floats(0, 1), st.floats(0, 1)).map(
                          lambda t: f"{min(t)!r}-{max(t)!r}"),
                      st.integers(-5, 5000).map(str)))
def test_a_link_value_taken_is_written_back_exactly(key: str, text: str) -> None:
    """Property: what a link's parser takes, the link written back carries unchanged
    (``error_rate=0.4500001`` was written back as ``0.45``)."""
    spec = state.QUERY[key]
    try:
        value = spec.parse(text)
    except ValueError:
        return
    assert spec.parse(spec.fmt(value)) == value, (spec.name, text, spec.fmt(value))


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("0123456789,=;-.e abcdlmnpstuy_")),
                    max_size=40))
def test_any_pudd_settings_text_gives_settings_the_controls_can_show(text: str) -> None:
    """Property: ``?pudd=`` is split into settings, each read into what its row can show."""
    from pudd_core.views.explorer import VARIANTS, read_setting

    try:
        texts = state.QUERY[state.EXPLORER_SETTINGS].parse(text)
    except ValueError as err:
        assert "settings" in str(err)
        return
    for part in texts:
        setting, problems = read_setting(part)
        assert 1 <= setting.alpha_exponent <= 10
        for name, value in setting.options:
            option = VARIANTS[name]
            if option.choices is not None:
                assert value in option.choices
            elif option.bounds is not None:
                assert option.bounds[0] <= value <= option.bounds[1], (part, problems)


@pytest.fixture
def no_data(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """No real data, no downloads, an empty results store: pages draw their controls and stop
    at the missing data instead of computing (the controls are what a link sets)."""
    for name in ("data", "cache", "store"):
        (tmp_path / name).mkdir()
    monkeypatch.setenv("PUDD_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PUDD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PUDD_RESULTS_STORE", str(tmp_path / "store"))


def _pages() -> list[str]:
    return sorted({_page_of(spec) for spec in state.QUERY.values()})


def _query(page: str, pick: int, good: bool) -> dict[str, str]:
    out = {}
    for key, spec in state.QUERY.items():
        if _page_of(spec) == page:
            texts = _edges(key)[0 if good else 1]
            out[spec.name] = texts[pick % len(texts)]
    return out


@pytest.mark.parametrize("pick", [0, 1])
@pytest.mark.parametrize("page", _pages())
def test_every_link_parameter_at_its_controls_ends_opens_the_page(page: str,
                                                                  pick: int,
                                                                  no_data: None) -> None:
    query = _query(page, pick, good=True)
    at = open_page(page, query, timeout=TIMEOUT, via_home=False)
    assert not at.exception, (query, [e.value for e in at.exception])
    warned = " ".join(w.value for w in at.warning)
    assert "Ignored the link" not in warned, (query, warned)


@pytest.mark.parametrize("pick", [0, 1, 2])
@pytest.mark.parametrize("page", _pages())
def test_every_bad_link_value_is_refused_by_name_and_the_page_opens(page: str,
                                                                    pick: int,
                                                                    no_data: None) -> None:
    query = _query(page, pick, good=False)
    at = open_page(page, query, timeout=TIMEOUT, via_home=False)
    assert not at.exception, (query, [e.value for e in at.exception])
    said = " ".join(e.value for e in (*at.warning, *at.error))
    for key, spec in state.QUERY.items():
        if spec.name not in query or key in CUSTOM:
            continue
        assert f"{spec.name}=" in said, (spec.name, query[spec.name], said)


def test_a_count_floor_above_its_control_is_explained_under_its_setting() -> None:
    """``/explorer?pudd=3,clamp_min=1001`` replaced the page with StreamlitValueAboveMaxError."""
    at = open_page("pages/explorer.py", {"pudd": "3,clamp_min=1001;5", "n_chunks": "12"},
                   timeout=TIMEOUT, via_home=False)
    assert not at.exception
    [error] = at.error
    assert error.value.startswith("**Setting 1** is left out of the run")
    assert "clamp_min=1001" in error.value and "from 0 to 1000" in error.value
    assert at.number_input(key="w_explorer_s0_0_clamp_min").value == 5  # what the row shows


@pytest.mark.parametrize(("text", "said"), [
    ("3,refit=sometimes;5", "expects 'every' or 'doubling', got 'sometimes'"),
    ("3,refit=doubling,cache_buckets=false;5", "it needs cache_buckets=True"),
])
def test_a_refit_the_detector_refuses_is_explained_under_its_setting(text: str,
                                                                      said: str) -> None:
    """The monitor's refit schedule reaches the explorer as a variant option: a value or a
    combination ChunkPUDD refuses leaves that setting out, with the reason, never a traceback."""
    at = open_page("pages/explorer.py", {"pudd": text, "n_chunks": "12"},
                   timeout=TIMEOUT, via_home=False)
    assert not at.exception
    [error] = at.error
    assert error.value.startswith("**Setting 1** is left out of the run")
    assert said in error.value
