"""Plotly figure builders for PUDD Lab: data in, ``go.Figure`` out, one look everywhere.

The look (template, Okabe-Ito palette, drift, alarm, threshold and bucket-edge styles) is set
once in ``_style``; the builders live by concept in ``stream``, ``windows``, ``teaching``,
``cifar``, ``thresholds``, ``course``, ``reproduction``, ``significance`` (critical-difference
diagrams) and ``ablation`` (Fig. 5). This is the only package that imports plotly.
"""

from __future__ import annotations

from pudd_core.plots._style import (
    ALARM_STYLE,
    BUCKET_EDGE_STYLE,
    DETECTOR_COLOURS,
    NEGATIVE_COLOUR,
    OKABE_ITO,
    PALETTE,
    POSITIVE_COLOUR,
    TEMPLATE,
    THRESHOLD_STYLE,
    TRUE_DRIFT_STYLE,
    WINDOW_COLOURS,
    detector_colour,
    p_text,
)
from pudd_core.plots.ablation import ek_ablation_figure
from pudd_core.plots.cifar import (
    interest_timeline_figure,
    sample_grid_figure,
    transition_matrix_figure,
)
from pudd_core.plots.course import power_figure, pu_dots_figure
from pudd_core.plots.reproduction import reproduction_figure, reproduction_frame
from pudd_core.plots.significance import cd_diagram_figure, method_label
from pudd_core.plots.stream import (
    SETTING_COLOURS,
    band_traces,
    detector_error_figure,
    error_trace_figure,
    min_pvalue_figure,
    run_summary_frame,
    runs_figure,
    settings_pvalue_figure,
)
from pudd_core.plots.teaching import (
    fig1_scatter_figure,
    pvalue_curve_figure,
    theorem1_histogram_figure,
    verdict_figure,
)
from pudd_core.plots.thresholds import (
    bonferroni_figure,
    false_alarm_figure,
    threshold_sweep_figure,
    threshold_sweep_frame,
)
from pudd_core.plots.windows import (
    bucket_columns,
    contingency_table_frame,
    cut_pvalue_figure,
    cut_scan_figure,
    pu_histogram_figure,
    window_histogram_figure,
)

__all__ = [
    "ALARM_STYLE",
    "BUCKET_EDGE_STYLE",
    "DETECTOR_COLOURS",
    "NEGATIVE_COLOUR",
    "OKABE_ITO",
    "PALETTE",
    "POSITIVE_COLOUR",
    "SETTING_COLOURS",
    "TEMPLATE",
    "THRESHOLD_STYLE",
    "TRUE_DRIFT_STYLE",
    "WINDOW_COLOURS",
    "band_traces",
    "bonferroni_figure",
    "bucket_columns",
    "cd_diagram_figure",
    "contingency_table_frame",
    "cut_pvalue_figure",
    "cut_scan_figure",
    "detector_colour",
    "detector_error_figure",
    "ek_ablation_figure",
    "error_trace_figure",
    "false_alarm_figure",
    "fig1_scatter_figure",
    "interest_timeline_figure",
    "method_label",
    "min_pvalue_figure",
    "p_text",
    "power_figure",
    "pu_dots_figure",
    "pu_histogram_figure",
    "pvalue_curve_figure",
    "reproduction_figure",
    "reproduction_frame",
    "run_summary_frame",
    "runs_figure",
    "sample_grid_figure",
    "settings_pvalue_figure",
    "theorem1_histogram_figure",
    "threshold_sweep_figure",
    "threshold_sweep_frame",
    "transition_matrix_figure",
    "verdict_figure",
    "window_histogram_figure",
]
