from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pudd_core._validation import ParameterError
from pudd_core.paper import paper_table
from pudd_core.reproduction.significance import (
    FriedmanResult,
    critical_difference,
    friedman_nemenyi,
    holm,
    nemenyi_q,
    rank_table,
    wilcoxon_pair,
)

# Demšar (2006), Table 5: critical values of the two-tailed Nemenyi test, k = 2 .. 10.
DEMSAR_Q05 = (1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164)
DEMSAR_Q10 = (1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920)

# Hand-ranked: block 0 a>b>c, block 1 b>a>c, block 2 c>a>b, block 3 a>b>c.
TINY = pd.DataFrame({"a": [10.0, 9.0, 8.0, 7.0], "b": [9.0, 10.0, 7.0, 6.0],
                     "c": [8.0, 8.0, 9.0, 5.0]})


@pytest.mark.parametrize(("alpha", "table"), [(0.05, DEMSAR_Q05), (0.10, DEMSAR_Q10)])
def test_q_alpha_matches_demsars_table(alpha, table):
    got = [nemenyi_q(k, alpha) for k in range(2, 11)]
    np.testing.assert_allclose(got, table, atol=1e-3)  # Demšar prints 3 digits


def test_tiny_table_by_hand():
    r = friedman_nemenyi(TINY)
    # average ranks: a (1+2+2+1)/4, b (2+1+3+2)/4, c (3+3+1+3)/4
    assert r.ranks.to_dict() == {"a": 1.5, "b": 2.0, "c": 2.5}
    # chi2_F = 12N/(k(k+1)) * (sum R_j^2 - k(k+1)^2/4) = 4 * (12.5 - 12) = 2; p = exp(-1)
    assert r.statistic == pytest.approx(2.0)
    assert r.p_value == pytest.approx(math.exp(-1))
    assert r.critical_difference == pytest.approx(2.343 * math.sqrt(0.5), abs=1e-3)
    assert not r.significant
    assert r.groups() == [("a", "b", "c")]  # 2.5 - 1.5 < CD = 1.657
    assert not r.differs("a", "c")


def test_ties_share_the_average_rank():
    t = pd.DataFrame({"a": [5.0, 5.0], "b": [5.0, 4.0], "c": [1.0, 1.0]})
    assert rank_table(t).to_numpy().tolist() == [[1.5, 1.5, 3.0], [1.0, 2.0, 3.0]]
    assert friedman_nemenyi(t).ranks.to_dict() == {"a": 1.25, "b": 1.75, "c": 3.0}


def test_lower_is_better_reverses_the_ranks():
    r = friedman_nemenyi(TINY, higher_is_better=False)
    assert r.ranks.to_dict() == {"c": 1.5, "b": 2.0, "a": 2.5}


def test_statistic_equals_the_rank_formula_without_ties():
    rng = np.random.default_rng(0)
    t = pd.DataFrame(rng.normal(size=(12, 5)), columns=list("vwxyz"))
    r = friedman_nemenyi(t)
    n, k = t.shape
    ranks = r.ranks.to_numpy()
    formula = 12 * n / (k * (k + 1)) * (np.sum(ranks**2) - k * (k + 1) ** 2 / 4)
    assert r.statistic == pytest.approx(formula)
    assert r.p_value == pytest.approx(stats.chi2.sf(formula, k - 1))
    assert ranks.sum() == pytest.approx(k * (k + 1) / 2)


def test_result_does_not_depend_on_row_or_column_order():
    rng = np.random.default_rng(1)
    t = pd.DataFrame(rng.normal(size=(9, 6)), columns=[f"m{i}" for i in range(6)])
    shuffled = t.sample(frac=1, random_state=3)[list(reversed(t.columns))]
    a, b = friedman_nemenyi(t), friedman_nemenyi(shuffled)
    assert a.statistic == pytest.approx(b.statistic)
    pd.testing.assert_series_equal(a.ranks, b.ranks.loc[a.ranks.index])


def test_incomplete_blocks_are_left_out_and_counted():
    t = TINY.copy()
    t.loc[4] = [1.0, None, 2.0]
    r = friedman_nemenyi(t)
    assert (r.n_blocks, r.dropped) == (4, 1)
    assert r.statistic == pytest.approx(2.0)
    assert "1 incomplete left out" in r.caption()


def test_the_papers_table2_pinned():
    table = paper_table(2).pivot(index="dataset", columns="detector", values="accuracy")
    assert table.shape == (8, 8)
    r = friedman_nemenyi(table)
    assert r.p_value == pytest.approx(1.8e-6, rel=0.01)
    assert r.critical_difference == pytest.approx(3.712, abs=5e-4)
    assert r.ranks["pudd-3"] == r.ranks["pudd-5"] == 2.375
    assert (r.ranks["adlter"], r.ranks["iwe"]) == (4.25, 7.5)
    # PUDD-3 is not significantly better than ADLTER, NS or MCD-DD; it is than AMF and IWE
    assert [m for m in r.ranks.index if r.differs("pudd-3", m)] == ["amf", "iwe"]


def test_groups_are_maximal_runs_shorter_than_cd():
    r = FriedmanResult(0.0, 0.01, pd.Series({"a": 1.0, "b": 1.4, "c": 2.0, "d": 4.0}),
                       10, 0.05, 1.0)
    assert r.groups() == [("a", "b", "c")]  # d is alone: 2.0 from c
    assert r.differs("a", "d") and not r.differs("a", "c")


def test_the_statistic_is_tie_corrected_and_iman_davenport_follows_from_it():
    # blocks with ties: the uncorrected rank formula is smaller than the tie-corrected chi2
    t = pd.DataFrame({"a": [3, 3, 2, 3, 3, 1], "b": [3, 2, 2, 2, 1, 1],
                      "c": [1, 1, 2, 1, 2, 1]}, dtype=float)
    r = friedman_nemenyi(t)
    n, k = t.shape
    ranks = r.ranks.reindex(list("abc")).to_numpy()
    plain = 12 * n / (k * (k + 1)) * (np.sum(ranks**2) - k * (k + 1) ** 2 / 4)
    # ties per block: 2 tied in block 1 (a, b), all 3 in blocks 3 and 6
    ties = sum(g**3 - g for g in (2, 3, 3))
    corrected = plain / (1 - ties / (n * (k**3 - k)))
    assert r.statistic == pytest.approx(corrected) and r.statistic > plain
    f, p = r.iman_davenport
    assert f == pytest.approx((n - 1) * corrected / (n * (k - 1) - corrected))
    assert p == pytest.approx(stats.f.sf(f, k - 1, (k - 1) * (n - 1)))
    text = r.caption()
    assert "tie-corrected chi2" in text and f"Iman-Davenport F(2, 10) = {f:.2f}" in text
    # the caption says which chi2 the F comes from (Demšar's eq. 2 takes the plain one)
    assert f"p = {p:.2g}, from the tie-corrected chi2)" in text


def test_iman_davenport_is_infinite_when_every_block_ranks_alike():
    t = pd.DataFrame({"a": [3.0, 3.0, 3.0], "b": [2.0, 2.0, 2.0], "c": [1.0, 1.0, 1.0]})
    assert friedman_nemenyi(t).iman_davenport == (math.inf, 0.0)


def test_caption_names_test_blocks_and_alpha():
    text = friedman_nemenyi(TINY, alpha=0.1, blocks="4 toy datasets").caption(None)
    assert "Friedman" in text and "4 toy datasets" in text and "alpha = 0.1" in text
    assert "Nemenyi" in text


@pytest.mark.parametrize("bad", [TINY[["a", "b"]], TINY.iloc[:1]])
def test_too_small_tables_raise_a_clear_error(bad):
    with pytest.raises(ParameterError, match="at least"):
        friedman_nemenyi(bad)


def test_bad_alpha_and_counts():
    with pytest.raises(ParameterError, match="alpha"):
        nemenyi_q(5, 1.5)
    with pytest.raises(ParameterError, match="2 methods"):
        nemenyi_q(1)
    with pytest.raises(ParameterError, match="block"):
        critical_difference(5, 0)


def test_wilcoxon_pair_by_hand():
    t = pd.DataFrame({"a": [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 1.0], "b": [1.0] * 7})
    r = wilcoxon_pair(t, "a", "b")
    # 6 positive differences, one zero dropped: exact two-sided p = 2 / 2**6
    assert (r.wins, r.losses, r.ties) == (6, 0, 1)
    assert r.p_value == pytest.approx(2 / 64)
    assert r.mean_difference == pytest.approx(21 / 7)
    assert wilcoxon_pair(t, "b", "b").p_value == 1.0
    with pytest.raises(ParameterError, match="no column"):
        wilcoxon_pair(t, "a", "zz")


def test_holm_by_hand():
    # sorted 0.01, 0.03, 0.04 -> 3*0.01, max(0.03, 2*0.03), max(0.06, 1*0.04)
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])


# --- ranks at the reported precision: float noise never breaks a tie (issue 36, item 2) -----
def test_a_tie_broken_by_float_noise_is_ranked_as_a_tie():
    # block 0: a and b equal as printed (71.98) but 1e-14 apart, c first; then a>b>c, c>b>a
    t = pd.DataFrame({"a": [71.97738095238095, 80.0, 70.0],
                      "b": [71.97738095238094, 79.0, 71.0],
                      "c": [72.025, 78.0, 72.0]})
    assert t.loc[0, "a"] != t.loc[0, "b"]
    assert rank_table(t).to_numpy().tolist() == [[2.5, 2.5, 1.0], [1.0, 2.0, 3.0],
                                                 [3.0, 2.0, 1.0]]
    r = friedman_nemenyi(t)
    # by hand: a (2.5 + 1 + 3) / 3, b (2.5 + 2 + 2) / 3, c (1 + 3 + 1) / 3
    assert r.ranks.to_dict() == pytest.approx({"a": 6.5 / 3, "b": 6.5 / 3, "c": 5 / 3})
    # 12N/(k(k+1)) * sum (R_j - 2)^2 = 3 * (1/36 + 1/36 + 1/9) = 0.5, over the tie correction
    # 1 - (2^3 - 2) / (N (k^3 - k)) = 1 - 6/72: chi2 = 6/11 (0.667 with the tie broken)
    assert r.statistic == pytest.approx(6 / 11)
    # the Wilcoxon pair sees the same tie: a against b is one win, one loss, one tie
    pair = wilcoxon_pair(t, "a", "b")
    assert (pair.wins, pair.losses, pair.ties) == (1, 1, 1)


def test_equal_differences_tie_in_the_wilcoxon_ranks_whatever_their_float_noise():
    # 71.59 - 71.58 and 90.07 - 90.06 are both 0.01 as printed, not as computed
    t = pd.DataFrame({"a": [71.59, 90.07, 65.0, 70.0], "b": [71.58, 90.06, 64.0, 68.0]})
    assert 71.59 - 71.58 != 90.07 - 90.06
    got = wilcoxon_pair(t, "a", "b", "greater")
    ranks = stats.rankdata([0.01, 0.01, 1.0, 2.0])  # 1.5, 1.5, 3, 4: all positive, W = 10
    want = stats.wilcoxon([0.01, 0.01, 1.0, 2.0], alternative="greater")
    assert ranks.tolist() == [1.5, 1.5, 3.0, 4.0]
    assert got.p_value == pytest.approx(want.pvalue) and got.wins == 4


def test_the_committed_table2_ranks_tie_powersupply_as_printed():
    from pudd_core.paper import PUDD_DETECTORS, SOTA_METHODS
    from pudd_core.reproduction.committed import committed_cells

    cells = committed_cells()
    cells = cells[(cells["table"] == 2) & cells["detector"].isin((*SOTA_METHODS,
                                                                  *PUDD_DETECTORS))]
    table = cells.pivot(index="dataset", columns="detector", values="accuracy").dropna()
    assert table.shape == (7, 7)  # the 7 comparable streams, IWE not run
    ps = table.loc["powersupply"]
    assert 0 < abs(ps["mcd-dd"] - ps["pudd-3"]) < 1e-13
    # MCD-DD, PUDD-1 and PUDD-3 are 71.98 as printed (their means differ by 1.4e-14)
    assert rank_table(table).loc["powersupply", ["mcd-dd", "pudd-1", "pudd-3"]].nunique() == 1
    r = friedman_nemenyi(table)
    # at the reported precision PUDD-3 and PUDD-5 also tie on elec2 (76.05) and sine (91.83)
    assert r.ranks.round(2).to_dict() == {"pudd-5": 2.64, "pudd-3": 2.79, "adlter": 3.71,
                                          "mcd-dd": 3.86, "pudd-1": 4.14, "ns": 4.43,
                                          "amf": 6.43}
    assert round(r.statistic, 2) == 14.54
    # the numbers (only the float noise removed): PUDD-3 2.64, MCD-DD 3.86, chi2 14.47
    fine = friedman_nemenyi(table, decimals=9)
    assert fine.ranks.round(2)[["pudd-3", "mcd-dd"]].to_dict() == {"pudd-3": 2.64,
                                                                  "mcd-dd": 3.86}
    assert round(fine.statistic, 2) == 14.47
