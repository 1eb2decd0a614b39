"""STYLE.md 1.2: streamlit only in the app layer, plotly only in plots/, torch imported lazily."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
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


# --- private names (docs/architecture.md, "Private names") ----------------------------------
#: Package-private modules that the whole project may import: ``ParameterError`` and the
#: option parser are the library's error and option types (README: "The library").
_SHARED_PRIVATE_MODULES = ("pudd_core._validation", "pudd_core._options", "pudd_core._format")
def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _may_import(importer: str, module: str) -> bool:
    """Whether ``importer`` may import ``module``: a private module only from its own package."""
    parts = module.split(".")
    for i, part in enumerate(parts):
        if _private(part):
            owner = ".".join(parts[:i])  # the package the private module belongs to
            if module in _SHARED_PRIVATE_MODULES or module.startswith(
                    tuple(m + "." for m in _SHARED_PRIVATE_MODULES)):
                return True
            return importer == owner or importer.startswith(owner + ".")
    return True


def private_uses(source: str, importer: str) -> list[str]:
    """The other modules' private names and modules that ``importer``'s ``source`` uses.

    A module's own underscore names are its own business; another module's are not, with one
    exception: a private module (``pkg._impl``) may be imported by the modules of its own
    package ``pkg`` (and ``pudd_core._validation``, ``_options``, ``_format`` by anyone), and
    then only its public names. Reported as dotted names: ``"pkg.mod._name"``.
    """
    tree = ast.parse(source)
    bound: dict[str, str] = {}  # local name -> what the import bound to it
    found: list[str] = []
    package = importer if importer.count(".") == 0 else importer.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not _may_import(importer, alias.name):
                    found.append(alias.name)
                bound[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against the importer's package
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, *([base] if base else [])])
            if not _may_import(importer, base):
                found += [f"{base}.{alias.name}" for alias in node.names]
                continue
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if _private(alias.name) and not (
                        _may_import(importer, full) and _is_module(full)):
                    found.append(full)
                bound[alias.asname or alias.name] = full
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in bound and _private(node.attr)):
            found.append(f"{bound[node.value.id]}.{node.attr}")
    return found


def _is_module(name: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


@pytest.mark.parametrize(("importer", "source", "expected"), [
    ("ui.x", "from pudd_core.detector import _History", ["pudd_core.detector._History"]),
    ("ui.x", "from pudd_core import detector\ndetector._History()",
     ["pudd_core.detector._History"]),
    ("ui.x", "from pudd_core.classifiers import _base", ["pudd_core.classifiers._base"]),
    ("pudd_core.runner", "import pudd_core.classifiers._base",
     ["pudd_core.classifiers._base"]),
    ("pudd_core.runner", "from pudd_core.classifiers._base import Classifier",
     ["pudd_core.classifiers._base.Classifier"]),
    # allowed: the package's own private modules, their public names, the shared helpers
    ("pudd_core.classifiers", "from pudd_core.classifiers._base import Classifier", []),
    ("pudd_core.classifiers._cnn", "from pudd_core.classifiers import _base\n_base.f()", []),
    ("ui.x", "from pudd_core._validation import ParameterError", []),
    ("pudd_core.chi2", "from pudd_core import _validation\n_validation.check_bool", []),
    # but never a private name, even from a module the importer may use
    ("pudd_core.pu_index", "from pudd_core._validation import _check", [
        "pudd_core._validation._check"]),
    ("pudd_core.classifiers._cnn", "from pudd_core.classifiers import _base\n_base._x",
     ["pudd_core.classifiers._base._x"]),
])
def test_the_private_name_rule_on_examples(importer, source, expected):
    assert private_uses(source, importer) == expected


def test_no_module_uses_another_modules_private_names():
    offenders = {
        (str(p.relative_to(ROOT)), name)
        for p in _python_files("pudd_core", "ui", "pages", "app.py")
        for name in private_uses(p.read_text(encoding="utf-8"), _module_name(p))
    }
    assert offenders == set()


def test_benchmarks_and_the_harness_use_no_private_helper_of_the_tests():
    """Issue 33: what tests/ and benchmarks/ both need lives in harness/, never in tests/."""
    offenders = [str(p.relative_to(ROOT)) for p in _python_files("benchmarks", "harness")
                 if "tests" in _top_level_imports(p)]
    assert offenders == []
    harness = {m for p in _python_files("harness") for m in _top_level_imports(p)}
    assert not harness & {"tests", "benchmarks", "ui", "pages", "app"}


# --- layers (docs/architecture.md, "Layers") -------------------------------------------------
#: Module prefix -> layer, bottom up; a module may import its own layer and those below.
LAYERS: dict[str, int] = {
    "pudd_core._validation": 0, "pudd_core._options": 0, "pudd_core._format": 0,
    **{f"pudd_core.{m}": 1 for m in ("pu_index", "bucketing", "chi2", "detector", "online",
                                      "theorems", "_scan")},
    "pudd_core": 1,  # the package's own namespace re-exports the paper's method
    "pudd_core.streams": 2, "pudd_core.classifiers": 2, "pudd_core.paper": 2,
    "pudd_core.experiments": 3, "pudd_core.monitoring": 3,
    "pudd_core.reproduction": 4,
    "pudd_core.views": 5,
    "pudd_core.plots": 6,
    "pudd_core.__main__": 7, "pudd_core.cli": 7, "ui": 7,
    "pages": 8, "app": 8,
}


def _layer(module: str) -> int | None:
    best = max((p for p in LAYERS if module == p or module.startswith(p + ".")),
               key=len, default=None)
    return None if best is None else LAYERS[best]


def _project_imports(path: Path) -> set[str]:
    """The project modules a file imports (``from pkg import sub`` counts as ``pkg.sub``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                found.add(full if _is_module(full) else node.module)
    return {m for m in found if _layer(m) is not None}


def test_nothing_imports_upward():
    offenders = []
    for p in _python_files("pudd_core", "ui", "pages", "app.py"):
        own = _layer(_module_name(p))
        assert own is not None, f"{p} has no layer in LAYERS"
        offenders += [f"{_module_name(p)} -> {m}" for m in sorted(_project_imports(p))
                      if (_layer(m) or 0) > own]
    assert offenders == []


@pytest.mark.integration
def test_the_package_facade_exports_monitor_without_loading_the_experiments_layer():
    code = ("import sys, pudd_core; before = sorted(m for m in sys.modules if m.startswith("
            "('pudd_core.experiments', 'pudd_core.monitoring'))); "
            "from pudd_core import monitor; from pudd_core.monitoring import monitor as m; "
            "print(before, monitor is m, 'monitor' in pudd_core.__all__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.split() == ["[]", "True", "True"]
