"""Predict-then-see questions whose right option and feedback come from a computation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pudd_core import _validation

__all__ = [
    "Feedback",
    "Question",
    "option_of",
]


@dataclass(frozen=True)
class Feedback:
    """What the lab says to an answer: whether it was right, and why (with the numbers)."""

    correct: bool
    text: str


@dataclass(frozen=True)
class Question:
    """A predict-then-see question whose right option was computed.

    Attributes
    ----------
    key
        Stable name of the question (``"lesson1_delay"``): progress is kept under it.
    scenario
        The settings the right option depends on; a new scenario is a new question.
    prompt, options
        What the student reads and picks from.
    answers
        Index (or indices, on a tie) of the right option(s), computed.
    why
        The explanation shown after any answer, its numbers from the computation.
    hints
        Per option, an extra word for that wrong answer ("" for none).

    Examples
    --------
    >>> q = Question("q", "s", "2 + 2?", ("3", "4"), (1,), "2 + 2 = 4.", ("Off by one.", ""))
    >>> q.check(1)
    Feedback(correct=True, text='Right. 2 + 2 = 4.')
    >>> q.check(0).text
    'Not quite: you chose "3". Off by one. 2 + 2 = 4.'
    """

    key: str
    scenario: str
    prompt: str
    options: tuple[str, ...]
    answers: tuple[int, ...]
    why: str
    hints: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.answers or not all(0 <= a < len(self.options) for a in self.answers):
            raise ValueError(f"answers {self.answers} must index the {len(self.options)} options")

    def check(self, choice: int) -> Feedback:
        """The feedback to option ``choice``."""
        if not 0 <= choice < len(self.options):
            raise _validation.ParameterError(
                "choice", f"choice must be an option index from 0 to {len(self.options) - 1}, "
                          f"got {choice!r}")
        if choice in self.answers:
            return Feedback(True, f"Right. {self.why}")
        hint = self.hints[choice] if choice < len(self.hints) else ""
        return Feedback(False, " ".join(filter(None, (
            f'Not quite: you chose "{self.options[choice]}".', hint, self.why))))


def option_of(value: float | None, bounds: Sequence[float]) -> int:
    """Which range option ``value`` falls in: ``bounds`` are the options' upper ends.

    ``None`` (no value: nothing happened) is the option after the ranges.

    Examples
    --------
    >>> inf = float("inf")
    >>> [option_of(v, [0, 3, inf]) for v in (0, 2, 7, None)]
    [0, 1, 2, 3]
    """
    if value is None:
        return len(bounds)
    return int(np.searchsorted(np.asarray(bounds, dtype=np.float64), value, side="left"))
