"""STYLE.md 1.2: streamlit only in the app layer, plotly only in plots/, torch imported lazily."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _top_level_imports(path: Path) -> set[str]:
    """Modules imported anywhere in the file (``lazy`` = inside a function)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def _module_level_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def _python_files(*parts: str) -> list[Path]:
    files = []
    for part in parts:
        p = ROOT / part
        files += [p] if p.is_file() else sorted(p.rglob("*.py"))
    return files


def test_streamlit_is_imported_only_by_the_app_layer():
    offenders = [
        str(p.relative_to(ROOT)) for p in _python_files("pudd_core")
        if "streamlit" in _top_level_imports(p)
    ]
    assert offenders == []


def test_plotly_is_imported_only_by_plots():
    allowed = set(_python_files("pudd_core/plots"))
    offenders = [
        str(p.relative_to(ROOT))
        for p in _python_files("pudd_core", "pages", "ui", "app.py")
        if p.exists() and p not in allowed and "plotly" in _top_level_imports(p)
    ]
    assert offenders == []


def test_torch_is_imported_lazily_in_the_library():
    offenders = [
        str(p.relative_to(ROOT)) for p in _python_files("pudd_core")
        if {"torch", "torchvision"} & _module_level_imports(p)
    ]
    assert offenders == []


def test_datasets_folder_holds_no_python_code():
    assert list((ROOT / "datasets").rglob("*.py")) == []


@pytest.mark.parametrize("module", ["pudd_core", "pudd_core.plots"])
def test_every_name_in_all_resolves_and_all_is_sorted(module):
    mod = importlib.import_module(module)
    for name in mod.__all__:
        assert hasattr(mod, name), name
    assert list(mod.__all__) == sorted(mod.__all__)
