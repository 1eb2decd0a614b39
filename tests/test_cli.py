from __future__ import annotations

import json
import math
import sys

import pytest

from pudd_core.cli import main


def test_run_prints_the_summary_as_json(tmp_path, capsys):
    code = main(["run", "--dataset", "sea0", "--classifier", "gnb", "--detector", "pudd",
                 "--alpha", "1e-3", "--regime", "incremental", "--seeds", "0-1", "--n-chunks",
                 "12", "--json", "--store", str(tmp_path), "--executor", "serial"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["seeds"] == [0, 1] and len(out["runs"]) == 2
    mean = sum(r["accuracy"] for r in out["runs"]) / 2
    assert abs(out["accuracy_mean"] - mean) < 1e-12


def test_run_writes_every_tested_chunk_of_every_seed_to_the_log(tmp_path, capsys):
    import pandas as pd

    from pudd_core.experiments.runner import RunConfig, run_experiment

    log = tmp_path / "log.csv"
    code = main(["run", "--dataset", "sea0", "--seeds", "0-1", "--n-chunks", "12", "--json",
                 "--log", str(log)])
    out = json.loads(capsys.readouterr().out)
    frame = pd.read_csv(log)
    assert code == 0 and len(frame) == 2 * 11  # chunk 0 trains; 11 tested chunks per seed
    for seed in (0, 1):
        again = run_experiment(RunConfig("sea0", n_chunks=12, seed=seed))
        rows = frame[frame["seed"] == seed]
        assert rows["accuracy"].tolist() == pytest.approx([c.accuracy for c in again.chunks])
        # where no test ran, the log's p is missing (never the detector's conventional 1)
        expected = [math.nan if c.no_test else c.p_value for c in again.chunks]
        assert rows["p_value"].tolist() == pytest.approx(expected, nan_ok=True)
        assert rows["no_test"].isna().tolist() == [c.no_test is None for c in again.chunks]
        assert any(c.no_test for c in again.chunks)
        assert out["runs"][seed]["accuracy"] == pytest.approx(again.summary()["accuracy"])
    assert {"cut_p_values", "cut_point", "alarm"} <= set(frame.columns)


def test_grid_file_runs_into_the_store_and_resumes(tmp_path, capsys):
    cfg = tmp_path / "grid.toml"
    cfg.write_text(
        '[grid]\ndataset = "sea0"\ndetector = ["pudd", "ddm"]\nseeds = "0-1"\nn_chunks = 12\n'
        f'[run]\nstore = "{(tmp_path / "store").as_posix()}"\nexecutor = "serial"\n'
    )
    assert main(["grid", str(cfg)]) == 0
    assert "4 runs" in capsys.readouterr().out
    assert main(["grid", str(cfg)]) == 0  # all stored: nothing to do
    assert "4 runs" in capsys.readouterr().out


def test_bad_input_gives_a_message_and_exit_code_two(tmp_path, capsys):
    code = main(["run", "--dataset", "nope", "--store", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error:") and "nope" in err and "Traceback" not in err


def test_datasets_table_shows_each_stream_source_and_licence(capsys):
    from pudd_core.streams import list_streams

    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    assert "| licence" in out and "source |" in out
    for info in list_streams():
        row = next(line for line in out.splitlines()
                   if line.startswith(f"| {info.name} ") and info.licence in line)
        assert info.source in row


#: One training step per network for the runs of tests that check what the command line
#: asks for, not what the network learns (small-cnn's 10 + 20 steps on CIFAR-10-CD took 100 s
#: of a busy machine, the DNN's 100 per chunk 40 s)
_ONE_STEP = {"small-cnn": {"epochs": 1, "finetune_epochs": 0}, "dnn": {"epochs": 1}}


def _recording_run_grid(monkeypatch):
    """Record run_grid's arguments, then run serially in-process (networks: one step)."""
    from pudd_core.experiments import grid, runner

    calls = []
    real, make = grid.run_grid, runner.make_classifier

    def record(configs, **kwargs):
        calls.append({"configs": list(configs), **kwargs})
        return real(calls[-1]["configs"], **{**kwargs, "executor": "serial", "address": None})

    def one_step(name, **options):
        return make(name, **{**options, **_ONE_STEP.get(name, {})})

    monkeypatch.setattr(runner, "make_classifier", one_step)
    monkeypatch.setattr(grid, "run_grid", record)
    return calls


def test_run_takes_the_dask_executor_and_a_cluster_address(tmp_path, monkeypatch, capsys):
    calls = _recording_run_grid(monkeypatch)
    code = main(["run", "--n-chunks", "12", "--json", "--store", str(tmp_path),
                 "--executor", "dask", "--address", "tcp://10.0.0.1:8786"])
    assert code == 0 and json.loads(capsys.readouterr().out)["seeds"] == [0]
    assert calls[0]["executor"] == "dask" and calls[0]["address"] == "tcp://10.0.0.1:8786"


def test_executor_choices_match_the_grid_module():
    from pudd_core.cli._shared import EXECUTORS as _EXECUTORS
    from pudd_core.experiments.grid import EXECUTORS

    assert _EXECUTORS == EXECUTORS


@pytest.mark.parametrize(("executor", "module", "message"),
                         [("ray", "ray", "needs Ray"), ("dask", "distributed", "needs Dask")])
def test_run_with_a_missing_cluster_package_says_what_to_install(
    tmp_path, monkeypatch, capsys, executor, module, message
):
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    code = main(["run", "--n-chunks", "12", "--store", str(tmp_path / "s"),
                 "--executor", executor, "--address", "auto"])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "pip install" in err and "Traceback" not in err


def test_reproduce_passes_regimes_and_the_frozen_head_switch(tmp_path, monkeypatch, capsys):
    calls = _recording_run_grid(monkeypatch)
    code = main(["reproduce", "--table", "1", "--classifier", "dnn", "--seeds", "1",
                 "--datasets", "sea0", "--detectors", "ddm", "--regimes", "train-once",
                 "--reproduce-frozen-head", "--n-chunks", "12", "--executor", "serial",
                 "--store", str(tmp_path / "s"), "--out", str(tmp_path / "out")])
    assert code == 0
    (cfg,) = calls[0]["configs"]
    assert (cfg.dataset, cfg.detector, cfg.regime) == ("sea0", "ddm", "train-once")
    assert cfg.classifier_options == (("reproduce_frozen_head", True),)


def test_reproduce_rejects_the_frozen_head_switch_for_other_classifiers(tmp_path, capsys):
    code = main(["reproduce", "--table", "1", "--classifier", "gnb", "--seeds", "1",
                 "--reproduce-frozen-head", "--store", str(tmp_path / "s")])
    err = capsys.readouterr().err
    assert code == 2 and "reproduce_frozen_head applies to classifier 'dnn'" in err


@pytest.mark.integration
def test_run_says_which_device_a_torch_classifier_uses(tmp_path, capsys, monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    code = main(["run", "--classifier", "dnn", "--n-chunks", "3", "--json", "--store",
                 str(tmp_path), "--executor", "serial", "--classifier-option", "epochs=2"])
    captured = capsys.readouterr()
    assert code == 0 and json.loads(captured.out)["device"] == "cpu"
    assert "dnn runs on cpu" in captured.err
    code = main(["run", "--n-chunks", "3", "--store", str(tmp_path), "--executor", "serial"])
    assert code == 0 and "device" not in capsys.readouterr().out  # gnb: no torch


def test_reproduce_names_its_tables_and_refuses_others(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["reproduce", "--table", "3", "--store", str(tmp_path / "s")])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "choose 1, 2 or cifar, not '3'" in err


@pytest.mark.datasets
def test_reproduce_cifar_writes_the_comparison_report(tmp_path, monkeypatch, capsys):
    import pandas as pd

    calls = _recording_run_grid(monkeypatch)
    code = main(["reproduce", "--table", "cifar", "--classifier", "small-cnn", "--seeds", "1",
                 "--n-chunks", "3", "--detectors", "pudd-5,ddm", "--store", str(tmp_path / "s"),
                 "--out", str(tmp_path / "out")])
    assert code == 0
    cfgs = calls[0]["configs"]
    assert [(c.dataset, c.classifier, c.detector, c.alpha, c.regime) for c in cfgs] == [
        ("cifar10-cd", "small-cnn", "pudd", 1e-5, "incremental"),
        ("cifar10-cd", "small-cnn", "ddm", 1e-3, "incremental")]
    cells = pd.read_csv(tmp_path / "out" / "cifar10_cd.csv")
    assert list(cells["name"]) == ["PUDD-5", "DDM"] and set(cells["n_chunks"]) == {3}
    md = (tmp_path / "out" / "cifar10_cd.md").read_text()
    assert "--table cifar --classifier small-cnn" in md and "| DDM |" in md


def test_reproduce_add_puts_new_cells_into_the_committed_report(tmp_path, capsys):
    import pandas as pd

    out, store = tmp_path / "out", str(tmp_path / "s")
    small = ["--table", "1", "--classifier", "gnb", "--datasets", "sea0", "--regimes",
             "incremental", "--n-chunks", "6", "--executor", "serial", "--store", store,
             "--out", str(out)]
    assert main(["reproduce", *small, "--detectors", "ddm,pudd-3", "--seeds", "1"]) == 0
    before = pd.read_csv(out / "table1_gnb.csv", float_precision="round_trip")
    assert main(["reproduce", *small, "--detectors", "pudd-3,adwin", "--seeds", "2",
                 "--add"]) == 0
    after = pd.read_csv(out / "table1_gnb.csv", float_precision="round_trip").set_index(
        "detector")
    assert after.loc["ddm", "ours"] == before.set_index("detector").loc["ddm", "ours"]
    assert after.loc["ddm", "n_seeds"] == 1  # kept as it was
    assert after.loc["pudd-3", "n_seeds"] == 2 and after.loc["adwin", "n_seeds"] == 2
    alone = main(["reproduce", *small, "--detectors", "pudd-3", "--seeds", "2",
                  "--out", str(tmp_path / "alone")])
    assert alone == 0  # the same cell from a report of those runs alone
    pudd = pd.read_csv(tmp_path / "alone" / "table1_gnb.csv").set_index("detector")
    assert after.loc["pudd-3", "ours"] == pytest.approx(pudd.loc["pudd-3", "ours"], abs=1e-12)
    md = (out / "table1_gnb.md").read_text()
    assert "Cells added to this report by `python -m pudd_core reproduce" in md
    # the accuracy table's row (the alarm table, below it, has one too)
    ddm_row = next(line for line in md.splitlines() if line.startswith("| DDM |"))
    assert "— /" not in ddm_row  # the row kept, with its number, in the Markdown


def test_reproduce_add_replace_puts_a_changed_methods_fewer_seeds_in(tmp_path, capsys):
    import pandas as pd

    out, store = tmp_path / "out", str(tmp_path / "s")
    small = ["--table", "1", "--classifier", "gnb", "--datasets", "sea0", "--regimes",
             "incremental", "--n-chunks", "6", "--executor", "serial", "--store", store,
             "--out", str(out), "--detectors", "ddm"]
    assert main(["reproduce", *small, "--seeds", "2"]) == 0
    assert main(["reproduce", *small, "--seeds", "2-2", "--add"]) == 0
    pooled = pd.read_csv(out / "table1_gnb.csv").set_index("detector")
    assert pooled.loc["ddm", "n_seeds"] == 3  # without --replace: seed 2 pooled with 0-1
    assert main(["reproduce", *small, "--seeds", "2-2", "--add", "--replace"]) == 0
    replaced = pd.read_csv(out / "table1_gnb.csv").set_index("detector")
    alone = main(["reproduce", *small, "--seeds", "2-2", "--out", str(tmp_path / "alone")])
    one = pd.read_csv(tmp_path / "alone" / "table1_gnb.csv").set_index("detector")
    assert alone == 0 and replaced.loc["ddm", "n_seeds"] == 1
    assert replaced.loc["ddm", "ours"] == pytest.approx(one.loc["ddm", "ours"], abs=1e-12)
    assert "they replace the cells run before" in (out / "table1_gnb.md").read_text()
    capsys.readouterr()
    assert main(["reproduce", *small, "--seeds", "1", "--replace"]) == 2
    assert "--replace goes with --add" in capsys.readouterr().err


def test_reproduce_add_without_a_report_says_so_before_running(tmp_path, capsys):
    code = main(["reproduce", "--table", "1", "--seeds", "1", "--datasets", "sea0",
                 "--detectors", "ddm", "--add", "--store", str(tmp_path / "s"),
                 "--out", str(tmp_path / "empty")])
    err = capsys.readouterr().err
    assert code == 2 and "--add" in err and "no report at" in err
    assert not (tmp_path / "s").exists() or not list((tmp_path / "s").glob("part-*"))
    code = main(["reproduce", "--claims", "--add", "--out", str(tmp_path / "empty")])
    assert code == 2 and "the claims are made whole" in capsys.readouterr().err
    code = main(["reproduce", "--fig5", "--add", "--store", str(tmp_path / "s"),
                 "--out", str(tmp_path / "empty")])
    assert code == 2 and "no report at" in capsys.readouterr().err
    assert not (tmp_path / "s").exists() or not list((tmp_path / "s").glob("part-*"))


def test_reproduce_cifar_add_checks_the_report_before_any_run(tmp_path, capsys):
    from pudd_core.reproduction.cifar import _example_runs, comparison_report

    out, store = tmp_path / "out", tmp_path / "s"
    base = ["reproduce", "--table", "cifar", "--classifier", "pretrained-cnn", "--detectors",
            "none", "--n-chunks", "20", "--store", str(store), "--out", str(out), "--add"]
    assert main([*base, "--seeds", "0-1"]) == 2  # no report yet
    assert "no report at" in capsys.readouterr().err
    comparison_report(_example_runs()).save(out, "the first command")  # seeds 0-1, 20 chunks
    assert main([*base, "--seeds", "0-2"]) == 2
    err = capsys.readouterr().err
    assert "pairs its rows by seed" in err and "seeds 0, 1 with 20 chunks" in err
    assert main([*base, "--seeds", "0-1", "--replace"]) == 2
    assert "a CIFAR-10-CD row added with --add always replaces" in capsys.readouterr().err
    assert not store.exists() or not list(store.rglob("*.parquet"))  # nothing ran


# --- reproduce --add: what a report is, and each cell's seeds (issue 25, item 5) -------------
_SMALL = ["--table", "1", "--classifier", "gnb", "--datasets", "sea0", "--regimes",
          "incremental", "--detectors", "pudd-3", "--n-chunks", "6", "--executor", "serial"]


def _no_runs(store) -> bool:
    return not store.exists() or not list(store.rglob("*.parquet"))


def _saved_report(folder, table, classifier, detector):
    """A report of hand-made summaries (no runs), saved in ``folder``; returns its CSV path."""
    import pandas as pd

    from pudd_core.reproduction import reproduction_report

    runs = pd.DataFrame({"dataset": "sea0", "classifier": classifier, "detector": detector,
                         "alpha": 1e-3, "regime": "incremental", "seed": [0, 1],
                         "accuracy": [0.9, 0.8], "status": "ok"})
    return reproduction_report(runs, table, classifier).save(folder)[1]


@pytest.mark.parametrize(("table", "classifier", "detector", "legacy"), [
    (2, "dnn-ensemble", "pudd", False), (1, "vfdt", "pudd", False), (1, "vfdt", "ddm", True)])
def test_reproduce_add_refuses_a_report_of_another_table_or_classifier_renamed(
        tmp_path, capsys, table, classifier, detector, legacy):
    import pandas as pd

    out, store = tmp_path / "out", tmp_path / "s"
    csv = _saved_report(out, table, classifier, detector)
    if legacy:  # written before reports named their table: the published numbers tell
        pd.read_csv(csv).drop(columns=["table", "classifier", "seeds"]).to_csv(csv, index=False)
        csv.with_suffix(".md").unlink()
    csv.rename(out / "table1_gnb.csv")
    code = main(["reproduce", *_SMALL, "--seeds", "1", "--add", "--store", str(store),
                 "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "--add" in err and "not" in err and "Table 1 with gnb" in err
    assert _no_runs(store)


def test_reproduce_add_pools_new_seeds_into_the_mean_over_all_of_them(tmp_path, capsys):
    import pandas as pd

    from pudd_core.reproduction import read_report

    def cell(folder):
        report = read_report(folder / "table1_gnb.csv", 1, "gnb")
        return report, report.cells.set_index("detector").loc["pudd-3"]

    store = str(tmp_path / "s")
    added, whole = tmp_path / "added", tmp_path / "whole"
    assert main(["reproduce", *_SMALL, "--seeds", "0-1", "--store", store,
                 "--out", str(added)]) == 0
    assert main(["reproduce", *_SMALL, "--seeds", "2-3", "--add", "--store", store,
                 "--out", str(added)]) == 0
    assert main(["reproduce", *_SMALL, "--seeds", "0-3", "--store", store,
                 "--out", str(whole)]) == 0
    (pooled_report, pooled), (whole_report, direct) = cell(added), cell(whole)
    assert pooled["n_seeds"] == 4 and pooled["seeds"] == "0-3"
    assert pooled["ours"] == pytest.approx(direct["ours"], abs=1e-12)
    assert pooled["std"] == pytest.approx(direct["std"], abs=1e-12)
    assert pooled_report.seeds == whole_report.seeds == (0, 1, 2, 3)
    md = (added / "table1_gnb.md").read_text()
    assert "- Seeds: 0-3 (4 seeds;" in md and "[n=2]" not in md
    assert pd.read_csv(added / "table1_gnb.csv")["n_seeds"].max() == 4


def test_a_report_read_back_lists_the_seeds_it_ran_not_a_count_from_zero(tmp_path, capsys):
    from pudd_core.reproduction import read_report

    out = tmp_path / "out"
    assert main(["reproduce", *_SMALL, "--seeds", "5-6", "--store", str(tmp_path / "s"),
                 "--out", str(out)]) == 0
    back = read_report(out / "table1_gnb.csv", 1, "gnb")
    assert back.seeds == (5, 6)
    assert "- Seeds: 5-6 (2 seeds;" in back.markdown()


def _report_of_seeds_0_1(tmp_path, capsys):
    """A tiny report of seeds 0-1 in ``out``: (out, its CSV's bytes, an empty other store)."""
    out, store = tmp_path / "out", tmp_path / "s"
    assert main(["reproduce", *_SMALL, "--seeds", "0-1", "--store", str(store),
                 "--out", str(out)]) == 0
    capsys.readouterr()
    return out, (out / "table1_gnb.csv").read_bytes(), tmp_path / "other"


def test_reproduce_add_refuses_seeds_that_overlap_a_cell_in_part_before_running(
        tmp_path, capsys):
    out, before, other = _report_of_seeds_0_1(tmp_path, capsys)
    code = main(["reproduce", *_SMALL, "--seeds", "1-2", "--add", "--store", str(other),
                 "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "pudd-3 / sea0 / incremental" in err and "--seeds 2" in err
    assert _no_runs(other) and (out / "table1_gnb.csv").read_bytes() == before


@pytest.mark.parametrize(("csv_text", "what"), [
    ("", "No columns"),
    ("detector,dataset,regime,paper,ours,n_seeds\npudd-3,sea0,incremental,94.81,95,many\n",
     "n_seeds"),
    ("detector,dataset,regime,paper,ours,n_seeds\npudd-3,sea0,incremental,94.81,abc,1\n",
     "ours"),
    ("detector,dataset,regime,paper,ours,n_seeds\npudd-3,nowhere,incremental,94.81,95,1\n",
     "nowhere"),
    ("detector,dataset,regime,paper,ours,n_seeds\npudd-3,sea0,incremental,94.81,95,1\n"
     "pudd-3,sea0,incremental,94.81,95,1\n", "twice"),
    ("\xff\xfe\x00garbage", "reproduction report"),
])
def test_reproduce_add_into_a_malformed_report_fails_before_the_runs(
        tmp_path, capsys, csv_text, what):
    out, store = tmp_path / "out", tmp_path / "s"
    out.mkdir()
    (out / "table1_gnb.csv").write_bytes(csv_text.encode("latin-1"))
    code = main(["reproduce", *_SMALL, "--seeds", "1", "--add", "--store", str(store),
                 "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: --add:") and what in err
    assert "Traceback" not in err and _no_runs(store)


def test_claims_with_a_mistyped_results_folder_is_an_error_not_a_file_of_not_checkable(
        tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["reproduce", "--claims", "--results", str(tmp_path / "reslts"),
                 "--out", str(out)])
    assert code == 2 and "--results" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    code = main(["reproduce", "--claims", "--results", str(empty), "--out", str(out)])
    assert code == 2 and "holds no report" in capsys.readouterr().err
    assert not (out / "claims.md").exists()


@pytest.mark.parametrize("option", ["--datasets", "--detectors", "--regimes"])
@pytest.mark.parametrize("value", ["", ",", "sea0,,sine", " "])
def test_reproduce_refuses_an_empty_name_instead_of_running_everything(
        tmp_path, capsys, option, value):
    store = tmp_path / "s"
    code = main(["reproduce", "--table", "1", "--seeds", "1", option, value,
                 "--store", str(store), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and option in err and _no_runs(store)


# --- every value checked before any work (issue 25, item 8) ----------------------------------
@pytest.mark.parametrize(("args", "flag", "words"), [
    (["run", "--n-chunks", "1000000000000"], "--n-chunks", "GiB"),
    (["run", "--chunk-size", "100000000", "--n-chunks", "50"], "--chunk-size", "GiB"),
    (["run", "--n-jobs", "-1000", "--seeds", "0-1"], "--n-jobs", "-1 (every core)"),
    (["run", "--n-jobs", "0"], "--n-jobs", "positive"),
    (["run", "--n-jobs", "-2"], "--n-jobs", "positive"),
    (["run", "--classifier", "vfdt", "--classifier-option", "grace_period=0"],
     "--classifier-option", "grace_period"),
    (["reproduce", "--table", "1", "--seeds", "1", "--n-jobs", "-1000"], "--n-jobs",
     "positive"),
])
def test_a_value_no_run_can_use_is_refused_before_any_work(tmp_path, capsys, args, flag,
                                                           words):
    store = tmp_path / "s"
    code = main([*args, "--store", str(store)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error:") and words in err and flag in err, err
    assert "Traceback" not in err and _no_runs(store)


@pytest.mark.parametrize(("setting", "value", "words"), [
    ("n_jobs", "-1000", "n_jobs"), ("n_jobs", "0", "n_jobs")])
def test_a_grid_files_n_jobs_is_checked_like_the_option(tmp_path, capsys, setting, value,
                                                        words):
    cfg = tmp_path / "grid.toml"
    cfg.write_text(f'[grid]\ndataset = "sea0"\nseeds = "0-1"\nn_chunks = 5\n'
                   f'[run]\nstore = "{(tmp_path / "s").as_posix()}"\n{setting} = {value}\n')
    code = main(["grid", str(cfg)])
    assert code == 2 and words in capsys.readouterr().err and _no_runs(tmp_path / "s")
    code = main(["grid", str(cfg).replace("grid.toml", "grid.toml"), "--n-jobs", value])
    assert code == 2 and _no_runs(tmp_path / "s")


def test_a_grid_whose_classifier_refuses_an_option_fails_before_any_run(tmp_path, capsys):
    """Issue 25: a grid with epochs = 0 computed, then failed every run."""
    cfg = tmp_path / "grid.toml"
    cfg.write_text('[grid]\ndataset = "sea0"\nclassifier = "dnn"\nseeds = "0-1"\n'
                   'n_chunks = 5\nclassifier_options = {epochs = 0}\n'
                   f'[run]\nstore = "{(tmp_path / "s").as_posix()}"\nexecutor = "serial"\n')
    code = main(["grid", str(cfg)])
    err = capsys.readouterr().err
    assert code == 2 and "refused its options {'epochs': 0}" in err, err
    assert _no_runs(tmp_path / "s")


# --- exports: a failed write names the file and keeps the result (issue 25, item 9) ---------
def test_a_report_that_cannot_be_written_is_printed_and_the_file_named(tmp_path, capsys,
                                                                     monkeypatch):
    from pudd_core import reproduction

    def full_disk(self, directory):
        raise OSError(28, "No space left on device", str(tmp_path / "out" / "table1_gnb.md"))

    monkeypatch.setattr(reproduction.ReproductionReport, "save", full_disk)
    code = main(["reproduce", *_SMALL, "--seeds", "1", "--store", str(tmp_path / "s"),
                 "--out", str(tmp_path / "out")])
    captured = capsys.readouterr()
    assert code == 2
    assert "table1_gnb.md" in captured.err and "No space left on device" in captured.err
    assert "printed above" in captured.err and "Traceback" not in captured.err
    assert "| PUDD-3 | " in captured.out  # the result, on stdout before the failed write


def test_predictions_that_cannot_be_written_are_kept_in_a_fallback_file(tmp_path, capsys,
                                                                      monkeypatch):
    import json

    from pudd_core.experiments import export

    def full_disk(log, path):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(export, "write_log", full_disk)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    out = tmp_path / "log.csv"
    code = main(["export-predictions", "--n-chunks", "4", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and str(out) in err and "saved to" in err, err
    fallback = err.split("saved to ")[1].split(" instead")[0]
    rows = [json.loads(line) for line in open(fallback, encoding="utf-8")]
    from pudd_core.experiments.runner import RunConfig

    expected = export.export_predictions(RunConfig("sea0", detector="none", n_chunks=4))
    assert len(rows) == len(expected) and list(rows[0]) == list(expected.columns)


# --- reproduce --add: a report records the settings its cells ran with (issue 36, item 4) ----
def test_reproduce_add_refuses_other_episode_lengths_into_the_committed_full_length_report(
        tmp_path, capsys):
    import shutil
    from pathlib import Path

    results = Path(__file__).resolve().parents[1] / "results"
    out, store = tmp_path / "out", tmp_path / "s"
    out.mkdir()
    for suffix in (".csv", ".md"):  # written before reports recorded their settings
        shutil.copy(results / f"table1_gnb{suffix}", out)
    before = (out / "table1_gnb.csv").read_bytes()
    # the command: two 20-chunk episodes into the 10 full ones of each cell
    code = main(["reproduce", "--table", "1", "--classifier", "gnb", "--datasets", "sea0",
                 "--detectors", "pudd-3", "--seeds", "10-11", "--n-chunks", "20", "--add",
                 "--executor", "serial", "--store", str(store), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: --add:")
    assert "n_chunks=default" in err and "n_chunks=20" in err and "--n-chunks" in err
    assert "Traceback" not in err and _no_runs(store)
    assert (out / "table1_gnb.csv").read_bytes() == before


@pytest.mark.parametrize("extra", [[], ["--replace"]])
def test_reproduce_add_refuses_seeds_of_a_cell_made_with_another_n_chunks(
        tmp_path, capsys, extra):
    out, before, other = _report_of_seeds_0_1(tmp_path, capsys)
    # seed 0 is in the cell already: before, the cell was kept and nothing said so
    small = [a if a != "6" else "8" for a in _SMALL]
    code = main(["reproduce", *small, "--seeds", "0-0", "--add", *extra, "--store", str(other),
                 "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "n_chunks=6" in err and "n_chunks=8" in err
    assert _no_runs(other) and (out / "table1_gnb.csv").read_bytes() == before


def test_a_report_records_each_cells_settings_and_add_keeps_them(tmp_path, capsys):
    import pandas as pd

    from pudd_core.reproduction import SETTING_COLUMNS, read_report

    out, store = tmp_path / "out", str(tmp_path / "s")
    assert main(["reproduce", *_SMALL, "--seeds", "0-0", "--store", store,
                 "--out", str(out)]) == 0
    assert main(["reproduce", *[a if a != "pudd-3" else "ddm" for a in _SMALL], "--seeds",
                 "0-1", "--add", "--store", store, "--out", str(out)]) == 0
    saved = pd.read_csv(out / "table1_gnb.csv", dtype=str, keep_default_na=False)
    ran = saved[saved["n_seeds"] != "0"].set_index("detector")
    assert sorted(ran.index) == ["ddm", "pudd-3"]
    assert set(ran["n_chunks"]) == {"6"} and set(ran["chunk_size"]) == {"default"}
    assert set(ran["classifier_options"]) == {"{}"} and set(ran["adaptation"]) == {"window"}
    assert (saved.loc[saved["n_seeds"] == "0", list(SETTING_COLUMNS)] == "").all().all()
    back = read_report(out / "table1_gnb.csv", 1, "gnb")
    assert back.cells.set_index("detector").loc["ddm", "n_chunks"] == "6"


@pytest.mark.parametrize(("change", "what"), [
    (lambda c: c.assign(note="mine"), "'note'"),  # --add would drop it unsaid
    (lambda c: c.drop(columns=["n_chunks"]), "no column n_chunks"),
    (lambda c: c.assign(n_chunks=""), "column n_chunks row"),  # a cell that ran says none
])
def test_reproduce_add_refuses_a_report_whose_columns_it_would_drop_or_cannot_read(
        tmp_path, capsys, change, what):
    import pandas as pd

    out, store = tmp_path / "out", tmp_path / "s"
    assert main(["reproduce", *_SMALL, "--seeds", "0-0", "--store", str(store),
                 "--out", str(out)]) == 0
    csv = out / "table1_gnb.csv"
    change(pd.read_csv(csv, dtype=str, keep_default_na=False)).to_csv(csv, index=False)
    capsys.readouterr()
    other = tmp_path / "other"
    code = main(["reproduce", *_SMALL, "--seeds", "1", "--add", "--store", str(other),
                 "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: --add:") and what in err
    assert "Traceback" not in err and _no_runs(other)


@pytest.mark.parametrize("argv", [["--help"], ["monitor", "--help"], ["datasets", "--help"]])
def test_help_imports_no_heavy_library(argv):
    """``--help`` reads the parser only: river's detectors, pandas, scikit-learn and torch stay
    unimported (river's registry cost 1.2 s of every ``monitor --help``; BENCHMARKS.md)."""
    import subprocess
    import sys

    code = ("import runpy, sys\n"
            f"sys.argv = ['pudd_core', *{argv!r}]\n"
            "try:\n    runpy.run_module('pudd_core', run_name='__main__')\n"
            "except SystemExit:\n    pass\n"
            "heavy = {'river.drift', 'sklearn', 'torch', 'pandas', 'streamlit'}\n"
            "print(sorted(heavy & set(sys.modules)), file=sys.stderr)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, cwd=__import__("pathlib").Path(__file__).parents[1])
    assert out.returncode == 0, out.stderr
    assert out.stderr.strip().splitlines()[-1] == "[]"
    assert "usage:" in out.stdout
