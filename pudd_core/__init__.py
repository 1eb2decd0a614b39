"""PUDD Lab core: early concept-drift detection by prediction uncertainty.

The PU-index and the PUDD detector of Lu, Lu, Liu and Zhang, "Early Concept Drift
Detection via Prediction Uncertainty" (AAAI 2025), with the authors' code as the
default behaviour and each paper variant one option away.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
