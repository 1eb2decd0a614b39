"""The committed threshold studies: reports, findings and monitor defaults held to the CSVs."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from pudd_core._format import power_of_ten
from pudd_core.experiments.studies import STUDY_VARIANTS, clopper_pearson
from pudd_core.monitoring import VARIANTS
from pudd_core.reproduction import studies
from pudd_core.reproduction.studies import (
    CHUNK_SIZE_CSV,
    SKIP_CSV,
    STATIONARY_CSV,
    chosen_defaults,
    effective_options,
    render_all,
)

RESULTS = Path(__file__).resolve().parents[2] / "results"
needs_results = pytest.mark.skipif(
    not all((RESULTS / n).is_file() for n in (STATIONARY_CSV, SKIP_CSV, CHUNK_SIZE_CSV)),
    reason="the committed threshold studies are not in results/")


def _body(text: str) -> list[str]:
    """A report without its command line (the date and compute time of the run)."""
    return [line for line in text.splitlines() if not line.startswith("Command:")]


@needs_results
def test_each_committed_report_is_what_its_csv_gives():
    for name, text in render_all(RESULTS, command="-", written="-").items():
        committed = (RESULTS / name).read_text(encoding="utf-8")
        assert _body(committed) == _body(text), (f"results/{name} differs from its CSV; run "
                                                 "scripts/threshold_studies.py --render")


@needs_results
def test_the_false_alarm_table_pools_the_seeds_as_counted_by_hand():
    raw = pd.read_csv(RESULTS / STATIONARY_CSV)
    text = (RESULTS / STATIONARY_CSV.replace(".csv", ".md")).read_text(encoding="utf-8")
    rows = [line.split("|")[1:-1] for line in text.splitlines()
            if re.match(r"\| (GNB|VFDT|DNN) \|", line)]
    assert rows
    names = {"GNB": "gnb", "VFDT": "vfdt", "DNN": "dnn"}
    for cells in rows:
        clf, variant, alpha = names[cells[0].strip()], cells[4].strip(), cells[5].strip()
        exponents = {power_of_ten(-x): x for x in range(1, 11)}
        a = 10.0 ** -exponents[alpha]
        mine = raw[(raw["classifier"] == clf) & (raw["alpha"] == a)
                   & (raw["variant"] == variant)]
        k, n = int(mine["alarms"].sum()), int(mine["chunks"].sum())
        assert (int(cells[6]), int(cells[7])) == (k, n)
        low, high = clopper_pearson(k, n)
        assert cells[9].strip() == f"{low:.4f} - {high:.4f}"


@needs_results
def test_the_monitors_default_variant_is_the_one_the_studies_choose():
    chosen = chosen_defaults(RESULTS)
    assert chosen is not None
    assert effective_options(chosen) == effective_options(VARIANTS["calibrated"])


def test_the_findings_say_so_where_a_study_is_missing(tmp_path):
    for name, finding in studies.STUDY_FINDINGS.items():
        assert "scripts/threshold_studies.py" in finding(tmp_path), name
    assert chosen_defaults(tmp_path) is None
    assert render_all(tmp_path, command="-", written="-") == {}


@needs_results
def test_the_reports_and_findings_write_alpha_as_the_rest_of_the_project():
    # they wrote "10^-3" where the app, the plots and the course write 10⁻³
    texts = {**render_all(RESULTS, command="-", written="-"),
             **{name: finding(RESULTS) for name, finding in studies.STUDY_FINDINGS.items()}}
    for name, text in texts.items():
        assert "10^" not in text, name
        assert "10⁻³" in text, name


def _script() -> object:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "threshold_studies", RESULTS.parent / "scripts" / "threshold_studies.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _written(text: str) -> str:
    return re.search(r"\(written ([^;]+);", text).group(1)


@needs_results
def test_render_keeps_each_reports_date_of_computation(tmp_path, monkeypatch):
    """``threshold_studies.py --render`` computes nothing: each report keeps the date and
    command its numbers came from (it wrote the time of the render); a report whose CSV
    gained cells says the new computation's, and the skip-rule report follows the
    stationary study too."""
    import shutil

    for name in (*studies.REPORT_SOURCES, STATIONARY_CSV, SKIP_CSV, CHUNK_SIZE_CSV):
        shutil.copy(RESULTS / name, tmp_path / name)
    dated = {name: (tmp_path / name).read_text(encoding="utf-8").replace(
        _written((tmp_path / name).read_text(encoding="utf-8")), f"2020-01-0{i} 00:00 UTC")
        for i, name in enumerate(studies.REPORT_SOURCES, 1)}
    for name, text in dated.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    script = _script()
    assert script.main(["--render", "--out", str(tmp_path)]) == 0
    for i, name in enumerate(studies.REPORT_SOURCES, 1):
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert _written(text) == f"2020-01-0{i} 00:00 UTC", name
        assert _body(text) == _body((RESULTS / name).read_text(encoding="utf-8")), name

    def one_more_false_alarm_cell(out: Path) -> None:  # a study run that added a cell
        frame = pd.read_csv(out / STATIONARY_CSV)
        frame.iloc[:1].assign(seed=99).to_csv(out / STATIONARY_CSV, mode="a", header=False,
                                             index=False)

    monkeypatch.setattr(script, "stationary", one_more_false_alarm_cell)
    assert script.main(["--study", "stationary", "--out", str(tmp_path)]) == 0
    dates = {name: _written((tmp_path / name).read_text(encoding="utf-8"))
             for name in studies.REPORT_SOURCES}
    commands = {name: (tmp_path / name).read_text(encoding="utf-8").splitlines()[2]
                .split("` (written")[0] for name in studies.REPORT_SOURCES}
    assert dates["chunk_size.md"] == "2020-01-03 00:00 UTC"
    assert commands["chunk_size.md"] == (RESULTS / "chunk_size.md").read_text(
        encoding="utf-8").splitlines()[2].split("` (written")[0]  # the study that made it
    assert commands["skip_rule.md"].endswith("threshold_studies.py --study stationary")
    assert dates["stationary_false_alarms.md"] == dates["skip_rule.md"] != "2020-01-01 00:00 UTC"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", dates["skip_rule.md"])


@needs_results
def test_the_default_is_the_best_variant_whose_floor_keeps_alpha_on_logs_with_few_errors():
    """A floor with a cell of results/false_alarms.csv above α is no candidate for the
    monitor's default (the count-floor study), however many injected changes it catches; the
    defaults finding says which variant was passed over and why, from the CSVs."""
    st, sk = (pd.read_csv(RESULTS / n) for n in (STATIONARY_CSV, SKIP_CSV))
    floors = pd.read_csv(RESULTS / "false_alarms.csv")
    above = set(floors.loc[floors["above_alpha"].astype(bool), "variant"])
    assert "default (floor 5)" in above and "clamp_min=0, min_expected=5" not in above
    scores = studies.variant_scores(st, sk)["variant"].tolist()
    first = next(v for v in scores if not v.startswith("authors"))  # the authors' floor of 5
    assert chosen_defaults(RESULTS) == dict(STUDY_VARIANTS[first])
    text = studies.STUDY_FINDINGS["studies-defaults"](RESULTS)
    assert f"({first}): the variant that catches the most" in text
    for v in scores[:scores.index(first)]:
        n = int((floors["variant"] == "default (floor 5)").sum())
        k = int(floors.loc[floors["variant"] == "default (floor 5)", "above_alpha"].sum())
        assert f"“{v}” catches more here" in text and f"in {k} of {n} cells" in text
