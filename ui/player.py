"""The Stream explorer's player: the finished runs, played in the browser.

``pudd_core.plots.player.player_spec`` packs every chunk's charts of the (cached) runs into
one JSON document; the component in ``ui/player_component`` shows it up to a cursor that the
browser moves itself: Reset, Back, Next, Play/Pause, a speed and a Jump slider, and the arrow
keys. The server does no work per step or frame, so Pause stops at once, and one server
plays for a class. When the player stops, it writes the cursor into the page's address
(``?chunk=``, and ``?detail=``: the setting whose details it shows); the next rerun of the
page reads them back (:func:`cursor_from_address`), so a link, a settings change and a
return to the page all keep them. Several PUDD settings and seeds are one spec.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import streamlit as st
import streamlit.components.v1 as components

from pudd_core.plots.bundle import player_js
from pudd_core.plots.player import player_spec, run_key
from pudd_core.views.explorer import Comparison
from ui import pages, state

FRONTEND = Path(__file__).with_name("player_component")


SERVED_JS = "plotly.min.js"  # the name index.html loads


def _frontend() -> Path:
    """The component's files with the player's plotly.js beside them, in a cache folder.

    The plotly.js is :func:`~pudd_core.plots.bundle.player_js`: the basic partial bundle
    when set-up fetched it, else the plotly package's full bundle. The folder is
    ``<cache>/player/<digest of its contents>`` (``pudd_core.streams.locate.cache_dir``), never
    the source tree: two servers with different bundles each get their own, and a checkout
    stays as committed. Where the cache cannot be written, a temporary folder is used.
    """
    from pudd_core.streams.locate import cache_dir

    bundle = player_js()
    files = sorted(p for p in FRONTEND.iterdir()
                   if p.is_file() and p.name != SERVED_JS and not p.name.endswith(".tmp"))
    digest = hashlib.sha256()
    for path in (*files, bundle):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    try:
        folder = cache_dir() / "player" / digest.hexdigest()[:16]
        if (folder / SERVED_JS).is_file():
            return folder
        return _assemble(files, bundle, folder)
    except OSError:
        return _assemble(files, bundle, Path(tempfile.mkdtemp(prefix="pudd-player-")) / "c")


def _assemble(files: list[Path], bundle: Path, folder: Path) -> Path:
    """Copy ``files`` and ``bundle`` into ``folder``, atomically (a whole folder or none)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=folder.name + ".", suffix=".tmp", dir=folder.parent))
    for path in files:
        shutil.copyfile(path, tmp / path.name)
    shutil.copyfile(bundle, tmp / SERVED_JS)  # a copy: the browser caches it by address
    try:
        tmp.rename(folder)
    except OSError:  # another server assembled the same folder first
        shutil.rmtree(tmp, ignore_errors=True)
        if not (folder / SERVED_JS).is_file():
            raise
    return folder


_component = components.declare_component("pudd_player", path=str(_frontend()))


@st.cache_resource(max_entries=16, show_spinner=False)
def spec(key: str, _comparison: Comparison, band: bool) -> dict[str, Any]:
    """The runs' player spec, built once per runs (``key``: ``run_key`` of their results).

    A resource, not data: every session reads the same dict (nobody changes it), with no
    copy per rerun of a document of several hundred KB.
    """
    return player_spec(_comparison.settings, _comparison.baselines, labels=_comparison.labels,
                       band=band)


def cursor_from_address() -> None:
    """Take the chunk and setting the player left in the address bar (``?chunk=``, ``?detail=``)."""
    for name, key, top in (("chunk", state.EXPLORER_CURSOR, 100_000),
                           ("detail", state.EXPLORER_DETAIL, 4)):
        text = st.query_params.get(name)
        if text is not None and text.isdigit() and 1 <= int(text) <= top:
            st.session_state[key] = int(text)


def player(comparison: Comparison, *, band: bool) -> None:
    """The player of ``comparison``'s runs, opening at the session's cursor and setting."""
    start = time.perf_counter()
    runs = [r for group in (*comparison.settings, *comparison.baselines) for r in group]
    key = run_key(runs, comparison.labels, band)
    data = spec(key, comparison, band)
    cursor = min(max(int(state.get(state.EXPLORER_CURSOR)), 1), data["last"])
    st.session_state[state.EXPLORER_CURSOR] = cursor
    detail = min(max(int(state.get(state.EXPLORER_DETAIL)), 1), len(comparison.labels))
    st.session_state[state.EXPLORER_DETAIL] = detail
    _component(spec=data, start=cursor, detail=detail, key="explorer_player", default=None)
    log_time("player", start)


def log_time(what: str, start: float) -> None:
    """:func:`ui.pages.log_time` with the session's cursor as its detail."""
    pages.log_time(what, state.get(state.EXPLORER_CURSOR), start)
