"""NannyML on the example log (run in its own venv: scripts/compare_reports/run.sh).

Realized and estimated (CBPE) ROC AUC and accuracy, and the KS drift of P(positive), per chunk
of 300 rows; the reference is the first 2,700 rows (before the log's first drift).
"""
from __future__ import annotations

import os
import sys

os.environ.setdefault("NML_DISABLE_USAGE_LOGGING", "1")  # no usage data sent

import nannyml as nml
import pandas as pd

log = pd.read_parquet(sys.argv[1])
log = log.rename(columns={"label": "y_true", "proba_1": "y_pred_proba", "ts": "timestamp"})
log["y_pred"] = (log["y_pred_proba"] > 0.5).astype(int)
ref, ana = log.iloc[:2700], log.iloc[2700:]
kw = {"y_pred_proba": "y_pred_proba", "y_pred": "y_pred", "timestamp_column_name": "timestamp",
      "problem_type": "classification_binary", "chunk_size": 300}
perf = nml.PerformanceCalculator(y_true="y_true", metrics=["roc_auc", "accuracy"], **kw)
perf.fit(ref)
realized = perf.calculate(ana)
cbpe = nml.CBPE(y_true="y_true", metrics=["roc_auc", "accuracy"], **kw)
cbpe.fit(ref)
estimated = cbpe.estimate(ana)
drift = nml.UnivariateDriftCalculator(column_names=["y_pred_proba"],
                                      continuous_methods=["kolmogorov_smirnov"],
                                      timestamp_column_name="timestamp", chunk_size=300)
drift.fit(ref)
drifted = drift.calculate(ana)
figs = [realized.plot(), estimated.plot(), drifted.filter(period="all").plot(kind="drift")]
with open(sys.argv[2], "w") as out:
    out.write("<html><head><meta charset='utf-8'><title>NannyML</title></head><body>"
              "<h1>NannyML 0.13.1 on sea0_gnb_predictions.parquet</h1>")
    for i, f in enumerate(figs):
        out.write(f.to_html(full_html=False, include_plotlyjs=i == 0))
    out.write("</body></html>")
a = realized.filter(period="analysis").to_df()
print("realized accuracy alerts:", int(a[("accuracy", "alert")].sum()), "of", len(a))
e = estimated.filter(period="analysis").to_df()
print("estimated accuracy alerts:", int(e[("accuracy", "alert")].sum()), "of", len(e))
d = drifted.filter(period="analysis").to_df()
ks = d[("y_pred_proba", "kolmogorov_smirnov", "alert")]
print("KS drift alerts on y_pred_proba:", int(ks.sum()), "of", len(d))
