"""The player component's folder: its files and plotly.js, assembled in a cache folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import ui.player as player
from pudd_core.plots.bundle import player_js


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The component's own files in a folder of their own, and an empty cache."""
    src = tmp_path / "component"
    shutil.copytree(player.FRONTEND, src, ignore=shutil.ignore_patterns(player.SERVED_JS))
    monkeypatch.setattr(player, "FRONTEND", src)
    monkeypatch.setenv("PUDD_CACHE_DIR", str(tmp_path / "cache"))
    return src


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def test_the_player_is_assembled_in_the_cache_never_in_the_source_tree(checkout: Path,
                                                                       tmp_path: Path) -> None:
    """Issue 25, item 11: the app wrote plotly.min.js into ui/player_component/ at run time."""
    before = _tree(checkout)
    folder = player._frontend()
    assert _tree(checkout) == before  # the source folder untouched
    assert folder.is_relative_to(tmp_path / "cache" / "player")
    served = _tree(folder)
    assert served[player.SERVED_JS] == player_js().read_bytes()
    assert {k: v for k, v in served.items() if k != player.SERVED_JS} == before
    assert player._frontend() == folder  # the next server start reuses it


def test_another_bundle_gets_its_own_folder(checkout: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    first = player._frontend()
    other = tmp_path / "other.min.js"
    other.write_bytes(b"/* another plotly.js */")
    monkeypatch.setattr(player, "player_js", lambda: other)
    second = player._frontend()
    assert second != first
    assert (second / player.SERVED_JS).read_bytes() == other.read_bytes()
    assert (first / player.SERVED_JS).read_bytes() == player_js().read_bytes()  # kept whole


def test_an_unwritable_cache_gets_the_player_assembled_elsewhere(
    checkout: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder should be")
    monkeypatch.setenv("PUDD_CACHE_DIR", str(blocked))
    folder = player._frontend()
    assert not folder.is_relative_to(blocked) and not folder.is_relative_to(checkout)
    assert {"index.html", "player.js", "player.css"} <= {p.name for p in folder.iterdir()}
    assert (folder / player.SERVED_JS).stat().st_size == player_js().stat().st_size
