"""The navigation list is the single source of truth for the pages (STYLE.md 1.1)."""

from __future__ import annotations

import ast
from pathlib import Path

from ui.pages import PAGES

ROOT = Path(__file__).resolve().parents[2]


def test_every_file_in_pages_is_in_the_navigation_list_and_back() -> None:
    on_disk = {f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py")}
    assert on_disk == {spec.path for spec in PAGES}


def test_the_first_page_is_the_only_default_and_others_have_unique_url_paths() -> None:
    assert PAGES[0].url_path is None
    paths = [spec.url_path for spec in PAGES[1:]]
    assert all(paths) and len(set(paths)) == len(paths)
    assert len({spec.title for spec in PAGES}) == len(PAGES)


def test_app_routes_through_the_list_with_st_navigation() -> None:
    tree = ast.parse((ROOT / "app.py").read_text(encoding="utf-8"))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Attribute) and n.func.attr == "navigation"]
    assert len(calls) == 1
    assert "PAGES" in ast.unparse(calls[0])


def test_page_files_have_no_main_guard_or_numeric_prefix() -> None:
    for spec in PAGES:
        source = (ROOT / spec.path).read_text(encoding="utf-8")
        assert "__main__" not in source
        assert not Path(spec.path).name[0].isdigit()


def test_every_page_first_makes_sure_it_runs_inside_the_router() -> None:
    for spec in PAGES:
        tree = ast.parse((ROOT / spec.path).read_text(encoding="utf-8"))
        first = next(n for n in tree.body if not isinstance(n, ast.Import | ast.ImportFrom)
                     and not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)))
        assert ast.unparse(first) == "ensure_routed()", spec.path
