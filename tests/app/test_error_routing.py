"""Errors land under the control their ``ParameterError.param`` names, whatever their wording."""

from __future__ import annotations

from typing import Any

import pytest

from pudd_core._validation import ParameterError
from ui import controls, reproduction, thresholds


class _Slot:
    """An ``st.empty`` stand-in that records what was shown in it."""

    def __init__(self) -> None:
        self.shown: list[str] = []

    def error(self, body: str, **_: Any) -> None:
        self.shown.append(body)


def _where(slots: dict[str, _Slot]) -> list[str]:
    return [name for name, slot in slots.items() if slot.shown]


WORDINGS = ["reworded completely", "classifier n_chunks detector regime", "stream missing"]


@pytest.mark.parametrize("wording", WORDINGS)
@pytest.mark.parametrize("param", ["correct1", "wrong2", "amount"])
def test_theorem_errors_follow_their_parameter(param: str, wording: str) -> None:
    slots = {name: _Slot() for name in ("correct1", "wrong2", "amount")}
    shown = controls.ErrorSlots(slots, {n: n.title() for n in slots}).show(
        ParameterError(param, wording))
    assert shown and _where(slots) == [param]


def test_theorem_errors_without_a_control_are_left_to_the_page() -> None:
    slots = {"amount": _Slot()}
    errors = controls.ErrorSlots(slots, {"amount": "Instances moved"})
    assert not errors.show(ValueError("amount must be at most 5"))  # no param
    assert not errors.show(ParameterError("n", "amount is mentioned here"))
    assert _where(slots) == []


@pytest.mark.parametrize("wording", WORDINGS)
@pytest.mark.parametrize(("err_param", "control"),
                         [("classifier", "classifier"), ("n_chunks", "n_chunks"),
                          ("dataset", "stream"), ("alpha", "stream"), (None, "stream")])
def test_threshold_errors_follow_their_parameter(err_param: str | None, control: str,
                                                 wording: str) -> None:
    slots = {name: _Slot() for name in ("stream", "classifier", "n_chunks")}
    err = ValueError(wording) if err_param is None else ParameterError(err_param, wording)
    thresholds.Slots(slots, {n: n for n in slots}).show(err)
    assert _where(slots) == [control]


@pytest.mark.parametrize("wording", WORDINGS)
@pytest.mark.parametrize(("err_param", "control"),
                         [("detectors", "detectors"), ("regimes", "regimes"),
                          ("datasets", "datasets"), (None, "datasets")])
def test_reproduction_errors_follow_their_parameter(err_param: str | None, control: str,
                                                    wording: str) -> None:
    slots = {name: _Slot() for name in ("datasets", "detectors", "regimes")}
    err = ValueError(wording) if err_param is None else ParameterError(err_param, wording)
    reproduction.Slots(**slots).show(err)
    assert _where(slots) == [control]


@pytest.mark.parametrize(("kwargs", "control"),
                         [({"detectors": []}, "detectors"), ({"regimes": ["nope"]}, "regimes"),
                          ({"datasets": ["nope"]}, "datasets")])
def test_the_librarys_own_reproduction_errors_carry_their_control(kwargs: dict[str, Any],
                                                                  control: str) -> None:
    from pudd_core.reproduction import reproduction_configs

    with pytest.raises(ParameterError) as info:
        reproduction_configs(1, "gnb", 1, **kwargs)
    assert info.value.param == control


def test_the_librarys_own_theorem_errors_carry_their_control() -> None:
    from pudd_core.theorems import theorem2_windows

    for name in ("correct1", "correct2", "wrong1", "wrong2"):
        bad = (0.3, 0.6) if name.startswith("correct") else (0.4, 0.9)
        with pytest.raises(ParameterError) as info:
            theorem2_windows(100, **{name: bad})
        assert info.value.param == name


def test_the_examples_of_the_message_helpers_hold() -> None:
    import doctest

    import ui.messages

    assert doctest.testmod(ui.messages).failed == 0
