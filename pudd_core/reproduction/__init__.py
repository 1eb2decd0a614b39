"""The paper's reproduction: the runs behind Tables 1 and 2 and Fig. 5, and reports against them.

One layer above the run engine (``pudd_core.experiments``), which never imports it.
``configs`` lists the runs behind each table; ``report`` puts the mean accuracy over seeds
beside the published number; ``store`` reads a saved report back and ``merge`` adds seeds or
cells to one (``reproduce --add``); ``committed`` finds the reports committed under
``results/``; ``claims`` and ``significance`` rank the detectors and test the paper's claims;
``ablation`` is the PUDD-versus-EK ablation, ``cifar`` the CIFAR-10-CD comparison; ``findings``
writes the README's findings from the committed reports.

The names of ``configs``, ``report``, ``store`` and ``merge`` are importable from here.
"""

from __future__ import annotations

from pudd_core.reproduction.configs import (
    ACCEPTANCE_DATASETS,
    detector_label,
    reproduction_configs,
    seed_text,
)
from pudd_core.reproduction.merge import check_addition, merge_reports
from pudd_core.reproduction.report import (
    ALARM_COLUMNS,
    SETTING_COLUMNS,
    ReproductionReport,
    alarm_stats,
    alarm_text,
    reproduction_report,
)
from pudd_core.reproduction.store import checked_numbers, read_report

__all__ = [
    "ACCEPTANCE_DATASETS",
    "ALARM_COLUMNS",
    "ReproductionReport",
    "SETTING_COLUMNS",
    "alarm_stats",
    "alarm_text",
    "check_addition",
    "checked_numbers",
    "detector_label",
    "merge_reports",
    "read_report",
    "reproduction_configs",
    "reproduction_report",
    "seed_text",
]
