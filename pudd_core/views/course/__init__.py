"""The course's lessons as data: each lesson's live computation and its questions.

A :class:`Question` is built from a finished computation: its right option and the numbers
in its feedback come from that computation, never from typed text, so a new seed or setting
gives a new right answer with new numbers. One module per lesson (``delay``,
``probabilities``, ``cuts``, ``power``, ``thresholds``, ``interests``) beside ``questions``;
nothing here draws or knows Streamlit.
"""

from __future__ import annotations

from pudd_core.views.course.cuts import (
    ALARM_VERDICTS,
    CUT_ALPHA,
    CUT_STREAMS,
    CUT_VERDICTS,
    CutLesson,
    cut_lesson,
    cut_spreads,
)
from pudd_core.views.course.delay import (
    DELAY_VERDICTS,
    LESSON1_STREAMS,
    DelayConfig,
    DelayLesson,
    delay_lesson,
    delay_setting,
    delay_spread,
)
from pudd_core.views.course.interests import cifar_question, flipped_share
from pudd_core.views.course.power import (
    PowerComparison,
    power_comparison,
    power_question,
    theorem2_question,
)
from pudd_core.views.course.probabilities import PUPoints, pu_points
from pudd_core.views.course.questions import Feedback, Question, option_of
from pudd_core.views.course.spread import CLASS_SEEDS, STORE, Spread, spread_of, write_store
from pudd_core.views.course.thresholds import (
    STUDY_CHUNK_SIZE,
    STUDY_CHUNKS,
    STUDY_VERDICTS,
    SWEEP_CHUNKS,
    SWEEP_DATASET,
    FloorEffect,
    LessonCalibration,
    StudySpread,
    Sweep,
    calibrated_alpha,
    drifting_sweep,
    floor_effect,
    stationary_study,
    study_spread,
    study_verdict,
    threshold_question,
)

__all__ = [
    "ALARM_VERDICTS",
    "CLASS_SEEDS",
    "CUT_ALPHA",
    "CUT_STREAMS",
    "CUT_VERDICTS",
    "DELAY_VERDICTS",
    "STUDY_VERDICTS",
    "Spread",
    "StudySpread",
    "cut_spreads",
    "STORE",
    "delay_setting",
    "delay_spread",
    "write_store",
    "spread_of",
    "study_spread",
    "study_verdict",
    "CutLesson",
    "DelayConfig",
    "DelayLesson",
    "Feedback",
    "FloorEffect",
    "LessonCalibration",
    "LESSON1_STREAMS",
    "PUPoints",
    "PowerComparison",
    "Question",
    "STUDY_CHUNKS",
    "STUDY_CHUNK_SIZE",
    "SWEEP_CHUNKS",
    "SWEEP_DATASET",
    "Sweep",
    "cifar_question",
    "cut_lesson",
    "delay_lesson",
    "calibrated_alpha",
    "drifting_sweep",
    "flipped_share",
    "floor_effect",
    "option_of",
    "power_comparison",
    "power_question",
    "pu_points",
    "stationary_study",
    "theorem2_question",
    "threshold_question",
]
