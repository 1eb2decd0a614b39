from __future__ import annotations

import pandas as pd
import pytest

from pudd_core.cli import main
from pudd_core.experiments.grid import run_grid
from pudd_core.plots import ek_ablation_figure
from pudd_core.reproduction.ablation import (
    ek_ablation_cells,
    ek_ablation_configs,
    ek_ablation_markdown,
    save_ek_ablation,
)


def test_configs_are_pudd_and_ek_at_the_three_thresholds_of_fig5():
    cfgs = ek_ablation_configs("vfdt", [3, 4], datasets=["sine", "elec2"], references=False)
    assert len(cfgs) == 2 * 2 * 2 * 3 * 2  # datasets × regimes × partitions × alphas × seeds
    assert {(c.detector, c.alpha) for c in cfgs} == {
        (d, a) for d in ("pudd", "ek") for a in (0.1, 1e-3, 1e-5)}
    assert {c.seed for c in cfgs} == {3, 4} and {c.classifier for c in cfgs} == {"vfdt"}
    # PUDD's runs are the very runs of Table 1's reproduction (same key: computed once)
    from pudd_core.reproduction import reproduction_configs

    table1 = {c.key() for c in reproduction_configs(1, "vfdt", [3, 4], datasets=["sine", "elec2"],
                                                    detectors=["pudd-1", "pudd-3", "pudd-5"])}
    assert {c.key() for c in cfgs if c.detector == "pudd"} == table1
    # the reference rows too: no detector on both streams, the oracle on sine (known drifts)
    refs = [c for c in ek_ablation_configs("vfdt", [3, 4], datasets=["sine", "elec2"])
            if c.detector in ("none", "oracle")]
    assert {(c.dataset, c.detector) for c in refs} == {
        ("sine", "none"), ("elec2", "none"), ("sine", "oracle")}
    assert {c.key() for c in refs} == {c.key() for c in reproduction_configs(
        1, "vfdt", [3, 4], datasets=["sine", "elec2"], detectors=["none", "oracle"])}
    with pytest.raises(ValueError, match="seeds"):
        ek_ablation_configs("gnb", 0)


def test_cells_are_means_over_seeds_of_real_runs(tmp_path):
    cfgs = ek_ablation_configs("gnb", [0, 1], datasets=["sea0"], regimes=["incremental"],
                               alphas=[1e-3], n_chunks=12)
    rows = run_grid(cfgs, store=tmp_path, executor="serial", progress=False)
    # without the configs, short streams are another protocol: left out of the report
    assert ek_ablation_cells(rows).empty
    cells = ek_ablation_cells(rows, cfgs)
    assert cells["detector"].tolist() == ["pudd-3", "ek-3", "none", "oracle"]
    # sea0 over 12 chunks has one true drift (chunk 10): the oracle alarms there, once
    oracle = cells.set_index("detector").loc["oracle"]
    assert (oracle.alarms, oracle.drifts, oracle.detected, oracle.delay) == (1, 1, 1, 0)
    assert cells.set_index("detector").loc["none", "alarms"] == 0
    cells = cells[~cells["detector"].isin(["none", "oracle"])]
    for det, name in (("pudd", "pudd-3"), ("ek", "ek-3")):
        expected = rows.loc[rows["detector"] == det, "accuracy"].mean() * 100
        assert cells.set_index("detector").loc[name, "ours"] == pytest.approx(expected)
    assert cells["n_seeds"].tolist() == [2, 2] and cells["seeds"].tolist() == ["0-1", "0-1"]
    md, csv = save_ek_ablation(cells, tmp_path / "out", notes=["GNB seeds 0-1"])
    assert pd.read_csv(csv)["detector"].tolist() == ["pudd-3", "ek-3"]
    assert "- GNB seeds 0-1" in md.read_text()


def test_markdown_and_figure_compare_like_with_like():
    cells = pd.DataFrame({
        "classifier": "gnb", "regime": "incremental",
        "detector": ["pudd-1", "ek-1", "pudd-1", "ek-1", "pudd-1"],
        "dataset": ["sea0", "sea0", "sine", "sine", "mixed"],
        "ours": [90.0, 88.0, 80.0, 70.0, 50.0], "std": 0.0, "n_seeds": 1, "n_errors": 0,
        "seeds": "0"})
    text = ek_ablation_markdown(cells)
    assert "| EK-1 | – | 88.00 | 70.00 | – |" in text  # mixed not run for EK: no mean
    fig = ek_ablation_figure(cells)
    # mixed has no EK cell: the bars average sea0 and sine only
    assert {t.name: t.y[0] for t in fig.data} == {"PUDD-1": 85.0, "EK-1": 79.0}


def test_cli_claims_writes_the_report(tmp_path, capsys):
    assert main(["reproduce", "--claims", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "claims.md").read_text()
    assert text.startswith("# The paper's claims, checked")
    assert "| 3b |" in text and text in capsys.readouterr().out


@pytest.mark.parametrize("args", [["reproduce"], ["reproduce", "--claims", "--table", "1"],
                                  ["reproduce", "--fig5", "--claims"]])
def test_cli_needs_exactly_one_of_table_claims_fig5(args, capsys):
    assert main(args) == 2
    assert "give one of --table 1|2|cifar, --claims or --fig5" in capsys.readouterr().err


def test_cli_fig5_runs_the_ablation_and_writes_its_report(tmp_path, capsys):
    code = main(["reproduce", "--fig5", "--classifier", "gnb", "--seeds", "1",
                 "--datasets", "sea0", "--regimes", "incremental", "--n-chunks", "12",
                 "--executor", "serial", "--store", str(tmp_path / "store"),
                 "--out", str(tmp_path)])
    assert code == 0
    cells = pd.read_csv(tmp_path / "fig5_ek.csv")
    assert cells["detector"].tolist() == ["pudd-1", "ek-1", "pudd-3", "ek-3", "pudd-5", "ek-5",
                                          "none", "oracle"]
    text = (tmp_path / "fig5_ek.md").read_text()
    assert "not the paper's protocol" in text and "| EK-5 |" in text


def test_cli_fig5_add_puts_the_references_into_a_report_written_before(tmp_path, capsys):
    small = ["reproduce", "--fig5", "--classifier", "gnb", "--datasets", "sea0", "--regimes",
             "incremental", "--n-chunks", "12", "--executor", "serial", "--store",
             str(tmp_path / "store"), "--out", str(tmp_path)]
    assert main([*small, "--seeds", "2", "--detectors", "pudd-3,ek-3"]) == 0
    before = pd.read_csv(tmp_path / "fig5_ek.csv", float_precision="round_trip")
    assert before["detector"].tolist() == ["pudd-3", "ek-3"]
    assert main([*small, "--seeds", "2", "--detectors", "none,oracle", "--add"]) == 0
    after = pd.read_csv(tmp_path / "fig5_ek.csv", float_precision="round_trip")
    assert after["detector"].tolist() == ["pudd-3", "ek-3", "none", "oracle"]
    pd.testing.assert_frame_equal(after.iloc[:2][before.columns], before)  # kept, exact
    # the same report written in one go: the very same cells
    whole = tmp_path / "whole"
    assert main([*small[:-1], str(whole), "--seeds", "2",
                 "--detectors", "pudd-3,ek-3,none,oracle"]) == 0
    pd.testing.assert_frame_equal(
        pd.read_csv(whole / "fig5_ek.csv", float_precision="round_trip"), after)
    text = (tmp_path / "fig5_ek.md").read_text()
    assert "Rows added by `" in text and "| Oracle (ref.) |" in text
    capsys.readouterr()
    assert main([*small, "--seeds", "1", "--detectors", "magic", "--add"]) == 2
    assert "is not a row of Fig. 5" in capsys.readouterr().err
    assert main([*small[:-1], str(tmp_path / "empty"), "--seeds", "1", "--add"]) == 2
    assert "no report at" in capsys.readouterr().err


def test_a_cell_of_scattered_seeds_is_written_as_every_report_and_read_back(tmp_path):
    """Seeds 0 and 3: "0, 3" as the Table 1/2 reports write them; a Fig. 5 report of before
    ("0,3") still reads."""
    from pudd_core.reproduction.ablation import read_ek_ablation

    runs = pd.DataFrame({"classifier": "gnb", "detector": "pudd", "alpha": 1e-3,
                         "dataset": "sea0", "regime": "incremental", "seed": [0, 3],
                         "accuracy": [0.9, 0.8], "status": "ok"})
    cells = ek_ablation_cells(runs)
    assert cells["seeds"].tolist() == ["0, 3"]
    _, csv = save_ek_ablation(cells, tmp_path)
    back, _ = read_ek_ablation(csv)
    assert back["seeds"].tolist() == ["0, 3"] and back["n_seeds"].tolist() == [2]
    old = pd.read_csv(csv, dtype={"seeds": str})
    old["seeds"] = "0,3"
    old.to_csv(csv, index=False)
    assert read_ek_ablation(csv)[0]["seeds"].tolist() == ["0,3"]


def test_cli_fig5_add_refuses_rows_of_another_stream_length_before_any_run(tmp_path, capsys):
    small = ["reproduce", "--fig5", "--classifier", "gnb", "--datasets", "sea0", "--regimes",
             "incremental", "--executor", "serial", "--seeds", "1", "--out", str(tmp_path)]
    assert main([*small, "--n-chunks", "12", "--detectors", "pudd-3,ek-3",
                 "--store", str(tmp_path / "store")]) == 0
    before = (tmp_path / "fig5_ek.csv").read_bytes()
    capsys.readouterr()
    other = tmp_path / "other"
    for length in (["--n-chunks", "8"], []):  # shorter, or the paper's full lengths
        code = main([*small, *length, "--detectors", "none", "--add", "--store", str(other)])
        err = capsys.readouterr().err
        assert code == 2 and err.startswith("error: --add:") and "12 chunks" in err
        assert "--n-chunks" in err and "Traceback" not in err
    assert not other.exists() or not list(other.rglob("*.parquet"))
    assert (tmp_path / "fig5_ek.csv").read_bytes() == before


def test_cli_fig5_render_writes_the_report_again_from_its_csv_running_nothing(
        tmp_path, capsys, monkeypatch):
    """``reproduce --fig5 --render``: the committed report's Markdown from its CSV and notes,
    byte for byte (its CSV untouched), and a stale table or header made whole again; no run."""
    import shutil
    from pathlib import Path

    import pudd_core.experiments.grid as grid

    results = Path(__file__).resolve().parents[2] / "results"
    for name in ("fig5_ek.csv", "fig5_ek.md"):
        shutil.copy(results / name, tmp_path / name)
    committed = (results / "fig5_ek.md").read_text(encoding="utf-8")
    md = tmp_path / "fig5_ek.md"
    # stale: an old way of writing α, and a cell no longer the CSV's
    md.write_text(committed.replace("α = 10⁻ˣ", "alpha = 10^-x").replace("| 70.85 |", "| 1 |"),
                  encoding="utf-8")
    monkeypatch.setattr(grid, "run_grid", lambda *a, **k: pytest.fail("a run was started"))
    assert main(["reproduce", "--fig5", "--render", "--out", str(tmp_path)]) == 0
    assert md.read_text(encoding="utf-8") == committed
    assert (tmp_path / "fig5_ek.csv").read_bytes() == (results / "fig5_ek.csv").read_bytes()
    assert "α = 10⁻ˣ" in committed and "10^-" not in committed
    capsys.readouterr()
    assert main(["reproduce", "--table", "1", "--render", "--out", str(tmp_path)]) == 2
    assert "--render writes a --fig5 report again" in capsys.readouterr().err
