"""Lesson 6: CIFAR-10-CD's interest drift: the share of labels a change flips."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pudd_core.views.course.questions import Question, option_of

__all__ = [
    "cifar_question",
    "flipped_share",
]


def flipped_share(before: Sequence[int], after: Sequence[int], *, n_classes: int = 10) -> float:
    """Share of a CIFAR-10-CD chunk whose label flips when the positive classes change.

    Every chunk holds the same number of images of each class, so each class whose membership
    changed flips ``1 / n_classes`` of the chunk.

    Examples
    --------
    >>> flipped_share((0, 1, 2), (0, 1, 7))
    0.2
    """
    return len(set(before) ^ set(after)) / n_classes


def cifar_question(positive: Sequence[Sequence[int]], drift_chunks: Sequence[int],
                   class_names: Sequence[str]) -> Question | None:
    """"What share of the images changes label at the first drift?", from the interests.

    Examples
    --------
    >>> q = cifar_question([(0, 1, 2), (0, 1, 2), (0, 1, 7)], [2], [str(i) for i in range(10)])
    >>> q.options[q.answers[0]]
    '20%'
    """
    if not drift_chunks:
        return None
    d = drift_chunks[0]
    share = flipped_share(positive[d - 1], positive[d], n_classes=len(class_names))
    names = [", ".join(class_names[c] for c in positive[i]) for i in (d - 1, d)]
    options = ("0%", "10%", "20%", "30%", "40% or more")
    why = (f"Chunk {d - 1}'s positive classes are {names[0]}; chunk {d}'s are {names[1]}. "
           f"{len(set(positive[d - 1]) ^ set(positive[d]))} class(es) changed side, each "
           f"{1 / len(class_names):.0%} of a chunk, so {share:.0%} of the images changed label "
           "while the images themselves did not change at all: a detector on the images alone "
           "sees nothing; one on the classifier's predictions sees errors on that share.")
    return Question(
        "lesson6_share", f"drift at chunk {d}: {names[0]} → {names[1]}",
        f"At chunk {d} the positive classes change from {names[0]} to {names[1]}. What share "
        "of that chunk's images changes label?",
        options, (option_of(share, [0.0, 0.1, 0.2, 0.3, np.inf]),), why,
        ("The images do not change, but their labels do.", "", "", "", ""),
    )
