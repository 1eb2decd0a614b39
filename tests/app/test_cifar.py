"""The CIFAR-10-CD page through AppTest: without images, and with them (marker datasets)."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from harness.apptest import figures, open_page, shown
from pudd_core.views.cifar import CIFAR10_CLASSES, interest_drift

TIMEOUT = 180


def _page(query: dict[str, str] | None = None) -> AppTest:
    return open_page("pages/cifar10-cd.py", query, timeout=TIMEOUT)


def _values(v: Any) -> Any:
    """A trace's array as a list: plotly 6 sends numpy arrays as base64 typed arrays."""
    if isinstance(v, dict) and "bdata" in v:
        arr = np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"])
        if "shape" in v:
            arr = arr.reshape([int(n) for n in str(v["shape"]).split(",")])
        return arr.tolist()
    return v


@pytest.fixture
def no_images(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PUDD_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PUDD_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "data").mkdir()


def test_without_images_the_page_offers_the_download_and_keeps_the_markov_process(
    no_images: None,
) -> None:
    at = _page()
    assert at.title[0].value.startswith("CIFAR-10-CD")
    errors = [e.value for e in at.error]
    assert errors == ["**CIFAR-10 images**: the data of CIFAR-10-CD (interest drift) "
                      "(`cifar10/cifar-10-batches-py`) is not on this server yet."]
    assert at.button(key="cifar_download").label == (
        "Download CIFAR-10-CD (interest drift), 170.5 MB")
    ways = shown(at.expander[0].markdown[0].value)  # the registry's ways, for Python users
    for way in ("1. pass an explicit path", "2. set PUDD_DATA_DIR", "3. put them in the cache"):
        assert way in ways
    captions = " ".join(c.value for c in at.main.caption)
    assert "cifar10` on the server" in captions  # where a copy goes
    charts = figures(at)
    assert set(charts) == {"cifar_matrix", "cifar_timeline"}  # no images, no runs
    assert not [b for b in at.button if b.label.startswith("Run")]


def test_the_download_button_fetches_the_official_batches_or_says_where_to_copy_them(
    no_images: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import urllib.error

    import pudd_core.streams

    calls: list[tuple[str, dict[str, Any]]] = []

    def offline(name: str, **kwargs: Any) -> None:
        calls.append((name, kwargs))
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(pudd_core.streams, "load_stream", offline)
    at = _page({"chunks": "20"})
    at.button(key="cifar_download").click().run(timeout=TIMEOUT)
    assert not at.exception
    assert calls == [("cifar10-cd", {"download": True, "n_chunks": 2})]
    message = shown(at.error[-1].value)
    assert message.startswith("The download did not work: <urlopen error [Errno -3]")
    assert "copy the file to `" in message and "cifar10`" in message
    assert at.select_slider(key="w_cifar_n_chunks").value == 20  # nothing lost


def test_the_heatmap_and_timeline_are_the_runs_markov_process(no_images: None) -> None:
    at = _page({"chunks": "20"})
    drift = interest_drift(0, n_chunks=20)
    charts = figures(at)
    matrix = charts["cifar_matrix"]["data"][0]
    assert matrix["type"] == "heatmap" and matrix["x"] == list(CIFAR10_CLASSES)
    assert _values(matrix["customdata"])[0][0] == pytest.approx(drift.transition_matrix[0, 0])
    timeline = charts["cifar_timeline"]
    assert [t["name"] for t in timeline["data"]] == [
        "Interests", "Positive class (label 1)", "Negative class (label 0)",
        "True drift (interests change)"]
    assert _values(timeline["data"][0]["z"]) == drift.positive_mask().astype(int).tolist()
    bands = [s["x0"] + 0.5 for s in timeline["layout"]["shapes"]]
    assert tuple(bands) == drift.drift_chunks == (8, 11, 18)


def test_a_longer_run_and_another_seed_change_the_timeline(no_images: None) -> None:
    at = _page({"chunks": "10"})
    assert len(_values(figures(at)["cifar_timeline"]["data"][0]["z"])[0]) == 10
    at.select_slider(key="w_cifar_n_chunks").set_value(50).run(timeout=TIMEOUT)
    assert len(_values(figures(at)["cifar_timeline"]["data"][0]["z"])[0]) == 50
    assert at.query_params["chunks"] == "50"
    at.number_input(key="w_app_seed").set_value(3).run(timeout=TIMEOUT)
    z = _values(figures(at)["cifar_timeline"]["data"][0]["z"])
    assert z == interest_drift(3, n_chunks=50).positive_mask().astype(int).tolist()


def test_no_detector_chosen_is_an_inline_warning(no_images: None) -> None:
    at = _page()
    at.multiselect(key="w_cifar_detectors").set_value([]).run(timeout=TIMEOUT)
    assert not at.exception
    assert any("Choose at least one detector" in w.value for w in at.warning)


def test_the_default_classifier_is_the_pretrained_cnn_here_and_resnet18_on_cuda(
    no_images: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import streamlit as st
    import torch

    from ui import cache

    at = _page()
    assert at.radio(key="w_cifar_classifier").value == "pretrained-cnn"  # no GPU here
    # where an NVIDIA driver is, the page asks torch (here: a GPU) before its controls
    monkeypatch.setattr(cache, "cuda_possible", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    st.cache_resource.clear()  # ui.cache.device() looks once per server
    try:
        assert _page().radio(key="w_cifar_classifier").value == "resnet18"
        chosen = _page({"classifier": "small-cnn"}).radio(key="w_cifar_classifier")
        assert chosen.value == "small-cnn"  # a shared link wins
    finally:
        st.cache_resource.clear()


def test_without_an_nvidia_driver_the_page_does_not_wait_for_torch_before_its_charts(
    no_images: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ui import cache

    def no_torch() -> str:
        raise AssertionError("the page waited for torch's answer")

    monkeypatch.setattr(cache, "cuda_possible", lambda: False)
    monkeypatch.setattr(cache, "device", no_torch)
    at = _page()
    assert not at.exception
    assert at.radio(key="w_cifar_classifier").value == "pretrained-cnn"
    assert {"cifar_matrix", "cifar_timeline"} <= set(figures(at))


def _run_with_images(detectors: str, classifier: str = "small-cnn") -> AppTest:
    at = _page({"chunks": "3", "detectors": detectors,  # a few seconds: starts by itself
                "classifier": classifier})
    assert not at.error
    charts = figures(at)
    assert {"cifar_matrix", "cifar_timeline", "cifar_samples", "cifar_runs"} <= set(charts)
    samples = charts["cifar_samples"]
    assert samples["data"][0]["type"] == "image"
    assert samples["layout"]["yaxis"]["ticktext"][:4] == [
        "airplane · label 1", "automobile · label 1", "bird · label 1", "cat · label 0"]
    curve = next(t for t in charts["cifar_runs"]["data"] if t["name"] == "PUDD-3 error rate")
    assert curve["x"] == [1, 2]  # chunk 0 trains, 1 and 2 are tested
    return at


@pytest.mark.datasets
def test_with_the_images_a_three_chunk_small_cnn_run_shows_pudd_against_the_truth() -> None:
    at = _run_with_images("pudd")
    assert at.table[0].value["detector"].tolist() == ["PUDD-3"]
    # from scratch, the small CNN learns nothing: the page says so
    text = " ".join(m.value for m in at.markdown)
    assert "small-cnn is right on" in text and "(*negative*, 70.0 % of these chunks)" in text
    warnings = [w.value for w in at.warning]
    assert any("no better than the majority class" in w and "Choose the pretrained CNN" in w
               for w in warnings)
    assert any("Runs on **cpu**" in c.value for c in at.main.caption)
    at.slider(key="w_cifar_chunk").set_value(2).run(timeout=TIMEOUT)
    title = figures(at)["cifar_samples"]["layout"]["title"]["text"]
    assert title == "Chunk 2: positive classes airplane, automobile, bird"


@pytest.mark.datasets
@pytest.mark.slow
def test_with_the_images_pudd_and_ddm_runs_are_compared_side_by_side() -> None:
    at = _run_with_images("pudd,ddm")
    names = [t["name"] for t in figures(at)["cifar_runs"]["data"]]
    assert {"PUDD-3 error rate", "DDM error rate", "PUDD-3 alarm", "DDM alarm"} <= set(names)
    assert at.table[0].value["detector"].tolist() == ["PUDD-3", "DDM"]


@pytest.mark.datasets
def test_resnet18_waits_for_run_and_says_how_long_it_will_take() -> None:
    at = _page({"classifier": "resnet18", "chunks": "20"})  # 2 runs x 19 chunks x ~25 s
    assert [b.label for b in at.button if b.label.startswith("Run")] == ["Run 2 detector runs"]
    assert any("about 16 min on 2 CPU cores" in c.value for c in at.main.caption)
    assert "cifar_runs" not in figures(at)


def test_a_link_length_the_slider_cannot_show_is_ignored_with_a_warning(no_images: None) -> None:
    at = _page({"chunks": "37"})  # no such option: the run and the control would disagree
    assert at.select_slider(key="w_cifar_n_chunks").value == 10  # the default
    assert len(_values(figures(at)["cifar_timeline"]["data"][0]["z"])[0]) == 10
    warnings = " ".join(w.value for w in at.sidebar.warning)
    assert "chunks=37" in warnings and "3, 5, 10, 20, 30, 50, 100" in warnings


@pytest.mark.datasets
@pytest.mark.slow
def test_the_pretrained_cnn_beats_the_majority_class_without_a_warning() -> None:
    # the backbone ships with the package: nothing is pretrained on the first visit
    at = _page({"chunks": "10", "detectors": "pudd"})
    assert at.radio(key="w_cifar_classifier").value == "pretrained-cnn"
    assert not at.exception and not at.error
    assert not any("no better than the majority class" in w.value for w in at.warning)
    captions = " ".join(c.value for c in at.main.caption)
    assert "Runs on **cpu**" in captions
    assert "Backbone: pretrained by PUDD Lab on 9,500 CIFAR-10 test images" in captions
    curve = next(t for t in figures(at)["cifar_runs"]["data"] if t["name"] == "PUDD-3 error rate")
    assert np.mean(_values(curve["y"])) < 29.0  # below the majority class's 30 % error (in %)


@pytest.mark.datasets
def test_a_damaged_shipped_backbone_is_said_on_the_page_and_nothing_is_pretrained(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import shutil

    from pudd_core.classifiers import _pretrain

    weights, record = _pretrain.shipped_paths()
    (tmp_path / weights.name).write_bytes(weights.read_bytes()[:4096])  # truncated
    shutil.copy(record, tmp_path / record.name)
    monkeypatch.setattr(_pretrain, "SHIPPED", tmp_path)
    monkeypatch.setattr(_pretrain, "_cached", lambda recipe, cache: None)  # no rebuild either
    built: list[object] = []
    monkeypatch.setattr(_pretrain, "build_backbone", lambda *a, **k: built.append(a))
    at = _page({"chunks": "10", "detectors": "pudd"})
    assert not at.exception and not built
    [error] = [e.value for e in at.error]
    assert error.startswith("The pretrained backbone cannot be used: the shipped CIFAR backbone")
    assert str(tmp_path / weights.name) in error and "`python -m pudd_core backbone`" in error
    assert "cifar_samples" in figures(at) and "cifar_runs" not in figures(at)


# --- the committed comparison report (results/cifar10_cd.csv) -----------------------------------
def _comparison_frame(at: AppTest) -> Any:
    [frame] = [d.value for d in at.table if "Drifts detected ≤ 2 chunks" in d.value.columns]
    return frame


def test_the_committed_comparison_is_shown_from_its_csv_without_images(no_images: None) -> None:
    import pandas as pd

    committed = pd.read_csv(Path(__file__).resolve().parents[2] / "results" / "cifar10_cd.csv",
                            dtype={"seeds": str})
    at = _page()
    frame = _comparison_frame(at)
    assert list(frame["Detector"]) == list(committed["name"])
    assert list(frame["Accuracy (%)"]) == pytest.approx(list(committed["accuracy"]))
    assert list(frame["Drifts detected ≤ 2 chunks"]) == [
        f"{e} of {d}" for e, d in zip(committed["early"], committed["drifts"], strict=True)]
    ranked = committed[~committed["detector"].isin(["none", "oracle"])]
    best = ranked.loc[ranked["accuracy"].idxmax()]
    text = " ".join(md.value for md in at.markdown)
    assert f"Best accuracy: **{best['name']}, {best['accuracy']:.2f} %**" in text
    none = committed.set_index("detector").loc["none", "accuracy"]
    low = int((ranked["accuracy"] <= none + 1e-9).sum())
    assert (f"No detector (ref.): {none:.2f} % ({low} of {len(ranked)} detectors at or below "
            "it).") in text
    # the ranks paired by seed: scipy's ranks of each seed's accuracies as printed (2
    # decimals: equal there is a tie), averaged (oracle)
    from scipy.stats import rankdata

    per_seed = pd.DataFrame({r.detector: [float(v) for v in str(r.seed_accuracy).split()]
                             for r in ranked.itertuples()})  # the references are not ranked
    ranks = per_seed.apply(lambda row: pd.Series(rankdata(-row.to_numpy().round(2)),
                                                 index=row.index), axis=1).mean()
    shown = frame["Average rank (paired by seed)"]
    assert list(shown[: len(ranked)]) == pytest.approx(list(ranks[ranked["detector"]]))
    assert shown[len(ranked):].isna().all()
    captions = " ".join(c.value for c in at.main.caption)
    assert f"Friedman test over {len(per_seed)} blocks ({len(per_seed)} seeds)" in captions


def test_the_comparison_follows_the_csv_and_its_absence_is_said(
    no_images: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ui.cifar
    from pudd_core.reproduction.cifar import comparison_report
    from ui import cache

    rows = [{"dataset": "cifar10-cd", "classifier": "resnet18", "n_chunks": 30, "detector": d,
             "alpha": a, "seed": s, "accuracy": acc, "alarms": [], "elapsed_s": 1.0,
             "status": "ok"}
            for d, a, acc in (("pudd", 1e-5, 0.9), ("kswin", 1e-3, 0.7)) for s in (4, 6)]
    import pandas as pd

    comparison_report(pd.DataFrame(rows)).save(tmp_path)
    cache.committed_frame.clear()
    monkeypatch.setattr(ui.cifar, "COMPARISON", tmp_path / "cifar10_cd.csv")
    at = _page()
    frame = _comparison_frame(at)
    assert list(frame["Detector"]) == ["PUDD-5", "KSWIN"]
    text = " ".join(md.value for md in at.markdown)
    assert "**resnet18** on 30 chunks, 2 seed(s) (4, 6)" in text
    assert "Best accuracy: **PUDD-5, 90.00 %**" in text
    monkeypatch.setattr(ui.cifar, "COMPARISON", tmp_path / "missing.csv")
    at = _page()
    assert not at.exception
    assert any("No committed comparison" in i.value for i in at.info)


def test_the_app_sends_torch_models_to_the_child_and_the_rest_runs_here(monkeypatch):
    from pudd_core.experiments import pool
    from ui import cache

    calls = []

    class Recorder:
        def call(self, fn, /, *args, **kwargs):
            calls.append(fn.__name__)
            return fn(*args, **kwargs)

    monkeypatch.setattr(pool, "torch_child", Recorder)
    monkeypatch.setattr(pool, "parallel", lambda: True)
    assert cache.off_server("gnb", max, 1, 5) == 5 and calls == []
    assert cache.off_server("pretrained-cnn", max, 1, 5) == 5 and calls == ["max"]
    monkeypatch.setattr(pool, "parallel", lambda: False)  # PUDD_WORKERS=1: all here
    assert cache.off_server("resnet18", min, 1, 5) == 1 and calls == ["max"]
