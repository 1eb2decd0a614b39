"""Paths on the server: off unless the operator names folders; nothing outside them is read."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from harness.apptest import open_page
from pudd_core._validation import ParameterError
from ui.monitor import EXAMPLE, SERVER_DIRS_ENV, allowed_path, paths_off_message, server_dirs

TIMEOUT = 60
SECRET = "hunter2-very-secret"


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    """An allowed folder with a log in it, and a secret CSV beside it (outside)."""
    allowed, outside = tmp_path / "logs", tmp_path / "private"
    allowed.mkdir()
    outside.mkdir()
    pd.read_parquet(EXAMPLE).head(900).to_csv(allowed / "log.csv", index=False)
    pd.DataFrame({"user": ["root"], "password": [SECRET]}).to_csv(
        outside / "credentials.csv", index=False)
    return allowed, outside


def _page_with_path(text: str) -> AppTest:
    at = open_page("pages/monitor.py", timeout=TIMEOUT, via_home=False)
    at.radio(key="w_monitor_source").set_value("A path on the server").run(timeout=TIMEOUT)
    if text and at.text_input(key="w_monitor_path") is not None:
        at.text_input(key="w_monitor_path").set_value(text).run(timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    return at


def _everything_shown(at: AppTest) -> str:
    parts = [str(e.value) for kind in ("markdown", "caption", "error", "info", "warning")
             for e in getattr(at, kind)]
    parts += [str(frame.value.to_dict()) for frame in at.dataframe]
    return "\n".join(parts)


def test_paths_are_off_by_default_and_the_page_says_how_to_turn_them_on(
        folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SERVER_DIRS_ENV, raising=False)
    at = _page_with_path("")
    assert len(at.text_input) == 0  # no path field at all
    [info] = [i.value for i in at.info if SERVER_DIRS_ENV in i.value]
    assert "off" in info
    assert SECRET not in _everything_shown(at)


def test_a_file_outside_the_allowed_folders_is_never_shown(
        folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    allowed, outside = folders
    monkeypatch.setenv(SERVER_DIRS_ENV, str(allowed))
    link = allowed / "link.csv"
    link.symlink_to(outside / "credentials.csv")  # a link inside pointing outside
    for text in (str(outside / "credentials.csv"), f"{allowed}/../private/credentials.csv",
                 "../private/credentials.csv", str(link), "link.csv"):
        at = _page_with_path(text)
        assert SECRET not in _everything_shown(at), text
        [error] = at.error
        assert "outside the folders this app may read" in error.value.replace("\\", ""), text


def test_a_log_inside_an_allowed_folder_runs(
        folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    allowed, _ = folders
    monkeypatch.setenv(SERVER_DIRS_ENV, str(allowed))
    for text in ("log.csv", str(allowed / "log.csv")):
        at = _page_with_path(text)
        assert not at.error, [e.value for e in at.error]
        assert any("900 rows" in m.value.replace(",", "") for m in at.markdown), text


def test_outside_is_refused_alike_whether_or_not_the_file_exists(
        folders: tuple[Path, Path]) -> None:
    allowed, outside = folders
    messages = []
    for name in ("credentials.csv", "missing.csv"):
        with pytest.raises(ParameterError) as info:
            allowed_path(str(outside / name), [str(allowed)])
        messages.append(str(info.value).replace(name, "NAME"))
    assert messages[0] == messages[1]  # existence outside is not revealed


def test_server_dirs_reads_the_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a").mkdir()
    monkeypatch.setenv(SERVER_DIRS_ENV, os.pathsep.join(
        [str(tmp_path / "a"), str(tmp_path / "missing"), "", str(tmp_path / "a")]))
    assert server_dirs() == [os.path.realpath(tmp_path / "a")]
    monkeypatch.setenv(SERVER_DIRS_ENV, "")
    assert server_dirs() == []


def test_a_variable_naming_no_folder_is_said_where_paths_are_off(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """$PUDD_SERVER_DIRS set, but to missing folders or files only: paths stay off (nothing
    is read), and the page's message says the variable's value names no existing folder
    instead of reading as if it were unset."""
    (tmp_path / "log.csv").write_text("label,proba_0\n0,1\n")
    monkeypatch.delenv(SERVER_DIRS_ENV, raising=False)
    unset = paths_off_message()
    assert "names no existing folder" not in unset and SERVER_DIRS_ENV in unset
    for value in (str(tmp_path / "missing"), str(tmp_path / "log.csv"),
                  os.pathsep.join([str(tmp_path / "missing"), str(tmp_path / "log.csv")])):
        monkeypatch.setenv(SERVER_DIRS_ENV, value)
        assert server_dirs() == []
        with pytest.raises(ParameterError, match=SERVER_DIRS_ENV):
            allowed_path("log.csv", server_dirs())
        message = paths_off_message()
        assert message.startswith(unset)
        assert f"It is set to `{value}`, which names no existing folder" in message
    monkeypatch.setenv(SERVER_DIRS_ENV, " ")
    assert paths_off_message() == unset


@settings(max_examples=150, deadline=None)
@given(text=st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from(["..", ".", "log.csv", "private", "credentials.csv", "logs",
                              "link.csv", "", "~", "/"]), max_size=6).map("/".join)))
def test_any_text_is_a_file_inside_or_a_parameter_error(text: str, tmp_path_factory:
                                                        pytest.TempPathFactory) -> None:
    root = tmp_path_factory.getbasetemp() / "hyp"
    if not root.exists():
        (root / "logs").mkdir(parents=True)
        (root / "private").mkdir()
        (root / "logs" / "log.csv").write_text("label,proba_0\n0,1\n")
        (root / "private" / "credentials.csv").write_text(f"password\n{SECRET}\n")
        (root / "logs" / "link.csv").symlink_to(root / "private" / "credentials.csv")
    allowed = os.path.realpath(root / "logs")
    try:
        path = allowed_path(text, [allowed])
    except ParameterError as err:
        assert err.param == "path"
        return
    assert path.is_file() and path.is_relative_to(allowed)
    assert path == Path(allowed, "log.csv")


def test_the_examples_of_allowed_path_hold() -> None:
    import doctest

    import ui.monitor

    result = doctest.testmod(ui.monitor, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 4 and result.failed == 0


def test_no_path_error_or_caption_shows_where_the_allowed_folders_lie(
        folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    # issue 32: a path error printed the server's absolute allowed folder to any visitor
    allowed, _ = folders
    monkeypatch.setenv(SERVER_DIRS_ENV, str(allowed))
    for text in ("../private/credentials.csv", "/etc/passwd.csv", "nothing.csv", "log.txt"):
        at = _page_with_path(text)
        shown = _everything_shown(at)
        assert at.error and str(allowed.parent) not in shown, (text, shown)
        assert os.path.realpath(allowed.parent) not in shown
    assert "`logs`" in " ".join(c.value for c in at.caption)  # the folder by its name


def test_a_variable_allowing_the_whole_file_system_is_warned_about(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    # issue 32: PUDD_SERVER_DIRS=/ gave no warning
    import ui.monitor

    monkeypatch.setattr(ui.monitor, "_WARNED", set())
    for value in ("/", os.path.expanduser("~")):
        monkeypatch.setenv(SERVER_DIRS_ENV, value)
        with caplog.at_level("WARNING", logger="pudd_lab"):
            at = _page_with_path("")
        [warning] = [w.value for w in at.warning if SERVER_DIRS_ENV in w.value]
        assert "any visitor of this page can read every .csv and .parquet file" in warning
        assert any(SERVER_DIRS_ENV in r.getMessage() for r in caplog.records)
    monkeypatch.setenv(SERVER_DIRS_ENV, str(tmp_path))
    assert not [w for w in _page_with_path("").warning if SERVER_DIRS_ENV in w.value]
