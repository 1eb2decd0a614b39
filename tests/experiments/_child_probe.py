"""What a child process has imported (called in ``pool.Child`` by ``test_pool.py``)."""

from __future__ import annotations

import sys


def loaded(*names: str) -> dict[str, bool]:
    """Whether each module is imported in this process."""
    return {name: name in sys.modules for name in names}
