"""Reproduction: our runs of the paper's tables beside its numbers, and a small run of our own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from pudd_core import plots
from pudd_core.experiments.runner import RunConfig
from pudd_core.paper import DATASETS
from pudd_core.reproduction.committed import FIG5_REPORT
from pudd_core.reproduction.findings import without_markers
from pudd_core.streams.locate import project_root
from pudd_core.views.reproduction import (
    NOT_COMPARABLE_DATASETS,
    available_reports,
    comparability_note,
    default_store,
    group_key,
    group_report,
    results_stamp,
    store_groups,
    store_problem,
    stored_keys,
    summarise,
)
from ui import cache, chart, delays, messages, progress, reproduction, state, studies
from ui.pages import ensure_routed

ensure_routed()  # first: run inside app.py's frame (ui/pages.py explains why)

#: Committed reports, first found first: the acceptance check with 100 seeds, else 10 seeds.
ACCEPTANCE_REPORTS = ("table1_gnb_acceptance_100seeds.csv", "table1_gnb.csv")

seed = int(state.get(state.SEED))
root = project_root()
store = default_store()
shown_store = reproduction.shown_path(store)  # never the server's absolute path

st.title("Reproduction")
st.markdown(
    "`pudd_core` re-implements the paper's experiments: every cell of its Table 1 is a "
    "detector × dataset × training regime, averaged over seeds. Runs are kept in a results "
    "store keyed by configuration, so nothing is computed twice."
)

st.subheader("The committed headline")
# the acceptance report with the paper's 100 seeds; the 10-seed full table otherwise
for name in ACCEPTANCE_REPORTS:
    headline = cache.committed_headline(str((root or store.parent.parent) / "results" / name))
    if headline is not None:
        break
if headline is None:
    st.info("No committed reproduction report in `results/` (see `results/README.md`).",
            icon=":material/inventory_2:")
else:
    head, n_seeds = headline
    cols = [*st.columns(2), *st.columns(2)]  # 2 x 2: labels and values fit at 1024 px
    cols[0].metric("Acceptance cells within ±1.5", f"{head.within} of {head.total}",
                   help="PUDD-1/3/5 of GNB-I and GNB-O on sea0, sea10, sea20, sine, mixed, "
                        "elec2 and powersupply, within ±1.5 accuracy points of the paper.")
    cols[1].metric("Largest gap among them", f"{head.largest_gap:.2f} points")
    cols[2].metric("… on elec2 and powersupply", f"{head.largest_gap_real:.2f} points",
                   help="Real streams read in order: the runs differ only by PUDD's "
                        "sampling of reference windows over 1000 values.")
    cols[3].metric("Runs behind it", f"{head.runs:,}",
                   help=f"Up to {n_seeds} seeds per cell.")
    st.markdown(
        f"Computed from `results/{name}`, as committed (`pudd_core reproduce` writes it; "
        "the runs themselves are in the gitignored results store of the machine that ran "
        "them). airline runs on a substitute file, so its cells are not comparable; "
        "`results/README.md` has the commands, times and caveats of every report."
    )


def _not_comparable(n_chunks: int | None = None) -> dict[str, str]:
    """dataset -> why its cells are not comparable with the paper's."""
    if n_chunks is not None:
        return {d: f"{n_chunks}-chunk streams" for d in DATASETS}
    return dict(NOT_COMPARABLE_DATASETS)


def _committed(results: Path) -> None:
    """1. The committed reports beside the paper's numbers."""
    st.subheader("1. The committed reproductions against the paper")
    reports = available_reports(results)
    if not reports:
        st.info("No committed reproduction report in `results/` (see `results/README.md`).",
                icon=":material/inventory_2:")
    else:
        chosen = reproduction.committed_selector(reports)
        shown = cache.committed_report(str(results / chosen.file), chosen.table, chosen.classifier)
        summary = cache.committed_summary(str(results / chosen.file), chosen.table,
                                          chosen.classifier, tuple(_not_comparable().items()))
        if shown is not None and summary is not None:
            if not chosen.comparable:
                st.warning(f"**Not comparable with the paper's numbers**: {chosen.note}.",
                           icon=":material/compare_arrows:")
            counts, cells_frame, reference_text = summary
            metric = st.columns(3)
            metric[0].metric("Cells run", f"{counts.run} of {counts.cells}")
            metric[1].metric("Within ±1.5 points", f"{counts.within} of {counts.run}")
            metric[2].metric("Seeds (up to)", f"{len(shown.seeds)}")
            comparable = shown.cells[~shown.cells["dataset"].isin(NOT_COMPARABLE_DATASETS)]
            chart.draw(plots.reproduction_figure,
                       comparable, title=f"{chosen.label}: ours against the paper's",
                       key="reproduction_committed_scatter")
            st.dataframe(reproduction.styled(cells_frame), hide_index=True, height=360)
            st.caption(
                "A cell is the mean per-chunk accuracy of each run, averaged over its seeds; "
                "`ours − paper` in accuracy points; – where a cell was not run or the paper gives "
                "no number. airline runs on substitute data: its rows are marked not comparable "
                "and left out of the chart. Rows marked (ref.) are references, not ranked: the "
                "same model with no detector, and the oracle adapting at the true drifts. Alarms: "
                "means over seeds; drifts detected, false alarms and delay where the drifts are "
                "known.")
            if reference_text:
                st.markdown("**Against the references.** " + reference_text)
            if shown.caveats:
                with st.expander("Where these runs differ from the paper's (the report's caveats)"):
                    st.markdown("\n".join(f"- {c}" for c in shown.caveats))
    # the long texts below are built only while their expander is open: 70 kB of Markdown
    # with code blocks (Streamlit's 1.6 MB highlighter) cost the page's load about a second
    for name in ("README.md", *(n.replace(".csv", ".md") for n in ACCEPTANCE_REPORTS)):
        text = cache.committed_text(str(results / name))
        if text:
            doc = st.expander(f"results/{name}, as committed", key=f"reproduction_open_{name}",
                              on_change="rerun")
            if doc.open:
                doc.markdown(without_markers(text))


def _rankings(results: Path, stamp: str) -> None:
    """2. Critical-difference diagrams of the paper's numbers and ours."""
    st.subheader("2. Rankings and their significance")
    st.markdown(
        "The paper's appendix backs its rankings with critical-difference diagrams (Demšar, "
        "JMLR 2006): the Friedman test over blocks, average ranks (1 = best), and the Nemenyi "
        "critical difference. Methods joined by a bar are not significantly different. Left: "
        "the paper's own numbers; right: our committed runs (airline left out)."
    )
    comparison = reproduction.comparison_selector()
    sides = st.columns(2)
    for side, (who, folder) in zip(sides, (("The paper's numbers", None),
                                            ("Our runs", str(results))), strict=True):
        with side:
            st.markdown(f"**{who}**")
            table, blocks, result = cache.ranking(folder, stamp, comparison)
            if comparison != "table1" and all(m.startswith("pudd") for m in table.columns):
                what = "SOTA method" if comparison == "table2" else "EK run"
                st.info(f"No diagram: only PUDD-1/3/5 in these runs, no {what} to rank them "
                        "against" + (" (Fig. 5 is printed as an image: no EK numbers)."
                                     if comparison == "fig5" and who.startswith("The paper")
                                     else "."), icon=":material/info:")
                continue
            if result is None:
                why = ("the paper prints Fig. 5 as an image: it gives no numbers for EK"
                       if comparison == "fig5" and who.startswith("The paper") else
                       f"{blocks} with {table.shape[1]} method(s) run: the test needs at least 3 "
                       "methods over 2 blocks")
                st.info(f"No diagram: {why}.", icon=":material/info:")
                continue
            chart.draw(plots.cd_diagram_figure, result, title=None,
                       key=f"reproduction_cd_{comparison}_{who[:3]}")
    beside = cache.beside_ranking(str(results), stamp, comparison)
    if len(beside):
        st.markdown("**Our runs: the ranked methods beside the references.** The references are "
                    "not ranked: the same model with no detector (it never adapts) and the oracle "
                    "(it adapts exactly at the true drifts, where they are known). A method at or "
                    "below the no-detector row on a block did not pay for its alarms there.")
        st.dataframe(beside, hide_index=True, column_config={
            "role": st.column_config.TextColumn(width="medium"),  # "reference, not ranked" whole
            "mean accuracy": st.column_config.NumberColumn(format="%.2f")})
        if (beside["role"] == "ranked").all():
            st.caption("No reference row in these reports yet: `reproduce` runs them by default "
                       "(`--detectors none,oracle --add` puts them into a report).")
    if comparison == "fig5":
        ek = cache.committed_frame(str(results / FIG5_REPORT))
        if ek is not None and len(ek):
            chart.draw(plots.ek_ablation_figure,
                       ek, title="Fig. 5 reproduced: PUDD against Ei-kMeans, mean over datasets",
                       key="reproduction_fig5")
            st.caption(f"From `results/{FIG5_REPORT}`; seeds per classifier in "
                       f"`results/{FIG5_REPORT.replace('.csv', '.md')}`. A reference is drawn "
                       "where it ran on every dataset of the bars: the oracle needs known drifts, "
                       "so it has no mark here (the table above gives it on the synthetic "
                       "streams).")


def _claims(results: Path, stamp: str) -> None:
    """3. The paper's claims, checked on its tables and on our runs."""
    st.subheader("3. The paper's claims, checked")
    claims, claims_text = cache.claims(str(results), stamp)
    # a counted claim: whether the count is right (the verdict) and whether it is significant
    claims = claims.assign(verdict=[
        f"{v} (count {s})" if s and v == "holds" else v
        for v, s in zip(claims["verdict"], claims["significance"], strict=True)])
    verdicts = claims.pivot_table(index=["claim", "statement"], columns="evidence",
                                  values="verdict", aggfunc="first").reset_index()
    verdicts = verdicts.rename(columns={"statement": "the paper says",
                                        "paper": "on its own tables", "ours": "on our runs"})
    verdicts = verdicts[["claim", "the paper says", "on its own tables", "on our runs"]]
    st.table(reproduction.styled(verdicts).hide())  # a few rows: no grid, the text wraps
    st.caption("**holds**: the numbers give it and the test rejects at 0.05; **not significant**: "
               "they point that way, the test does not reject; **does not hold**; **not "
               "checkable**: the numbers are not there. A counted claim holds when the count is "
               "right; \"count significant\" says it is also above chance (binomial test). "
               "`python -m pudd_core reproduce --claims` writes the same report to "
               "`results/claims.md`.")
    each_claim = st.expander("Each claim: what the numbers give, and the test behind the verdict",
                             key="reproduction_open_claims", on_change="rerun")
    if each_claim.open:
        # the claims one by one: the report's own title and verdict table are above already
        each_claim.markdown(claims_text[claims_text.find("\n## ") + 1:])


def _store(rows: Any, problem: str | None) -> None:
    """4. The results store's runs against the paper's numbers."""
    st.subheader("4. Our numbers against the paper's, from the results store")
    groups = store_groups(rows)
    if problem is not None:
        st.error(f"**Results store**: {problem}", icon=":material/error:")
    elif not groups:
        st.info(f"The results store `{shown_store}` holds no runs of the paper's classifiers yet. "
                "Run a small reproduction (section 5), or the full one from the command line (see "
                "`results/README.md`).", icon=":material/inventory_2:")
    if groups:
        group = reproduction.view_selector(groups)
        note = comparability_note(group.n_chunks)
        if note:
            st.warning(note, icon=":material/compare_arrows:")
        slot = st.empty()
        try:
            report = group_report(rows, group.classifier, group.n_chunks)
        except ValueError as err:
            slot.error(f"**Reproduction in the store**: {messages.escape(err)}. Choose another "
                       "group; runs of other settings need the command line's report.",
                       icon=":material/error:")
        else:
            counts = summarise(report)
            metric = [*st.columns(2), *st.columns(2)]
            metric[0].metric("Cells run", f"{counts.run} of {counts.cells}")
            metric[1].metric("Within ±1.5 points", f"{counts.within} of {counts.run}")
            metric[2].metric("Acceptance cells outside ±1.5", f"{counts.acceptance_outside}",
                             help="PUDD-1/3/5 on the seven acceptance datasets, both regimes.")
            metric[3].metric("Acceptance cells not run", f"{counts.acceptance_not_run}")
            chart.draw(plots.reproduction_figure,
                       report.cells, title=f"{group.label}: ours against the paper's",
                       key="reproduction_scatter")
            st.dataframe(reproduction.styled(plots.reproduction_frame(
                report.cells, not_comparable=_not_comparable(group.n_chunks))),
                hide_index=True, height=360)
            st.caption(
                f"Seeds in this group: {len(report.seeds)}; failed runs left out: "
                f"{report.n_errors}. A cell is the mean per-chunk accuracy of each run, averaged "
                "over its seeds; `ours − paper` in accuracy points."
            )
            markdown = st.expander("The report as Markdown (what `pudd_core reproduce` writes)",
                                   key="reproduction_open_report", on_change="rerun")
            if markdown.open:
                markdown.markdown(report.markdown())


def _run(rows: Any, problem: str | None) -> None:
    """5. A small reproduction into the results store."""
    st.subheader("5. Run a small reproduction")
    st.markdown(
        "A few cells with a few seeds; the runs go into the same store and section 4 "
        "picks them up. Runs already stored are not computed again."
    )
    small, slots = reproduction.run_controls(seed)
    configs: list[RunConfig] | None
    try:
        configs = small.configs()
    except (ValueError, OSError) as err:
        slots.show(err)
        configs = None
    if configs is not None and problem is not None:
        st.error(f"**Results store**: {problem}", icon=":material/error:")
    elif configs is not None:
        keys = stored_keys(rows)
        stored = sum(c.key() in keys for c in configs)
        st.caption(f"{len(configs)} runs ({stored} already in the store), into `{shown_store}`.")
        tasks = [cache.store_task(c, small.label(c), str(store), c.key() in keys) for c in configs]
        outcome = progress.run_tasks(state.REPRODUCTION_JOB, tasks, what="runs", auto=False)
        if outcome.computed:
            # show the group just run, read again from the store
            state.set_value(state.REPRODUCTION_VIEW, group_key(small.classifier, small.n_chunks))
            st.rerun()
        if outcome.complete:
            st.success(f"All {len(configs)} runs of this selection are in the store: choose "
                       f"“{group_key(small.classifier, small.n_chunks)}” in section 4 to see them.",
                       icon=":material/check_circle:")
        command = st.expander("The same from the command line", key="reproduction_open_command",
                              on_change="rerun")
        if command.open:
            command.code(small.as_command(), language="bash")


results = (root or store.parent.parent) / "results"
stamp = results_stamp(results)
section = reproduction.section_selector()
if section == "committed":
    _committed(results)
elif section == "rankings":
    _rankings(results, stamp)
elif section == "claims":
    _claims(results, stamp)
elif section in ("store", "run"):
    rows = cache.store_rows(str(store), cache.store_parts(str(store)))
    problem = store_problem(store)
    problem = None if problem is None else reproduction.shown_text(problem, store)
    (_store if section == "store" else _run)(rows, problem)
elif section == "studies":
    st.subheader("6. Threshold studies: false alarms, delay, skip rule, chunk size")
    studies.committed_studies(results)
elif section == "delays":
    delays.show(results)
else:
    delays.show_timelines(results)

state.write_query("reproduction")
