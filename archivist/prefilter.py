"""Cheap necessary conditions for regular expressions: a string that every match contains.

The rules run dozens of patterns on every sentence, and most of them cannot match it: a
pattern for "X takes place in Y" needs "place" in the sentence. `Needs.of(pattern)` reads
that from the pattern itself, with CPython's own parser of regular expressions, so the
condition cannot disagree with the pattern: `may_match` is False only for a text in which the
pattern finds nothing, and a `str.__contains__` costs far less than a search.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from re import _parser  # type: ignore[attr-defined]  # `sre_parse` before Python 3.11
from typing import Any

# The only characters other than ASCII that match an ASCII letter under re.IGNORECASE, as
# the ASCII letter they match (tests/unit/test_prefilter.py checks every code point).
_CASE_TWINS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
_REPEATS = (_parser.MAX_REPEAT, _parser.MIN_REPEAT, _parser.POSSESSIVE_REPEAT)


def folded(text: str) -> str:
    """`text` as `Needs.may_match` reads it: lowercase, with the characters that match an
    ASCII letter regardless of case written as that letter."""
    return (text if text.isascii() else text.translate(_CASE_TWINS)).lower()


@dataclass(frozen=True)
class Needs:
    """Strings of which every match of a pattern contains one (lowercase ASCII); none when
    the pattern has no such strings (every text may match)."""

    one_of: tuple[str, ...] = ()

    @classmethod
    def of(cls, pattern: re.Pattern[str]) -> Needs:
        best = _best(_needs(_parser.parse(pattern.pattern, pattern.flags))) or frozenset()
        # (a text that holds "moved" holds "move": "moved" need not be looked for)
        return cls(tuple(sorted(s for s in best if not any(t in s for t in best - {s}))))

    def may_match(self, folded_text: str) -> bool:
        """False only if the pattern cannot match the text that `folded` gave `folded_text`."""
        for s in self.one_of:  # (a loop: `any` over a generator costs twice as much here)
            if s in folded_text:
                return True
        return not self.one_of


class Gated:
    """A pattern that is only run on texts that hold one of its `Needs`: it finds what the
    pattern finds, and in most texts a few `in` tests find that there is nothing."""

    def __init__(self, pattern: str | re.Pattern[str], flags: int = 0) -> None:
        self.pattern = re.compile(pattern, flags)
        self.needs = Needs.of(self.pattern)

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.pattern.search(text, pos) if self.needs.may_match(folded(text)) else None

    def match(self, text: str) -> re.Match[str] | None:
        return self.pattern.match(text) if self.needs.may_match(folded(text)) else None

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.pattern.finditer(text) if self.needs.may_match(folded(text)) else iter(())


def _needs(items: Any) -> list[frozenset[str]]:
    """Sets of strings of which a match of the parsed `items` contains one each.

    Only what a match certainly holds counts: runs of literal characters, what every
    alternative of a branch holds, a repeat's body when it repeats at least once, and what a
    lookahead or lookbehind asserts. Anything else (a character class, an optional part, a
    negative assertion) holds nothing certain, which only makes the condition weaker."""
    found: list[frozenset[str]] = []
    run: list[tuple[Any, int]] = []
    for op, av in items:
        if op is _parser.LITERAL:
            run.append((op, av))
            continue
        if run:
            found.append(frozenset({_literal(run)}))
        # (the parser writes "it's|it is" as "it" then "'s" or " is": the run goes with each)
        before, run = run, []
        if op is _parser.SUBPATTERN:
            found += _needs(av[3])
        elif op is _parser.ATOMIC_GROUP:
            found += _needs(av)
        elif op is _parser.ASSERT:
            found += _needs(av[1])
        elif op in _REPEATS and av[0] >= 1:
            found += _needs(av[2])
        elif op is _parser.BRANCH:
            either: set[str] = set()
            for alternative in av[1]:
                best = _best(_needs([*before, *alternative]))
                if best is None:
                    break
                either |= best
            else:
                found.append(frozenset(either))
    if run:
        found.append(frozenset({_literal(run)}))
    return [strings for strings in found if all(s.isascii() for s in strings)]


def _literal(run: list[tuple[Any, int]]) -> str:
    return "".join(chr(code) for _, code in run).lower()


def _best(found: list[frozenset[str]]) -> frozenset[str] | None:
    """The likeliest to rule a text out: the longest shortest string, then the fewest."""
    return max(found, key=lambda strings: (min(map(len, strings)), -len(strings)), default=None)
