"""Evidently on the example log (run in its own venv: scripts/compare_reports/run.sh).

The reference is the first 2,700 rows (before the log's first drift), the current data the rest:
Evidently compares two datasets, not chunks.
"""
from __future__ import annotations

import os
import sys

os.environ.setdefault("DO_NOT_TRACK", "1")  # no usage data sent

import pandas as pd
from evidently import BinaryClassification, DataDefinition, Dataset, Report
from evidently.presets import ClassificationPreset, DataDriftPreset

log = pd.read_parquet(sys.argv[1])
log["prediction"] = (log["proba_1"] > 0.5).astype(int)
log = log.rename(columns={"label": "target"})[["ts", "target", "prediction", "proba_1"]]
task = BinaryClassification(target="target", prediction_labels="prediction",
                            prediction_probas="proba_1", pos_label=1)
dd = DataDefinition(classification=[task], numerical_columns=["proba_1"], timestamp="ts")
ref = Dataset.from_pandas(log.iloc[:2700], data_definition=dd)
cur = Dataset.from_pandas(log.iloc[2700:], data_definition=dd)
snap = Report([ClassificationPreset(), DataDriftPreset()]).run(cur, ref)
snap.save_html(sys.argv[2])
