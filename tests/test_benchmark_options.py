"""Bad values of the benchmarks' and scripts' options: argparse's error naming the option, exit
status 2, before anything is measured or written; never a traceback, never a silent default."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks._common import existing_path, positive_int

ROOT = Path(__file__).resolve().parents[1]

CASES = [
    ("bench_pages", ["--warm", "0"], "--warm"),
    ("bench_pages", ["--warm", "two"], "--warm"),
    ("bench_pages", ["--pages", "explorer,nowhere"], "--pages"),
    ("bench_pages", ["--baseline", "/no/such/checkout"], "--baseline"),
    ("bench_pages", ["--baseline", str(ROOT), "--warm", "0"], "--warm"),
    ("bench_pages", ["--baseline", str(ROOT), "--pages", "fig1,nowhere"], "--pages"),
    ("bench_server_memory", ["--pages", "home,nowhere"], "--pages"),
    ("bench_page_profile", ["--pages", "floor,nowhere"], "--pages"),
    ("bench_page_profile", ["--repeat", "0"], "--repeat"),
    ("bench_page_scripts", ["--repeat", "0"], "--repeat"),
    ("bench_page_scripts", ["--rounds", "-1"], "--rounds"),
    ("bench_page_scripts", ["--pages", "fig1,nowhere"], "--pages"),
    ("bench_page_scripts", ["--baseline", "/no/such/checkout"], "--baseline"),
    ("bench_plotly_js", ["--repeat", "-1"], "--repeat"),
    ("bench_plotly_js", ["--basic", "/no/such/bundle.js"], "--basic"),
    ("bench_plotly_js", ["--page", "nowhere"], "--page"),
    ("bench_sota", ["--from-store", "/no/such/store"], "--from-store"),
    ("bench_sota", ["--n-chunks", "0"], "--n-chunks"),
    ("app_capacity", ["--class-size", "0"], "--class-size"),
    ("app_cifar_first_visit", ["--rounds", "0"], "--rounds"),
    ("app_cifar_first_visit", ["--rounds", "two"], "--rounds"),
    ("bench_monitor_long", ["--rows", "1e8"], "--rows"),
    ("bench_monitor_long", ["--chunk-size", "-5"], "--chunk-size"),
    ("bench_monitor", ["--log", "/no/such/log.parquet"], "--log"),
    ("bench_monitor", ["--baseline", "/no/such/checkout"], "--baseline"),
    ("bench_monitor", ["--chunk-sizes", "1000,0"], "--chunk-sizes"),
    ("bench_monitor", ["--repeat", "0"], "--repeat"),
    ("bench_monitor", ["--repeat", "three"], "--repeat"),
    ("bench_monitor", ["--shapes", "float16"], "--shapes"),
    ("bench_monitor", ["--shapes", ","], "--shapes"),
    ("run_all", ["--only", "bench_nothing"], "--only"),
    ("bench_test_tiers", ["--tier", "slow"], "--tier"),
    ("bench_follow", ["--rate", "0"], "--rate"),
    ("bench_follow", ["--rate", "5.5"], "--rate"),
    ("bench_follow", ["--rows", "-1"], "--rows"),
    ("bench_follow", ["--chunk-size", "0"], "--chunk-size"),
    ("bench_calibration", ["--chunks", "100", "0"], "--chunks"),
    ("bench_calibration", ["--chunk-size", "-1"], "--chunk-size"),
    ("bench_calibration", ["--resamples", "x"], "--resamples"),
    ("bench_calibration", ["--variants", "calibrated,nope"], "--variants"),
    ("bench_calibration", ["--jobs", "0"], "--jobs"),
]


@pytest.mark.parametrize("module, argv, option", CASES,
                         ids=[f"{m} {' '.join(a)}" for m, a, _ in CASES])
def test_a_bad_option_value_is_refused_by_name_before_any_work(
        module: str, argv: list[str], option: str, monkeypatch: Any, capsys: Any) -> None:
    main = importlib.import_module(f"benchmarks.{module}").main
    monkeypatch.setattr(sys, "argv", [module, *argv])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert option in err and "Traceback" not in err, err


@pytest.mark.integration
def test_write_findings_refuses_an_unknown_option_instead_of_writing() -> None:
    readme = (ROOT / "README.md").read_bytes()
    done = subprocess.run([sys.executable, "scripts/write_findings.py", "--chek"], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "unrecognized arguments: --chek" in done.stderr
    assert (ROOT / "README.md").read_bytes() == readme


@given(st.text(max_size=12))
def test_positive_int_is_a_whole_number_above_zero_or_an_argparse_error(text: str) -> None:
    try:
        value = positive_int(text)
    except argparse.ArgumentTypeError as err:
        assert repr(text) in str(err)
        return
    assert value >= 1 and value == int(text)


def test_existing_path_names_a_missing_path(tmp_path: Path) -> None:
    assert existing_path(str(tmp_path)) == tmp_path
    with pytest.raises(argparse.ArgumentTypeError, match="no file or folder at"):
        existing_path(str(tmp_path / "gone"))


def test_the_floor_pages_of_bench_pages_show_what_their_rows_say() -> None:
    """bench_pages' floors are the yardsticks of every page's load: the one-line page shows
    one title, the widget floor Streamlit's own widgets of the Monitor and explorer pages'
    kinds, and neither fails (a broken floor would time an error page)."""
    from streamlit.testing.v1 import AppTest

    from benchmarks.bench_pages import FLOOR, FLOOR_WIDGETS, FLOORS

    one = AppTest.from_string(FLOORS[FLOOR]).run()
    assert not one.exception and [t.value for t in one.title] == ["Floor"]
    assert not one.sidebar.children and len(one.main.children) == 1
    page = AppTest.from_string(FLOORS[FLOOR_WIDGETS]).run()
    assert not page.exception
    side = page.sidebar
    assert (len(side.radio), len(side.selectbox), len(side.multiselect), len(side.number_input),
            len(side.checkbox), len(side.text_input)) == (1, 1, 1, 1, 1, 1)
    assert (len(page.main.radio), len(page.main.selectbox), len(page.main.number_input)) == (
        2, 1, 1)
    assert (len(page.metric), len(page.table), len(page.code), len(page.markdown)) == (
        4, 1, 1, 6)
    assert len(page.get("download_button")) == 2


@pytest.mark.parametrize("rate", [1, 5, 9, 10, 25, 100_000])
def test_bench_follow_appends_exactly_the_rows_asked_at_any_rate(rate: int) -> None:
    """Below 10 rows a second a burst was rate // 10 = 0 rows, and the loop wrote the whole
    pool every 0.1 s without end (1.25 GB in 4 minutes at --rate 5)."""
    import io

    import numpy as np

    from benchmarks import bench_follow

    lines = [f"{i % 3},0.2,0.3,0.5\n".encode() for i in range(bench_follow.POOL)]
    data = b"".join(lines)
    ends = np.cumsum([len(x) for x in lines])
    out = io.BytesIO()
    slept: list[float] = []
    rows = 23 if rate < 100 else 250_000  # past the pool's end too
    written = bench_follow.append(out, data, ends, rows, rate, sleep=slept.append)
    text = out.getvalue().decode().splitlines()
    assert len(text) == rows == written[-1][0]
    assert text[:5] == [x.decode().strip() for x in lines[:5]]
    burst, interval = bench_follow.schedule(rows, rate)
    assert burst >= 1 and burst / interval == pytest.approx(rate)
    if rows <= bench_follow.POOL:
        assert len(written) == -(-rows // burst)  # bursts of `burst` rows, the last shorter


SCRIPT_CASES = [
    ("delay_study", ["--datasets", "sea0,nowhere", "--cache", "CACHE"], "unknown stream 'nowhere'"),
    ("delay_study", ["--datasets", "sea0", "--n-chunks", "-3", "--cache", "CACHE"], "n_chunks"),
    ("delay_study", ["--datasets", "sea0", "--classifier", "nope", "--cache", "CACHE"],
     "unknown classifier 'nope'"),
    ("delay_study", ["--datasets", "sea0", "--detectors", "kswin", "--values", "0.3",
                     "--cache", "CACHE"], "0.3 not in kswin's sweep"),
    ("delay_study", ["--datasets", "sea0", "--detectors", "kswin,pudd", "--values", "0.05",
                     "--cache", "CACHE"], "exactly one detector"),
    ("delay_study", ["--datasets", "sea0", "--detectors", "kswin", "--values", "lots",
                     "--cache", "CACHE"], "--values: not numbers"),
    ("delay_study", ["--merge", "CACHE"], "--merge"),
    ("delay_study", ["--cache", "CACHE"], "--datasets is required"),
    ("alarm_timelines", ["--seeds", "-1"], "seed must be"),
    ("alarm_timelines", ["--seeds", "0-x"], "give seeds as a range"),
    ("alarm_timelines", ["--seeds", "0-9", "--classifiers", "gnb,nope"],
     "unknown classifier 'nope'"),
    ("alarm_timelines", ["--datasets", "nowhere"], "unknown stream 'nowhere'"),
    ("house_picture", ["--rev", "no-such-commit", "--out", "OUT"], "--rev"),
    ("calibration_coverage", ["--stretches", "0"], "--stretches"),
    ("calibration_coverage", ["--block", "-5"], "--block"),
    ("calibration_coverage", ["--resamples", "many"], "--resamples"),
]


@pytest.mark.parametrize("script, argv, message", SCRIPT_CASES,
                         ids=[f"{s} {' '.join(a)}" for s, a, _ in SCRIPT_CASES])
def test_a_scripts_bad_option_is_refused_by_name_before_any_work(
        script: str, argv: list[str], message: str, tmp_path: Path, monkeypatch: Any,
        capsys: Any) -> None:
    """Every run's stream, classifier, seed and length are checked before the first run."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(script, ROOT / "scripts" / f"{script}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    places = {"CACHE": str(tmp_path / "cache"), "OUT": str(tmp_path / "h.png")}
    argv = [places.get(a, a) for a in argv]
    if "--out" not in argv:
        argv += ["--out", str(tmp_path)]
    monkeypatch.setattr(sys, "argv", [script, *argv])
    with pytest.raises(SystemExit) as exit_:
        module.main(argv) if script != "house_picture" else module.main()
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err, err
    assert not (tmp_path / "cache").exists() and not list(tmp_path.glob("*.csv"))
