"""Stream tests write caches into a per-session temporary folder, never the project's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def session_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pudd-cache")


@pytest.fixture(autouse=True)
def isolated_cache(session_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("PUDD_CACHE_DIR", str(session_cache))
    yield session_cache
