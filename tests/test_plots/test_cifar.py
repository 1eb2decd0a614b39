"""pudd_core.plots.cifar: the Markov matrix, the interest timeline and the image grid."""

from __future__ import annotations

import numpy as np

from pudd_core import plots
from tests.test_plots._figures import trace_names

CLASSES = ("cat", "dog", "frog")


def test_transition_matrix_colours_log_p_prints_the_diagonal_and_hovers_every_p():
    m = np.array([[0.96, 0.03, 0.01], [0.002, 0.995, 0.003], [0.5, 0.25, 0.25]])
    fig = plots.transition_matrix_figure(m, CLASSES)
    heat = fig.data[0]
    np.testing.assert_allclose(heat.z, np.log10(m))
    assert (heat.zmin, heat.zmax) == (-3.0, 0.0)
    assert [list(r) for r in heat.text] == [["0.96", "", ""], ["", "0.99", ""], ["", "", "0.25"]]
    assert heat.customdata.tolist() == m.tolist()
    assert list(heat.x) == list(heat.y) == list(CLASSES)
    assert fig.layout.yaxis.autorange == "reversed"  # row 0 on top, as printed
    assert fig.layout.xaxis.title.text == "To class (next chunk)"


def test_interest_timeline_has_one_column_per_chunk_and_one_band_per_true_drift():
    mask = np.array([[1, 1, 0, 0], [0, 1, 1, 1], [0, 0, 0, 1]], dtype=bool)
    fig = plots.interest_timeline_figure(mask, CLASSES, drift_chunks=[1, 2, 3])
    assert fig.data[0].z.tolist() == mask.astype(int).tolist()
    assert list(fig.data[0].x) == [0, 1, 2, 3]
    bands = [s for s in fig.layout.shapes if s.type == "rect"]
    assert [(b.x0, b.x1) for b in bands] == [(0.5, 1.5), (1.5, 2.5), (2.5, 3.5)]
    assert all(b.fillcolor == plots.TRUE_DRIFT_STYLE["fillcolor"] and b.layer == "above"
               for b in bands)
    assert fig.layout.xaxis.title.text == "Chunk index (500 images each)"
    no_drift = plots.interest_timeline_figure(mask, CLASSES)
    assert "True drift (interests change)" not in trace_names(no_drift)
    assert not no_drift.layout.shapes


def test_sample_grid_is_one_png_with_a_row_per_class_and_labels_on_the_axis():
    images = np.zeros((6, 32, 32, 3), dtype=np.uint8)
    fig = plots.sample_grid_figure(images, [0, 0, 1, 1, 2, 2], [1, 1, 0, 0, 1, 1], CLASSES)
    assert fig.data[0].type == "image"
    assert fig.data[0].source.startswith("data:image/png;base64,")
    assert list(fig.layout.yaxis.ticktext) == ["cat · label 1", "dog · label 0",
                                              "frog · label 1"]
    ticks = list(fig.layout.yaxis.tickvals)
    assert ticks == sorted(ticks) and len(set(np.diff(ticks).round(6))) == 1  # evenly spaced
    assert trace_names(fig)[1:] == ["Positive: label 1", "Negative: label 0"]
    assert fig.layout.xaxis.visible is False
