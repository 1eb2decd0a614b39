"""Reproduction: our runs of the paper's tables beside its numbers, and a small run of our own."""

from __future__ import annotations

import streamlit as st

from pudd_core import plots
from pudd_core.streams.locate import project_root
from pudd_core.views.reproduction import (
    acceptance_headline,
    default_store,
    group_key,
    group_report,
    store_groups,
    stored_keys,
    summarise,
)
from ui import cache, controls, messages, progress, reproduction, state
from ui.pages import ensure_routed

ensure_routed()  # first: run inside app.py's frame (ui/pages.py explains why)

#: Committed reports, first found first: the acceptance check with 100 seeds, else 10 seeds.
ACCEPTANCE_REPORTS = ("table1_gnb_acceptance_100seeds.csv", "table1_gnb.csv")

seed = int(state.get(state.SEED))
root = project_root()
store = default_store()

st.title("Reproduction")
st.markdown(
    "`pudd_core` re-implements the paper's experiments: every cell of its Table 1 is a "
    "detector × dataset × training regime, averaged over seeds. Runs are kept in a results "
    "store keyed by configuration, so nothing is computed twice."
)

st.subheader("The committed headline")
# the acceptance report with the paper's 100 seeds; the 10-seed full table otherwise
for name in ACCEPTANCE_REPORTS:
    committed = cache.committed_report(str((root or store.parent.parent) / "results" / name))
    if committed is not None:
        break
if committed is None:
    st.info("No committed reproduction report in `results/` (see `results/README.md`).",
            icon=":material/inventory_2:")
else:
    head = acceptance_headline(committed)
    cols = [*st.columns(2), *st.columns(2)]  # 2 x 2: labels and values fit at 1024 px
    cols[0].metric("Acceptance cells within ±1.5", f"{head.within} of {head.total}",
                   help="PUDD-1/3/5 of GNB-I and GNB-O on sea0, sea10, sea20, sine, mixed, "
                        "elec2 and powersupply, within ±1.5 accuracy points of the paper.")
    cols[1].metric("Largest gap among them", f"{head.largest_gap:.2f} points")
    cols[2].metric("… on elec2 and powersupply", f"{head.largest_gap_real:.2f} points",
                   help="Real streams read in order: the runs differ only by PUDD's "
                        "sampling of reference windows over 1000 values.")
    cols[3].metric("Runs behind it", f"{head.runs:,}",
                   help=f"Up to {len(committed.seeds)} seeds per cell.")
    st.markdown(
        f"Computed from `results/{name}`, as committed (`pudd_core reproduce` writes it; "
        "the runs themselves are in the gitignored results store of the machine that ran "
        "them). airline runs on a substitute file, so its cells are not comparable; "
        "`results/README.md` has the commands, times and caveats of every report."
    )
for name in ("README.md", *(n.replace(".csv", ".md") for n in ACCEPTANCE_REPORTS)):
    text = cache.committed_text(str((root or store.parent.parent) / "results" / name))
    if text:
        with st.expander(f"results/{name}, as committed"):
            st.markdown(text)

st.subheader("1. Our numbers against the paper's, from the results store")
rows = cache.store_rows(str(store), cache.store_parts(str(store)))
groups = store_groups(rows)
if not groups:
    st.info(f"The results store `{store}` holds no runs of the paper's classifiers yet. Run a "
            "small reproduction below, or the full one from the command line (see "
            "`results/README.md`).", icon=":material/inventory_2:")
else:
    group = reproduction.view_selector(groups)
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
        controls.plot(plots.reproduction_figure(
            report.cells, title=f"{group.label}: ours against the paper's"),
            key="reproduction_scatter")
        st.dataframe(plots.reproduction_frame(report.cells), hide_index=True, height=360)
        st.caption(
            f"Seeds in this group: {len(report.seeds)}; failed runs left out: "
            f"{report.n_errors}. A cell is the mean per-chunk accuracy of each run, averaged "
            "over its seeds; `ours − paper` in accuracy points."
        )
        with st.expander("The report as Markdown (what `pudd_core reproduce` writes)"):
            st.markdown(report.markdown())

st.subheader("2. Run a small reproduction")
st.markdown(
    "A few cells with a few seeds; the runs go into the same store and the table above "
    "picks them up. Runs already stored are not computed again."
)
small, slots = reproduction.run_controls(seed)
try:
    configs = small.configs()
except (ValueError, OSError) as err:
    slots.show(err)
else:
    keys = stored_keys(rows)
    stored = sum(c.key() in keys for c in configs)
    st.caption(f"{len(configs)} runs ({stored} already in the store), into `{store}`.")
    tasks = [cache.store_task(c, small.label(c), str(store), c.key() in keys) for c in configs]
    outcome = progress.run_tasks(state.REPRODUCTION_JOB, tasks, what="runs", auto=False)
    if outcome.computed:
        # show the group just run, read again from the store
        st.session_state[state.REPRODUCTION_VIEW] = group_key(small.classifier, small.n_chunks)
        st.session_state.pop(f"w_{state.REPRODUCTION_VIEW}", None)
        st.rerun()
    if outcome.complete:
        st.success(f"All {len(configs)} runs of this selection are in the store: choose "
                   f"“{group_key(small.classifier, small.n_chunks)}” above to see them.",
                   icon=":material/check_circle:")
    with st.expander("The same from the command line"):
        st.code(small.as_command(), language="bash")

state.write_query("reproduction")
