"""The navigation list: every page of the app, in sidebar order (one line per page)."""

from __future__ import annotations

import logging
import os
import runpy
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

APP = Path(__file__).resolve().parents[1] / "app.py"
#: The browser tab's icon on every page (a file: no request leaves the server).
FAVICON = str(Path(__file__).with_name("favicon.png"))
_ROUTED = "app_routed"  # True while app.py's router runs the current page
#: Set (the tests do) to let an unexpected error end the run as an exception.
STRICT_ENV = "PUDD_STRICT"
#: Set (the benchmarks do) to a file that collects how long the scripts take (:func:`log_time`).
TIMING_ENV = "PUDD_TIMING_LOG"
_log = logging.getLogger("pudd_lab")


TOOLS = "Tools"  # the navigation section of the lab's tools
COURSE = "Course"  # the navigation section of the lessons, before the tools


@dataclass(frozen=True)
class PageSpec:
    """One page: its script, sidebar title, URL path (``None`` for the default), blurb, section.

    ``section`` heads the page's group in the sidebar ("" for none: Home).
    """

    path: str
    title: str
    url_path: str | None
    icon: str
    blurb: str
    section: str = TOOLS

    def st_page(self) -> st.Page:
        """The ``st.Page`` for ``st.navigation``."""
        if self.url_path is None:
            return st.Page(self.path, title=self.title, icon=self.icon, default=True)
        return st.Page(self.path, title=self.title, icon=self.icon, url_path=self.url_path)


PAGES: tuple[PageSpec, ...] = (
    PageSpec("pages/home.py", "Home", None, ":material/home:",
             "What the PU-index and PUDD are, and PUDD running on a stream.", ""),
    # the course: file names equal URL paths (see the CIFAR-10-CD page's note below)
    PageSpec("pages/course-drift.py", "1. Concept drift and late alarms", "course-drift",
             ":material/school:", "A stream with a known drift, and how long DDM takes to "
             "see it.", COURSE),
    PageSpec("pages/course-pu-index.py", "2. The PU-index", "course-pu-index",
             ":material/school:", "From a prediction's probabilities to its PU-index, point by "
             "point.", COURSE),
    PageSpec("pages/course-test.py", "3. PUDD's test", "course-test", ":material/school:",
             "Buckets, the contingency table, χ² and the cut points: move a cut.", COURSE),
    PageSpec("pages/course-theorem2.py", "4. What the error rate cannot see",
             "course-theorem2", ":material/school:",
             "Theorem 2, and the converse: where the 2 × 2 error test is the stronger one.",
             COURSE),
    PageSpec("pages/course-thresholds.py", "5. Thresholds", "course-thresholds",
             ":material/school:", "Delay against false alarms, α = 10⁻³ or 0.05, the count "
             "floor.", COURSE),
    PageSpec("pages/course-cifar.py", "6. A real demo on CIFAR images", "course-cifar",
             ":material/school:", "Interest drift on images: what to watch for.", COURSE),
    PageSpec("pages/explorer.py", "Stream explorer", "explorer", ":material/timeline:",
             "Pick a stream, a classifier and PUDD's threshold, add baseline detectors, and "
             "step or play through the chunks: error rates, alarms, PU histograms, every "
             "cut's p-value and the χ² table, chunk by chunk."),
    PageSpec("pages/monitor.py", "Your model's predictions", "monitor", ":material/monitoring:",
             "Bring a log of your own model's predictions (label + class probabilities; CSV, "
             "JSON lines or Parquet, a text log compressed or not): PUDD and the baselines on "
             "it, chunk by chunk, every alarm with its rows, and an HTML report."),
    PageSpec("pages/theorem2.py", "Theorem 2, step by step", "theorem2", ":material/functions:",
             "Equal error rates, different PU histograms: the proof's counterexample, live; "
             "and Theorem 1, the other direction."),
    PageSpec("pages/fig1.py", "Fig. 1: the illustrative example", "fig1",
             ":material/scatter_plot:",
             "SEA features, Gaussian naive Bayes and a boundary moving from 9 to 8.2: "
             "what the paper's first figure shows, and what its p-value really is."),
    # the file is named as its URL: before st.navigation first runs, a fresh server knows
    # pages only by file name, and /cifar10-cd would open a "Page not found" dialog
    PageSpec("pages/cifar10-cd.py", "CIFAR-10-CD", "cifar10-cd", ":material/image:",
             "The image stream whose positive classes drift by a Markov chain: the matrix, "
             "the interest timeline, the images, and PUDD against the baselines with a CNN."),
    PageSpec("pages/thresholds.py", "Threshold lab", "thresholds", ":material/tune:",
             "Sweep α from 10⁻¹ to 10⁻¹⁰: accuracy, alarms, delay, missed drifts, and false "
             "alarms on a stream without drift, with and without a Bonferroni correction."),
    PageSpec("pages/reproduction.py", "Reproduction", "reproduction", ":material/table_chart:",
             "Our runs of the paper's Table 1 beside its numbers, from the results store, "
             "and a small reproduction of your own."),
)


def sections(pages: tuple[PageSpec, ...]) -> dict[str, list[st.Page]]:
    """``st.navigation``'s argument: the pages grouped by section, in list order."""
    out: dict[str, list[st.Page]] = {}
    for spec in pages:
        out.setdefault(spec.section, []).append(spec.st_page())
    return out


#: The values of ``$PUDD_STRICT`` that leave it off, as unset does.
STRICT_OFF = ("", "0", "false", "no", "off")


def strict(value: str | None = None) -> bool:
    """Whether ``$PUDD_STRICT`` (the tests' switch; or ``value``) lets an unexpected error through.

    Any value but one of :data:`STRICT_OFF` (case and spaces aside) turns it on: a copied
    ``PUDD_STRICT=0`` leaves visitors the inline explanation, not an exception.

    Examples
    --------
    >>> strict(" False "), strict("off"), strict(""), strict("1"), strict("yes")
    (False, False, False, True, True)
    """
    text = os.environ.get(STRICT_ENV, "") if value is None else value
    return text.strip().lower() not in STRICT_OFF


@contextmanager
def routing(url_path: str = "", start: float | None = None) -> Iterator[None]:
    """Mark the page run by app.py's router as routed (see :func:`ensure_routed`).

    With ``$PUDD_TIMING_LOG`` set, the script run's time (from ``start``, a
    ``perf_counter``, else from here) goes to that log as a ``script`` line of ``url_path``.
    """
    start = time.perf_counter() if start is None else start
    st.session_state[_ROUTED] = True
    try:
        yield
    except Exception as err:  # Streamlit's rerun and stop are BaseExceptions: they pass
        if strict():
            raise
        unexpected(err)
    finally:
        st.session_state[_ROUTED] = False
        log_time("script", url_path or "home", start)


def log_time(what: str, detail: object, start: float) -> None:
    """Append that ``what`` took since ``start`` (``perf_counter``) to ``$PUDD_TIMING_LOG``.

    One tab-separated line: wall clock, what (``script``: a run of app.py and its page;
    ``player``: the explorer's player drawn; ``runs``: computing its runs), a detail (the
    page's URL path, the player's cursor) and milliseconds. The benchmarks read it.
    """
    path = os.environ.get(TIMING_ENV)
    if path:
        ms = 1e3 * (time.perf_counter() - start)
        try:
            with open(path, "a", encoding="utf-8") as out:
                out.write(f"{time.time():.3f}\t{what}\t{detail}\t{ms:.1f}\n")
        except OSError as err:  # a measuring aid: it never costs the visitor the page
            _log.warning("$%s=%s cannot be written (%s): this run's time is not logged",
                         TIMING_ENV, path, err)


def unexpected(err: Exception) -> None:
    """The safety net under every page: an error no control explains, without a traceback.

    Pages show expected errors (bad input, missing data) next to the control that caused
    them; anything else ends up here. The traceback goes to the server log; the visitor
    sees what failed and what to do, and keeps every setting and finished result (they
    live in ``session_state`` and the caches, which an error does not touch).
    """
    _log.error("page run failed", exc_info=err)
    st.error(
        f"**This page could not finish**: {type(err).__name__}: {err}\n\n"
        "Your settings and finished results are kept. Undo the last setting you changed, or "
        "choose a smaller run; if it happens again, the server log has the details for a "
        "bug report.",
        icon=":material/error:",
    )


def ensure_routed() -> None:
    """First call of every page: make sure it runs inside app.py's frame.

    Streamlit still honours the legacy ``pages/`` folder: until some run has called
    ``st.navigation``, it runs ``pages/<name>.py`` by itself, without app.py's page config,
    state, sidebar and navigation. That happens when a fresh server's first request is a
    page's URL, and on every ``AppTest.switch_page``. The page then runs app.py (which runs
    the page again, inside the router) and stops.
    """
    if st.session_state.get(_ROUTED):
        return
    runpy.run_path(str(APP), run_name="pudd_lab_app")
    st.stop()
