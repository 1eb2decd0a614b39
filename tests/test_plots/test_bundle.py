"""pudd_core.plots.bundle: the player loads the basic bundle when kept whole, else the full."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest

from pudd_core.plots import bundle
from pudd_core.plots.bundle import BASIC, BASIC_TRACE_TYPES, FULL_JS, player_js, plotly_js_version


def _tarball(text: str, member: str = BASIC.member) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        data = text.encode()
        info = tarfile.TarInfo(member)
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


@pytest.fixture
def release(monkeypatch: pytest.MonkeyPatch) -> bytes:
    """A stand-in tarball of the pinned version, with the pin's integrity set to match it."""
    tarball = _tarball(f"/**\n* plotly.js (basic - minified) v{BASIC.version}\n*/\nvar Plotly;\n")
    digest = base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    monkeypatch.setattr(bundle, "BASIC", dataclasses.replace(BASIC, integrity=f"sha512-{digest}"))
    return tarball


def test_the_pinned_basic_bundle_is_the_plotly_packages_plotly_js_version() -> None:
    assert plotly_js_version(FULL_JS) == BASIC.version  # bump BASIC with plotly in requirements


def test_a_fetched_bundle_is_what_the_player_loads(tmp_path: Path, release: bytes) -> None:
    assert player_js(tmp_path) == FULL_JS  # nothing fetched yet
    kept = bundle.fetch_basic_bundle(tmp_path, tarball=release)
    assert kept == bundle.basic_bundle_path(tmp_path) and player_js(tmp_path) == kept
    assert "var Plotly;" in kept.read_text()
    assert bundle.fetch_basic_bundle(tmp_path, tarball=b"not even read") == kept  # kept: no fetch


def test_a_tarball_that_is_not_the_registrys_is_refused_and_nothing_kept(tmp_path: Path,
                                                                        release: bytes) -> None:
    with pytest.raises(ValueError, match="sha512 is .*not kept"):
        bundle.fetch_basic_bundle(tmp_path, tarball=release + b"\0")
    assert not bundle.basic_bundle_path(tmp_path).exists()
    assert player_js(tmp_path) == FULL_JS


def test_a_damaged_or_other_version_bundle_falls_back_to_the_full_one(tmp_path: Path,
                                                                      release: bytes) -> None:
    kept = bundle.fetch_basic_bundle(tmp_path, tarball=release)
    kept.write_text(kept.read_text()[:-3])  # cut short
    assert player_js(tmp_path) == FULL_JS
    other = "/**\n* plotly.js (basic - minified) v0.0.1\n*/\n"
    kept.write_text(other)
    kept.with_name(kept.name + ".sha256").write_text(hashlib.sha256(other.encode()).hexdigest())
    assert player_js(tmp_path) == FULL_JS  # whole, but not the version the figures are made for


def _trace_types(obj: object) -> set[str]:
    """Every trace's type in a figure JSON tree (a trace is a dict with x or y; shapes and axes
    have neither); plotly's default type is scatter."""
    found: set[str] = set()
    if isinstance(obj, dict):
        if "x" in obj or "y" in obj:
            found.add(obj.get("type", "scatter"))
        for value in obj.values():
            found |= _trace_types(value)
    elif isinstance(obj, list):
        for value in obj:
            found |= _trace_types(value)
    return found


def test_the_player_draws_only_trace_types_the_basic_bundle_has() -> None:
    from pudd_core.experiments.runner import run_experiment
    from pudd_core.plots.player import player_spec
    from pudd_core.views.explorer import ExplorerConfig, PUDDSetting

    # two settings over two seeds with the min-max band: every chart the player can draw
    cfg = ExplorerConfig(settings=(PUDDSetting(3), PUDDSetting(5, {"cut_points": "all"})),
                         baselines=("ddm",), n_chunks=25, seeds=2)
    comparison = cfg.comparison([run_experiment(c) for c in cfg.run_configs()])
    for band in (False, True):
        spec = json.loads(json.dumps(player_spec(
            comparison.settings, comparison.baselines, labels=comparison.labels, band=band)))
        types = _trace_types(spec)  # the growing charts and every setting's templates
        assert {"scatter", "bar"} <= types <= BASIC_TRACE_TYPES, types


def _pinned(monkeypatch: pytest.MonkeyPatch, tarball: bytes) -> None:
    """Pin the cartesian release's integrity to ``tarball``'s."""
    digest = base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    monkeypatch.setattr(bundle, "CARTESIAN",
                        dataclasses.replace(bundle.CARTESIAN, integrity=f"sha512-{digest}"))


def test_the_charts_bundle_is_the_cartesian_one_when_fetched_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pudd_core.plots.bundle import CARTESIAN, chart_js

    assert chart_js(tmp_path) is None  # not fetched: the charts are Streamlit's
    other = _tarball("var Plotly;", member="package/README.md")  # the registry's, but no bundle
    _pinned(monkeypatch, other)
    with pytest.raises(ValueError, match="has no file package/dist/plotly-cartesian.min.js"):
        bundle.fetch_bundle(bundle.CARTESIAN, tmp_path, tarball=other)
    tarball = _tarball(f"/**\n* plotly.js (cartesian - minified) v{CARTESIAN.version}\n*/\n",
                       member=CARTESIAN.member)
    _pinned(monkeypatch, tarball)
    kept = bundle.fetch_bundle(bundle.CARTESIAN, tmp_path, tarball=tarball)
    assert kept.name == f"plotly-cartesian-{CARTESIAN.version}.min.js"
    assert chart_js(tmp_path) == kept and player_js(tmp_path) == FULL_JS  # the player's is apart
    kept.write_text(kept.read_text() + " ")  # changed after download
    assert chart_js(tmp_path) is None
