"""The Reproduction page through AppTest, on a results store in a temporary folder."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from harness.apptest import figures, open_page
from pudd_core.experiments.grid import ResultStore, run_grid
from pudd_core.reproduction import reproduction_configs

TIMEOUT = 120


@pytest.fixture
def store(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Four tiny GNB runs (PUDD-3 and DDM on 10 chunks of sea0, seeds 0 and 1) in a new store."""
    path = tmp_path / "store"
    configs = reproduction_configs(1, "gnb", [0, 1], datasets=["sea0"],
                                   detectors=["pudd-3", "ddm"], regimes=["incremental"],
                                   n_chunks=10)
    run_grid(configs, store=path, executor="serial", progress=False)
    monkeypatch.setenv("PUDD_RESULTS_STORE", str(path))
    return path


def _page(query: dict[str, str] | None = None, section: str | None = None) -> AppTest:
    """The page opened by a link, at ``section`` (``?section=``) when given."""
    link = {**(query or {}), **({"section": section} if section else {})}
    return open_page("pages/reproduction.py", link or None, timeout=TIMEOUT)


def _choose(at: AppTest, section: str) -> AppTest:
    """A click on ``section`` in the page's section chooser."""
    return at.segmented_control(key="w_reproduction_section").set_value(section).run(
        timeout=TIMEOUT)


def _store_table(at: AppTest) -> pd.DataFrame:
    """The store's table: the last of the tables of cells (the committed report's is first)."""
    tables = [d.value for d in at.dataframe if "within ±1.5" in d.value.columns]
    return tables[-1]


def _row(at: AppTest, detector: str) -> pd.Series:
    table = _store_table(at)
    return table[(table["detector"] == detector) & (table["dataset"] == "sea0")
                 & (table["regime"] == "-I")].iloc[0]


def test_the_stored_runs_appear_beside_the_papers_numbers(store: Path) -> None:
    at = _page(section="store")
    assert at.title[0].value == "Reproduction"
    assert at.selectbox(key="w_reproduction_view").value == "gnb:10"
    rows = ResultStore(store).load()
    pudd = rows[rows["detector"] == "pudd"]["accuracy"].mean() * 100
    row = _row(at, "PUDD-3")
    assert row["paper (%)"] == 94.81  # the paper's GNB-I PUDD-3 on sea0
    assert row["ours (%)"] == pytest.approx(round(pudd, 2))
    assert row["seeds"] == 2
    assert _row(at, "DDM")["paper (%)"] == 93.97
    spec = figures(at)["reproduction_scatter"]
    assert [t["name"] for t in spec["data"]] == ["±1.5 points", "ours = paper", "PUDD-1/3/5",
                                                 "Baselines"]
    assert {m.label: m.value for m in at.metric}["Cells run"] == "2 of 10"


def test_the_committed_headline_is_computed_from_the_committed_report(store: Path) -> None:
    from pudd_core.reproduction.committed import committed_report
    from pudd_core.reproduction.report import acceptance_headline

    results = Path(__file__).resolve().parents[2] / "results"
    name = next(n for n in ("table1_gnb_acceptance_100seeds.csv", "table1_gnb.csv")
                if (results / n).is_file())
    head = acceptance_headline(committed_report(results / name))
    at = _page(section="committed")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Acceptance cells within ±1.5"] == f"{head.within} of {head.total}"
    assert metrics["Largest gap among them"] == f"{head.largest_gap:.2f} points"
    assert metrics["Runs behind it"] == f"{head.runs:,}"
    assert f"`results/{name}`" in " ".join(md.value for md in at.markdown)
    # results/README.md as committed, without its generated blocks' comment lines (escaped
    # HTML would show them as text) but with their findings
    assert not [e for e in at.expander if e.label == "results/README.md, as committed"][0
                ].markdown  # built when opened, not with the page
    at.session_state["reproduction_open_README.md"] = True  # a click on it
    at.run(timeout=TIMEOUT)
    shown = " ".join(" ".join(md.value for md in e.markdown) for e in at.expander
                     if e.label == "results/README.md, as committed")
    assert "acceptance" in shown.lower()
    assert not re.search(r"<!-- finding: [a-z0-9-]+ -->|<!-- /finding -->", shown)


def test_a_small_reproduction_runs_into_the_store_and_updates_the_table(store: Path) -> None:
    at = _page({"datasets": "sea0", "detectors": "pudd-3", "seeds": "3", "chunks": "10"}, "run")
    at.multiselect(key="w_reproduction_regimes").set_value(["incremental"]).run(timeout=TIMEOUT)
    run = next(b for b in at.button if b.label.startswith("Run the 1 missing"))
    run.click().run(timeout=TIMEOUT)
    assert not at.exception
    assert len(ResultStore(store).load()) == 5  # seed 2 of PUDD-3 was added
    assert any("All 3 runs of this selection are in the store" in s.value
               and "“gnb:10” in section 4" in s.value for s in at.success)
    _choose(at, "store")
    assert at.selectbox(key="w_reproduction_view").value == "gnb:10"  # the group just run
    assert _row(at, "PUDD-3")["seeds"] == 3


def test_an_empty_selection_is_an_inline_error_and_an_empty_store_a_hint(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PUDD_RESULTS_STORE", str(tmp_path / "none"))
    at = _page(section="store")
    assert any("holds no runs of the paper's classifiers yet" in i.value for i in at.info)
    # the store's place, but not the server's folders: …/<parent>/<store>
    assert any(f"`{Path('…', tmp_path.name, 'none')}`" in i.value for i in at.info)
    assert not any(str(tmp_path) in str(e.value) for e in (*at.info, *at.caption, *at.markdown))
    _choose(at, "run")
    assert not any(str(tmp_path) in str(e.value) for e in (*at.info, *at.caption, *at.markdown))
    at.multiselect(key="w_reproduction_detectors").set_value([]).run(timeout=TIMEOUT)
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and errors[0].startswith("**Detectors**: detectors must be among")


def test_a_results_store_that_is_a_file_is_an_error_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """$PUDD_RESULTS_STORE naming a file: said where the store's runs and the small runs
    would be, with the variable to set; not "holds no runs yet", and no Run button."""
    path = tmp_path / "store.txt"
    path.write_text("a file where the results store should be")
    monkeypatch.setenv("PUDD_RESULTS_STORE", str(path))
    at = _page(section="store")
    assert not at.exception
    errors = [e.value for e in at.error]
    _choose(at, "run")  # the small reproduction's section says the same
    assert not at.exception
    errors += [e.value for e in at.error]
    shown = Path("…", *path.parts[-2:])  # the server's absolute path is not shown
    assert len(errors) == 2 and all(
        e.startswith(f"**Results store**: The results store `{shown}` is a file, not a folder")
        and str(tmp_path) not in e
        and "Set `$PUDD_RESULTS_STORE` to a writable folder" in e for e in errors), errors
    assert not any("holds no runs" in i.value for i in at.info)
    assert not [b for b in at.button if "Run" in str(b.label)]
    assert path.read_text() == "a file where the results store should be"


# --- a fresh clone: no results store, only the committed reports -------------------------------
RESULTS = Path(__file__).resolve().parents[2] / "results"


@pytest.fixture
def empty_store(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    path = tmp_path / "no-store"  # absent, as on a fresh clone (results/store is gitignored)
    monkeypatch.setenv("PUDD_RESULTS_STORE", str(path))
    return path


def _display(element) -> pd.DataFrame:
    """What the browser shows of a styled st.dataframe: its display strings."""
    import pyarrow as pa

    styler = element.proto.arrow_data.styler
    return pa.ipc.open_stream(styler.display_values).read_all().to_pandas()


def test_a_fresh_clone_shows_the_committed_report_with_dashes_not_none(
        empty_store: Path) -> None:
    at = _page(section="committed")
    committed = pd.read_csv(RESULTS / "table1_gnb.csv")
    table = at.dataframe[0].value
    assert len(table) == len(committed)
    shown = _display(at.dataframe[0])
    text = shown.astype(str).to_numpy().ravel().tolist()
    assert "None" not in text and "nan" not in text
    # a cell that was not run reads "–", every other cell its number; the paper's is there
    missing = committed["ours"].isna().to_numpy()
    assert (shown.loc[missing, "ours (%)"] == "–").all()
    assert not (shown.loc[~missing, "ours (%)"] == "–").any()
    kswin = ((table["detector"] == "KSWIN") & (table["dataset"] == "sea0")
             & (table["regime"] == "-I"))
    assert shown.loc[kswin.to_numpy(), "paper (%)"].tolist() == ["91.72"]
    # airline is marked not comparable, every other dataset comparable
    airline = table["dataset"] == "airline"
    assert set(table.loc[airline, "comparable"]) == {
        "no: substitute data (2007 flights, 601 dims, 50 chunks)"}
    assert set(table.loc[~airline, "comparable"]) == {"yes"}
    paper_rows = committed[~committed["detector"].isin(["none", "oracle"])]  # refs: unranked
    ours = paper_rows.dropna(subset=["ours"])
    assert {m.label: m.value for m in at.metric}["Cells run"] == \
        f"{len(ours)} of {len(paper_rows)}"
    assert any("holds no runs" in i.value for i in _choose(at, "store").info)


def test_cd_diagrams_side_by_side_from_the_papers_numbers_and_ours(empty_store: Path) -> None:
    from harness.apptest import figures
    from pudd_core.reproduction.claims import comparison_table, paper_cells
    from pudd_core.reproduction.significance import friedman_nemenyi

    at = _page(section="rankings")
    figs = figures(at)
    paper = friedman_nemenyi(comparison_table(paper_cells(), "table1")[0])
    cd = figs["reproduction_cd_table1_The"]
    texts = [a["text"] for a in cd["layout"]["annotations"]]
    assert f"CD = {paper.critical_difference:.2f}" in texts
    assert any("48 cases" in t and "alpha = 0.05" in t for t in texts)  # the caption
    assert "reproduction_cd_table1_Our" in figs
    at.radio(key="w_reproduction_comparison").set_value("table2").run(timeout=TIMEOUT)
    figs = figures(at)
    texts = [a["text"] for a in figs["reproduction_cd_table2_The"]["layout"]["annotations"]]
    assert "CD = 3.71" in texts and "PUDD-3" in texts
    assert "PUDD-3 2.38" in texts[-1].replace("<br>", " ")  # the caption's average ranks
    # our Table 2 runs hold PUDD only until the SOTA methods are run: no diagram, a reason
    assert "reproduction_cd_table2_Our" in figs or any(
        "no SOTA method" in i.value for i in at.info)
    at.radio(key="w_reproduction_comparison").set_value("fig5").run(timeout=TIMEOUT)
    assert not at.exception
    assert any("image" in i.value for i in at.info)


def test_the_claims_table_is_the_claims_check(empty_store: Path) -> None:
    from pudd_core.reproduction.claims import check_claims, paper_cells

    at = _page(section="claims")
    claims = next(t.value for t in at.table if "the paper says" in t.value.columns)
    expected = {c.claim: c.verdict + (f" (count {c.significance})"
                                      if c.significance and c.verdict == "holds" else "")
                for c in check_claims(paper_cells(), "paper")}
    assert dict(zip(claims["claim"], claims["on its own tables"], strict=True)) == expected
    assert expected["3b"] == "does not hold"  # 98.49 is 0.83 points above MCD-DD, not 2.8
    # the paper's count 20 of 24 is right, and not above chance: both are said
    assert expected["1b"] == "holds (count not significant)"


def test_a_short_stream_group_is_marked_not_comparable(store: Path) -> None:
    at = _page(section="store")
    assert at.selectbox(key="w_reproduction_view").value == "gnb:10"
    assert any("10-chunk streams" in w.value and "Not comparable" in w.value
               for w in at.warning)
    assert set(_store_table(at)["comparable"]) == {"no: 10-chunk streams"}


def test_a_committed_report_with_cells_not_run_shows_dashes(empty_store: Path) -> None:
    at = _page(section="committed")
    report = "table2_dnn-ensemble.csv"
    at.selectbox(key="w_reproduction_committed").set_value(report).run(timeout=60)
    committed = pd.read_csv(RESULTS / report)
    missing = committed["ours"].isna().to_numpy()
    assert missing.any()  # IWE is the paper's number only
    shown = _display(at.dataframe[0])
    assert len(shown) == len(committed)
    assert (shown.loc[missing, "ours (%)"] == "–").all()
    text = shown.astype(str).to_numpy().ravel().tolist()
    assert "None" not in text and "nan" not in text
    assert not at.exception


def test_the_chosen_reports_caveats_are_on_the_page(empty_store: Path) -> None:
    from pudd_core.reproduction import read_report

    at = _page(section="committed")
    [box] = [e for e in at.expander if e.label.startswith("Where these runs differ")]
    text = "\n".join(m.value for m in box.markdown)
    # the report on show by default, as the table test above reads it
    caveats = read_report(RESULTS / "table1_gnb.csv", 1, "gnb").caveats
    assert caveats and all(c in text for c in caveats)


def test_the_delays_and_timelines_are_drawn_from_the_committed_files(empty_store: Path) -> None:
    from pudd_core.reproduction.delays import read_runs, study_tables

    at = _page(section="delays")
    shown = figures(at)
    results = Path(__file__).resolve().parents[2] / "results"
    runs = read_runs(results / "delays_runs.csv")
    _, summary, curve = study_tables(runs[runs["dataset"] != "cifar10-cd"])
    ecdf = shown["delays_ecdf_False"]
    assert len(ecdf["data"]) == len(summary)  # one curve per row at the tables' thresholds
    assert "PUDD-3" in {t["name"] for t in ecdf["data"]}
    assert len(shown["delays_curve_False"]["data"]) == curve["detector"].nunique()
    assert "first-detected won-lost" in " ".join(m.value for m in at.markdown)
    assert not any(k.startswith("timeline_") for k in shown)  # section 8 is not drawn
    # the CIFAR half draws from the same file
    at.radio(key="delays_group").set_value("CIFAR-10-CD (pretrained CNN)").run(timeout=TIMEOUT)
    assert not at.exception
    cifar = runs[runs["dataset"] == "cifar10-cd"]
    assert len(figures(at)["delays_curve_True"]["data"]) == cifar["detector"].nunique() + 1
    # section 8, chosen on the page: each stream's timeline from the committed file
    _choose(at, "timelines")
    assert not at.exception
    shown = figures(at)
    timeline = pd.read_csv(results / "timelines_runs.csv")
    first = timeline["dataset"].iloc[0]
    # the timeline is one classifier's runs at one seed: the first of each by default
    shown_runs = timeline[(timeline["dataset"] == first)
                          & (timeline["classifier"] == timeline["classifier"].iloc[0])
                          & (timeline["seed"] == timeline["seed"].min())]
    drawn = shown[f"timeline_{first}"]["data"]
    assert len(drawn) == len(shown_runs) == 10
    pudd3 = shown_runs[shown_runs["detector"] == "pudd-3"]
    assert next(t["x"] for t in drawn if t["name"] == "PUDD-3") == _alarm_list(pudd3["alarms"])
    # the spread over seeds: one box per classifier, one dot per run with alarms
    spread = shown[f"timeline_spread_{first}"]["data"]
    on_first = timeline[timeline["dataset"] == first]
    assert [t["name"] for t in spread] == [c.upper() for c in on_first["classifier"].unique()]
    with_alarms = on_first[on_first["alarms"] != "[]"]
    assert sum(len(t["y"]) for t in spread) == len(with_alarms)
    assert "near an event" in " ".join(m.value for m in at.markdown)
    # another stream's timeline draws from the same file
    at.radio(key="timeline_stream").set_value("airline").run(timeout=TIMEOUT)
    assert not at.exception
    airline = timeline[(timeline["dataset"] == "airline") & (timeline["seed"] == 0)
                       & (timeline["classifier"] == timeline["classifier"].iloc[0])]
    assert len(figures(at)["timeline_airline"]["data"]) == len(airline)


def _alarm_list(column: pd.Series) -> list[int]:
    import json

    return [int(v) for v in json.loads(column.iloc[0])]


def test_the_committed_threshold_studies_are_shown_as_their_csvs_give(empty_store: Path) -> None:
    from pudd_core.reproduction.studies import display_tables
    from pudd_core.streams.locate import project_root

    results = project_root() / "results"
    expected = display_tables(results)
    at = _page(section="studies")
    assert any(h.value.startswith("6. Threshold studies") for h in at.subheader)
    if not expected:
        assert any("threshold_studies.py" in i.value for i in at.info)
        return
    studies = [d for d in at.dataframe if "variant" in d.value.columns
               or "chunk size" in d.value.columns]
    assert studies == []  # each table is built when its expander opens
    for i in range(len(expected)):
        at.session_state[f"studies_open_{i}"] = True  # a click on each
    at.run(timeout=TIMEOUT)
    shown = [d.value for d in at.dataframe if "variant" in d.value.columns
             or "chunk size" in d.value.columns]
    assert len(shown) == len(expected)
    for frame, want in zip(shown, expected.values(), strict=True):
        pd.testing.assert_frame_equal(frame.reset_index(drop=True),
                                      want.reset_index(drop=True), check_dtype=False)
    assert any("studies choose" in m.value for m in at.markdown)


# --- one section at a time, chosen on the page or by a link -------------------------------------
def test_each_section_is_drawn_alone_and_a_link_reopens_the_chosen_one(empty_store: Path) -> None:
    """The headline and one section (the claims by default: no grid, no chart, so the page
    loads within 1.2x the widget floor); a click writes ``?section=`` and that link opens
    the same section with the same content; a click on the chosen section keeps it."""
    from ui.reproduction import SECTIONS

    at = _page()
    numbered = [h.value for h in at.subheader if h.value[0].isdigit()]
    assert numbered == ["3. The paper's claims, checked"]
    assert at.query_params["section"] == "claims"
    assert any(m.label == "Acceptance cells within ±1.5" for m in at.metric)  # the headline
    for i, section in enumerate(SECTIONS, start=1):
        _choose(at, section)
        assert not at.exception
        numbered = [h.value for h in at.subheader if h.value[0].isdigit()]
        assert len(numbered) == 1 and numbered[0].startswith(f"{i}. "), (section, numbered)
        assert any(m.label == "Acceptance cells within ±1.5" for m in at.metric)
        assert at.query_params["section"] == section
        linked = _page(section=section)  # the copied link, in a new session
        assert not linked.exception
        assert [h.value for h in linked.subheader] == [h.value for h in at.subheader]
        assert [m.value for m in linked.markdown] == [m.value for m in at.markdown]
        assert figures(linked).keys() == figures(at).keys()
        for kind in ("dataframe", "table"):
            assert [e.value.shape for e in getattr(linked, kind)] == [
                e.value.shape for e in getattr(at, kind)]
    at.segmented_control(key="w_reproduction_section").set_value(None).run(timeout=TIMEOUT)
    assert at.query_params["section"] == "timelines"  # a click on it again: still shown
    assert at.segmented_control(key="w_reproduction_section").value == "timelines"
    bad = _page(section="all")  # refused by name in the sidebar; the default shown
    assert [h.value for h in bad.subheader if h.value[0].isdigit()][0].startswith("3. ")
    [warning] = [w.value for w in bad.sidebar.warning if "Ignored the link" in w.value]
    assert "`section=all`" in warning and "expected one of committed, rankings" in warning
