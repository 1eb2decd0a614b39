"""Shared helpers of the benchmark scripts: timing, a machine description, processes, browser."""

from __future__ import annotations

import os
import platform
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def best_of(fn: Callable[[], object], repeat: int = 5, number: int = 1) -> float:
    """Best wall time of ``repeat`` rounds of ``number`` calls, per call, in seconds."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t) / number)
    return min(times)


def cpu_model() -> str:
    """The CPU's model name (Linux's /proc/cpuinfo), else the platform's processor string."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def machine() -> str:
    """One line: CPU count and model, platform, Python and key package versions.

    Rates measured on different CPUs do not compare: the model says which rows may.
    """
    import numpy
    import river
    import scipy
    import sklearn

    return (
        f"{os.cpu_count()} CPUs ({cpu_model()}), {platform.machine()}, "
        f"Python {platform.python_version()}, "
        f"numpy {numpy.__version__}, scipy {scipy.__version__}, scikit-learn "
        f"{sklearn.__version__}, river {river.__version__}"
    )


def positive_int(text: str) -> int:
    """An argparse type: a whole number >= 1, else the option's error names the value."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not >= 1")
    return value


def existing_path(text: str) -> Path:
    """An argparse type: a file or folder that exists, else the option's error names it."""
    import argparse

    path = Path(text)
    if not path.exists():
        raise argparse.ArgumentTypeError(f"no file or folder at {text!r}")
    return path


def chosen_pages(parser: Any, text: str) -> list[Any]:
    """The app's pages (``ui.pages.PAGES``) that ``--pages`` names (all when it is empty),
    by URL path (``home`` for the home page); an unknown one is the parser's error."""
    from ui.pages import PAGES

    wanted = names_from(text, [p.url_path or "home" for p in PAGES], parser, "--pages")
    return [p for p in PAGES if not wanted or (p.url_path or "home") in wanted]


def checkouts(baseline: str | None) -> dict[str, Path]:
    """``{"this": this checkout}``, after ``{"baseline": PATH}`` when ``--baseline`` is given:
    the checkouts a ``--baseline`` benchmark times in turn."""
    root = Path(__file__).resolve().parents[1]
    if baseline is None:
        return {"this": root}
    return {"baseline": Path(baseline).resolve(), "this": root}


def names_from(text: str, known: Sequence[str], parser: Any, option: str) -> list[str]:
    """A comma-separated list of ``known`` names; an unknown one is the parser's error."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown:
        parser.error(f"{option}: unknown {', '.join(map(repr, unknown))}; known: "
                     f"{', '.join(known)}")
    return names


def load_average() -> str:
    """The 1-, 5- and 15-minute load averages, as "1.1, 1.4, 1.7"."""
    return ", ".join(f"{v:.1f}" for v in os.getloadavg())


def p90(values: Sequence[float]) -> float:
    """The 90th percentile (numpy's linear interpolation); nan for no values."""
    import numpy as np

    return float(np.percentile(values, 90)) if len(values) else float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (its children apart)."""
    import psutil

    times = psutil.Process(pid).cpu_times()
    return float(times.user + times.system)


def rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` (its children apart), in MiB."""
    import psutil

    return float(psutil.Process(pid).memory_info().rss / 2**20)


def player_timings(log: Path) -> list[tuple[str, float]]:
    """(what, ms) of each line the app wrote to ``$PUDD_TIMING_LOG`` (``ui.player.log_time``)."""
    rows = [line.split("\t") for line in log.read_text().splitlines()]
    return [(row[1], float(row[3])) for row in rows]


@contextmanager
def app_server(timing_log: bool = False, store: Path | None = None,
               tree: Path | None = None) -> Iterator[tuple[str, Path]]:
    """A new ``streamlit run app.py`` (``serve`` of harness/browser.py, as for the tests).

    Its log, its results store (unless ``store`` or ``$PUDD_RESULTS_STORE`` names one) and,
    with ``timing_log``, the timing log the app writes (``$PUDD_TIMING_LOG``) live in a
    temporary folder; yields the server's URL and that timing log's path. ``tree``: another
    checkout to serve (default: this one).
    """
    from harness.browser import serve

    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "timing.tsv"
        env = {"PUDD_TIMING_LOG": str(log)} if timing_log else {}
        with serve(Path(tmp), store=store, env=env, tree=tree) as url:
            yield url, log


@contextmanager
def headless_browser() -> Iterator[Any]:
    """The browser tests' headless Chromium; exits with what to do when there is none."""
    from harness.browser import find_chromium, launch_browser

    path = find_chromium()
    if path is None:
        raise SystemExit("Chromium not found: run scripts/install_browser.sh (Debian: apt-get "
                         "install chromium) or set PUDD_CHROMIUM=/path/to/chromium")
    with launch_browser(path) as browser:
        yield browser


def chromium_version() -> str:
    """E.g. "Chromium 156.0.8078.79 built on Debian GNU/Linux 12 (bookworm)"."""
    from harness.browser import find_chromium

    return subprocess.run([find_chromium() or "chromium", "--version"], capture_output=True,
                          text=True).stdout.strip()
