"""Snippets for search results: the part of a text that matched, with the matched words marked.

A query's words (lower-cased, without the commonest English words) match a word of the text
that starts with them, so `deploy` marks `deployed`. The snippet is the window of at most
`width` characters that holds the most distinct query words, cut at word boundaries, with
`…` where the text goes on. A text the query does not match gives its beginning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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


def _matches(text: str, terms: list[str]) -> list[tuple[int, int, str]]:
    """(start, end, term) of each word of `text` that starts with a term."""
    if not terms:
        return []
    found = []
    for word in _WORD.finditer(text):
        lowered = word.group().lower()
        term = next((t for t in terms if lowered.startswith(t)), None)
        if term is not None:
            found.append((word.start(), word.end(), term))
    return found


def _best_start(text: str, hits: list[tuple[int, int, str]], width: int) -> int:
    """Where the `width` window with the most distinct matched terms begins, centred on them."""
    if not hits:
        return 0
    half = width // 2
    best: list[tuple[int, int, str]] = []
    for s, _, _ in hits:
        window = [h for h in hits if s - half <= h[0] and h[1] <= s + half]
        if len({t for _, _, t in window}) > len({t for _, _, t in best}):
            best = window
    centre = (best[0][0] + best[-1][1]) // 2
    return max(0, min(len(text) - width, centre - half))
