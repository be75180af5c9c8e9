"""Snippets for search results: the part of a text that matched, with the matched words marked.

A query's words (lower-cased, without the commonest English words) match a word of the text
that starts with them, so `deploy` marks `deployed`. The snippet is the window of at most
`width` characters that holds the most distinct query words, cut at word boundaries, with
`…` where the text goes on. A text the query does not match gives its beginning.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import lru_cache

_WORD = re.compile(r"\w+", re.UNICODE)
_STOPWORDS = frozenset(
    "a an and are as at be but by did do does for from had has have how i in is it its me my "
    "no not of on or our so that the their them they this to was we were what when where "
    "which who why will with you your about did say said".split()
)


@dataclass(frozen=True)
class Snippet:
    text: str
    marks: list[tuple[int, int]]  # (start, end) of each matched word in `text`


def query_terms(query: str) -> list[str]:
    """The words of a query worth marking, in order, without repeats."""
    words = [w.lower() for w in _WORD.findall(query)]
    kept = [w for w in words if w not in _STOPWORDS and (len(w) > 1 or w.isdigit())]
    return list(dict.fromkeys(kept))


def snippet(text: str, terms: list[str], width: int = 160) -> Snippet:
    """The part of `text` (whitespace flattened) around its best match, matches marked."""
    flat = " ".join(text.split())
    hits = _matches(flat, terms)
    if len(flat) <= width:
        return Snippet(flat, [(s, e) for s, e, _ in hits])
    start = _best_start(flat, hits, width)
    end = min(len(flat), start + width)
    if start > 0:  # begin at a word
        space = flat.find(" ", start)
        start = space + 1 if 0 <= space < start + 20 else start
    if end < len(flat):  # end at a word
        space = flat.rfind(" ", start, end)
        end = space if space > start + width // 2 else end
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(flat) else ""
    shift = len(prefix) - start
    marks = [(s + shift, e + shift) for s, e, _ in hits if s >= start and e <= end]
    return Snippet(prefix + flat[start:end] + suffix, marks)


def matched_terms(text: str, terms: list[str]) -> frozenset[str]:
    """The terms that some word of `text` starts with."""
    return frozenset(term for _, _, term in _matches(text, terms))


def _matches(text: str, terms: list[str]) -> list[tuple[int, int, str]]:
    """(start, end, term) of each word of `text` that starts with a term."""
    if not terms:
        return []
    found = []
    for match in _term_pattern(tuple(terms)).finditer(text):
        word = match.group()
        lowered = word.lower()
        term = next((t for t in terms if lowered.startswith(t)), lowered)
        found.append((match.start(), match.start() + len(word), term))
    return found


@lru_cache(maxsize=64)
def _term_pattern(terms: tuple[str, ...]) -> re.Pattern[str]:
    """Words that start with one of `terms`: found by the regex engine, not word by word."""
    alternatives = "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})\w*", re.IGNORECASE | re.UNICODE)


def _best_start(text: str, hits: list[tuple[int, int, str]], width: int) -> int:
    """Where the `width` window with the most distinct matched terms begins, centred on them."""
    if not hits:
        return 0
    half = width // 2
    starts = [s for s, _, _ in hits]
    best: list[tuple[int, int, str]] = []
    for s in starts:
        near = hits[bisect_left(starts, s - half) : bisect_right(starts, s + half)]
        window = [h for h in near if h[1] <= s + half]
        if len({t for _, _, t in window}) > len({t for _, _, t in best}):
            best = window
    centre = (best[0][0] + best[-1][1]) // 2
    return max(0, min(len(text) - width, centre - half))


def excerpt(text: str, turn_starts: list[int], terms: list[str], budget: int) -> str:
    """At most about `budget` characters of a turn window, every turn in it represented.

    A window whose text fits is returned as it is. Otherwise each turn (`Speaker: text`, starting
    at the offsets in `turn_starts`) gets a share of the budget, a turn that matches the query
    three times the share of one that does not; a turn shorter than its share is kept whole and
    leaves the rest to the others; a longer one is cut to a snippet around its best match. So a
    hit shows something of every message it stands for, and most of the ones that matched.
    """
    if len(text) <= budget:
        return text
    bounds = [s for s in turn_starts if 0 < s < len(text)]
    turns = [
        text[a:b].rstrip("\n") for a, b in zip([0, *bounds], [*bounds, len(text)], strict=True)
    ]
    weights = [3 if _matches(t, terms) else 1 for t in turns]
    shares = _water_fill([len(t) for t in turns], weights, budget - len(turns) + 1)
    parts = []
    for turn, share in zip(turns, shares, strict=True):
        if len(turn) <= share:
            parts.append(turn)
            continue
        speaker, sep, said = turn.partition(": ")
        label = speaker + sep if sep and len(speaker) <= 40 else ""
        body = said if label else turn
        parts.append(label + snippet(body, terms, max(40, share - len(label))).text)
    return "\n".join(parts)


def _water_fill(lengths: list[int], weights: list[int], budget: int) -> list[int]:
    """Shares of `budget` by weight, where a share over its item's length goes to the others."""
    shares = [0] * len(lengths)
    open_ = set(range(len(lengths)))
    left = budget
    while open_ and left > 0:
        total = sum(weights[i] for i in open_)
        fits = {i for i in open_ if lengths[i] <= left * weights[i] / total}
        if not fits:
            for i in open_:
                shares[i] = int(left * weights[i] / total)
            break
        for i in fits:
            shares[i] = lengths[i]
            left -= lengths[i]
        open_ -= fits
    return shares
