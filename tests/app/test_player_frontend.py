"""The player component's folder: plotly.js beside it, also from a read-only checkout."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import ui.player as player
from pudd_core.plots.bundle import player_js


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The component's own files in a folder of their own, without plotly.js yet."""
    src = tmp_path / "component"
    shutil.copytree(player.FRONTEND, src, ignore=shutil.ignore_patterns(player.SERVED_JS))
    monkeypatch.setattr(player, "FRONTEND", src)
    return src


def test_the_component_folder_holds_its_files_and_the_packages_plotly(checkout: Path) -> None:
    assert player._frontend() == checkout
    assert (checkout / player.SERVED_JS).read_bytes() == player_js().read_bytes()


def test_a_read_only_checkout_gets_the_player_assembled_elsewhere(
    checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def read_only(self: Path, target: Path) -> Path:
        raise PermissionError(f"read-only: {target}")

    monkeypatch.setattr(Path, "replace", read_only)
    folder = player._frontend()
    assert folder != checkout
    assert {"index.html", "player.js", "player.css"} <= {p.name for p in folder.iterdir()}
    assert (folder / player.SERVED_JS).stat().st_size == player_js().stat().st_size
