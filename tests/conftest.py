"""Shared test configuration: real data location and seeds."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "datasets"

# Tests read the real data from ../shared/datasets when it exists (never a copy in the repo).
if "PUDD_DATA_DIR" not in os.environ and SHARED_DATA.is_dir():
    os.environ["PUDD_DATA_DIR"] = str(SHARED_DATA)
# An unexpected error in a page is an exception in tests (the app shows it inline instead).
os.environ.setdefault("PUDD_STRICT", "1")
# AppTests compute the explorer's runs one by one in the test process (no worker processes
# per xdist worker); the browser tests' server unsets it and runs them at once, as users do.
os.environ.setdefault("PUDD_WORKERS", "1")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip `datasets` tests with a reason when no real data folder is configured."""
    data_dir = os.environ.get("PUDD_DATA_DIR")
    if data_dir and Path(data_dir).is_dir():
        return
    skip = pytest.mark.skip(
        reason="needs real data: set PUDD_DATA_DIR to a folder laid out like ../shared/datasets"
    )
    for item in items:
        if "datasets" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def rng() -> np.random.Generator:
    """A fresh seeded NumPy generator for one test."""
    return np.random.default_rng(12345)
