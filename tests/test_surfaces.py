"""Every input surface has its bad-input cases (issue 25: "the method").

The surfaces are listed from the code, not by hand: the command line's options from its
argparse parser, the app's link parameters from ``ui/state.py`` (their cases are in
``tests/app/test_links.py``), the file uploaders of ``ui/`` and ``pages/``, and the
environment variables (``PUDD_*``) that ``pudd_core``, ``ui/``, ``pages/`` and ``app.py``
read (found by an AST scan of their ``os.environ``/``os.getenv`` reads; their cases are the
tests named in ``ENVIRONMENT``). A new option, link parameter, uploader or environment
variable without bad-input cases fails ``test_every_input_surface_has_bad_input_cases``.
Then every bad case is run (each gives a one-line error naming its option and exit status 2,
never a traceback), and Hypothesis throws random values at the options: any value either
reaches the work with a valid configuration or is refused by name before it.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pudd_core.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]

#: (command, option) -> argument lists that must be refused; "{tmp}" is a fresh folder.
BAD: dict[tuple[str, str], list[list[str]]] = {
    ("datasets", "--data-dir"): [["--data-dir", "{tmp}/no/such"]],
    ("backbone", "--out"): [["--out", "{tmp}/file.txt"], ["--out", "{tmp}/file.txt/sub"]],
    ("backbone", "--data-dir"): [["--data-dir", "{tmp}/no/such"]],
    ("run", "--dataset"): [["--dataset", "nope"], ["--dataset", ""]],
    ("run", "--classifier"): [["--classifier", "svm"]],
    ("run", "--detector"): [["--detector", "magic"]],
    ("run", "--alpha"): [["--alpha", "0"], ["--alpha", "1.5"], ["--alpha", "nan"],
                         ["--alpha", "x"]],
    ("run", "--regime"): [["--regime", "sometimes"]],
    ("run", "--adaptation"): [["--adaptation", "never"]],
    ("run", "--seeds"): [["--seeds", "-1"], ["--seeds", "a-b"], ["--seeds", ""]],
    ("run", "--n-chunks"): [["--n-chunks", "1"], ["--n-chunks", "1000000000000"],
                            ["--n-chunks", "x"]],
    ("run", "--chunk-size"): [["--chunk-size", "0"], ["--chunk-size", "100000000000"]],
    ("run", "--detector-option"): [["--detector-option", "cut_points=some"],
                                   ["--detector-option", "nonsense"],
                                   ["--detector-option", "alpha=0.01"],  # PUDD's is --alpha
                                   ["--detector", "kswin", "--detector-option", "alpha=2"],
                                   ["--detector", "kswin", "--detector-option", "seed=3"]],
    ("run", "--classifier-option"): [["--classifier-option", "grace_period=0"],
                                     ["--classifier-option", "speed=9"]],
    ("run", "--executor"): [["--executor", "spark"]],
    ("run", "--n-jobs"): [["--n-jobs", "-1000"], ["--n-jobs", "0"]],
    ("run", "--address"): [["--executor", "ray", "--address", "nowhere:1"]],
    ("run", "--log"): [["--log", "{tmp}/no/such/log.csv"], ["--log", "{tmp}"]],
    ("run", "--store"): [["--store", "{tmp}/file.txt"]],
    ("run", "--data-dir"): [["--dataset", "elec2", "--data-dir", "{tmp}/no/such"]],
    ("grid", "config"): [["{tmp}/none.toml"], ["{tmp}"]],
    ("grid", "--store"): [["{tmp}/grid.toml", "--store", "{tmp}/file.txt"]],
    ("grid", "--executor"): [["{tmp}/grid.toml", "--executor", "spark"]],
    ("grid", "--n-jobs"): [["{tmp}/grid.toml", "--n-jobs", "-1000"],
                           ["{tmp}/grid.toml", "--n-jobs", "0"]],
    ("grid", "--address"): [["{tmp}/grid.toml", "--executor", "ray", "--address", "x:1"]],
    ("grid", "--data-dir"): [["{tmp}/grid-elec2.toml", "--data-dir", "{tmp}/no/such"]],
    ("reproduce", "--table"): [["--table", "3"], ["--table", "--claims"]],
    ("reproduce", "--claims"): [["--claims", "--table", "1"]],
    ("reproduce", "--fig5"): [["--fig5", "--classifier", "svm"]],
    ("reproduce", "--results"): [["--claims", "--results", "{tmp}/no/such"]],
    ("reproduce", "--classifier"): [["--table", "1", "--classifier", "svm"],
                                    ["--table", "1", "--classifier", ""]],
    ("reproduce", "--seeds"): [["--table", "1", "--seeds", "0"],
                               ["--table", "1", "--seeds", "x"]],
    ("reproduce", "--datasets"): [["--table", "1", "--datasets", ""],
                                  ["--table", "1", "--datasets", "nope"]],
    ("reproduce", "--detectors"): [["--table", "1", "--detectors", ","],
                                   ["--table", "1", "--detectors", "magic"]],
    ("reproduce", "--regimes"): [["--table", "1", "--regimes", "sometimes"]],
    ("reproduce", "--reproduce-frozen-head"): [["--table", "1", "--reproduce-frozen-head"]],
    ("reproduce", "--skip-kswin"): [["--table", "2", "--skip-kswin"],
                                    ["--table", "1", "--detectors", "ddm", "--skip-kswin"]],
    ("reproduce", "--n-chunks"): [["--table", "1", "--n-chunks", "1"]],
    ("reproduce", "--executor"): [["--table", "1", "--executor", "spark"]],
    ("reproduce", "--n-jobs"): [["--table", "1", "--n-jobs", "-5"]],
    ("reproduce", "--address"): [["--table", "1", "--datasets", "sea0", "--detectors",
                                  "ddm", "--seeds", "1", "--executor", "ray", "--address",
                                  "x:1"]],
    ("reproduce", "--store"): [["--table", "1", "--datasets", "sea0", "--detectors", "ddm",
                                "--seeds", "1", "--store", "{tmp}/file.txt"]],
    ("reproduce", "--out"): [["--table", "1", "--datasets", "sea0", "--detectors", "ddm",
                              "--seeds", "1", "--out", "{tmp}/file.txt"]],
    ("reproduce", "--add"): [["--table", "1", "--datasets", "sea0", "--detectors", "ddm",
                              "--seeds", "1", "--add", "--out", "{tmp}/empty"],
                             ["--claims", "--add"],
                             ["--fig5", "--add", "--out", "{tmp}/empty"],
                             ["--table", "cifar", "--add", "--out", "{tmp}/empty"]],
    ("reproduce", "--render"): [["--render", "--table", "1"], ["--fig5", "--render", "--add"],
                                 ["--fig5", "--render", "--out", "{tmp}/empty"],
                                 ["--fig5", "--render", "--out", "{tmp}/file.txt"],
                                 ["--fig5", "--render", "--out", "{tmp}"]],
    ("reproduce", "--replace"): [["--table", "1", "--datasets", "sea0", "--detectors", "ddm",
                                  "--seeds", "1", "--replace", "--out", "{tmp}/empty"]],
    ("reproduce", "--data-dir"): [["--table", "1", "--datasets", "elec2", "--detectors",
                                   "ddm", "--seeds", "1", "--data-dir", "{tmp}/no/such"]],
    ("export-predictions", "--dataset"): [["--dataset", "nope"]],
    ("export-predictions", "--classifier"): [["--classifier", "svm"]],
    ("export-predictions", "--regime"): [["--regime", "sometimes"]],
    ("export-predictions", "--seed"): [["--seed", "-1"], ["--seed", "x"]],
    ("export-predictions", "--n-chunks"): [["--n-chunks", "1"]],
    ("export-predictions", "--chunk-size"): [["--chunk-size", "0"]],
    ("export-predictions", "--classifier-option"): [["--classifier-option", "speed=9"]],
    ("export-predictions", "--float32"): [["--float32", "--n-chunks", "1"]],
    ("export-predictions", "--out"): [["--out", "{tmp}/no/such/log.csv"]],
    ("export-predictions", "--data-dir"): [["--dataset", "elec2", "--data-dir",
                                            "{tmp}/no/such"]],
    # the monitor's options since issue 32 (the older ones: OWNED_ELSEWHERE)
    ("monitor", "--time-format"): [
        ["--time-column", "ts", "--window", "1D", "--time-format", "%d/%m/%Y"],
        ["--time-format", "%Y"], ["--time-column", "n", "--window", "1D", "--time-format", "%Y"],
        ["--time-column", "ts", "--window", "1D", "--time-format", " "]],
    ("monitor", "--time-unit"): [
        ["--time-unit", "week"], ["--time-column", "ts", "--window", "1D", "--time-unit", "s"],
        ["--time-column", "n", "--window", "3600", "--time-unit", "ms"],
        ["--time-column", "n", "--window", "1D", "--time-unit", "year"],
        ["--time-column", "n", "--window", "1D", "--time-unit", "number"],
        ["--time-unit", "s"]],
    ("monitor", "--binary-top-score"): [
        ["--proba-prefix", "", "--binary-top-score", "score", "--pred", "pred"],
        ["--binary-top-score", "nope", "--pred", "pred"], ["--binary-top-score", "score"],
        ["--binary-top-score", "proba_1", "--pred", "pred"],
        ["--binary-top-score", "score", "--pred", "pred", "--positive-label", "1"],
        ["--binary-top-score", "score", "--pred", "ts"]],
    ("monitor", "--proba-array"): [  # the log has no array column: each case is refused
        ["--proba-array", "nope"], ["--proba-array", "proba_1"], ["--proba-array", "ts"],
        ["--proba-array", "label"], ["--proba-array", "proba_1", "--classes", "a"],
        ["--proba-array", "proba_1", "--classes", "a,a"],
        ["--proba-array", "proba_1", "--positive-label", "1"],
        ["--proba-prefix", "proba_", "--proba-array", "proba_1"], ["--proba-array", ""]],
    # issue 35: alpha chosen on the first rows (the log has 24: six chunks of 4)
    ("monitor", "--calibrate-on"): [
        ["--calibrate-on", "x"], ["--calibrate-on", "0", "--false-alarm-rate", "0.01"],
        ["--chunk-size", "4", "--calibrate-on", "4", "--false-alarm-rate", "0.01"],
        ["--chunk-size", "4", "--calibrate-on", "10", "--false-alarm-rate", "0.01"],
        ["--chunk-size", "4", "--calibrate-on", "24", "--false-alarm-rate", "0.01"],
        ["--chunk-size", "4", "--calibrate-on", "400", "--false-alarm-rate", "0.01"],
        ["--chunk-size", "4", "--calibrate-on", "8"],
        ["--time-column", "ts", "--window", "1h", "--calibrate-on", "8",
         "--false-alarm-rate", "0.01"],
        ["--follow", "--calibrate-on", "8", "--false-alarm-rate", "0.01"],
        # a time range of the ts column (2024-03-01, 00:00 to 23:00, a row an hour)
        *[["--chunk-size", "4", *t, "--calibrate-on", r, "--false-alarm-rate", "0.01"]
          for t, r in (
              ([], "2024-03-01T00:00..2024-03-01T12:00"),  # no --time-column
              (["--time-column", "ts"], "2024-03-01"), (["--time-column", "ts"], ".."),
              (["--time-column", "ts"], "2024-03-01T00:00.."),
              (["--time-column", "ts"], "2024-03-01T08:00..2024-03-01T00:00"),  # backwards
              (["--time-column", "ts"], "2024-03-01T08:00..2024-03-01T08:00"),  # empty
              (["--time-column", "ts"], "yesterday..today"),
              (["--time-column", "ts"], "2025-01-01..2025-02-01"),  # no row in it
              (["--time-column", "ts"], "2024-03-01T00:00..2024-03-02"),  # none after it
              (["--time-column", "ts"], "2024-03-01T00:00..2024-03-01T05:00"),  # < 2 chunks
              (["--time-column", "n", "--time-unit", "number"], "a..b"),
              (["--time-column", "ts", "--time-format", "%d/%m/%Y"],
               "01/03/2024..02/03/2024"),  # the column is not in that format
              (["--time-column", "label", "--time-unit", "number"], "0..1"),  # unsorted
          )]],
    ("monitor", "--false-alarm-rate"): [
        ["--false-alarm-rate", "0.01"], ["--false-alarm-rate", "x"],
        *[["--chunk-size", "4", "--calibrate-on", "8", "--false-alarm-rate", r]
          for r in ("0", "1", "-0.1", "1.5", "nan", "inf")],
        ["--chunk-size", "4", "--calibrate-on", "8", "--false-alarm-rate", "1e-9",
         "--resamples", "2"]],
    ("monitor", "--resamples"): [
        ["--chunk-size", "4", "--calibrate-on", "8", "--false-alarm-rate", "0.01",
         "--resamples", r] for r in ("0", "-3", "x")],
    # issue 32 item 9: labels in a second file, joined by an id. Their properties (any split
    # of a log into predictions and labels, late and shuffled labels, followed files) read
    # against pandas' join: tests/test_monitor_labels_file.py
    ("monitor", "--labels"): [
        ["--labels", "{tmp}/none.csv", "--id", "n"], ["--labels", "{tmp}/empty", "--id", "n"],
        ["--labels", "{tmp}/labels.csv"], ["--labels", "{tmp}/file.txt", "--id", "n"],
        ["--labels", "{tmp}/twice.csv", "--id", "n"],
        ["--labels", "{tmp}/labels.csv", "--id", "n"],  # the log has labels of its own
        ["--labels", "{tmp}/labels.csv", "--id", "n", "--chunk-size", "4", "--calibrate-on",
         "8", "--false-alarm-rate", "0.01"],
        ["--follow", "--labels", "{tmp}/labels.csv"],
        ["--follow", "--labels", "{tmp}/none.csv", "--id", "n"]],
    ("monitor", "--id"): [
        ["--id", "n"], ["--labels", "{tmp}/labels.csv", "--id", "nope"],
        ["--labels", "{tmp}/labels.csv", "--id", "label"],
        ["--labels", "{tmp}/blank_id.csv", "--id", "n"], ["--follow", "--id", "n"],
        ["--labels", "{tmp}/labels.csv", "--id", "nope", "--chunk-size", "4",
         "--calibrate-on", "8", "--false-alarm-rate", "0.01"]],
}
for _option in ("--time-format", "--time-unit", "--calibrate-on", "--false-alarm-rate",
                "--resamples", "--labels", "--id"):  # these read the probability columns
    # by prefix
    BAD[("monitor", _option)] = [["--proba-prefix", "proba_", *c]
                                 for c in BAD[("monitor", _option)]]
#: Commands whose options another suite owns, with where their bad-input cases live, and the
#: options it owns; any other option of the command needs its cases in BAD.
OWNED_ELSEWHERE = {"monitor": "tests/test_monitor_cli.py"}
OWNED_OPTIONS = {"monitor": {
    "file", "--label", "--proba-prefix", "--proba-columns", "--p-true", "--classes",
    "--positive-label", "--correct", "--pred", "--chunk-size", "--window", "--time-column",
    "--alpha", "--variant", "--detector-option", "--baselines", "--seed", "--report",
    "--follow", "--state", "--poll",
    "--on-rotation",  # tests/test_monitor_rotation.py: without --follow, an unknown choice
}}
#: Arguments every case of a command starts with (the last occurrence of an option wins).
BASE = {"run": ["--n-chunks", "5", "--executor", "serial"],
        "export-predictions": ["--out", "{tmp}/log.csv", "--n-chunks", "5"],
        "reproduce": ["--n-chunks", "5", "--executor", "serial"],
        "monitor": ["{tmp}/log.csv", "--label", "label"]}
#: Uploaders (their widget key) -> the tests of what a bad upload gives.
UPLOADS = {"explorer_upload": ["tests/app/test_explorer.py::test_an_invalid_csv_upload_is_an_"
                               "inline_error",
                               "tests/app/test_explorer.py::test_an_upload_with_too_few_rows_"
                               "names_the_chunk_size",
                               "tests/app/test_explorer.py::test_a_header_only_upload_names_"
                               "the_file_not_the_chunk_size"],
           "thresholds_calib_upload": [
               "tests/app/test_thresholds.py::test_an_uploaded_log_is_calibrated_as_the_"
               "library_does_and_bad_files_are_named"],
           "monitor_labels_upload": [
               "tests/app/test_monitor.py::test_labels_in_a_second_file_are_joined_as_the_"
               "library_and_a_pandas_merge_do",
               "tests/app/test_monitor.py::test_a_bad_labels_upload_shows_the_librarys_"
               "message_under_the_uploader",
               # the same upload read by "choose α" (issue 35)
               "tests/app/test_monitor.py::test_choosing_alpha_with_bad_labels_says_the_"
               "librarys_reason"]}
#: Uploaders (file, widget key) whose bad-input tests are a whole test file (the log's)
UPLOADS_OWNED_ELSEWHERE = {("ui/monitor.py", "monitor_upload"): "tests/app/test_monitor.py"}
#: Environment variables the product reads -> the tests that give them bad values (a path
#: that does not exist or is a file, text where a number is expected) and check the outcome:
#: a clear message or a logged warning naming the variable, never a traceback, never a
#: silently different result.
ENVIRONMENT: dict[str, list[str]] = {
    "PUDD_CACHE_DIR": [
        "tests/streams/test_locate.py::test_a_cache_folder_that_is_a_file_or_missing_still_"
        "loads_the_data"],
    "PUDD_DATA_DIR": [
        "tests/streams/test_locate.py::test_a_data_folder_that_is_missing_or_a_file_is_"
        "named_in_the_error"],
    "PUDD_RESULTS_STORE": [
        "tests/views/test_reproduction.py::test_a_results_store_that_is_a_file_is_named_"
        "with_the_variable",
        "tests/app/test_reproduction.py::test_a_results_store_that_is_a_file_is_an_error_"
        "naming_the_variable",
        "tests/app/test_reproduction.py::test_a_fresh_clone_shows_the_committed_report_with_"
        "dashes_not_none"],
    "PUDD_SERVER_DIRS": [
        "tests/app/test_monitor_paths.py::test_server_dirs_reads_the_variable",
        "tests/app/test_monitor_paths.py::test_a_variable_naming_no_folder_is_said_where_"
        "paths_are_off",
        "tests/app/test_monitor_paths.py::test_a_variable_allowing_the_whole_file_system_is_"
        "warned_about"],
    "PUDD_STRICT": [
        "tests/app/test_pages.py::test_the_strict_switch_raises_unless_unset_or_off_and_off_"
        "shows_the_error_inline"],
    "PUDD_TIMING_LOG": [
        "tests/app/test_pages.py::test_the_timing_log_records_each_script_run_and_a_bad_path_"
        "never_costs_the_page"],
    "PUDD_WORKERS": [
        "tests/experiments/test_pool.py::test_any_value_of_the_workers_switch_is_on_off_or_"
        "a_warning_naming_it"],
    "PUDD_WORKER_IDLE_S": [
        "tests/experiments/test_pool.py::test_any_value_of_the_workers_idle_time_gives_"
        "seconds_in_range_or_the_default_named"],
}
#: Variables read but not the product's input: the platform's, with why.
ENVIRONMENT_IGNORED = {
    "XDG_CACHE_HOME": "the platform's cache home (pudd_core/streams/locate.py falls back to "
                      "it when installed without the project folder)",
}
#: Read today; the scan must find at least these, so it cannot silently find nothing.
ENVIRONMENT_KNOWN = {"PUDD_RESULTS_STORE", "PUDD_WORKERS", "PUDD_WORKER_IDLE_S",
                     "PUDD_CACHE_DIR", "PUDD_DATA_DIR", "PUDD_SERVER_DIRS", "PUDD_STRICT",
                     "PUDD_TIMING_LOG"}


def _options(command: str) -> list[str]:
    """The command's options and positional arguments that take a value or a choice."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = []
    for action in sub.choices[command]._actions:
        if isinstance(action, argparse._HelpAction) or action.dest == "debug":
            continue
        if isinstance(action, argparse._StoreTrueAction) and command != "reproduce" and \
                action.dest != "float32":
            continue  # a plain flag (--json) has no bad value
        out.append(action.option_strings[-1] if action.option_strings else action.dest)
    return out


def _commands() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return list(sub.choices)


def _uploaders() -> list[tuple[str, str]]:
    """(file, widget key) of every ``file_uploader`` call in ui/ and pages/."""
    def constants(tree: ast.Module) -> dict[str, Any]:
        return {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                and isinstance(n.value, ast.Constant) for t in n.targets
                if isinstance(t, ast.Name)}

    in_state = constants(ast.parse((ROOT / "ui/state.py").read_text(encoding="utf-8")))
    found = []
    for path in [*ROOT.glob("ui/*.py"), *ROOT.glob("pages/*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        here = constants(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "file_uploader"):
                key = next((kw.value for kw in node.keywords if kw.arg == "key"), None)
                if (isinstance(key, ast.Call) and isinstance(key.func, ast.Attribute)
                        and key.func.attr == "free_widget_key" and len(key.args) == 1):
                    key = key.args[0]  # state.free_widget_key(state.NAME): NAME's value
                name = (here.get(key.id, key.id) if isinstance(key, ast.Name)
                        else in_state.get(key.attr, ast.unparse(key))
                        if isinstance(key, ast.Attribute) and ast.unparse(key.value) == "state"
                        else ast.unparse(key) if key is not None else "<no key>")
                found.append((str(path.relative_to(ROOT)), str(name)))
    return found


def _is_environ(node: ast.AST) -> bool:
    """``os.environ`` or a bare ``environ`` (``from os import environ``)."""
    return (isinstance(node, ast.Attribute) and node.attr == "environ"
            and isinstance(node.value, ast.Name) and node.value.id == "os") or (
        isinstance(node, ast.Name) and node.id == "environ")


def _environment_reads(tree: ast.Module) -> list[ast.expr]:
    """The name arguments of every read of the environment in ``tree``: ``os.environ.get(X)``,
    ``os.getenv(X)``, ``os.environ[X]`` (not as an assignment's or ``del``'s target)."""
    names: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            if isinstance(func, ast.Attribute) and (
                    (func.attr == "get" and _is_environ(func.value))
                    or (func.attr == "getenv" and isinstance(func.value, ast.Name)
                        and func.value.id == "os")):
                names.append(node.args[0])
            elif isinstance(func, ast.Name) and func.id == "getenv":
                names.append(node.args[0])
        elif (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
              and _is_environ(node.value)):
            names.append(node.slice)
    return names


def _environment() -> dict[str, list[str]]:
    """Variable -> the files that read it, from pudd_core/, ui/, pages/ and app.py (docstrings
    and doctests are text, not reads: ``ast`` does not see them)."""
    found: dict[str, list[str]] = {}
    files = [*ROOT.glob("pudd_core/**/*.py"), *ROOT.glob("ui/*.py"), *ROOT.glob("pages/*.py"),
             ROOT / "app.py"]
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                     and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
                     for t in n.targets if isinstance(t, ast.Name)}
        for arg in _environment_reads(tree):
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                name = arg.value
            elif isinstance(arg, ast.Name) and arg.id in constants:
                name = constants[arg.id]
            else:
                raise AssertionError(f"{path.relative_to(ROOT)}:{arg.lineno} reads the "
                                     f"environment variable {ast.unparse(arg)}, which this scan "
                                     "cannot name: use a string or a module-level constant")
            files_of = found.setdefault(name, [])
            if str(path.relative_to(ROOT)) not in files_of:
                files_of.append(str(path.relative_to(ROOT)))
    return found


def test_the_environment_scan_finds_the_variables_the_product_reads() -> None:
    found = _environment()
    assert ENVIRONMENT_KNOWN <= set(found), ENVIRONMENT_KNOWN - set(found)
    assert found["PUDD_SERVER_DIRS"] == ["ui/monitor.py"]  # through SERVER_DIRS_ENV
    assert found["PUDD_WORKER_IDLE_S"] == ["pudd_core/experiments/pool.py"]  # not its doctest
    unknown = {n for n in found if not n.startswith("PUDD_")} - set(ENVIRONMENT_IGNORED)
    assert not unknown, (f"environment variables read that are neither PUDD_* nor in "
                         f"ENVIRONMENT_IGNORED (with why): {unknown}")


def _test_exists(node_id: str) -> bool:
    file, _, name = node_id.partition("::")
    path = ROOT / file
    return path.is_file() and f"def {name}(" in path.read_text(encoding="utf-8")


def test_every_input_surface_has_bad_input_cases() -> None:
    missing = [f"CLI {command} {option}" for command in _commands()
               for option in _options(command) if (command, option) not in BAD
               and option not in OWNED_OPTIONS.get(command, ())]
    stale = [f"CLI {c} {o}" for c, o in BAD if o not in _options(c)]
    for file, key in _uploaders():
        if (file, key) in UPLOADS_OWNED_ELSEWHERE:
            continue
        tests = UPLOADS.get(key, [])
        if not tests or not all(_test_exists(t) for t in tests):
            missing.append(f"upload {key} in {file}")
    read = {n for n in _environment() if n.startswith("PUDD_")}
    for name in sorted(read):
        tests = ENVIRONMENT.get(name, [])
        if not tests or not all(_test_exists(t) for t in tests):
            missing.append(f"environment variable {name}")
    stale += [f"environment variable {n}" for n in ENVIRONMENT if n not in read]
    for command, where in OWNED_ELSEWHERE.items():
        assert command in _commands() and (ROOT / where).is_file(), where
    for (file, key), where in UPLOADS_OWNED_ELSEWHERE.items():
        assert (file, key) in _uploaders() and (ROOT / where).is_file(), (file, key)
    assert not missing, ("input surfaces without bad-input cases (add them to BAD, UPLOADS or "
                         "ENVIRONMENT here, or to tests/app/test_links.py for a link): "
                         f"{missing}")
    assert not stale, f"cases for options or variables that no longer exist: {stale}"


def _fill(args: list[str], tmp: Path) -> list[str]:
    return [a.replace("{tmp}", str(tmp)) for a in args]


@pytest.fixture
def tmp(tmp_path: Path) -> Path:
    (tmp_path / "file.txt").write_text("not a folder")
    (tmp_path / "grid.toml").write_text('[grid]\ndataset = "sea0"\nseeds = "0-1"\n'
                                        'n_chunks = 5\n')
    (tmp_path / "grid-elec2.toml").write_text('[grid]\ndataset = "elec2"\nseeds = "0"\n'
                                              'n_chunks = 5\n')
    (tmp_path / "empty").mkdir()
    rows = [f"{i % 2},{0.3 + 0.4 * (i % 2)},{0.7 - 0.4 * (i % 2)},2024-03-01T{i % 24:02d}:00:00,"
            f"{i},{i % 2},0.7" for i in range(24)]
    (tmp_path / "log.csv").write_text("label,proba_1,proba_0,ts,n,pred,score\n"
                                      + "\n".join(rows) + "\n")
    (tmp_path / "labels.csv").write_text("n,label\n" + "".join(f"{i},{i % 2}\n"
                                                              for i in range(24)))
    (tmp_path / "twice.csv").write_text("n,label\n3,0\n4,1\n3,1\n")
    (tmp_path / "blank_id.csv").write_text("n,label\n3,0\n ,1\n")
    return tmp_path


#: How messages name a positional argument.
_WORDS = {"config": ("grid file", "grid's TOML file")}


def _flag_named(option: str, err: str) -> bool:
    """The message names the option, its value's name, or the word for it."""
    words = {option, option.lstrip("-").replace("-", "_"), option.lstrip("-"),
             *_WORDS.get(option, ())}
    return any(w in err for w in words)


@pytest.mark.parametrize(("command", "option", "case"), [
    (c, o, case) for (c, o), cases in BAD.items() for case in cases])
def test_each_bad_value_is_one_line_naming_its_option_and_no_work_is_done(
        command: str, option: str, case: list[str], tmp: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    store = ["--store", str(tmp / "store")] if command in ("run", "reproduce") else []
    out = ["--out", str(tmp / "out")] if command == "reproduce" else []
    argv = [command, *_fill(BASE.get(command, []), tmp), *store, *out, *_fill(case, tmp)]
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse's usage errors
        code = int(exit_.code or 0)
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert code == 2, (argv, code, captured.out[-500:], err)
    assert err.startswith("error:") and "Traceback" not in err and "unexpected" not in err, err
    assert len(err.splitlines()) == 1, err
    keys = [a.partition("=")[0] for a in case if "=" in a]  # --detector-option cut_points=x
    assert _flag_named(option, err) or any(_flag_named(a, err) for a in case
                                           if a.startswith("--")) or any(
        k and k in err for k in keys), (option, err)
    assert not (tmp / "store").exists() or not list((tmp / "store").rglob("*.parquet"))


# --- Hypothesis: any value either reaches the work, valid, or is refused by name -------------
class _Reached(BaseException):
    """Raised instead of the work: every value passed the checks (not an Exception: main
    turns those into messages)."""

    def __init__(self, configs: list[Any]) -> None:
        self.configs = configs


def _values() -> st.SearchStrategy[str]:
    return st.one_of(
        st.text(alphabet=st.sampled_from(list("0123456789-,.=e_abcdgilnprstuxy ")),
                max_size=12),
        st.integers(-10**13, 10**13).map(str),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        st.sampled_from(["sea0", "elec2", "gnb", "vfdt", "pudd", "ddm", "0-3", "1e-3",
                         "cut_points=all", "incremental", "train-once", "1", "2", ""]))


RUN_OPTIONS = ["--dataset", "--classifier", "--detector", "--alpha", "--regime", "--adaptation",
               "--seeds", "--n-chunks", "--chunk-size", "--detector-option",
               "--classifier-option", "--n-jobs"]
REPRODUCE_OPTIONS = ["--table", "--classifier", "--seeds", "--datasets", "--detectors",
                     "--regimes", "--n-chunks", "--n-jobs"]


def _check_cli(command: str, given: list[tuple[str, str]], monkeypatch: Any, tmp: Path,
               capsys: Any) -> None:
    from pudd_core.experiments import grid

    def reached(configs: Any, **_: Any) -> Any:
        raise _Reached(list(configs))

    monkeypatch.setattr(grid, "run_grid", reached)
    argv = [command, *(["--table", "1"] if command == "reproduce" else []),
            "--store", str(tmp / "store"), *[x for pair in given for x in pair]]
    try:
        code = main(argv)
    except _Reached as done:
        import dataclasses

        # what reached the work is valid (the seed changes nothing validate() checks)
        for cfg in {dataclasses.replace(c, seed=0) for c in done.configs}:
            cfg.validate()
        return
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    err = capsys.readouterr().err.strip()
    assert code == 2, (argv, err)
    assert err.startswith("error:") and "unexpected" not in err and "Traceback" not in err, (
        argv, err)
    assert any(_flag_named(o, err) for o, _ in given) or "--table" in err or "seed" in err, (
        argv, err)


def _option_values(options: list[str]) -> st.SearchStrategy[list[tuple[str, str]]]:
    return st.lists(st.tuples(st.sampled_from(options), _values()), min_size=1, max_size=3)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(given=_option_values(RUN_OPTIONS))
def test_any_run_option_value_is_valid_or_refused_by_name(given: list[tuple[str, str]],
                                                          monkeypatch: Any, tmp: Path,
                                                          capsys: Any) -> None:
    _check_cli("run", given, monkeypatch, tmp, capsys)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(given=_option_values(REPRODUCE_OPTIONS))
def test_any_reproduce_option_value_is_valid_or_refused_by_name(
        given: list[tuple[str, str]], monkeypatch: Any, tmp: Path, capsys: Any) -> None:
    _check_cli("reproduce", given, monkeypatch, tmp, capsys)


@pytest.mark.slow
@settings(max_examples=600, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(command=st.sampled_from(["run", "reproduce"]), data=st.data())
def test_any_option_value_is_valid_or_refused_by_name_long_run(
        command: str, data: Any, monkeypatch: Any, tmp: Path, capsys: Any) -> None:
    options = RUN_OPTIONS if command == "run" else REPRODUCE_OPTIONS
    _check_cli(command, data.draw(_option_values(options)), monkeypatch, tmp, capsys)


# --- the report reader ----------------------------------------------------------------------
_CELLS = ("detector,dataset,regime,paper,ours,difference,std,n_seeds,n_errors,seeds,table,"
          "classifier")
# a report since reports record their cells' settings (reproduce.SETTING_COLUMNS)
_CELLS_SETTINGS = (_CELLS + ",adaptation,chunk_size,n_chunks,double_initial_fit,"
                   "detector_options,classifier_options,stream_options")


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.lists(st.sampled_from(
    ["pudd-3", "ddm", "sea0", "nowhere", "incremental", "94.81", "95.1", "", "x", "-1", "2",
     "0-1", "0-1, 5", "1", "gnb", "vfdt", "nan", "1e400", "3.5", "\"a,b\"", "default",
     "window", "True", "{}", "20"]),
    min_size=0, max_size=20), max_size=4), header=st.sampled_from(["", _CELLS,
                                                                  _CELLS_SETTINGS]))
def test_any_report_file_reads_back_or_is_refused_with_its_path(
        rows: list[list[str]], header: str, tmp_path: Path) -> None:
    from pudd_core.reproduction import read_report

    csv = tmp_path / "table1_gnb.csv"
    lines = ([header] if header else []) + [",".join(r) for r in rows]
    csv.write_text("\n".join(lines) + "\n", encoding="utf-8")
    try:
        report = read_report(csv, 1, "gnb")
    except ValueError as err:
        assert str(csv) in str(err), err
        return
    cells = report.cells
    assert set(cells["detector"]) <= set(__import__("pudd_core.paper").paper.LAYOUTS[1]
                                         .detectors)
    assert (cells["n_seeds"] >= 0).all() and (cells["n_errors"] >= 0).all()
    assert not cells.duplicated(["detector", "dataset", "regime"]).any()
    # every cell that ran says with which settings (or that they are unknown), none that did not
    ran = (cells["n_seeds"] > 0) | (cells["n_errors"] > 0)
    settings = cells[["n_chunks", "chunk_size", "classifier_options"]]
    assert (settings[ran] != "").all().all() and (settings[~ran] == "").all().all()


# --- the CIFAR-10-CD and Fig. 5 report readers ----------------------------------------------
_BAD = ["", "x", "-1", "nan", "1e400", "\"a,b\""]
_CIFAR_COLUMNS = {
    "detector": ["pudd-3", "ddm", "none", "oracle", "nowhere"], "name": ["PUDD-3", "DDM"],
    "accuracy": ["82.1", "81.0"], "std": ["1.9"], "n_seeds": ["2", "0"], "alarms": ["7.0"],
    "drifts": ["9"], "early": ["5"], "detected": ["6"], "false_alarms": ["1.1"],
    "run_s": ["38.0"], "classifier": ["pretrained-cnn", "resnet18"],
    "n_chunks": ["100", "3", "1", "0", "1e9", "100000000"],
    "seeds": ["0 1", "0", "0 x", "-2 1", "0 ²", "1 1"],
    "seed_accuracy": ["82.0 81.0", "82.0", "82.0 x"],
}


def _report_rows(columns: dict[str, list[str]]) -> Any:
    """Rows of a report file: each column mostly well-formed, sometimes not, sometimes gone."""
    row = st.fixed_dictionaries({c: st.sampled_from(v + _BAD) for c, v in columns.items()})
    return st.tuples(st.lists(row, min_size=1, max_size=4),
                     st.sets(st.sampled_from(list(columns)), max_size=2))


def _write_rows(path: Path, rows: list[dict[str, str]], dropped: set[str]) -> None:
    keep = [c for c in rows[0] if c not in dropped]
    path.write_text("\n".join([",".join(keep)] + [",".join(r[c] for c in keep) for r in rows])
                    + "\n", encoding="utf-8")


@settings(max_examples=80, deadline=None)
@given(given=_report_rows(_CIFAR_COLUMNS))
def test_any_cifar_report_reads_back_or_is_refused_with_its_path(
        given: tuple[list[dict[str, str]], set[str]], tmp_path_factory: Any) -> None:
    from pudd_core.reproduction.cifar import read_comparison

    csv = tmp_path_factory.mktemp("cifar") / "cifar10_cd.csv"
    _write_rows(csv, *given)
    try:
        report, _ = read_comparison(csv)
    except ValueError as err:
        assert str(csv) in str(err), err
        return
    assert 2 <= report.n_chunks <= 100_000 and report.seeds
    assert all(s >= 0 for s in report.seeds)
    assert not report.cells["detector"].duplicated().any()


_FIG5_COLUMNS = {
    "classifier": ["gnb", "vfdt", "dnn", "svm"], "detector": ["pudd-3", "ek-3", "none", "ek-2"],
    "dataset": ["sea0", "elec2", "nowhere"], "regime": ["incremental", "train-once", "sideways"],
    "ours": ["94.0", "101", "-3"], "std": ["0.5"], "n_seeds": ["2", "0"], "n_errors": ["0", "1"],
    "seeds": ["0-1", "0", "1-0", "x-y"],
}


@settings(max_examples=80, deadline=None)
@given(given=_report_rows(_FIG5_COLUMNS))
def test_any_fig5_report_reads_back_or_is_refused_with_its_path(
        given: tuple[list[dict[str, str]], set[str]], tmp_path_factory: Any) -> None:
    from pudd_core.reproduction.ablation import EK_DATASETS, read_ek_ablation

    csv = tmp_path_factory.mktemp("fig5") / "fig5_ek.csv"
    _write_rows(csv, *given)
    try:
        cells, _ = read_ek_ablation(csv)
    except ValueError as err:
        assert str(csv) in str(err), err
        return
    assert set(cells["dataset"]) <= set(EK_DATASETS)
    assert set(cells["regime"]) <= {"incremental", "train-once"}
    assert (cells["n_seeds"] >= 0).all() and (cells["n_errors"] >= 0).all()
    assert ((cells["ours"] >= 0) & (cells["ours"] <= 100) | cells["ours"].isna()).all()
    assert not cells.duplicated(["classifier", "detector", "dataset", "regime"]).any()
