"""The player component's folder: plotly.js beside it, also from a read-only checkout."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import ui.player as player


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The component's own files in a folder of their own, without plotly.js yet."""
    src = tmp_path / "component"
    shutil.copytree(player.FRONTEND, src, ignore=shutil.ignore_patterns(player.PLOTLY_JS.name))
    monkeypatch.setattr(player, "FRONTEND", src)
    return src


def test_the_component_folder_holds_its_files_and_the_packages_plotly(checkout: Path) -> None:
    assert player._frontend() == checkout
    assert (checkout / player.PLOTLY_JS.name).read_bytes() == player.PLOTLY_JS.read_bytes()


def test_a_read_only_checkout_gets_the_player_assembled_elsewhere(
    checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def read_only(self: Path, target: Path) -> Path:
        raise PermissionError(f"read-only: {target}")

    monkeypatch.setattr(Path, "replace", read_only)
    folder = player._frontend()
    assert folder != checkout
    assert {"index.html", "player.js", "player.css"} <= {p.name for p in folder.iterdir()}
    assert (folder / player.PLOTLY_JS.name).stat().st_size == player.PLOTLY_JS.stat().st_size
