"""The claims check written out: a table of verdicts and the Markdown section beside it.

:func:`claims_frame` is the page's table, one row per verdict; :func:`claims_markdown` the
section the README and the page show.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pudd_core.reproduction.claims import HOLDS, NOT_CHECKABLE, ClaimCheck

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["claims_frame", "claims_markdown", "verdict_text"]


def claims_frame(checks: Sequence[ClaimCheck]) -> pd.DataFrame:
    """The checks as a table, one row per claim and evidence.

    Examples
    --------
    >>> from pudd_core.reproduction.claims import check_claims, paper_cells
    >>> claims_frame(check_claims(paper_cells(), "paper")).columns.tolist()
    ['claim', 'statement', 'evidence', 'verdict', 'significance', 'finding', 'test']
    """
    import pandas as pd

    return pd.DataFrame([c.__dict__ for c in checks],
                        columns=["claim", "statement", "evidence", "verdict", "significance",
                                 "finding", "test"])


def verdict_text(c: ClaimCheck, *, long: bool = False) -> str:
    """``**holds**``, with a counted claim's significance beside it."""
    if not c.significance or c.verdict == NOT_CHECKABLE:
        return f"**{c.verdict}**"
    if c.verdict != HOLDS:  # a wrong count: whether it beats chance says nothing more
        return f"**{c.verdict}** (the count is wrong)" if long else f"**{c.verdict}**"
    if long:
        return f"**{c.verdict}** (the count is right; the count is {c.significance} against chance)"
    return f"**{c.verdict}** (count {c.significance})"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def claims_markdown(paper: Sequence[ClaimCheck], ours: Sequence[ClaimCheck],
                    sources: Sequence[str] = ()) -> str:
    """The claims report: a verdict table (paper, ours), then each claim's findings and tests.

    Examples
    --------
    >>> from pudd_core.reproduction.claims import check_claims, paper_cells
    >>> text = claims_markdown(check_claims(paper_cells(), "paper"), [])
    >>> text.splitlines()[0]
    "# The paper's claims, checked"
    """
    by_claim: dict[str, dict[str, ClaimCheck]] = {}
    for c in (*paper, *ours):
        by_claim.setdefault(c.claim, {})[c.evidence] = c
    lines = [
        "# The paper's claims, checked",
        "",
        "Each observation of the paper's Results section (1-4) and appendix (5-6), and each "
        "counted claim, evaluated on the paper's own Tables 1 and 2 and on our committed "
        "reproductions. Verdicts: **holds** (the numbers give it and the test rejects at "
        "0.05), **not significant** (the numbers point that way, the test does not reject), "
        "**does not hold**, **not checkable** (the numbers are not there). A counted claim "
        "(\"first in 17 of 24\") holds when the count is right; whether the count is "
        "significant (above chance, a one-sided binomial test) is said beside it. Written by "
        "`python -m pudd_core reproduce --claims`.",
        "",
        *(f"- Our evidence: {s}" for s in sources),
        "",
        "| claim | the paper says | on its own tables | on our runs |",
        "| --- | --- | --- | --- |",
    ]
    for cid, by in by_claim.items():
        statement = next(iter(by.values())).statement
        cols = [verdict_text(by[e]) if e in by else "–" for e in ("paper", "ours")]
        lines.append(f"| {cid} | {_cell(statement)} | {cols[0]} | {cols[1]} |")
    for cid, by in by_claim.items():
        lines += ["", f"## {cid}. {next(iter(by.values())).statement}", ""]
        for e, label in (("paper", "Paper's tables"), ("ours", "Our runs")):
            if e in by:
                c = by[e]
                lines.append(f"- {label}: {verdict_text(c, long=True)}. {c.finding}. "
                             f"Test: {c.test}")
    return "\n".join(lines) + "\n"
