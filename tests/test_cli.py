from __future__ import annotations

import json

from pudd_core.__main__ import main


def test_run_prints_the_summary_as_json(tmp_path, capsys):
    code = main(["run", "--dataset", "sea0", "--classifier", "gnb", "--detector", "pudd",
                 "--alpha", "1e-3", "--regime", "incremental", "--seeds", "0-1", "--n-chunks",
                 "12", "--json", "--store", str(tmp_path), "--executor", "serial"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["seeds"] == [0, 1] and len(out["runs"]) == 2
    mean = sum(r["accuracy"] for r in out["runs"]) / 2
    assert abs(out["accuracy_mean"] - mean) < 1e-12


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
