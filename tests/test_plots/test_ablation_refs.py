from __future__ import annotations

import pandas as pd

from pudd_core.plots import ek_ablation_figure


def test_references_are_marks_over_the_same_datasets_as_the_bars_never_bars():
    cells = pd.DataFrame({
        "classifier": "gnb", "regime": "incremental",
        "detector": ["pudd-3", "ek-3", "none", "oracle"] * 2 + ["pudd-3", "ek-3", "none"],
        "dataset": ["sea0"] * 4 + ["sine"] * 4 + ["elec2"] * 3,
        "ours": [90.0, 80.0, 85.0, 95.0, 70.0, 60.0, 65.0, 75.0, 50.0, 40.0, 20.0]})
    fig = ek_ablation_figure(cells)
    bars = {t.name: list(t.y) for t in fig.data if t.type == "bar"}
    marks = {t.name: list(t.y) for t in fig.data if t.type == "scatter"}
    assert bars == {"PUDD-3": [70.0], "EK-3": [60.0]}  # over sea0, sine and elec2
    # no detector over the same three datasets; the oracle lacks elec2 (no known drifts)
    assert marks == {"No detector (ref.), not ranked": [round((85 + 65 + 20) / 3, 2)]}
