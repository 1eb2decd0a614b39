"""Shared test configuration: real data location and seeds."""

from __future__ import annotations

import ast
import functools
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

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


# --- Hypothesis profiles (CONTRIBUTING.md, "Test tiers") -------------------------------------
#: Profile -> the most examples any property runs under it (None: each property's own count).
#: ``ci`` is what `make test` runs, ``fast`` what `make test-fast` runs; never a deadline, which
#: a busy machine would turn into failures.
HYPOTHESIS_PROFILES: dict[str, int | None] = {"ci": None, "dev": 50, "fast": 10}
HYPOTHESIS_ENV = "PUDD_HYPOTHESIS_PROFILE"
for _name, _ceiling in HYPOTHESIS_PROFILES.items():
    settings.register_profile(_name, deadline=None, print_blob=True,
                              **({} if _ceiling is None else {"max_examples": _ceiling}))


def hypothesis_profile(value: str | None = None) -> str:
    """The profile ``$PUDD_HYPOTHESIS_PROFILE`` (or ``value``) names; ``ci`` when unset."""
    text = (os.environ.get(HYPOTHESIS_ENV, "") if value is None else value).strip() or "ci"
    if text not in HYPOTHESIS_PROFILES:
        raise pytest.UsageError(f"{HYPOTHESIS_ENV}={text!r} is not a Hypothesis profile: use "
                                f"one of {', '.join(HYPOTHESIS_PROFILES)} (or leave it unset)")
    return text


def pytest_configure(config: pytest.Config) -> None:
    """Load the Hypothesis profile ``$PUDD_HYPOTHESIS_PROFILE`` names (before tests import)."""
    settings.load_profile(hypothesis_profile())


def _cap_examples(item: pytest.Item, ceiling: int) -> None:
    """At most ``ceiling`` examples for a property test, whatever its own ``@settings`` say.

    Hypothesis keeps a test's settings on the function it wraps; a profile only sets what a
    test leaves unsaid, so a ceiling needs this.
    """
    test = getattr(item, "obj", None)
    own = getattr(test, "_hypothesis_internal_use_settings", None)
    if getattr(test, "is_hypothesis_test", False) and own is not None and (
            own.max_examples > ceiling):
        test._hypothesis_internal_use_settings = settings(own, max_examples=ceiling)


# --- tiers: which tests `make test-fast` leaves out ---------------------------------------------
APP_TESTS = Path(__file__).parent / "app"


@functools.cache
def _imports_torch(path: Path) -> bool:
    """Whether a module imports torch anywhere (its doctests then take seconds each)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                 [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        if any(n.split(".")[0] in ("torch", "torchvision") for n in names):
            return True
    return False


def _tier_markers(item: pytest.Item) -> list[pytest.MarkDecorator]:
    """The markers the tiers select by, from where a test lives.

    tests/app/test_browser*.py: ``browser``, and one xdist group per module (one worker runs
    a module whole, with the one server and Chromium it starts for its browser modules); the
    other tests/app/ modules: ``apptest``; doctests of a module that imports torch:
    ``integration``.
    """
    path = Path(item.path)
    if path.parent == APP_TESTS and path.name.startswith("test_"):
        if path.name.startswith("test_browser"):
            return [pytest.mark.browser, pytest.mark.xdist_group(path.stem)]
        return [pytest.mark.apptest]
    if isinstance(item, pytest.DoctestItem) and _imports_torch(path):
        return [pytest.mark.integration]
    return []


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's loadgroup reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tiers; cap Hypothesis' examples; skip `datasets` tests without real data."""
    ceiling = HYPOTHESIS_PROFILES[hypothesis_profile()]
    for item in items:
        for marker in _tier_markers(item):
            item.add_marker(marker)
        if ceiling is not None:
            _cap_examples(item, ceiling)
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
