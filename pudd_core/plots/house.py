"""The house as a picture: every source file a box of a treemap, by layer (issue 33)."""

from __future__ import annotations

from collections.abc import Mapping

import plotly.graph_objects as go

#: The most lines a source file may have (docs/architecture.md; tests/test_architecture.py).
LINE_LIMIT = 800


def layer_of(path: str) -> str:
    """A file's layer: its ``pudd_core`` package, or its top folder.

    >>> layer_of("pudd_core/monitoring/_log.py"), layer_of("pudd_core/detector.py")
    ('pudd_core/monitoring', 'pudd_core')
    >>> layer_of("ui/state.py")
    'ui'
    """
    parts = path.split("/")
    return "/".join(parts[:2]) if parts[0] == "pudd_core" and len(parts) > 2 else parts[0]


def house_figure(lines: Mapping[str, int], title: str) -> go.Figure:
    """A treemap of ``path -> lines``: area the lines, colour the share of :data:`LINE_LIMIT`.

    >>> fig = house_figure({"pudd_core/a.py": 900, "ui/b.py": 100}, "t")
    >>> fig.layout.title.text
    't: 1,000 lines in 2 files, 2 layers; 1 file(s) over 800 lines'
    >>> list(fig.data[0].parents)
    ['', 'house', 'house', 'pudd_core', 'ui']
    """
    layers = sorted({layer_of(p) for p in lines})
    ids = ["house", *layers, *lines]
    labels = ["", *layers, *(p.rsplit("/", 1)[-1] for p in lines)]
    parents = ["", *("house" for _ in layers), *(layer_of(p) for p in lines)]
    values = [0, *(0 for _ in layers), *lines.values()]
    colours = [0.0, *(0.0 for _ in layers), *(min(v / LINE_LIMIT, 1.2) for v in lines.values())]
    over = sum(v > LINE_LIMIT for v in lines.values())
    fig = go.Figure(go.Treemap(
        ids=ids, labels=labels, parents=parents, values=values, branchvalues="remainder",
        marker={"colors": colours, "colorscale": [[0, "#e8f0fa"], [0.66, "#9ec3e6"],
                                                  [0.83, "#f6c28b"], [1, "#d62728"]],
                "cmin": 0, "cmax": 1.2, "showscale": True,
                "colorbar": {"title": {"text": f"lines / {LINE_LIMIT}"}}},
        texttemplate="%{label}<br>%{value}", tiling={"packing": "squarify"}))
    fig.update_layout(
        title=f"{title}: {sum(lines.values()):,} lines in {len(lines)} files, "
              f"{len(layers)} layers; {over} file(s) over {LINE_LIMIT} lines",
        width=1600, height=1000, margin={"l": 10, "r": 10, "t": 60, "b": 10})
    return fig
