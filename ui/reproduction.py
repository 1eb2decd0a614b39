"""The Reproduction page's controls: which stored reproduction to show, and a small new one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

from pudd_core._validation import ParameterError
from pudd_core.experiments.runner import RunConfig
from pudd_core.paper import DATASETS, DISPLAY_NAMES, LAYOUTS, REGIMES, Regime
from pudd_core.reproduction import detector_label, reproduction_configs
from pudd_core.reproduction.claims import COMPARISONS
from pudd_core.reproduction.committed import CommittedReport
from pudd_core.streams.locate import project_root
from pudd_core.views.reproduction import StoreGroup
from ui import messages, state

CLASSIFIERS = {"gnb": "GNB", "vfdt": "VFDT", "dnn": "DNN (slow)"}
LENGTHS = state.REPRODUCTION_LENGTHS  # 0: the paper's lengths
_REGIME_NAMES: dict[Regime, str] = {
    "incremental": "-I: train on every chunk", "train-once": "-O: train at alarms",
}


def _name(value: str) -> str:
    return DISPLAY_NAMES.get(value, value)


def shown_path(path: Path) -> str:
    """``path`` as a visitor may see it: relative to the project, else its last two parts.

    The server's absolute folders are none of a visitor's business (issue 34 item 8).
    """
    root = project_root()
    if root is not None and path.is_relative_to(root):
        return str(path.relative_to(root)) or "."
    return str(Path("…", *path.parts[-2:])) if len(path.parts) > 2 else path.name or str(path)


def shown_text(text: str, path: Path) -> str:
    """``text`` with ``path`` and its folders (absolute, as messages name them) shown short."""
    for folder in (path, *path.parents):  # the longest first: a folder is a prefix of its files
        if len(folder.parts) > 1 and str(folder) in text:
            text = text.replace(str(folder), shown_path(folder))
    return text


def view_selector(groups: Sequence[StoreGroup]) -> StoreGroup:
    """The stored reproduction to compare with the paper (the largest by default)."""
    by_key = {g.key: g for g in groups}
    if state.get(state.REPRODUCTION_VIEW) not in by_key:
        state.set_value(state.REPRODUCTION_VIEW, groups[0].key)
    st.selectbox("Reproduction in the store", list(by_key),
                 format_func=lambda k: by_key[k].label, **state.bound(state.REPRODUCTION_VIEW),
                 help="Runs are grouped by classifier and stream length: a report never "
                      "mixes two settings.")
    return by_key[str(state.get(state.REPRODUCTION_VIEW))]


@dataclass(frozen=True)
class SmallReproduction:
    """A few cells of Table 1 with a few seeds, optionally on shorter streams."""

    classifier: str
    datasets: tuple[str, ...]
    detectors: tuple[str, ...]
    regimes: tuple[str, ...]
    seeds: tuple[int, ...]
    n_chunks: int | None

    def configs(self) -> list[RunConfig]:
        """The runs (``reproduction_configs``); raises ValueError / OSError for bad choices."""
        return reproduction_configs(1, self.classifier, list(self.seeds),
                                    datasets=self.datasets, detectors=self.detectors,
                                    regimes=self.regimes, n_chunks=self.n_chunks)

    @staticmethod
    def label(cfg: RunConfig) -> str:
        """``sea0 PUDD-3 -I seed 0``."""
        return (f"{_name(cfg.dataset)} {_name(detector_label(cfg.detector, cfg.alpha))} "
                f"{_name(cfg.regime)} seed {cfg.seed}")

    def as_command(self) -> str:
        """The same reproduction from the command line."""
        seeds = f"{self.seeds[0]}-{self.seeds[-1]}" if len(self.seeds) > 1 else f"{self.seeds[0]}"
        length = f" --n-chunks {self.n_chunks}" if self.n_chunks else ""
        regimes = ("" if set(self.regimes) == set(REGIMES) else
                   "\n# the CLI runs both regimes; this selection has "
                   + ", ".join(_name(r) for r in self.regimes) + " only")
        return (f".venv/bin/python -m pudd_core reproduce --table 1 --classifier "
                f"{self.classifier} --seeds {seeds} --datasets {','.join(self.datasets)} "
                f"--detectors {','.join(self.detectors)}{length} --executor serial "
                f"--out /tmp/pudd_small_reproduction{regimes}")


@dataclass(frozen=True)
class Slots:
    """Error placeholders under the run controls."""

    datasets: Any
    detectors: Any
    regimes: Any

    def show(self, err: BaseException) -> None:
        """Put ``err`` under the control it names (the datasets when it names none)."""
        param = err.param if isinstance(err, ParameterError) else None
        if param == "detectors":
            messages.show_error(self.detectors, "Detectors", err, "Choose at least one.")
        elif param == "regimes":
            messages.show_error(self.regimes, "Regimes", err, "Choose at least one.")
        else:
            messages.show_error(self.datasets, "Datasets", err,
                                "Choose at least one dataset whose data are available.")


def run_controls(seed: int) -> tuple[SmallReproduction, Slots]:
    """Classifier, datasets, detectors, regimes, number of seeds and stream length."""
    top = st.columns([1.2, 2.4, 2.4])
    top[0].radio("Classifier", list(CLASSIFIERS), format_func=CLASSIFIERS.__getitem__,
                 **state.bound(state.REPRODUCTION_CLASSIFIER),
                 help="Per 100-chunk run on 2 cores: GNB about 1 s, VFDT about 7 s, DNN about "
                      "35 s (BENCHMARKS.md).")
    top[1].multiselect("Datasets", list(DATASETS), format_func=_name,
                       **state.bound(state.REPRODUCTION_DATASETS))
    top[2].multiselect("Detectors", list(LAYOUTS[1].detectors), format_func=_name,
                       **state.bound(state.REPRODUCTION_DETECTORS),
                       help="KSWIN costs about 60 s per GNB run (river's per-instance KS test).")
    bottom = st.columns([1.2, 1.2, 2.4, 1.2])
    bottom[0].number_input("Seeds", 1, 10, step=1, **state.bound(state.REPRODUCTION_SEEDS),
                           help=f"Seeds {seed}, {seed + 1}, … (from the sidebar seed on); the "
                                "paper averages 100.")
    bottom[1].select_slider("Stream length", options=list(LENGTHS),
                            format_func=lambda n: "paper's" if n == 0 else f"{n} chunks",
                            **state.bound(state.REPRODUCTION_N_CHUNKS),
                            help="Shorter streams are quicker but are not the paper's "
                                 "protocol: they form their own group in the store.")
    bottom[2].multiselect("Regimes", list(REGIMES), format_func=_REGIME_NAMES.__getitem__,
                          **state.bound(state.REPRODUCTION_REGIMES))
    slots = Slots(top[1].empty(), top[2].empty(), bottom[2].empty())
    n_seeds = int(state.get(state.REPRODUCTION_SEEDS))
    small = SmallReproduction(
        str(state.get(state.REPRODUCTION_CLASSIFIER)),
        tuple(state.get(state.REPRODUCTION_DATASETS)),
        tuple(state.get(state.REPRODUCTION_DETECTORS)),
        tuple(state.get(state.REPRODUCTION_REGIMES)),
        tuple(range(seed, seed + n_seeds)),
        int(state.get(state.REPRODUCTION_N_CHUNKS)) or None,
    )
    return small, slots


def committed_selector(reports: Sequence[CommittedReport]) -> CommittedReport:
    """The committed report to show (``results/table1_gnb.csv`` by default)."""
    by_file = {r.file: r for r in reports}
    if state.get(state.REPRODUCTION_COMMITTED) not in by_file:
        state.set_value(state.REPRODUCTION_COMMITTED, reports[0].file)
    st.selectbox("Committed report", list(by_file),
                 format_func=lambda f: f"{by_file[f].label} (results/{f})",
                 **state.bound(state.REPRODUCTION_COMMITTED),
                 help="The reports in results/, as committed: what `pudd_core reproduce` "
                      "wrote. They need no results store, so a fresh clone shows them.")
    return by_file[str(state.get(state.REPRODUCTION_COMMITTED))]


def comparison_selector() -> str:
    """Which ranking to test: Table 1, Table 2 or Fig. 5 (``claims.COMPARISONS``)."""
    st.radio("Ranking", list(COMPARISONS), format_func=COMPARISONS.__getitem__,
             **state.bound(state.REPRODUCTION_COMPARISON), horizontal=False)
    return str(state.get(state.REPRODUCTION_COMPARISON))


#: The page's sections, in the order they were one long page (the numbers stay in headings)
SECTIONS = dict(zip(state.REPRODUCTION_SECTIONS, (
    "1. Committed reports", "2. Rankings", "3. Claims", "4. Results store", "5. Run your own",
    "6. Threshold studies", "7. Delays", "8. Alarm timelines"), strict=True))


def _keep_section() -> None:
    """``on_change``: a click on the chosen section unselects it in the browser; keep it."""
    wkey = state.widget_key(state.REPRODUCTION_SECTION)
    if st.session_state[wkey] is None:
        st.session_state[wkey] = state.get(state.REPRODUCTION_SECTION)
    else:
        state.commit(state.REPRODUCTION_SECTION)


def section_selector() -> str:
    """The one section to show (``?section=`` in a link); the page draws only that one.

    The whole page was 8 sections, about 10,000 px: its first load cost 1.4-1.6 times the
    widget floor (issue 34 item 10).
    """
    st.segmented_control("Section", list(SECTIONS), format_func=SECTIONS.__getitem__,
                         key=state.widget_key(state.REPRODUCTION_SECTION),
                         on_change=_keep_section,
                         help="One section at a time; a copied link opens the same one.")
    return str(state.get(state.REPRODUCTION_SECTION))


def styled(frame: Any) -> Any:
    """A table for ``st.dataframe`` with missing cells shown as "–", numbers to 2 decimals."""
    return frame.style.format(precision=2, na_rep="–")
