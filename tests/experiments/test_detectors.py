"""The detector registry: every list of detectors comes from its one table."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from river import drift

from pudd_core import plots
from pudd_core._validation import ParameterError
from pudd_core.cli import build_parser
from pudd_core.detector import ChunkPUDD
from pudd_core.experiments import detectors
from pudd_core.experiments.baselines import BASELINES
from pudd_core.experiments.detectors import (
    DETECTORS,
    BaselineAdapter,
    ChunkPUDDAdapter,
    ChunkVerdict,
    DetectorSpec,
    FeatureAdapter,
    FixedAlarms,
    chunk_detector,
    detector_names,
    make_detector,
    option_names,
    run_detector,
)
from pudd_core.experiments.mcdd import MCDDD
from pudd_core.experiments.runner import RunConfig, parse_option_pairs, run_experiment
from pudd_core.paper import CLASSIC_DETECTORS, DISPLAY_NAMES, SOTA_DETECTORS
from pudd_core.views.explorer import ExplorerConfig, compared_detectors


# --- a toy detector, registered for one test --------------------------------------------------
class EveryKth:
    """Alarms at every ``k``-th chunk: a detector simple enough to check by hand."""

    def __init__(self, *, k: int = 3, seed: int | None = None) -> None:
        if not isinstance(k, int) or k < 1:
            raise ParameterError("k", f"k must be a positive integer, got {k!r}")
        self.k = k


@dataclass
class _EveryKthAdapter:
    detector: EveryKth

    def test(self, t: int, u: Any, correct: Any, features: Any = None) -> ChunkVerdict:
        return ChunkVerdict(alarm=t % self.detector.k == 0)


TOY = DetectorSpec("Toy (every k-th chunk)", "errors",
                   lambda det, config, drift_chunks: _EveryKthAdapter(det), EveryKth,
                   colour="#123456")


def _cli_accepts(name: str) -> bool:
    try:
        build_parser().parse_args(["run", "--detector", name])
    except SystemExit:
        return False
    return True


def test_a_detector_added_to_the_registry_reaches_the_runner_cli_explorer_and_colours(
        monkeypatch, capsys):
    assert "toy" not in DETECTORS and not _cli_accepts("toy")
    monkeypatch.setitem(detectors._ENTRIES, "toy", TOY)  # adding a detector: this one entry

    # the runner: a name, options parsed by the class's types, checked, built and adapted
    assert DETECTORS["toy"] == "Toy (every k-th chunk)"
    assert parse_option_pairs("detector", "toy", ["k=4"]) == (("k", 4),)
    res = run_experiment(RunConfig("sea0", "gnb", "toy", n_chunks=10, detector_options={"k": 4}))
    assert res.alarms == (4, 8)
    assert [c.adapted for c in res.chunks] == [t in (5, 9) for t in range(1, 10)]
    with pytest.raises(ParameterError, match="'j'; valid options: k"):
        RunConfig(detector="toy", detector_options={"j": 1}).validate()
    with pytest.raises(ParameterError, match="k must be a positive integer"):
        RunConfig(detector="toy", detector_options={"k": 0}).validate()
    # the command line's choices
    assert _cli_accepts("toy")
    # the explorer's detectors beside PUDD, and a config that runs it
    assert "toy" in compared_detectors()
    cfg = ExplorerConfig(baselines=("toy", "ddm"), n_chunks=10)
    assert [c.detector for c in cfg.run_configs()] == ["pudd", "ddm", "toy"]
    # its colour in every figure
    assert plots.detector_colour("Toy (every k-th chunk)", 5) == "#123456"
    assert plots.DETECTOR_COLOURS["Toy (every k-th chunk)"] == "#123456"

    monkeypatch.undo()  # and removing it takes it out of everything again
    assert "toy" not in DETECTORS and "toy" not in compared_detectors()
    assert not _cli_accepts("toy")
    assert "invalid choice: 'toy'" in capsys.readouterr().err
    assert plots.detector_colour("Toy (every k-th chunk)", 5) == plots.PALETTE[5]
    with pytest.raises(ParameterError, match="unknown detector 'toy'"):
        RunConfig(detector="toy").validate()


def test_a_detector_that_needs_the_true_drifts_is_dropped_where_none_are_known(monkeypatch):
    """``needs_drifts`` on the entry, not the oracle's name, decides where a detector runs."""
    monkeypatch.setitem(detectors._ENTRIES, "toy", TOY._replace(needs_drifts=True))
    assert detectors.needs_drifts("toy") and detectors.needs_drifts("oracle")
    assert not detectors.needs_drifts("none") and not detectors.needs_drifts("pudd-3")
    known = ExplorerConfig(dataset="sea0", baselines=("toy", "oracle", "ddm"), n_chunks=10)
    assert set(known.baselines) == {"toy", "oracle", "ddm"} and known.dropped == ()
    real = ExplorerConfig(dataset="elec2", baselines=("toy", "oracle", "ddm"), n_chunks=10)
    assert real.baselines == ("ddm",) and set(real.dropped) == {"toy", "oracle"}
    # an oracle entry that did not need them would run on the real stream
    monkeypatch.setitem(detectors._ENTRIES, "oracle",
                        detectors._ENTRIES["oracle"]._replace(needs_drifts=False))
    assert ExplorerConfig(dataset="elec2", baselines=("oracle",)).dropped == ()


# --- what the registry says of today's detectors ----------------------------------------------
def test_the_registry_lists_pudd_ek_the_baselines_mcdd_and_the_references_in_order():
    assert list(DETECTORS) == ["pudd", "ek", *BASELINES, "mcd-dd", "none", "oracle"]
    assert {k: DETECTORS[k] for k in BASELINES} == {k: s.display_name
                                                    for k, s in BASELINES.items()}
    assert detector_names("pu-index") == ("pudd", "ek")
    assert detector_names("errors") == tuple(BASELINES)
    assert detector_names() == tuple(DETECTORS)


def test_the_papers_detector_rows_are_registry_detectors():
    assert set(CLASSIC_DETECTORS) <= set(detector_names("errors"))
    assert set(SOTA_DETECTORS) <= set(DETECTORS)
    assert all(DETECTORS[d] == DISPLAY_NAMES[d] for d in CLASSIC_DETECTORS)


@pytest.mark.parametrize(("name", "target", "set_by_the_run"), [
    ("pudd", ChunkPUDD, {"alpha", "seed"}),
    ("ek", ChunkPUDD, {"alpha", "seed", "partition"}),
    ("mcd-dd", MCDDD, {"seed"}),
    *((b, s.detector_class, {"seed"}) for b, s in BASELINES.items()),
])
def test_options_are_the_classs_parameters_but_those_the_run_sets(name, target, set_by_the_run):
    params = list(inspect.signature(target).parameters)
    assert option_names(name) == [p for p in params if p not in set_by_the_run]


def test_references_have_no_options_and_no_detector():
    for name in detector_names("reference"):
        assert option_names(name) == [] and make_detector(name) is None
        with pytest.raises(ParameterError, match="'a'; valid options: none"):
            make_detector(name, a=1)


def test_ek_is_pudd_with_the_ek_partition_and_no_floor_unless_asked():
    ek = make_detector("ek", alpha=1e-5, seed=3)
    assert (ek.partition, ek.clamp_min, ek.alpha, ek.seed) == ("ek", 0, 1e-5, 3)
    assert make_detector("ek", clamp_min=5).clamp_min == 5
    assert make_detector("pudd").partition == "pu" and make_detector("pudd").clamp_min == 5


def test_seeds_go_only_to_classes_that_take_one():
    assert make_detector("kswin", seed=7).seed == 7
    assert isinstance(make_detector("ph"), drift.PageHinkley)


@pytest.mark.parametrize(("name", "adapter"), [
    ("pudd", ChunkPUDDAdapter), ("ek", ChunkPUDDAdapter), ("ddm", BaselineAdapter),
    ("ph", BaselineAdapter), ("mcd-dd", FeatureAdapter), ("none", FixedAlarms),
])
def test_each_kind_has_its_adapter(name, adapter):
    assert type(chunk_detector(RunConfig(detector=name), 0)) is adapter


def test_the_oracle_alarms_at_the_true_drifts_and_none_never():
    u, ok = np.full(5, 0.1), np.ones(5, dtype=bool)
    oracle = chunk_detector(RunConfig(detector="oracle"), 0, (3, 7))
    none = chunk_detector(RunConfig(detector="none"), 0, (3, 7))
    assert [t for t in range(10) if oracle.test(t, u, ok).alarm] == [3, 7]
    assert not any(none.test(t, u, ok).alarm for t in range(10))


def test_an_unknown_detector_is_a_parameter_error_naming_the_choices():
    with pytest.raises(ParameterError, match="unknown detector 'cusum'; choose one of pudd, ek"):
        make_detector("cusum")


def test_the_oracle_refuses_a_stream_whose_drifts_are_unknown():
    import io

    from pudd_core.streams import stream_from_csv

    rows = "".join(f"{i % 7},{i % 2}\n" for i in range(400))
    stream = stream_from_csv(io.StringIO("a,label\n" + rows), label="label", chunk_size=100,
                             name="mine")
    assert stream.drift_chunks is None
    with pytest.raises(ParameterError, match="oracle alarms at the stream's true drifts"):
        run_experiment(RunConfig("mine", "gnb", "oracle"), stream=stream)
    assert run_experiment(RunConfig("mine", "gnb", "none"), stream=stream).alarms == ()


@pytest.mark.parametrize("detector", ["none", "oracle"])
def test_the_references_run_from_the_command_line(detector, tmp_path, capsys):
    import json

    from pudd_core.cli import main

    code = main(["run", "--dataset", "sea0", "--detector", detector, "--n-chunks", "25",
                 "--json", "--store", str(tmp_path), "--executor", "serial"])
    out = json.loads(capsys.readouterr().out)
    again = run_experiment(RunConfig("sea0", detector=detector, n_chunks=25))
    assert code == 0 and out["runs"][0]["accuracy"] == again.accuracy
    assert out["runs"][0]["n_alarms"] == len(again.alarms) == (2 if detector == "oracle" else 0)


#: A run's own settings that a detector class may also name as a parameter: ``alpha`` (the
#: run's threshold) and ``seed``; and ``make_detector``'s ``name``.
_RUN_KEYWORDS = ("alpha", "seed", "name")
_CLASHES = [(name, p) for name in detector_names()
            if (target := detectors.detector_spec(name).target) is not None
            for p in inspect.signature(target).parameters if p in _RUN_KEYWORDS]


def test_the_clash_list_holds_the_river_alphas():
    # EDDM, KSWIN and PH take their own alpha; PUDD's and EK's is the run's threshold
    alphas = {name for name, p in _CLASHES if p == "alpha"}
    assert alphas == {"pudd", "ek", "eddm", "kswin", "pagehinkley"}


@pytest.mark.parametrize(("name", "option"), _CLASHES)
def test_an_option_named_as_a_run_keyword_reaches_the_detector_or_is_refused_by_name(name,
                                                                                     option):
    # a river detector's own alpha ran into make_detector's alpha keyword: every run was
    # refused with "got multiple values for keyword argument 'alpha'"
    if option not in option_names(name):  # the run sets it: refused, naming what to set
        with pytest.raises(ParameterError, match=rf"detector '{name}' takes no option "
                                                 rf"'{option}': .*instead"):
            RunConfig(detector=name, detector_options={option: 1}).validate()
        with pytest.raises(ParameterError, match=rf"takes no option '{option}'"):
            parse_option_pairs("detector", name, [f"{option}=1"])
        return
    default = inspect.signature(detectors.detector_spec(name).target).parameters[option].default
    value = (default + 1) / 2  # each is a level in (0, 1), EDDM's above its beta (0.9)
    assert value != default
    config = RunConfig(detector=name, alpha=1e-5, detector_options={option: value})
    config.validate()
    assert getattr(run_detector(config, 0), option) == value
    assert getattr(make_detector(name, **{option: value}), option) == value
    cli = parse_option_pairs("detector", name, [f"{option}={value!r}"])
    assert cli == ((option, value),)
    # the run's threshold does not reach a detector that does not take it
    assert getattr(run_detector(RunConfig(detector=name, alpha=1e-5), 0), option) == default


def test_the_runs_alpha_is_pudds_and_eks_threshold():
    for name in ("pudd", "ek"):
        assert run_detector(RunConfig(detector=name, alpha=1e-5), 0).alpha == 1e-5
        assert make_detector(name, alpha=1e-5).alpha == 1e-5


def test_a_kswin_run_with_its_own_alpha_runs():
    config = RunConfig("sea0", "gnb", "kswin", n_chunks=4, detector_options={"alpha": 0.2})
    assert run_experiment(config).config.detector_options == (("alpha", 0.2),)
