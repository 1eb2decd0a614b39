"""Friedman test, average ranks and the Nemenyi critical difference (Demšar, JMLR 2006).

The paper's appendix backs its rankings with critical-difference diagrams. The input is an
accuracy table: one row per *block* (a dataset, or a dataset × classifier × regime case), one
column per method; method names are data, so any set of columns (the classic detectors, the
SOTA methods, EK) goes through the same code.

- Ranks within each block with :func:`scipy.stats.rankdata`: the highest accuracy gets rank
  1, ties share the average of their ranks. Accuracies are ranked as the reports print them,
  to :data:`REPORTED_DECIMALS` decimals (:func:`at_reported_precision`): two numbers a reader
  sees as equal tie, and float noise (71.97738095238095 against ...094) never breaks a tie.
- The Friedman statistic and p-value come from :func:`scipy.stats.friedmanchisquare`, on the
  same rounded numbers.
- The Nemenyi critical difference is ``CD = q_alpha * sqrt(k (k + 1) / (6 N))`` for *k*
  methods over *N* blocks, with ``q_alpha`` the studentized range quantile over ``sqrt(2)``
  (Demšar's Table 5a: 3.031 for k = 8 at alpha = 0.05). Two methods whose average ranks differ
  by less than CD are not significantly different.

Examples
--------
The paper's Table 2 and its appendix twin: 8 datasets × 8 methods.

>>> from pudd_core.paper import paper_table
>>> table = paper_table(2).pivot(index="dataset", columns="detector", values="accuracy")
>>> result = friedman_nemenyi(table, blocks="the 8 datasets of Table 2")
>>> round(result.p_value, 7), round(result.critical_difference, 3)
(1.8e-06, 3.712)
>>> result.ranks.round(3).to_dict()
{'pudd-3': 2.375, 'pudd-5': 2.375, 'pudd-1': 2.5, 'adlter': 4.25, 'mcd-dd': 4.875,
 'ns': 5.0, 'amf': 7.125, 'iwe': 7.5}
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from pudd_core._validation import ParameterError

if TYPE_CHECKING:
    import pandas as pd
    from numpy.typing import NDArray

__all__ = [
    "ONE_GENERATOR",
    "FriedmanResult",
    "PairedResult",
    "REPORTED_DECIMALS",
    "at_reported_precision",
    "complete_blocks",
    "critical_difference",
    "friedman_nemenyi",
    "holm",
    "nemenyi_q",
    "one_generator_blocks",
    "one_generator_note",
    "rank_table",
    "wilcoxon_pair",
]


#: The decimals of an accuracy (percent) as every report and table prints it: ranks, ties,
#: wins and losses are taken at this precision.
REPORTED_DECIMALS = 2

#: The streams of one generator: river's SEA at three noise levels (0, 10 and 20 %). As
#: blocks of a test they are not independent, whatever the test assumes.
ONE_GENERATOR = ("sea0", "sea10", "sea20")


def one_generator_blocks(index: pd.Index) -> int:
    """How many blocks of ``index`` are sea0, sea10 or sea20 (0 when fewer than two are).

    A block is one of them when any level of its label is the stream's name.

    Examples
    --------
    >>> import pandas as pd
    >>> one_generator_blocks(pd.Index(["sea0", "sea10", "sine"]))
    2
    >>> one_generator_blocks(pd.MultiIndex.from_tuples([("gnb", "sea0"), ("gnb", "elec2")]))
    0
    """
    labels = [b if isinstance(b, tuple) else (b,) for b in index]
    hits = [any(str(v) in ONE_GENERATOR for v in b) for b in labels]
    streams = {str(v) for b in labels for v in b if str(v) in ONE_GENERATOR}
    return int(sum(hits)) if len(streams) > 1 else 0


def one_generator_note(n_shared: int, n_blocks: int) -> str:
    """The caveat a test's caption carries when some of its blocks are one generator.

    >>> one_generator_note(3, 7)[:60]
    ' 3 of the 7 blocks are sea0, sea10 and sea20, one generator '
    >>> one_generator_note(0, 7)
    ''
    """
    if not n_shared:
        return ""
    return (f" {n_shared} of the {n_blocks} blocks are sea0, sea10 and sea20, one generator "
            "(SEA) at three noise levels, taken as independent blocks though they are not: "
            "the p-value is optimistic.")


def at_reported_precision(values: NDArray[np.float64],
                          decimals: int = REPORTED_DECIMALS) -> NDArray[np.float64]:
    """Accuracies (percent) rounded as the reports print them, before any rank is taken.

    Every ranking of this module and of the claims check goes through it, so a tie is a tie
    whatever the floating-point noise of the means behind it.

    Examples
    --------
    >>> a = np.array([71.97738095238095, 71.97738095238094, 72.025])
    >>> bool(a[0] == a[1]), bool(at_reported_precision(a)[0] == at_reported_precision(a)[1])
    (False, True)
    >>> at_reported_precision(np.array([76.0500, 76.0455])).tolist()  # equal as printed
    [76.05, 76.05]
    """
    return np.asarray(values, dtype=np.float64).round(decimals)


def nemenyi_q(n_methods: int, alpha: float = 0.05) -> float:
    """Demšar's ``q_alpha``: the studentized range quantile (infinite df) over ``sqrt(2)``.

    Examples
    --------
    >>> round(nemenyi_q(8), 3), round(nemenyi_q(2), 3), round(nemenyi_q(10, 0.10), 3)
    (3.031, 1.96, 2.92)
    """
    from scipy import stats

    if isinstance(n_methods, bool) or not isinstance(n_methods, int) or n_methods < 2:
        raise ParameterError("n_methods", f"need at least 2 methods, got {n_methods!r}")
    if not 0 < alpha < 1:
        raise ParameterError("alpha", f"alpha must be in (0, 1), got {alpha!r}")
    return float(stats.studentized_range.ppf(1 - alpha, n_methods, np.inf) / math.sqrt(2))


def critical_difference(n_methods: int, n_blocks: int, alpha: float = 0.05) -> float:
    """The Nemenyi critical difference of average ranks, ``q_alpha sqrt(k (k+1) / (6 N))``.

    Examples
    --------
    >>> round(critical_difference(8, 8), 3)
    3.712
    """
    if isinstance(n_blocks, bool) or not isinstance(n_blocks, int) or n_blocks < 1:
        raise ParameterError("n_blocks", f"need at least 1 block, got {n_blocks!r}")
    k = n_methods
    return nemenyi_q(k, alpha) * math.sqrt(k * (k + 1) / (6 * n_blocks))


def complete_blocks(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``table`` with a number for every method (a rank needs the whole block).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"a": [1.0, None, 3.0], "b": [2.0, 1.0, 1.0]})
    >>> complete_blocks(t).index.tolist()
    [0, 2]
    """
    return table.apply(lambda c: c.astype(np.float64)).dropna(axis=0, how="any")


def rank_table(table: pd.DataFrame, *, higher_is_better: bool = True,
               decimals: int = REPORTED_DECIMALS) -> pd.DataFrame:
    """Rank the methods (columns) within each block (row): 1 is the best, ties averaged.

    The values are compared to ``decimals`` decimals (:func:`at_reported_precision`).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"a": [90.0, 80.0], "b": [85.0, 80.0], "c": [70.0, 60.0]})
    >>> rank_table(t)
         a    b    c
    0  1.0  2.0  3.0
    1  1.5  1.5  3.0
    >>> rank_table(pd.DataFrame({"a": [72.0 + 1e-14], "b": [72.0]})).to_numpy().tolist()
    [[1.5, 1.5]]
    """
    import pandas as pd
    from scipy import stats

    values = at_reported_precision(table.to_numpy(np.float64), decimals)
    ranked = stats.rankdata(-values if higher_is_better else values, axis=1)
    return pd.DataFrame(ranked, index=table.index, columns=table.columns)


@dataclass(frozen=True)
class FriedmanResult:
    """The Friedman test over blocks, average ranks and the Nemenyi critical difference.

    ``ranks`` is the average rank of each method, best (lowest) first; ``blocks`` says what a
    block is (for captions); ``dropped`` counts blocks left out for a missing number.
    """

    statistic: float
    p_value: float
    ranks: pd.Series
    n_blocks: int
    alpha: float
    critical_difference: float
    blocks: str = "blocks"
    dropped: int = 0
    one_generator: int = 0
    """Blocks that are sea0, sea10 or sea20 (:func:`one_generator_blocks`)."""

    @property
    def n_methods(self) -> int:
        """*k*, the number of methods compared."""
        return len(self.ranks)

    @property
    def significant(self) -> bool:
        """Whether the Friedman test rejects "all methods rank alike" at ``alpha``."""
        return bool(self.p_value < self.alpha)

    @property
    def iman_davenport(self) -> tuple[float, float]:
        """Iman and Davenport's F of the (tie-corrected) chi2, and its p-value.

        ``F = (N - 1) chi2 / (N (k - 1) - chi2)`` on ``(k - 1, (k - 1)(N - 1))`` degrees of
        freedom (Demšar 2006, eq. 2): less conservative than the chi2 approximation.

        Examples
        --------
        >>> import pandas as pd
        >>> r = FriedmanResult(9.0, 0.011, pd.Series({"a": 1.0, "b": 2.0, "c": 3.0}), 6,
        ...                    0.05, 1.35)
        >>> f, p = r.iman_davenport          # (6 - 1) * 9 / (6 * 2 - 9) = 15 on (2, 10)
        >>> f, round(p, 5)
        (15.0, 0.00097)
        """
        from scipy import stats

        k, n, chi2 = self.n_methods, self.n_blocks, self.statistic
        denominator = n * (k - 1) - chi2
        if denominator <= 0:  # every block ranks the methods alike: chi2 at its maximum
            return math.inf, 0.0
        f = (n - 1) * chi2 / denominator
        return float(f), float(stats.f.sf(f, k - 1, (k - 1) * (n - 1)))

    def differs(self, a: str, b: str) -> bool:
        """Whether methods ``a`` and ``b`` are significantly different (Nemenyi, post hoc).

        Only meaningful when the Friedman test itself is :attr:`significant`.
        """
        return bool(abs(float(self.ranks[a]) - float(self.ranks[b]))
                    > self.critical_difference + 1e-12)

    def groups(self) -> list[tuple[str, ...]]:
        """Maximal runs of methods (in rank order) spanning less than CD: the diagram's bars.

        Examples
        --------
        >>> import pandas as pd
        >>> r = FriedmanResult(0.0, 1.0, pd.Series({"a": 1.0, "b": 1.5, "c": 3.0, "d": 3.2}),
        ...                    10, 0.05, 1.6)
        >>> r.groups()
        [('a', 'b'), ('b', 'c'), ('c', 'd')]
        """
        names = list(self.ranks.index)
        values = self.ranks.to_numpy(np.float64)
        out: list[tuple[str, ...]] = []
        last_end = -1
        for i in range(len(names)):
            j = i
            while j + 1 < len(names) and values[j + 1] - values[i] <= self.critical_difference:
                j += 1
            if j > i and j > last_end:
                out.append(tuple(names[i:j + 1]))
                last_end = j
        return out

    def caption(self, display: dict[str, str] | None = None) -> str:
        """One sentence naming the test, the blocks, alpha and the result.

        Examples
        --------
        >>> from pudd_core.paper import paper_table
        >>> t = paper_table(2).pivot(index="dataset", columns="detector", values="accuracy")
        >>> print(friedman_nemenyi(t, blocks="datasets of Table 2").caption())
        Friedman test over 8 blocks (datasets of Table 2), 8 methods: tie-corrected
        chi2 = 39.17, p = 1.8e-06 (Iman-Davenport F(7, 49) = 16.29, p = 7.4e-11, from the
        tie-corrected chi2); Nemenyi critical difference CD = 3.712 at alpha = 0.05 (a bar
        joins methods whose average ranks differ by less). 3 of the 8 blocks are sea0, sea10
        and sea20, one generator (SEA) at three noise levels, taken as independent blocks
        though they are not: the p-value is optimistic.
        """
        extra = f", {self.dropped} incomplete left out" if self.dropped else ""
        f, f_p = self.iman_davenport
        k, n = self.n_methods, self.n_blocks
        return (f"Friedman test over {self.n_blocks} blocks ({self.blocks}{extra}), "
                f"{self.n_methods} methods: tie-corrected chi2 = {self.statistic:.2f}, "
                f"p = {self.p_value:.2g} (Iman-Davenport F({k - 1}, {(k - 1) * (n - 1)}) = "
                f"{f:.2f}, p = {f_p:.2g}, from the tie-corrected chi2); Nemenyi critical "
                f"difference CD = "
                f"{self.critical_difference:.3f} at alpha = {self.alpha:g} (a bar joins methods "
                "whose average ranks differ by less)."
                + one_generator_note(self.one_generator, self.n_blocks))


def friedman_nemenyi(table: pd.DataFrame, *, alpha: float = 0.05, blocks: str = "blocks",
                     higher_is_better: bool = True,
                     decimals: int = REPORTED_DECIMALS) -> FriedmanResult:
    """Friedman test and Nemenyi critical difference of a blocks × methods table.

    Rows with a missing number are left out (counted in ``dropped``). The ranks and the
    statistic are taken on the values to ``decimals`` decimals (accuracies in percent, as
    printed: :func:`at_reported_precision`).

    Raises
    ------
    ParameterError
        Fewer than 3 methods (use :func:`wilcoxon_pair` for two) or fewer than 2 complete
        blocks.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"a": [3.0, 3.0, 3.0], "b": [2.0, 2.0, 2.0], "c": [1.0, 1.0, 1.0]})
    >>> r = friedman_nemenyi(t)
    >>> r.statistic, round(r.p_value, 4), r.ranks.to_dict()
    (6.0, 0.0498, {'a': 1.0, 'b': 2.0, 'c': 3.0})
    """
    from scipy import stats

    full = complete_blocks(table)
    k, n = full.shape[1], full.shape[0]
    if k < 3:
        raise ParameterError("methods", f"the Friedman test needs at least 3 methods, got {k}; "
                                        "compare two with wilcoxon_pair")
    if n < 2:
        raise ParameterError("blocks", f"need at least 2 complete blocks (rows with every "
                                       f"method's number), got {n}")
    ranks = rank_table(full, higher_is_better=higher_is_better, decimals=decimals).mean(axis=0)
    order = sorted(ranks.index, key=lambda m: (float(ranks[m]), list(full.columns).index(m)))
    values = at_reported_precision(full.to_numpy(np.float64), decimals)
    if np.all(values == values[:, :1]):  # every block a tie: no evidence of a difference
        stat, p = 0.0, 1.0
    else:
        res = stats.friedmanchisquare(*(values[:, j] for j in range(k)))
        stat, p = float(res.statistic), float(res.pvalue)
    return FriedmanResult(stat, p, ranks[order], n, alpha, critical_difference(k, n, alpha),
                          blocks, len(table) - n, one_generator_blocks(full.index))


@dataclass(frozen=True)
class PairedResult:
    """Method ``a`` against ``b`` over the same blocks: wins, losses, ties, Wilcoxon p."""

    a: str
    b: str
    wins: int
    losses: int
    ties: int
    mean_difference: float
    p_value: float

    @property
    def n_blocks(self) -> int:
        """Blocks compared."""
        return self.wins + self.losses + self.ties


def wilcoxon_pair(table: pd.DataFrame, a: str, b: str, alternative: str = "two-sided", *,
                  decimals: int = REPORTED_DECIMALS) -> PairedResult:
    """Wilcoxon signed-rank test of ``a`` against ``b`` over the complete blocks.

    Both are compared to ``decimals`` decimals (:func:`at_reported_precision`), and so are
    their differences, whose absolute values the test ranks. Zero differences are dropped
    (``zero_method="wilcox"``); with no non-zero difference the p-value is 1.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"a": [2.0, 3.0, 4.0, 5.0, 6.0, 7.0], "b": [1.0] * 6})
    >>> r = wilcoxon_pair(t, "a", "b")
    >>> r.wins, r.losses, r.ties, round(r.p_value, 4)
    (6, 0, 0, 0.0312)
    """
    from scipy import stats

    for name in (a, b):
        if name not in table.columns:
            raise ParameterError("methods", f"no column {name!r}; columns are "
                                            f"{', '.join(map(str, table.columns))}")
    pair = complete_blocks(table[[a, b]])
    values = at_reported_precision(pair.to_numpy(np.float64), decimals)
    # 71.59 - 71.58 is 0.010000000000005116: rounded again, equal differences tie
    diff = at_reported_precision(values[:, 0] - values[:, 1], decimals)
    wins, losses = int((diff > 0).sum()), int((diff < 0).sum())
    if wins + losses == 0:
        p = 1.0
    else:
        p = float(stats.wilcoxon(diff, zero_method="wilcox", alternative=alternative).pvalue)
    return PairedResult(a, b, wins, losses, len(diff) - wins - losses,
                        float(diff.mean()) if len(diff) else math.nan, p)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of several p-values (family-wise error).

    Examples
    --------
    >>> [round(p, 3) for p in holm([0.01, 0.04, 0.03])]
    [0.03, 0.06, 0.06]
    """
    order = np.argsort(p_values, kind="stable")
    m = len(order)
    out = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * float(p_values[i])))
        out[i] = running
    return out.tolist()
