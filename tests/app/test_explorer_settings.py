"""Several PUDD settings and seeds in the Stream explorer, through AppTest.

Each test opens a 12-chunk SEA link, so every run takes well under a second.
"""

from __future__ import annotations

from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from harness.apptest import open_page, player
from pudd_core.streams import get_info

TIMEOUT = 120
FOUR = "3;5,cut_points=all;3,partition=ek;1,clamp_min=0"


@pytest.fixture
def elec2() -> None:
    info = get_info("elec2")
    if not info.available:
        pytest.skip(f"elec2: {info.unavailable_reason}")


def _open(query: dict[str, str]) -> AppTest:
    return open_page("pages/explorer.py", {"n_chunks": "12", **query}, timeout=TIMEOUT,
                     via_home=False)


def _labels(at: AppTest) -> list[str]:
    return [s["label"] for s in player(at)["spec"]["settings"]]


def test_a_link_with_four_settings_runs_and_shows_all_four() -> None:
    at = _open({"pudd": FOUR, "baselines": "adwin,ddm,kswin"})
    assert not at.error and not at.exception
    assert _labels(at) == ["PUDD-3", "PUDD-5 (all cuts)", "PUDD-3 (EK)", "PUDD-1 (floor 0)"]
    assert player(at)["spec"]["names"][4:] == ["ADWIN", "DDM", "KSWIN"]
    assert [at.select_slider(key=f"w_explorer_s0_{i}_alpha").value for i in range(4)] == [
        3, 5, 3, 1]
    assert at.selectbox(key="w_explorer_s0_1_cut_points").value == "all"
    assert at.selectbox(key="w_explorer_s0_2_partition").value == "ek"
    assert at.number_input(key="w_explorer_s0_3_clamp_min").value == 0
    assert at.query_params["pudd"] == FOUR
    assert not [b for b in at.button if b.key == "explorer_add_setting"]  # four at most


def test_a_changed_option_is_its_settings_run_and_link() -> None:
    at = _open({"pudd": "3;5"})
    at.checkbox(key="w_explorer_s0_1_yates").uncheck().run(timeout=TIMEOUT)
    assert _labels(at) == ["PUDD-3", "PUDD-5 (no Yates)"]
    assert at.query_params["pudd"] == "3;5,yates=False"
    spec = player(at)["spec"]
    assert spec["settings"][1]["colour"] != spec["settings"][0]["colour"]


def test_adding_and_removing_settings() -> None:
    at = _open({})
    at.button(key="explorer_add_setting").click().run(timeout=TIMEOUT)
    assert _labels(at) == ["PUDD-3", "PUDD-5"] and at.query_params["pudd"] == "3;5"
    at.button(key="w_explorer_s1_0_remove").click().run(timeout=TIMEOUT)
    assert _labels(at) == ["PUDD-5"] and at.query_params["pudd"] == "5"
    assert at.select_slider(key="w_explorer_s2_0_alpha").value == 5  # rows re-seeded


def test_a_bad_setting_is_explained_beside_it_and_the_others_run() -> None:
    at = _open({"pudd": "3;4,skip_rule=sometimes;6"})
    [error] = at.error
    assert error.value.startswith("**Setting 2** is left out of the run; the others run.")
    assert "skip_rule=sometimes" in error.value
    assert _labels(at) == ["PUDD-3", "PUDD-6"]
    assert at.select_slider(key="w_explorer_s0_1_alpha").value == 4  # what parsed is shown
    at.select_slider(key="w_explorer_s0_1_alpha").set_value(7).run(timeout=TIMEOUT)
    assert not at.error and _labels(at) == ["PUDD-3", "PUDD-7", "PUDD-6"]


def test_a_repeated_setting_is_not_run_twice() -> None:
    at = _open({"pudd": "3;3,yates=True"})
    assert "is the same as setting 1" in at.warning[0].value
    assert _labels(at) == ["PUDD-3"]


def test_three_seeds_show_a_band_and_one_seed_on_request() -> None:
    at = _open({"seeds": "3", "pudd": "3;5"})
    spec = player(at)["spec"]
    assert spec["band"] == 3
    names = {t["name"] for t in spec["charts"]["trace"]["figure"]["data"]}
    assert {"PUDD-3 band low", "PUDD-5 band high", "DDM band low"} <= names
    at.radio(key="w_explorer_seed_view").set_value("one").run(timeout=TIMEOUT)
    assert player(at)["spec"]["band"] == 1 and at.query_params["seed_view"] == "one"
    assert at.query_params["seeds"] == "3"


def test_an_old_link_with_one_threshold_opens_that_setting() -> None:
    at = _open({"alpha": "5"})
    assert _labels(at) == ["PUDD-5"]
    assert at.query_params["pudd"] == "5" and "alpha" not in at.query_params


def test_the_setting_shown_in_detail_comes_from_the_link() -> None:
    at = _open({"pudd": "3;5", "detail": "2", "chunk": "4"})
    args = player(at)
    assert (args["detail"], args["start"]) == (2, 4)
    assert at.query_params["detail"] == "2"


def test_the_exports_are_offered() -> None:
    at = _open({"pudd": "3;5"})
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["Run log (CSV)", "Every cut's χ² test (CSV)",
                      "Windows: tables and histograms (CSV)", "Everything (JSON)"]


def test_changing_the_seed_count_keeps_the_show_choice_ticked_and_the_link_clean() -> None:
    """Issue 25, item 6: after two seed changes nothing was ticked, then one seed was shown.

    The browser keeps sending the label it was last told to show; a seed change that
    relabels the options does not tell it a new one.
    """
    from harness.apptest import send_stale_label

    for view in ("band", "one"):
        at = _open({"seeds": "2", "pudd": "3", "seed_view": view})
        radio = at.radio(key="w_explorer_seed_view")
        held = radio.options[radio.index]  # what the browser shows, and sends back
        for count in (3, 4, 7):
            at.number_input(key="w_explorer_seeds").set_value(count)
            send_stale_label(at.radio(key="w_explorer_seed_view"), held)
            at.run(timeout=TIMEOUT)
            radio = at.radio(key="w_explorer_seed_view")
            assert radio.value == view and radio.options[radio.index] == held
            assert at.query_params["seed_view"] == view
            assert at.query_params["seeds"] == str(count)
            assert player(at)["spec"]["band"] == (count if view == "band" else 1)


def test_a_stale_label_never_becomes_a_setting_whatever_the_labels() -> None:
    """The guard under the fix: a label the link parser refuses keeps the canonical value."""
    from harness.apptest import send_stale_label

    at = _open({"seeds": "3", "seed_view": "one"})
    send_stale_label(at.radio(key="w_explorer_seed_view"), "all 2 seeds")
    at.run(timeout=TIMEOUT)
    assert at.query_params["seed_view"] == "one"
    assert at.session_state["explorer_seed_view"] == "one"


# --- seeds that change nothing (issue 34 item 7) ------------------------------------------------
def _task_counts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many runs each rerun asks ``progress.run_tasks`` for (each is computed or cached)."""
    import ui.progress

    counts: list[int] = []
    real = ui.progress.run_tasks

    def counting(job: Any, tasks: Any, **kwargs: Any) -> Any:
        counts.append(len(tasks))
        return real(job, tasks, **kwargs)

    monkeypatch.setattr(ui.progress, "run_tasks", counting)
    return counts


def test_elec2_with_gnb_and_short_windows_runs_one_seed_and_says_so(
    monkeypatch: pytest.MonkeyPatch, elec2: None
) -> None:
    """10 chunks of 100: no reference window outgrows PUDD's sample of 1,000, elec2's rows
    and Gaussian NB ignore the seed; five seeds are one run each, and the page says so."""
    counts = _task_counts(monkeypatch)
    at = _open({"dataset": "elec2", "chunk_size": "100", "n_chunks": "10", "seeds": "5",
                "baselines": "ddm,none"})
    assert not at.exception and not at.error
    notes = [c.value for c in at.caption if "does not depend on the seed" in c.value]
    assert notes == ["elec2 × gnb does not depend on the seed with these settings: one run "
                     "shown, not a mean of 5 identical ones."]
    assert counts and set(counts) == {3}  # PUDD-3, DDM, no detector: once each
    assert player(at)["spec"]["band"] == 1  # no band of identical runs


def test_only_the_runs_that_depend_on_the_seed_are_run_per_seed(
    monkeypatch: pytest.MonkeyPatch, elec2: None
) -> None:
    """Chunks of 1,000: PUDD samples its reference windows, so its runs differ by seed; DDM
    and no detector do not, and are run once."""
    counts = _task_counts(monkeypatch)
    at = _open({"dataset": "elec2", "n_chunks": "6", "seeds": "3", "baselines": "ddm,none"})
    assert not at.exception and not at.error
    [note] = [c.value for c in at.caption if "the same for every seed" in c.value]
    assert note.startswith("Only PUDD-3 depends on the seed here (through PUDD's bucketing "
                           "sample (reference windows over 1,000 values))")
    assert "DDM and No detector (ref.) are the same for every seed" in note
    assert counts and set(counts) == {3 + 2}  # not 3 × 3
    assert player(at)["spec"]["band"] == 3
