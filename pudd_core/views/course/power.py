"""Lesson 4: Theorem 2, and the converse: the two tests' power on a pure error-rate change."""

from __future__ import annotations

from dataclasses import dataclass

from pudd_core import _validation
from pudd_core.theorems import error_shift_power
from pudd_core.views.course.questions import Question
from pudd_core.views.illustration import Theorem2Result

__all__ = [
    "PowerComparison",
    "power_comparison",
    "power_question",
    "theorem2_question",
]


@dataclass(frozen=True)
class PowerComparison:
    r"""Power of the 2 × 2 error-rate test and of PUDD's 2 × (K + 1) test on a pure error change.

    Window 1 errs with probability ``error1``, window 2 with ``error2``; the correct
    predictions fall into K buckets with the same shares in both windows (nothing but the error
    rate changes). Each table's noncentrality is $\lambda = N \sum (p_{ij} - p_i p_j)^2 /
    (p_i p_j)$ over its cell probabilities; the power at ``alpha`` is
    $P(\chi'^2_{\nu}(\lambda) > \chi^2_{\nu, 1-\alpha})$ with $\nu$ its degrees of freedom.
    (Pearson's test without Yates' correction, which the authors apply to 2 × 2 tables.)
    """

    n: int
    error1: float
    error2: float
    k: int
    alpha: float
    lambda_2x2: float
    lambda_pu: float
    power_2x2: float
    power_pu: float


def power_comparison(n: int, error1: float, error2: float, *, k: int = 5,
                     alpha: float = 1e-3) -> PowerComparison:
    """Both tests' noncentrality and power, windows of ``n`` predictions each.

    One computation with the Theorem 2 page: :func:`pudd_core.theorems.error_shift_power`.

    Examples
    --------
    >>> c = power_comparison(1000, 0.10, 0.13, k=5, alpha=1e-3)
    >>> round(c.lambda_2x2, 4) == round(c.lambda_pu, 4), c.power_2x2 > c.power_pu
    (True, True)
    >>> power_comparison(1000, 0.1, 0.13, k=1).power_pu == power_comparison(1000, 0.1, 0.13,
    ...                                                                        k=1).power_2x2
    True
    """
    _validation.check_positive_int("n", n, minimum=2)
    _validation.check_positive_int("k", k)
    _validation.check_open_unit("alpha", alpha)
    for name, e in (("error1", error1), ("error2", error2)):
        if not 0.0 < _validation.finite_float(name, e) < 1.0:
            raise _validation.ParameterError(name, f"{name} must lie strictly between 0 and 1, "
                                                   f"got {e!r}")
    # one computation of the power on a pure error-rate change: the library's (Theorem 2 page)
    r = error_shift_power(n, n, float(error1), float(error2), k=k, alpha=alpha)
    return PowerComparison(n, float(error1), float(error2), k, float(alpha), r.noncentrality,
                           r.noncentrality, r.power_error_test, r.power_pu_test)


def theorem2_question(result: Theorem2Result, alpha: float = 1e-3) -> Question:
    """"Which test notices Theorem 2's change?", answered by the two tests' p-values.

    A PUDD test that a shortcut decided (no χ² ran) counts as not noticing: a rule is no
    evidence.

    Examples
    --------
    >>> from pudd_core.views.illustration import Theorem2Config, theorem2_demo
    >>> q = theorem2_question(theorem2_demo(Theorem2Config(n=200, seed=0)))
    >>> q.options[q.answers[0]]
    "only PUDD's test of the PU table"
    """
    pudd = result.pudd.shortcut is None and result.pudd.p_value < alpha
    errors = result.error_test.p_value < alpha
    options = ("both tests", "only the 2 × 2 error-rate test", "only PUDD's test of the PU table",
               "neither test")
    answer = {(True, True): 0, (False, True): 1, (True, False): 2, (False, False): 3}
    s1, s2 = result.stats1, result.stats2
    why = (f"Window 1 errs {s1.error_rate:.1%} of the time, window 2 {s2.error_rate:.1%}, so the "
           f"2 × 2 test of the error rates gives p = {result.error_test.p_value:.3g} "
           f"({'below' if errors else 'not below'} α = {alpha:g}). PUDD's test compares where "
           f"the predictions fall by PU-index and gives p = {result.pudd.p_value:.3g} "
           f"({'below' if pudd else 'not below'} α). Same error rate, different certainty: "
           "that is Theorem 2.")
    c = result.config
    return Question(
        "lesson4_theorem2", f"n = {c.n}, errors {c.error_rate:g}, seed {c.seed}, α = {alpha:g}",
        f"Both windows of {c.n} predictions have the same error rate, but the correct ones "
        "became less sure and the wrong ones less wrong. At α = "
        f"{alpha:g}, which test notices the change?", options, (answer[(pudd, errors)],), why,
        ("", "The error rates are equal: the 2 × 2 table's two rows are the same.", "",
         "The PU-index histograms differ a lot; look at them."),
    )


def power_question(comparison: PowerComparison) -> Question:
    """"Which test is likelier to alarm on a pure error-rate change?", answered by the powers.

    Examples
    --------
    >>> q = power_question(power_comparison(1000, 0.10, 0.13, k=5))
    >>> q.options[q.answers[0]]
    'the 2 × 2 error-rate test'
    """
    c = comparison
    gap = c.power_2x2 - c.power_pu
    answer = 2 if abs(gap) < 1e-9 else (1 if gap > 0 else 0)
    why = (f"Only the error rate changed ({c.error1:.0%} → {c.error2:.0%}), so both tables carry "
           f"the same signal: noncentrality λ = {c.lambda_2x2:.2f} for the 2 × 2 table and "
           f"{c.lambda_pu:.2f} for the 2 × {c.k + 1} one. PUDD's table spreads it over {c.k} "
           f"degrees of freedom instead of 1, so at α = {c.alpha:g} its power is "
           f"{c.power_pu:.1%} against {c.power_2x2:.1%} for the 2 × 2 test (scipy's noncentral "
           "χ²). A change of error rate does change the PU histogram (Theorem 1), but PUDD's "
           "test pays for its extra columns when they carry no extra signal.")
    return Question(
        "lesson4_power", f"n = {c.n}, {c.error1:g} → {c.error2:g}, K = {c.k}, α = {c.alpha:g}",
        f"Two windows of {c.n} predictions: window 1 errs {c.error1:.0%} of the time, window 2 "
        f"{c.error2:.0%}; within the correct and the wrong predictions nothing else changes. "
        f"At α = {c.alpha:g}, which test is likelier to alarm: PUDD's 2 × (K + 1) with K = {c.k} "
        "buckets, or the 2 × 2 test of the error rates?",
        ("PUDD's 2 × (K + 1) test", "the 2 × 2 error-rate test", "equally likely"),
        (answer,), why,
        ("The PU-index sees more kinds of change, but this change is the error rate's alone.",
         "", ""),
    )
