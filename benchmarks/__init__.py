"""Benchmarks: run each module with `.venv/bin/python -m benchmarks.<name>`."""

from __future__ import annotations
