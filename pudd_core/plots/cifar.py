"""CIFAR-10-CD: the Markov matrix of interests, the interests per chunk and a chunk's images."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike, NDArray

from pudd_core.plots._style import (
    NEGATIVE_COLOUR,
    OKABE_ITO,
    POSITIVE_COLOUR,
    apply_layout,
    drift_band_shape,
    drift_legend,
    new_figure,
    square_legend,
)

__all__ = [
    "interest_timeline_figure",
    "sample_grid_figure",
    "transition_matrix_figure",
]


def transition_matrix_figure(
    matrix: ArrayLike, class_names: Sequence[str], *, title: str | None = None
) -> go.Figure:
    """CIFAR-10-CD's Markov matrix *M* as a heatmap, coloured on a log scale.

    Row *i* is where an interest in class *i* moves for the next chunk. The diagonal (stay,
    about 0.96) dwarfs the rest (about 0.004), so colours follow log10 P; the diagonal cells
    print P, every cell gives it on hover.

    Examples
    --------
    >>> fig = transition_matrix_figure([[0.9, 0.1], [0.2, 0.8]], ["cat", "dog"])
    >>> fig.data[0].type, fig.data[0].customdata.tolist(), [list(r) for r in fig.data[0].text]
    ('heatmap', [[0.9, 0.1], [0.2, 0.8]], [['0.90', ''], ['', '0.80']])
    >>> fig.layout.xaxis.title.text, fig.layout.yaxis.title.text
    ('To class (next chunk)', 'From class (this chunk)')
    """
    p = np.asarray(matrix, dtype=np.float64)
    names = list(class_names)
    fig = new_figure(title=title, x_title="To class (next chunk)",
                     y_title="From class (this chunk)", height=480)
    text = [[f"{v:.2f}" if i == j else "" for j, v in enumerate(row)]
            for i, row in enumerate(p.tolist())]
    fig.add_trace(go.Heatmap(
        z=np.log10(np.clip(p, 1e-12, 1.0)), x=names, y=names, customdata=p,
        text=text, texttemplate="%{text}",
        textfont={"size": 11}, zmin=-3.0, zmax=0.0, name="P(move)",
        colorscale=[[0.0, "#FFFFFF"], [0.5, OKABE_ITO["sky_blue"]], [1.0, OKABE_ITO["blue"]]],
        colorbar={"title": {"text": "P"}, "thickness": 14, "tickvals": [-3, -2, -1, 0],
                  "ticktext": ["0.001", "0.01", "0.1", "1"]},
        hovertemplate="from %{y} to %{x}: P = %{customdata:.4f}<extra></extra>",
    ))
    fig.update_xaxes(showgrid=False, tickangle=-35, automargin=True, dtick=1)  # every class
    fig.update_yaxes(showgrid=False, autorange="reversed", automargin=True)
    return fig


def interest_timeline_figure(
    positive: ArrayLike,
    class_names: Sequence[str],
    *,
    drift_chunks: Sequence[int] = (),
    title: str | None = None,
) -> go.Figure:
    """Which classes are positive (interests, label 1) in each chunk; interest changes shaded.

    ``positive`` is a ``(n_classes, n_chunks)`` boolean mask. A true drift (a chunk whose
    positive set differs from the previous one's) is a grey band over its column.

    Examples
    --------
    >>> fig = interest_timeline_figure([[1, 1, 0], [0, 1, 1]], ["cat", "dog"], drift_chunks=[1, 2])
    >>> [t.name for t in fig.data]
    ['Interests', 'Positive class (label 1)', 'Negative class (label 0)',
     'True drift (interests change)']
    >>> fig.data[0].z.tolist(), [s.x0 for s in fig.layout.shapes]
    ([[1, 1, 0], [0, 1, 1]], [0.5, 1.5])
    """
    mask = np.asarray(positive).astype(np.int64)
    names = list(class_names)
    n = mask.shape[1]
    fig = new_figure(title=title, x_title="Chunk index (500 images each)",
                     y_title="CIFAR-10 class", height=380)
    status = np.where(mask == 1, "positive", "negative")
    fig.add_trace(go.Heatmap(
        z=mask, x=list(range(n)), y=names, zmin=0, zmax=1, showscale=False, xgap=1, ygap=1,
        colorscale=[[0.0, NEGATIVE_COLOUR], [0.5, NEGATIVE_COLOUR], [0.5, POSITIVE_COLOUR],
                    [1.0, POSITIVE_COLOUR]],
        customdata=status, name="Interests",
        hovertemplate="chunk %{x}, %{y}: %{customdata}<extra></extra>",
    ))
    fig.add_trace(square_legend("Positive class (label 1)", POSITIVE_COLOUR))
    fig.add_trace(square_legend("Negative class (label 0)", NEGATIVE_COLOUR))
    # above the heatmap, whose cells would hide a band below them
    shapes = [{**drift_band_shape(d), "layer": "above"} for d in drift_chunks]
    if len(drift_chunks):
        fig.add_trace(drift_legend("True drift (interests change)"))
    fig.update_layout(shapes=shapes)
    fig.update_xaxes(showgrid=False, range=[-0.5, n - 0.5])
    fig.update_yaxes(showgrid=False, autorange="reversed", type="category", automargin=True)
    return fig


def _png_data_uri(image: NDArray[np.uint8]) -> str:
    import base64
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def sample_grid_figure(
    images: ArrayLike,
    classes: ArrayLike,
    labels: ArrayLike,
    class_names: Sequence[str],
    *,
    scale: int = 2,
    title: str | None = None,
) -> go.Figure:
    """Thumbnails of one chunk, one row per class, framed by their label.

    ``images`` are uint8 ``(m, H, W, 3)`` grouped by class; positives (label 1) get an
    orange frame, negatives a grey one. The mosaic is one PNG, enlarged ``scale`` times
    without smoothing.

    Examples
    --------
    >>> imgs = np.zeros((4, 8, 8, 3), dtype=np.uint8)
    >>> fig = sample_grid_figure(imgs, [0, 0, 1, 1], [1, 1, 0, 0], ["cat", "dog"])
    >>> fig.data[0].type, list(fig.layout.yaxis.ticktext)
    ('image', ['cat · label 1', 'dog · label 0'])
    >>> [t.name for t in fig.data[1:]]
    ['Positive: label 1', 'Negative: label 0']
    """
    ims = np.asarray(images, dtype=np.uint8)
    cls = np.asarray(classes, dtype=np.int64)
    lab = np.asarray(labels, dtype=np.int64)
    rows = [c for c in range(len(class_names)) if (cls == c).any()]
    per_row = max(int((cls == c).sum()) for c in rows) if rows else 0
    h, w = (ims.shape[1], ims.shape[2]) if ims.size else (32, 32)
    pad, frame = 3, 3
    th, tw = h + 2 * frame + pad, w + 2 * frame + pad
    mosaic = np.full((max(len(rows), 1) * th, max(per_row, 1) * tw, 3), 255, dtype=np.uint8)
    frame_rgb = {1: np.array([0xE6, 0x9F, 0x00], dtype=np.uint8),
                 0: np.array([0xBB, 0xBB, 0xBB], dtype=np.uint8)}
    for r, c in enumerate(rows):
        for k, i in enumerate(np.flatnonzero(cls == c)):
            y0, x0 = r * th, k * tw
            mosaic[y0:y0 + h + 2 * frame, x0:x0 + w + 2 * frame] = frame_rgb[int(lab[i] == 1)]
            mosaic[y0 + frame:y0 + frame + h, x0 + frame:x0 + frame + w] = ims[i]
    big = mosaic.repeat(scale, axis=0).repeat(scale, axis=1)
    fig = go.Figure(go.Image(source=_png_data_uri(big), hoverinfo="skip"))
    apply_layout(fig, title=title, height=min(120 + big.shape[0], 900))
    ticks = [scale * (r * th + frame + h / 2) for r in range(len(rows))]
    label_of = {int(c): int(lab[cls == c][0]) for c in rows}
    fig.update_yaxes(tickvals=ticks, showgrid=False, showline=False, ticks="",
                     ticktext=[f"{class_names[c]} · label {label_of[c]}" for c in rows])
    fig.update_xaxes(visible=False)
    fig.add_trace(square_legend("Positive: label 1", POSITIVE_COLOUR, symbol="square-open",
                                line_width=3))
    fig.add_trace(square_legend("Negative: label 0", "#BBBBBB", symbol="square-open",
                                line_width=3))
    fig.update_layout(margin={"l": 150})
    return fig
