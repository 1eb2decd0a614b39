"""docs/architecture.md is checked against the code: its layers, its names, its one sources."""

from __future__ import annotations

import ast
import importlib
import re
import typing
from pathlib import Path

import pytest

from tests.test_import_boundaries import LAYERS, _layer, _module_name, _python_files

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    """The text under ``## title`` (or ``### title``) up to the next heading of that level."""
    level = "#" * (len(re.match(r"#+", title).group()))  # type: ignore[union-attr]
    start = DOC.index(title + "\n") + len(title)
    end = DOC.find(f"\n{level} ", start)
    return DOC[start:] if end < 0 else DOC[start:end]


# --- the layer list ---------------------------------------------------------------------------
def _expand(spec: str) -> list[str]:
    """``pudd_core/{a,b}.py`` -> ``pudd_core.a``, ``pudd_core.b``; ``ui/`` -> ``ui``."""
    brace = re.fullmatch(r"(.*)\{(.*)\}(.*)", spec)
    if brace:
        return [m for part in brace.group(2).split(",")
                for m in _expand(brace.group(1) + part + brace.group(3))]
    return [spec.removesuffix("/").removesuffix(".py").replace("/", ".")]


def documented_layers() -> dict[str, int]:
    """Module -> layer as the document's "Layers" block lists them (bottom line: layer 0)."""
    block = _section("## Layers").split("```")[1]
    rows: list[list[str]] = []
    for line in block.strip("\n").splitlines():
        if not line or line.startswith(" "):
            continue  # the description column, continued
        paths = re.split(r"\s{2,}", line.strip())[0]
        row: list[str] = []
        folder = ""  # a bare name after a path is in that path's folder
        for part in (p.strip() for p in re.split(r",\s*(?![^{]*\})", paths)):
            if "/" in part.rstrip("/"):
                folder = part.rstrip("/").rsplit("/", 1)[0] + "/"
                row += _expand(part)
            else:
                row += _expand(folder + part)
        rows.append(row)
    return {m: len(rows) - 1 - i for i, row in enumerate(rows) for m in row}


def test_the_documents_layers_are_the_layers_the_import_test_enforces():
    documented = documented_layers()
    enforced = {m: n for m, n in LAYERS.items() if m != "pudd_core"}  # the facade: see below
    assert documented == enforced


def test_every_module_has_its_place_in_the_documents_layer_list():
    documented = documented_layers()
    missing = []
    for p in _python_files("pudd_core", "ui", "pages", "app.py"):
        name = _module_name(p)
        if name == "pudd_core":
            continue  # the package's namespace re-exports the paper's method (layer of it)
        if not any(name == m or name.startswith(m + ".") for m in documented):
            missing.append(name)
        else:
            assert _layer(name) is not None
    assert missing == []


def test_the_layer_parser_reads_folders_lists_and_braces():
    assert _expand("pudd_core/{chi2,_scan}.py") == ["pudd_core.chi2", "pudd_core._scan"]
    assert documented_layers()["pudd_core.monitoring"] == documented_layers()[
        "pudd_core.experiments"]
    assert documented_layers()["app"] == max(documented_layers().values())


# --- the names and paths the document gives ---------------------------------------------------
def _resolve(dotted: str) -> object:
    """``pkg.mod.attr.attr`` imported as far as it is a module, then attribute by attribute."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


_DOTTED = re.compile(r"`((?:pudd_core|ui)\.[A-Za-z_][\w.]*)(?:\(\))?`")


def test_every_dotted_name_in_the_document_exists():
    names = sorted(set(_DOTTED.findall(DOC)))
    assert "ui.explorer.settings" in names
    for name in names:
        _resolve(name)


def _rows() -> list[str]:
    """The table rows and list items of the document: one concept and its room each."""
    return [line for line in re.split(r"\n(?=\||- |\d+\. )", DOC)
            if line.startswith(("|", "- ")) or re.match(r"\d+\. ", line)]


def _linked_modules(text: str) -> list[object]:
    mods = []
    for path in re.findall(r"\]\(\.\./((?:pudd_core|ui)/[\w/]+?)(?:/__init__)?\.py\)", text):
        mods.append(importlib.import_module(path.replace("/", ".")))
    return mods


def test_each_name_beside_a_module_link_is_defined_in_a_linked_module():
    checked = 0
    for row in _rows():
        mods = _linked_modules(row)
        if not mods:
            continue
        for name in re.findall(r"`([A-Za-z_]\w*)(?:\.(\w+))?(?:\(\))?`", row):
            head, attr = name
            if attr in ("py", "md", "toml", "csv"):
                continue  # a file name (paths are checked below)
            owners = [m for m in mods if hasattr(m, head)]
            if not owners:
                continue  # named in another module (checked below) or a word in code font
            assert not attr or any(hasattr(getattr(m, head), attr) for m in owners), name
            checked += 1
    assert checked > 40  # the paper table, the one sources, the chunk's path, the how-tos


def _defined_names() -> set[str]:
    """Every name a project module or test defines or assigns, at any depth."""
    names: set[str] = set()
    for p in _python_files("pudd_core", "ui", "pages", "app.py", "tests", "benchmarks", "harness"):
        names.add(p.parent.name if p.stem == "__init__" else p.stem)  # a package: its folder
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Name | ast.arg):
                names.add(node.id if isinstance(node, ast.Name) else node.arg)
            elif isinstance(node, ast.Attribute):
                names.add(node.attr)
    return names


def test_every_name_in_code_font_that_looks_like_code_exists_in_the_code():
    """``snake_case`` and ``CamelCase`` names (not plain words) must be names of the code."""
    defined = _defined_names()
    words = {w for w in re.findall(r"`([A-Za-z_][\w.]*)(?:\(\))?`", DOC)}
    names = {part for w in words for part in w.split(".") if re.search(r"_|[A-Z]", part)}
    placeholders = {"Cls", "_x", "_impl", "other_object"}  # the private-name rule's examples
    missing = sorted(names - defined - placeholders)
    assert missing == []


def test_the_paper_tables_names_are_defined_where_it_says():
    rows = [r for r in _section("## Where the paper lives").splitlines()[4:] if r.startswith("|")]
    assert len(rows) > 10
    for row in rows:
        mods = _linked_modules(row)
        cell = row.split("|")[2]
        names = re.findall(r"`([A-Za-z_]\w*)`", cell)
        for name in names:
            assert any(hasattr(m, name) for m in mods), (name, row[:60])


def test_every_path_in_code_font_exists():
    paths = set(re.findall(r"`((?:pudd_core/|tests/|ui/|pages/|experiments/|views/|plots/|harness/)"
                           r"[\w/.]*\.py)`", DOC))
    assert paths
    for path in paths:
        candidates = [ROOT / path, ROOT / "pudd_core" / path]
        assert any(c.exists() for c in candidates), path


def test_a_return_type_the_document_names_is_the_functions_annotation():
    claims = re.findall(r"`([\w.]+)\(\)` draws the controls and returns `(\w+)`", DOC)
    assert claims
    for dotted, returned in claims:
        hints = typing.get_type_hints(_resolve(dotted))  # type: ignore[arg-type]
        assert getattr(hints["return"], "__name__", None) == returned


def test_the_test_names_the_document_gives_exist():
    names = set(re.findall(r"`(test_\w+|private_uses|LAYERS)`", DOC))
    assert names
    defined = {node.name if isinstance(node, ast.FunctionDef) else t.id
               for p in _python_files("tests")
               for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
               if isinstance(node, ast.FunctionDef | ast.Assign | ast.AnnAssign)
               for t in ([node] if isinstance(node, ast.FunctionDef) else
                         [node.target] if isinstance(node, ast.AnnAssign) else node.targets)
               if isinstance(node, ast.FunctionDef) or isinstance(t, ast.Name)}
    assert names <= defined


# --- "One source for each fact", checked in the code ------------------------------------------
def _string_constants(path: Path) -> list[str]:
    return [n.value for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def test_the_regime_names_are_a_literal_only_in_the_paper_package():
    regimes = set(typing.get_args(importlib.import_module("pudd_core.paper").Regime))
    offenders = []
    for p in _python_files("pudd_core", "ui", "pages", "app.py"):
        tree = ast.parse(p.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Subscript) and getattr(node.value, "id", "") == "Literal":
                values = {getattr(e, "value", None) for e in ast.walk(node.slice)}
                if regimes <= values and _module_name(p) != "pudd_core.paper":
                    offenders.append(_module_name(p))
            if (isinstance(node, ast.Tuple) and {getattr(e, "value", None) for e in node.elts}
                    == regimes and _module_name(p) != "pudd_core.paper"):
                offenders.append(_module_name(p))
    assert offenders == []


def test_the_widget_key_prefix_is_written_only_in_ui_state():
    prefix = importlib.import_module("ui.state").free_widget_key("")
    offenders = [_module_name(p) for p in _python_files("ui", "pages", "app.py")
                 if _module_name(p) != "ui.state"
                 and any(s.startswith(prefix) for s in _string_constants(p))]
    assert offenders == []


def test_a_runs_seeds_are_drawn_only_by_run_seeds():
    """``SeedSequence(config.seed)`` outside ``run_seeds`` would draw a run's seeds again."""
    offenders = [_module_name(p) for p in _python_files("pudd_core", "ui", "pages")
                 for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
                 if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "SeedSequence"
                 and n.args and isinstance(n.args[0], ast.Attribute) and n.args[0].attr == "seed"]
    assert offenders == []


@pytest.mark.parametrize("module", ["pudd_core.experiments.runner", "pudd_core.views.explorer",
                                    "pudd_core.experiments.grid",
                                    "pudd_core.reproduction.configs",
                                    "pudd_core.reproduction.report",
                                    "pudd_core.reproduction.ablation"])
def test_no_module_but_the_registry_switches_on_detector_names(module):
    """A tuple of two or more detector names in a condition is a list the registry derives."""
    names = set(importlib.import_module("pudd_core.experiments.detectors").DETECTORS)
    path = ROOT / (module.replace(".", "/") + ".py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    offenders = [ast.unparse(n) for n in ast.walk(tree)
                 if isinstance(n, ast.Compare) and any(isinstance(op, ast.In | ast.NotIn)
                                                       for op in n.ops)
                 for c in n.comparators if isinstance(c, ast.Tuple | ast.Set)
                 and sum(getattr(e, "value", None) in names for e in c.elts) >= 2]
    assert offenders == []


# --- the monitor: one description of a log (LOG_FIELDS), one home for the page's keys ------------
def _calls(path: Path) -> list[ast.Call]:
    return [n for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(n, ast.Call)]


def test_the_monitor_reads_its_columns_from_the_log_table_only():
    """No flag of a LOG_FIELDS entry is written by hand in the CLI, no column is passed to
    ``monitor`` as a keyword by the page, and both build the format with ``from_options``."""
    from pudd_core.monitoring import LOG_FIELDS, log_field_names

    flags = {f.flag for f in LOG_FIELDS}
    for module in ("pudd_core/cli/__init__.py", "pudd_core/cli/monitor.py"):
        written = flags & set(_string_constants(ROOT / module))
        assert written == set(), (module, written)
    for module in ("pudd_core/cli/monitor.py", "ui/monitor.py"):
        assert any(getattr(c.func, "attr", "") == "from_options"
                   for c in _calls(ROOT / module)), module
    columns = set(log_field_names())
    for module in ("ui/monitor.py", "pages/monitor.py"):
        for call in _calls(ROOT / module):
            if getattr(call.func, "id", getattr(call.func, "attr", "")) in ("monitor",
                                                                            "Monitor"):
                assert len(call.args) == 2  # the source and the LogFormat
                assert not columns & {k.arg for k in call.keywords}, ast.unparse(call)
    doc = _section("### a monitor feature")
    assert "`LOG_FIELDS` in\n`pudd_core/monitoring/_fields.py`" in doc
    assert "`LogFormat.from_options`" in doc and "`add_log_arguments`" in doc


def test_the_monitor_page_keeps_its_session_keys_in_ui_state():
    """The page's glue and script never touch ``st.session_state`` nor spell a declared key."""
    state = importlib.import_module("ui.state")
    for module in ("ui/monitor.py", "pages/monitor.py"):
        tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
        touched = [ast.unparse(n) for n in ast.walk(tree)
                   if isinstance(n, ast.Attribute) and n.attr == "session_state"]
        assert touched == [], module
        spelled = set(_string_constants(ROOT / module)) & set(state.DEFAULTS)
        assert spelled == set(), (module, spelled)
    # one key per entry of the table, derived there
    from pudd_core.monitoring import log_field_names

    assert set(state.MONITOR_FIELDS) == set(log_field_names())
    assert set(state.MONITOR_FIELDS.values()) <= set(state.DEFAULTS)


def test_no_source_file_of_the_library_or_the_app_is_over_800_lines():
    """Issue 33: a file past 800 lines is cut by concept (docs/architecture.md's picture)."""
    from pudd_core.plots.house import LINE_LIMIT

    long = {str(p.relative_to(ROOT)): n for p in _python_files("pudd_core", "ui", "pages",
                                                                  "app.py")
            if (n := p.read_text(encoding="utf-8").count("\n")) > LINE_LIMIT}
    assert long == {}
