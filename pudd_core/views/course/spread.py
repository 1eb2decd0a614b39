"""A lesson's outcome at many seeds, and the sentence that places the live run among them.

A lesson shows one run, the one at the sidebar's seed; whether that run agrees with the
lesson's point is chance. A :class:`Spread` holds the verdict of the same computation at
every seed of :data:`CLASS_SEEDS`, so the page can say how often the point holds and where
the run on screen falls: "over seeds 0–49, PUDD-3 alarmed first in 36 …; this run (seed 0)
is one of the 36 where PUDD-3 alarmed first". The sentence is built from the counts, never
typed.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pudd_core import _validation

__all__ = [
    "CLASS_SEEDS",
    "STORE",
    "Spread",
    "spread_of",
    "stored_entry",
    "verdicts_from",
    "write_store",
]

#: The lessons' spreads at :data:`CLASS_SEEDS` for their default settings, computed once by
#: ``python scripts/course_defaults.py --write`` (a page reads them instead of running the
#: lesson 50 times: 4 to 21 s on a busy 2-core machine); tests/views/test_course.py holds
#: them to the computation. A setting not in it, or a missing file, is computed.
STORE = Path(__file__).with_name("spreads.json")

#: The seeds a lesson's spread is computed over (the sidebar's seeds 0 to 49).
CLASS_SEEDS: tuple[int, ...] = tuple(range(50))


@dataclass(frozen=True)
class Spread:
    """One verdict per seed, and what each verdict means in words.

    ``phrases`` maps every possible verdict, in the order the sentence names them, to a
    clause that reads after "in 12 runs" and after "where" ("PUDD-3 alarmed first").

    Examples
    --------
    >>> s = Spread((0, 1, 2, 3), ("a", "b", "a", "a"), {"a": "A won", "b": "B won"})
    >>> s.count("a"), s.verdict_at(1)
    (3, 'b')
    >>> print(s.sentence(1, "b"))  # doctest: +NORMALIZE_WHITESPACE
    Over seeds 0–3 (4 runs): A won in 3, B won in 1.
    This run (seed 1) is one of the 1 where B won.
    >>> print(s.sentence(9, "a"))  # doctest: +NORMALIZE_WHITESPACE
    Over seeds 0–3 (4 runs): A won in 3, B won in 1.
    This run (seed 9) is not one of them; in it A won.
    """

    seeds: tuple[int, ...]
    verdicts: tuple[str, ...]
    phrases: Mapping[str, str]

    def __post_init__(self) -> None:
        if len(self.seeds) != len(self.verdicts) or not self.seeds:
            raise ValueError(f"{len(self.seeds)} seeds need as many verdicts, got "
                             f"{len(self.verdicts)}")
        unknown = set(self.verdicts) - set(self.phrases)
        if unknown:
            raise ValueError(f"verdicts {sorted(unknown)} have no phrase")

    def count(self, verdict: str) -> int:
        """How many seeds gave ``verdict``."""
        return sum(v == verdict for v in self.verdicts)

    def share(self, verdict: str) -> float:
        """The share of the seeds that gave ``verdict``."""
        return self.count(verdict) / len(self.seeds)

    def verdict_at(self, seed: int) -> str | None:
        """The verdict at ``seed`` (None: not one of the seeds)."""
        return dict(zip(self.seeds, self.verdicts, strict=True)).get(seed)

    def counts_text(self) -> str:
        """"Over seeds 0–49 (50 runs): A in 36, B in 10, C in 4."."""
        parts = ", ".join(f"{self.phrases[v]} in {self.count(v)}" for v in self.phrases)
        return f"Over {self._seeds_text()} ({len(self.seeds)} runs): {parts}."

    def sentence(self, seed: int, verdict: str) -> str:
        """The counts, then where the run at ``seed`` (whose verdict is ``verdict``) falls."""
        if verdict not in self.phrases:
            raise _validation.ParameterError(
                "verdict", f"verdict must be one of {sorted(self.phrases)}, got {verdict!r}")
        if seed in self.seeds:
            where = (f"This run (seed {seed}) is one of the {self.count(verdict)} where "
                     f"{self.phrases[verdict]}.")
        else:
            where = f"This run (seed {seed}) is not one of them; in it {self.phrases[verdict]}."
        return f"{self.counts_text()} {where}"

    def _seeds_text(self) -> str:
        lo, hi = min(self.seeds), max(self.seeds)
        if self.seeds == tuple(range(lo, hi + 1)):
            return f"seeds {lo}–{hi}"
        return "seeds " + ", ".join(map(str, self.seeds))


def spread_of(verdict: Callable[[int], str], phrases: Mapping[str, str],
              seeds: Iterable[int] = CLASS_SEEDS) -> Spread:
    """The :class:`Spread` of ``verdict(seed)`` over ``seeds``.

    Examples
    --------
    >>> spread_of(lambda s: "even" if s % 2 == 0 else "odd",
    ...           {"even": "it was even", "odd": "it was odd"}, range(5)).count("even")
    3
    """
    chosen = tuple(int(s) for s in seeds)
    return Spread(chosen, tuple(verdict(s) for s in chosen), dict(phrases))


@functools.lru_cache(maxsize=1)
def _store(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{path} is not JSON ({err}): run scripts/course_defaults.py "
                         "--write") from None
    if not isinstance(data, dict) or data.get("seeds") != list(CLASS_SEEDS):
        raise ValueError(f"{path} is not a store of the course's spreads at seeds "
                         f"{CLASS_SEEDS[0]}-{CLASS_SEEDS[-1]}: run scripts/course_defaults.py "
                         "--write")
    return data


def stored_entry(lesson: str, setting: str, path: Path | None = None) -> dict[str, Any] | None:
    """The stored per-seed record of ``lesson`` at ``setting`` (None: not stored).

    Examples
    --------
    >>> stored_entry("lesson1", "no such setting") is None
    True
    """
    entry = _store(path or STORE).get(lesson, {}).get(setting)
    return dict(entry) if isinstance(entry, dict) else None


def write_store(entries: Mapping[str, Mapping[str, Mapping[str, Any]]],
                path: Path | None = None) -> Path:
    """Write ``entries`` (lesson → setting → record) as the store, with its seeds."""
    target = path or STORE
    data = {"seeds": list(CLASS_SEEDS), **{k: dict(v) for k, v in entries.items()}}
    text = json.dumps(data, indent=1, ensure_ascii=False)
    # one line per list of verdicts or counts: a rewrite's diff shows the seeds that changed
    text = re.sub(r"\[\s+([^\[\]{}]*?)\s+\]",
                  lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]", text)
    target.write_text(text + "\n", encoding="utf-8")
    _store.cache_clear()
    return target


def verdicts_from(entry: Mapping[str, Any], name: str, phrases: Mapping[str, str]) -> Spread:
    """The :class:`Spread` of a stored record's ``name`` list; refuses unknown verdicts."""
    verdicts = entry.get(name)
    if not isinstance(verdicts, list) or len(verdicts) != len(CLASS_SEEDS):
        raise ValueError(f"the stored {name!r} must list {len(CLASS_SEEDS)} verdicts: run "
                         "scripts/course_defaults.py --write")
    return Spread(CLASS_SEEDS, tuple(str(v) for v in verdicts), dict(phrases))
