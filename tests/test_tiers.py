"""The test tiers (CONTRIBUTING.md, "Test tiers"): what `make test-fast` selects, and the
Hypothesis profiles tests/conftest.py loads."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import HYPOTHESIS_ENV, HYPOTHESIS_PROFILES, _cap_examples, hypothesis_profile

ROOT = Path(__file__).resolve().parents[1]


def fast_markers() -> str:
    """The marker expression of `make test-fast`, as the Makefile writes it."""
    found = re.search(r"^FAST_MARKERS = (.+)$", (ROOT / "Makefile").read_text(), re.M)
    assert found, "the Makefile defines FAST_MARKERS"
    return found.group(1).strip()


def test_the_profile_is_the_one_the_variable_names_and_ci_when_unset():
    assert hypothesis_profile("") == hypothesis_profile("  ") == "ci"
    assert hypothesis_profile(" fast ") == "fast" and hypothesis_profile("dev") == "dev"
    assert HYPOTHESIS_PROFILES["ci"] is None  # each property's own count


@pytest.mark.parametrize("text", ["Fast", "quick", "10", "ci,fast"])
def test_a_profile_that_does_not_exist_is_a_usage_error_naming_the_variable(text):
    with pytest.raises(pytest.UsageError) as info:
        hypothesis_profile(text)
    message = str(info.value)
    assert HYPOTHESIS_ENV in message and repr(text.strip()) in message
    assert "use one of ci, dev, fast" in message


def _counting_property() -> tuple[object, list[int]]:
    seen: list[int] = []

    @settings(max_examples=300, database=None)
    @given(st.integers())
    def prop(n: int) -> None:
        seen.append(n)

    return prop, seen


def test_a_profiles_ceiling_caps_a_property_that_asks_for_more():
    capped, seen = _counting_property()
    _cap_examples(SimpleNamespace(obj=capped), HYPOTHESIS_PROFILES["fast"])
    capped()
    assert 0 < len(seen) <= 10
    own, seen_own = _counting_property()  # the same property, left as it asks: 300
    own()
    assert len(seen_own) > 100


@pytest.mark.integration
def test_the_fast_tier_leaves_out_pages_browsers_and_torch_doctests():
    """Selected by where a test lives (tests/conftest.py), not by a list kept by hand."""
    files = ["tests/test_pu_index.py", "tests/app/test_navigation.py",
             "tests/app/test_browser_layout.py", "pudd_core/classifiers/_cnn.py",
             "pudd_core/chi2.py"]

    def collected(marks: str) -> set[str]:
        out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-m",
                              marks, *files], cwd=ROOT, capture_output=True, text=True,
                             check=False).stdout
        return {line.split("::")[0] for line in out.splitlines() if "::" in line}

    assert collected(fast_markers()) == {"tests/test_pu_index.py", "pudd_core/chi2.py"}
    assert collected("browser") == {"tests/app/test_browser_layout.py"}
    assert collected("apptest") == {"tests/app/test_navigation.py"}
    assert collected("integration") == {"pudd_core/classifiers/_cnn.py"}
