"""One description of a log: LogFormat's fields are the entries of LOG_FIELDS, and the command
line's flags are made from that table (issue 32 item 11, issue 33 item 2)."""

from __future__ import annotations

import argparse
import dataclasses

import pytest

import pudd_core.monitoring
from pudd_core.cli import build_parser
from pudd_core.cli.monitor import add_log_arguments
from pudd_core.monitoring import LOG_FIELDS, LogField, LogFormat, log_field_names, log_forms


def _monitor_parser() -> argparse.ArgumentParser:
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return commands.choices["monitor"]


def test_every_field_of_log_format_is_one_entry_of_the_table():
    names = log_field_names()
    assert len(set(names)) == len(names)
    assert set(names) == {f.name for f in dataclasses.fields(LogFormat)}


def test_the_monitor_command_has_one_flag_per_entry_with_its_help_choices_and_group():
    parser = _monitor_parser()
    actions = {a.dest: a for a in parser._actions}
    for f in LOG_FIELDS:
        action = actions[f.name]
        assert action.option_strings == [f.flag]
        assert action.help == f.help.replace("%", "%%")
        assert tuple(action.choices or ()) == f.choices
    # the groups: the forms exclude each other, so do the decisions
    groups = [{a.dest for a in g._group_actions} for g in parser._mutually_exclusive_groups]
    for name in ("form", "decisions"):
        assert {f.name for f in LOG_FIELDS if f.group == name} in groups
    assert [f.name for f in log_forms()] == ["proba_prefix", "proba_columns", "p_true",
                                             "binary_top_score", "proba_array"]


def test_the_flags_values_build_the_format_the_library_builds_from_keywords():
    parser = _monitor_parser()
    args = parser.parse_args(["log.csv", "--label", "y", "--proba-columns", "p_a, p_b",
                              "--classes", "a,b", "--pred", "yhat", "--time-column", "ts",
                              "--time-format", "%d/%m/%Y", "--chunk-size", "10"])
    assert LogFormat.from_options(vars(args)) == LogFormat(
        label="y", proba_columns=("p_a", "p_b"), classes=("a", "b"), pred="yhat",
        time_column="ts", time_format="%d/%m/%Y")
    assert LogFormat.from_options(vars(parser.parse_args(["log.csv"]))) == LogFormat()


#: An entry no LogFormat field has yet: what a new way of writing a log adds to the table.
NEW = LogField("weight", "each row's weight (a test entry)", kind="text", shown=("proba_prefix",),
               side=2, widget="Weight column (a test entry)")


def test_an_entry_added_to_the_table_is_a_flag_with_its_help(monkeypatch):
    monkeypatch.setattr(pudd_core.monitoring, "LOG_FIELDS", (*LOG_FIELDS, NEW))
    parser = argparse.ArgumentParser(prog="monitor")
    add_log_arguments(parser)
    assert parser.parse_args(["--weight", "w"]).weight == "w"
    assert "each row's weight (a test entry)" in parser.format_help()
    monkeypatch.setattr(pudd_core.monitoring, "LOG_FIELDS", LOG_FIELDS)
    parser = argparse.ArgumentParser(prog="monitor")
    add_log_arguments(parser)
    assert "--weight" not in parser.format_help()


def test_the_time_keywords_and_the_formats_time_fields_are_one_setting(tmp_path):
    from pudd_core._validation import ParameterError
    from pudd_core.monitoring import Monitor

    given = LogFormat(label="y", proba_prefix="p_", time_column="ts")
    a = Monitor(given, window="1D", time_format="%d/%m/%Y")
    b = Monitor(dataclasses.replace(given, time_format="%d/%m/%Y"), window="1D")
    assert a.given == b.given and a.given.time_format == "%d/%m/%Y"
    with pytest.raises(ParameterError, match="time_unit is given twice"):
        Monitor(dataclasses.replace(given, time_unit="s"), window="1D", time_unit="ms")
    with pytest.raises(ParameterError, match="time_format"):
        Monitor(LogFormat(label="y", proba_prefix="p_", time_format="%Y"))  # no window
    # the resolved format keeps them
    assert b.start(["y", "p_0", "p_1", "ts"]).time_format == "%d/%m/%Y"
