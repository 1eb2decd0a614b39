#!/usr/bin/env bash
# PUDD's, NannyML's and Evidently's reports on the example log, side by side (README, "The
# report a team reads"). NannyML and Evidently go into throwaway venvs, never the project's.
# Run from the repository root; the screenshots land in docs/screenshots/.
set -euo pipefail
LOG=datasets/examples/sea0_gnb_predictions.parquet
OUT=${OUT:-/tmp/compare_reports}
mkdir -p "$OUT"
[ -x /tmp/nml/bin/python ] || { python3 -m venv /tmp/nml && /tmp/nml/bin/pip install -q nannyml statsmodels "pandas<3"; }
[ -x /tmp/evd/bin/python ] || { python3 -m venv /tmp/evd && /tmp/evd/bin/pip install -q evidently "pandas<3"; }
PYTHONPATH=. .venv/bin/python -m pudd_core monitor "$LOG" --label label --proba-prefix proba_ \
    --chunk-size 300 --time-column ts --baselines adwin,ddm --report "$OUT/pudd.html"
NML_DISABLE_USAGE_LOGGING=1 /tmp/nml/bin/python scripts/compare_reports/nannyml_report.py "$LOG" "$OUT/nannyml.html"
DO_NOT_TRACK=1 /tmp/evd/bin/python scripts/compare_reports/evidently_report.py "$LOG" "$OUT/evidently.html"
for tool in pudd nannyml evidently; do
    PYTHONPATH=. .venv/bin/python scripts/compare_reports/screenshot.py "$OUT/$tool.html" \
        "docs/screenshots/report-$tool.png"
done
