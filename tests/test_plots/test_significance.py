from __future__ import annotations

import pandas as pd
import pytest

from pudd_core.paper import paper_table
from pudd_core.plots import cd_diagram_figure
from pudd_core.reproduction.significance import FriedmanResult, friedman_nemenyi


def _bars(fig):
    return [t for t in fig.data if t.name.startswith("not significantly different")]


def test_table2_diagram_draws_ranks_cd_and_the_two_groups():
    table = paper_table(2).pivot(index="dataset", columns="detector", values="accuracy")
    result = friedman_nemenyi(table, blocks="8 datasets")
    fig = cd_diagram_figure(result)
    scale = next(t for t in fig.data if t.name.startswith("CD ="))
    assert scale.x[1] - scale.x[0] == pytest.approx(result.critical_difference)
    bars = _bars(fig)
    assert len(bars) == len(result.groups()) == 2
    for bar, group in zip(bars, result.groups(), strict=True):
        ranks = [result.ranks[m] for m in group]
        assert bar.x[0] < min(ranks) and bar.x[1] > max(ranks)
        assert bar.x[1] - bar.x[0] - 0.1 <= result.critical_difference
    # each method hangs from its average rank to its label, best half on the left
    lines = {t.name: t for t in fig.data if t.name in ("PUDD-3", "IWE")}
    assert lines["PUDD-3"].x[0] == result.ranks["pudd-3"] and lines["PUDD-3"].x[2] < 1
    assert lines["IWE"].x[0] == 7.5 and lines["IWE"].x[2] > 8
    caption = fig.layout.annotations[-1].text.replace("<br>", " ")
    assert "Friedman test over 8 blocks (8 datasets)" in caption and "alpha = 0.05" in caption


def test_no_difference_found_gives_one_bar_and_says_so():
    result = FriedmanResult(1.0, 0.6, pd.Series({"a": 1.5, "b": 2.0, "c": 2.5}), 4, 0.05, 0.4)
    fig = cd_diagram_figure(result, labels={"a": "Alpha"})
    assert [t.name for t in _bars(fig)] == ["not significantly different: Alpha, B, C"]
    assert "does not reject" in fig.layout.annotations[-1].text.replace("<br>", " ")
