from __future__ import annotations

import dataclasses

import pytest

from pudd_core.experiments import grid
from pudd_core.experiments.grid import ResultStore, expand_grid, parse_seeds, run_grid
from pudd_core.experiments.runner import RunConfig, run_experiment

CFGS = [RunConfig("sea0", "gnb", d, seed=s, n_chunks=12) for d in ("pudd", "ddm") for s in (0, 1)]


def _acc(df):
    return dict(zip(df["key"], df["accuracy"], strict=True))


@pytest.mark.integration
def test_serial_and_joblib_give_identical_results(tmp_path):
    serial = run_grid(CFGS, store=tmp_path / "a", executor="serial", progress=False)
    parallel = run_grid(CFGS, store=tmp_path / "b", executor="joblib", n_jobs=2, progress=False)
    assert len(serial) == len(parallel) == 4
    assert _acc(serial) == _acc(parallel)


def test_an_interrupted_grid_resumes_without_recomputing(tmp_path):
    store = tmp_path / "s"
    run_grid(CFGS[:2], store=store, executor="serial", progress=False)
    calls = []
    run_grid(CFGS, store=store, executor="serial", progress=lambda i, n: calls.append((i, n)))
    assert calls[-1] == (2, 2)  # only the two missing runs ran
    assert len(ResultStore(store).load()) == 4


def test_a_crashing_run_is_stored_with_its_traceback_and_the_others_finish(tmp_path, monkeypatch):
    bad = RunConfig("sea0", "gnb", "pudd", n_chunks=12, seed=7)

    def crash_on_bad(config, **kwargs):
        if config == bad:
            raise RuntimeError("boom in run 7")
        return run_experiment(config, **kwargs)

    monkeypatch.setattr(grid, "run_experiment", crash_on_bad)
    df = run_grid([bad, *CFGS[:2]], store=tmp_path / "s", executor="serial", progress=False)
    status = dict(zip(df["key"], df["status"], strict=True))
    assert status[bad.key()] == "error" and list(status.values()).count("ok") == 2
    err = df.loc[df["key"] == bad.key(), "error"].iloc[0]
    assert "Traceback" in err and "boom in run 7" in err


def test_an_unknown_option_fails_the_grid_before_any_run(tmp_path):
    bad = RunConfig("sea0", "gnb", "pudd", n_chunks=12, classifier_options={"bogus": 1})
    with pytest.raises(ValueError, match="unknown classifier 'gnb' option.*'bogus'"):
        run_grid([*CFGS[:2], bad], store=tmp_path / "s", executor="serial", progress=False)
    assert not (tmp_path / "s").exists()  # nothing ran, nothing stored


def test_store_writes_batches_atomically_and_keeps_the_newest_row(tmp_path):
    store = ResultStore(tmp_path, flush_every=2)
    store.put({"key": "a", "accuracy": 0.1, "status": "error"})
    assert not list(tmp_path.glob("part-*"))
    store.put({"key": "b", "accuracy": 0.2, "status": "ok"})
    assert len(list(tmp_path.glob("part-*.parquet"))) == 1
    store.put({"key": "a", "accuracy": 0.3, "status": "ok"})
    store.flush()
    df = store.load()
    assert sorted(df["key"]) == ["a", "b"]
    assert float(df.set_index("key").loc["a", "accuracy"]) == 0.3
    assert store.keys() == {"a", "b"}


def test_a_column_missing_in_one_part_loads_without_warning_and_keeps_its_values(tmp_path):
    import warnings

    store = ResultStore(tmp_path, flush_every=1)
    store.put({"key": "a", "accuracy": 0.5, "status": "ok", "error": None})  # all ok
    store.put({"key": "b", "accuracy": None, "status": "error", "error": "boom"})
    store.put({"key": "c", "accuracy": 0.7, "status": "ok", "error": None})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # pandas' FutureWarning on all-NA parts included
        df = store.load().set_index("key")
    assert list(df.columns) == ["accuracy", "status", "error"]
    assert df.loc["b", "error"] == "boom" and df["error"].isna().sum() == 2
    assert df["accuracy"].dtype == float and df.loc["c", "accuracy"] == 0.7


def test_expand_grid_varies_alpha_only_for_pudd_and_validates_first():
    cfgs = expand_grid({"dataset": "sea0", "detector": ["pudd", "adwin"], "alpha": [0.1, 1e-5],
                        "regime": ["incremental", "train-once"], "seeds": "0-2"})
    assert len(cfgs) == (2 + 1) * 2 * 3
    with pytest.raises(ValueError, match="unknown grid keys"):
        expand_grid({"datasett": "sea0"})
    with pytest.raises(ValueError, match="unknown detector"):
        expand_grid({"detector": ["pudd", "nope"]})


@pytest.mark.parametrize("spec", ["3-1", "a", "1,-2"])
def test_bad_seed_specs_raise(spec):
    with pytest.raises(ValueError, match="seeds"):
        parse_seeds(spec)


def test_unknown_executor_raises_before_work(tmp_path):
    with pytest.raises(ValueError, match="executor must be one of"):
        run_grid(CFGS, store=tmp_path, executor="spark")


@pytest.mark.integration
def test_a_dask_cluster_gives_the_same_results_as_serial(tmp_path):
    pytest.importorskip("distributed")
    dask = run_grid(CFGS, store=tmp_path / "d", executor="dask", progress=False)
    serial = run_grid(CFGS, store=tmp_path / "s", executor="serial", progress=False)
    assert set(dask["status"]) == {"ok"} and _acc(dask) == _acc(serial)


def test_ok_and_error_rows_write_options_the_same_way_as_json():
    import json

    cfg = RunConfig("sea0", "gnb", "pudd", n_chunks=12, detector_options={"yates": False},
                    stream_options={"drift_period": 5})
    ok = grid.safe_run(cfg)
    bad = grid.safe_run(dataclasses.replace(cfg, classifier_options={"bogus": 1}))
    assert ok["status"] == "ok" and bad["status"] == "error"
    for row in (ok, bad):
        assert json.loads(row["detector_options"]) == {"yates": False}
        assert json.loads(row["stream_options"]) == {"drift_period": 5}
    assert ok["detector_options"] == bad["detector_options"] == '{"yates": false}'
    assert json.loads(bad["classifier_options"]) == {"bogus": 1}
