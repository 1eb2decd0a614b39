"""The committed threshold studies: reports, findings and monitor defaults held to the CSVs."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from pudd_core._format import power_of_ten
from pudd_core.experiments.studies import clopper_pearson
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
