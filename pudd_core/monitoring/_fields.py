"""The table of a log's description: one entry per field of :class:`LogFormat`, and its shapes.

The command line's column flags (their names, groups, choices and help) and the Monitor
page's column controls are made from :data:`LOG_FIELDS`; a new way of writing a log is one
entry here and its field of ``LogFormat`` (``tests/test_monitoring_fields.py`` holds the two
equal). The module imports nothing heavy, so ``monitor --help`` reads it at no cost.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

__all__ = ["COMPRESSIONS", "FORM_GROUP", "LOG_FIELDS", "LOG_SHAPES", "LogField", "LogShape",
           "log_field", "log_field_names", "log_forms"]

#: The group of the probability forms: a log is read by exactly one of them.
FORM_GROUP: Final = "form"


@dataclass(frozen=True)
class LogField:
    """One field of a log's description, and how the command line and the page ask for it.

    Parameters
    ----------
    name
        The :class:`~pudd_core.monitoring.LogFormat` field (and ``monitor()``'s keyword);
        the flag is ``--`` and the name with dashes.
    help
        What it is, in words: the flag's help and the control's.
    kind
        ``"column"`` (a column name), ``"columns"`` or ``"values"`` (a comma-separated list of
        column names or of label values), ``"text"``.
    group
        ``"form"``: one of the probability forms (exactly one is given); ``"decisions"``: at
        most one of the group; ``"time"``: how the time column is read (chunks by time).
    metavar, choices
        The flag's placeholder and its allowed values (for a ``"text"`` field).
    widget
        The page's label for the control.
    form_title
        For a form: its choice in the page's radio of forms.
    shown
        For a field of no group: the forms with which the page shows it (empty: with none).
    needed
        Of ``shown``, the forms that need it (the control offers no "none").
    side
        The page's column (1 or 2) the control is drawn in.
    choice_labels
        The page's words for each of ``choices``, and for no value (``None``).
    guess
        The key of :func:`~pudd_core.monitoring.guess_columns` whose value the page starts from.
    default
        The page's starting text of a ``"text"`` field when nothing was guessed.
    ask
        A column the page leaves unchosen when nothing was guessed (else it starts on the
        first column): a wrong pick would give silently wrong numbers.

    Examples
    --------
    >>> f = log_field("proba_prefix")
    >>> f.flag, f.group, f.form_title
    ('--proba-prefix', 'form', 'Label + one probability column per class')
    """

    name: str
    help: str
    kind: Literal["column", "columns", "values", "text"] = "column"
    group: Literal["form", "decisions", "time"] | None = None
    metavar: str = "COLUMN"
    choices: tuple[str, ...] = ()
    widget: str = ""
    form_title: str = ""
    shown: tuple[str, ...] = ()
    needed: tuple[str, ...] = ()
    side: int = 1
    choice_labels: tuple[tuple[str, str | None], ...] = ()
    guess: str | None = None
    default: str = ""
    ask: bool = False

    @property
    def flag(self) -> str:
        """The command line's flag.

        Examples
        --------
        >>> log_field("binary_top_score").flag
        '--binary-top-score'
        """
        return "--" + self.name.replace("_", "-")


_WITH_LABEL = ("proba_prefix", "proba_columns", "proba_array", "binary_top_score")

#: Every field of a log's description, in the order the page's form radio lists the forms.
LOG_FIELDS: tuple[LogField, ...] = (
    LogField("label", "the true-label column (an empty cell: not labelled yet)",
             widget="Label column", shown=_WITH_LABEL, needed=_WITH_LABEL, guess="label",
             ask=True),
    LogField("proba_prefix", "probability columns PREFIX<class>, e.g. proba_ for proba_0, "
                             "proba_1 (the rest of each name is its class)",
             kind="text", group=FORM_GROUP, metavar="PREFIX", side=2, guess="proba_prefix",
             widget="Probability columns: prefix", default="proba_",
             form_title="Label + one probability column per class"),
    LogField("proba_columns", "probability columns in class order (labels 0..K-1 unless "
                              "classes are given); one column: P(positive) of a binary model",
             kind="columns", group=FORM_GROUP, metavar="C1,C2,...", side=2, guess="proba_column",
             widget="P(positive) column",
             form_title="Label + one column P(positive) (a binary model)"),
    LogField("p_true", "shortcut: the probability of the true class (with correct or pred)",
             group=FORM_GROUP, guess="p_true",
             widget="p_true column (probability of the true class)",
             form_title="p_true + correct (or pred)"),
    LogField("binary_top_score", "a binary model's score of its predicted class (a Hugging "
                                 "Face pipeline's score), with pred (the predicted label) and "
                                 "label: p(true class) is the score where the prediction is "
                                 "right, else 1 - score; a third class is refused",
             group=FORM_GROUP, side=2, guess="proba_column",
             widget="Score of the predicted class",
             form_title="Label + the predicted label and its score (a binary model's top class)"),
    LogField("proba_array", "one column holding every class's probabilities as an array per "
                            "row (a JSON lines field, a Parquet list column, a CSV cell "
                            "\"[0.1, 0.9]\"), in class order (labels 0..K-1 unless classes "
                            "are given)",
             group=FORM_GROUP, side=2, guess="proba_array",
             widget="Probability arrays column",
             form_title="Label + one column holding an array of every class's probabilities"),
    LogField("classes", "each probability column's (or array place's) label value, in order",
             kind="values", metavar="V1,V2,...", side=2, shown=("proba_array",),
             widget="Classes in the arrays' order (empty: 0 .. K-1)"),
    LogField("positive_label", "a single probability column is P(positive class): the "
                               "positive label (inferred for 0/1, -1/1 and false/true labels)",
             kind="text", metavar="VALUE", side=2, shown=("proba_columns",),
             widget="Positive label (empty: inferred)"),
    LogField("correct", "0/1: whether each prediction was right (with any form)",
             group="decisions", side=2, shown=("p_true",), needed=("p_true",),
             guess="correct", widget="correct column (0/1)"),
    LogField("pred", "the model's decisions (predicted labels), compared with the label: "
                     "they, not the arg-max, say which predictions are wrong (with any form)",
             group="decisions", shown=_WITH_LABEL,
             needed=("binary_top_score",), guess="pred", ask=True,
             widget="The model's decisions"),
    LogField("time_column", "the timestamp column (sorted; ISO 8601 text, a date type, or "
                            "text in the time format, or numbers with the time unit); with "
                            "chunks of rows and a report, the report's time axis (each "
                            "chunk's first and last row's time)",
             group="time", metavar="COL", guess="time_column", widget="Timestamp column"),
    LogField("time_format", "the strftime format of text times that are not ISO 8601, e.g. "
                            "'%d/%m/%Y %H:%M' (day-first and month-first dates are never "
                            "guessed: 01/03/2024 needs %d/%m/%Y or %m/%d/%Y)",
             kind="text", group="time", metavar="FORMAT", side=2,
             widget="Time format (empty: ISO 8601)"),
    LogField("time_unit", "what a numeric time column counts: epoch s, ms, us or ns, integer "
                          "years, or plain numbers (cut by a numeric window); never guessed "
                          "from their size",
             kind="text", group="time", choices=("s", "ms", "us", "ns", "year", "number"),
             side=2, widget="What a numeric time column counts",
             choice_labels=(("(text or dates)", None), ("epoch seconds", "s"),
                            ("epoch milliseconds", "ms"), ("epoch microseconds", "us"),
                            ("epoch nanoseconds", "ns"), ("integer years", "year"),
                            ("plain numbers (a number as window)", "number"))),
)


def log_field(name: str) -> LogField:
    """The entry of ``name``.

    Examples
    --------
    >>> log_field("time_unit").choices[:2]
    ('s', 'ms')
    """
    for f in LOG_FIELDS:
        if f.name == name:
            return f
    raise KeyError(name)


def log_field_names() -> tuple[str, ...]:
    """The names of :data:`LOG_FIELDS`, in order.

    Examples
    --------
    >>> log_field_names()[:3]
    ('label', 'proba_prefix', 'proba_columns')
    """
    return tuple(f.name for f in LOG_FIELDS)


def log_forms() -> tuple[LogField, ...]:
    """The probability forms, in the table's order.

    Examples
    --------
    >>> [f.name for f in log_forms()]
    ['proba_prefix', 'proba_columns', 'p_true', 'binary_top_score', 'proba_array']
    """
    return tuple(f for f in LOG_FIELDS if f.group == FORM_GROUP)


# --- the shapes: how a log file is written, told by its bytes and its name ------------------
@dataclass(frozen=True)
class LogShape:
    """One way a log file is written: its kind, the names the app offers, the others read.

    Examples
    --------
    >>> [(s.kind, s.suffixes) for s in LOG_SHAPES][1]
    ('jsonl', ('.jsonl', '.ndjson'))
    """

    kind: Literal["csv", "jsonl", "parquet"]
    name: str
    suffixes: tuple[str, ...]
    also: tuple[str, ...] = ()  # names read as this kind too, not offered by the page
    compressible: bool = True  # a text log; Parquet compresses its own columns


#: The shapes read (the kind is told from the bytes first: Parquet's ``PAR1``, a JSON
#: object's ``{``; then from the name).
LOG_SHAPES: tuple[LogShape, ...] = (
    LogShape("csv", "CSV", (".csv",)),
    LogShape("jsonl", "JSON lines", (".jsonl", ".ndjson"), also=(".json",)),
    LogShape("parquet", "Parquet", (".parquet",), compressible=False),
)
#: Compressions read, told by their first bytes (pandas' ``compression="infer"`` goes by the
#: suffix alone; an upload or a file object may have none): pandas' name for each, its suffix.
COMPRESSIONS = ((b"\x1f\x8b", "gzip", ".gz"), (b"BZh", "bz2", ".bz2"),
                (b"\xfd7zXZ\x00", "xz", ".xz"), (b"\x28\xb5\x2f\xfd", "zstd", ".zst"))
