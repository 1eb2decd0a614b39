"""``python -m pudd_core``: the command line, :mod:`pudd_core.cli`."""

from __future__ import annotations

import sys

from pudd_core.cli import main

if __name__ == "__main__":
    sys.exit(main())
