"""Input and data errors as inline messages, next to the control that caused them."""

from __future__ import annotations

import re
from typing import Any

_ITEM = re.compile(r"\d+\.\s")


def reason_markdown(text: str) -> str:
    """A registry message (a sentence, then numbered ways out) as Markdown.

    The ``pudd_core.streams`` messages list "1. ... 2. ... 3. ..." on indented lines, some
    continued on the next line; each numbered way becomes a list item.
    """
    lines = [line.strip() for line in text.splitlines()]
    head, items = (lines[0] if lines else ""), []
    for line in lines[1:]:
        if _ITEM.match(line):
            items.append(line)
        elif line and items:
            items[-1] += " " + line
        elif line:
            head += " " + line
    return "\n".join([head, "", *items]) if items else head


def show_error(where: Any, label: str, err: BaseException, hint: str = "") -> None:
    """``where.error``: **label**: the message (as Markdown), then what to do."""
    where.error(f"**{label}**: {reason_markdown(str(err))}" + (f"\n\n{hint}" if hint else ""),
                icon=":material/error:")
