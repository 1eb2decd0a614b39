"""pudd_core.plots.reproduction: our accuracy beside the paper's, table and scatter."""

from __future__ import annotations

import pytest

from pudd_core import plots
from tests.test_plots._figures import cells


def test_reproduction_frame_uses_the_papers_names_and_flags_cells_outside_the_tolerance():
    frame = plots.reproduction_frame(cells())
    assert frame["detector"].tolist() == ["PUDD-3", "PUDD-3", "DDM", "EDDM"]
    assert frame["dataset"].tolist() == ["sea0", "ps", "sea0", "airline"]
    assert frame["regime"].tolist() == ["-I", "-O", "-I", "-I"]
    assert frame["within ±1.5"].tolist() == [True, False, None, False]
    assert plots.reproduction_frame(cells(), tolerance=2.0)["within ±2"].tolist()[1] is True


def test_reproduction_figure_splits_pudd_from_baselines_on_square_axes_with_the_band():
    fig = plots.reproduction_figure(cells())
    by_name = {t.name: t for t in fig.data}
    assert list(by_name["PUDD-1/3/5"].x) == [94.81, 71.0]
    assert list(by_name["PUDD-1/3/5"].marker.symbol) == ["circle", "diamond"]
    assert list(by_name["Baselines"].y) == [51.66]  # DDM was not run
    band = by_name["±1.5 points"]
    assert band.y[0] - band.x[0] == pytest.approx(1.5)
    assert fig.layout.yaxis.scaleanchor == "x"
    assert list(fig.layout.xaxis.range) == list(fig.layout.yaxis.range) == [49.0, 97.0]
